#include "radix.h"
#include "util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void radix_sort(uint64_t *v, size_t n, int low_bit)
{
	uint64_t *tmp = xmalloc((n ? n : 1) * sizeof(*tmp)), *a = v, *b = tmp;
	size_t count[257];
	/* A byte a pass, least significant first: 256 buckets stay in cache
	 * (65536 did not: the scatter thrashed it); a byte that is the same in
	 * every key (the high bytes of times in ms) is no pass at all. */
	for (int shift = low_bit; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(a[i] >> shift & 0xff) + 1]++;
		bool constant = false;
		for (size_t d = 1; d <= 256; d++)
			constant |= count[d] == n;
		if (constant)
			continue;
		for (size_t d = 1; d <= 256; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			b[count[a[i] >> shift & 0xff]++] = a[i];
		uint64_t *swap = a;
		a = b;
		b = swap;
	}
	if (a != v)
		memcpy(v, a, n * sizeof(*v));
	free(tmp);
}

uint32_t radix_key32_of(double v)
{
	if (!(v > 0))
		return 0;	/* 0, -0 and NaN first */
	float f = (float)v;	/* rounding keeps the order, ties aside */
	uint32_t bits;
	memcpy(&bits, &f, sizeof(bits));	/* IEEE 754: positive floats order as their bits */
	return bits;
}
