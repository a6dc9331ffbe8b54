#include "heap.h"

#include "util.h"

#include <stdbool.h>
#include <stdlib.h>

static bool before(struct heap_item a, struct heap_item b)
{
	return a.key != b.key ? a.key < b.key : a.value < b.value;
}

void heap_push(struct heap *h, double key, size_t value)
{
	if (h->n == h->alloc) {
		h->alloc = h->alloc ? 2 * h->alloc : 16;
		h->v = xrealloc(h->v, h->alloc * sizeof(*h->v));
	}
	struct heap_item x = { key, value };
	size_t i = h->n++;
	while (i && before(x, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

struct heap_item heap_pop(struct heap *h)
{
	struct heap_item top = h->v[0], x = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(h->v[c + 1], h->v[c]))
			c++;
		if (!before(h->v[c], x))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
	return top;
}

void heap_free(struct heap *h)
{
	free(h->v);
	*h = (struct heap){ 0 };
}
