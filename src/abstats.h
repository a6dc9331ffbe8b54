/* A against B: paired runs (one A and one B per pair, from interleaved
 * ABBA blocks) compared by the ratio B/A. The estimate is the median of
 * the pairs' ratios; its 95 % interval is a percentile bootstrap over the
 * pairs (4000 resamples, a fixed seed, so the same runs give the same
 * interval). B differs from A when the interval excludes 1. */
#ifndef BUILDWALL_ABSTATS_H
#define BUILDWALL_ABSTATS_H

#include <stdbool.h>
#include <stddef.h>

#define AB_RESAMPLES 4000

struct ab_result {
	size_t n;		/* pairs */
	double median_a, median_b;
	double ratio, ratio_lo, ratio_hi;	/* B/A and its 95 % interval */
	bool differs;		/* the interval excludes 1 */
};

/* a[i] and b[i] are one pair; every value > 0. n >= 1. */
void ab_compare(const double *a, const double *b, size_t n, struct ab_result *r);
/* "B is 7.4 % faster (95 % CI 5.1-9.8 %)", "B is 3.0 % slower (…)", or
 * "no difference detectable: |B/A - 1| < 1.2 % at 95 %"; `what` names the
 * measure ("wall", "CPU"). Owned by the caller. */
char *ab_verdict(const struct ab_result *r, const char *what);
/* Half the interval's width, as a share of the ratio: the precision. */
double ab_half_width(const struct ab_result *r);

#endif
