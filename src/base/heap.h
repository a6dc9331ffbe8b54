/* A binary min-heap of (key, value) pairs, smallest key first, the smaller
 * value first on equal keys: the ready queue of the scheduler, and the job
 * slots of a recorded build. */
#ifndef BUILDWALL_HEAP_H
#define BUILDWALL_HEAP_H

#include <stddef.h>

struct heap_item {
	double key;
	size_t value;
};

struct heap {
	struct heap_item *v;
	size_t n, alloc;
};

void heap_push(struct heap *h, double key, size_t value);
/* The smallest item; the heap must not be empty. */
struct heap_item heap_pop(struct heap *h);
void heap_free(struct heap *h);

#endif
