/* A radix sort of 64-bit keys, ascending: the order of a million steps by
 * start or by weight in milliseconds, where a comparison sort through
 * pointers took a tenth of a second or more. A step's key is its value in
 * the high 32 bits and its index in the low ones, so one array of 8 bytes
 * a step is both the order and the keys. */
#ifndef BUILDWALL_RADIX_H
#define BUILDWALL_RADIX_H
#include <stddef.h>
#include <stdint.h>

/* Sort by the bits from `low_bit` up. It is stable: keys whose lower bits
 * are in order already (indexes, filled in index order) come out sorted by
 * the whole key. */
void radix_sort(uint64_t *v, size_t n, int low_bit);
/* A 32-bit key of a double >= 0 that sorts as the double does, except
 * that doubles this close together may share a key (float's precision). */
uint32_t radix_key32_of(double v);
#endif
