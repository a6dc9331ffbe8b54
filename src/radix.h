/* A radix sort of (64-bit key, index) pairs, ascending by key, equal keys
 * in index order (it is stable): the order of a million steps by start or
 * by weight in tens of milliseconds, where a comparison sort through pointers took
 * a tenth of a second or more. */
#ifndef BUILDWALL_RADIX_H
#define BUILDWALL_RADIX_H
#include <stddef.h>
#include <stdint.h>

struct radix_item {
	uint64_t key;
	uint32_t index;
};

void radix_sort(struct radix_item *v, size_t n);
/* The key of a double >= 0 that sorts as the double does. */
uint64_t radix_key_of(double v);
#endif
