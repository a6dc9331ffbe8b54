#include "arena.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK 65536

struct arena_chunk {
	struct arena_chunk *next;
	size_t used, cap;
	char data[];
};

char *arena_copy(struct arena *a, const char *s, size_t len)
{
	if (!a->head || a->head->cap - a->head->used < len + 1) {
		size_t cap = len + 1 > ARENA_CHUNK ? len + 1 : ARENA_CHUNK;
		struct arena_chunk *c = xmalloc(sizeof(*c) + cap);
		*c = (struct arena_chunk){ .next = a->head, .cap = cap };
		a->head = c;
	}
	char *out = a->head->data + a->head->used;
	memcpy(out, s, len);
	out[len] = '\0';
	a->head->used += len + 1;
	return out;
}

void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_chunk *next = a->head->next;
		free(a->head);
		a->head = next;
	}
}
