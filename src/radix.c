#include "radix.h"
#include "util.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void radix_sort(struct radix_item *v, size_t n)
{
	struct radix_item *tmp = xmalloc((n ? n : 1) * sizeof(*tmp)), *a = v, *b = tmp;
	size_t count[257];
	/* A byte a pass, least significant first: 256 buckets stay in cache
	 * (65536 did not: the scatter thrashed it); a byte that is the same in
	 * every key (the high bytes of times in ms) is no pass at all. */
	for (int shift = 0; shift < 64; shift += 8) {
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(a[i].key >> shift & 0xff) + 1]++;
		bool constant = false;
		for (size_t d = 1; d <= 256; d++)
			constant |= count[d] == n;
		if (constant)
			continue;
		for (size_t d = 1; d <= 256; d++)
			count[d] += count[d - 1];
		for (size_t i = 0; i < n; i++)
			b[count[a[i].key >> shift & 0xff]++] = a[i];
		struct radix_item *swap = a;
		a = b;
		b = swap;
	}
	if (a != v)
		memcpy(v, a, n * sizeof(*v));
	free(tmp);
}

uint64_t radix_key_of(double v)
{
	uint64_t bits;
	if (!(v > 0))
		return 0;	/* 0, -0 and NaN first */
	memcpy(&bits, &v, sizeof(bits));	/* IEEE 754: positive doubles order as their bits */
	return bits;
}
