/* A against B: paired runs (one A and one B per pair, from interleaved
 * ABBA blocks) compared by the ratio B/A. The estimate is the geometric
 * mean of the pairs' ratios; its 95 % interval is Student's t interval on
 * their logarithms (n - 1 degrees of freedom). Unlike a bootstrap, it keeps
 * its 95 % at the 3 to 6 pairs a build comparison can afford: a percentile
 * bootstrap of 3 pairs is their min-max, which excludes 1 whenever all three
 * land on one side, a quarter of A/A runs. One slow run widens the interval
 * instead of faking a difference. B differs from A when it excludes 1. */
#ifndef BUILDWALL_ABSTATS_H
#define BUILDWALL_ABSTATS_H

#include <stdbool.h>
#include <stddef.h>

struct ab_result {
	size_t n;		/* pairs */
	double median_a, median_b;
	double ratio, ratio_lo, ratio_hi;	/* B/A and its 95 % interval (0, inf with one pair) */
	/* B/A's one-sided 95 % lower bound (0 with one pair): a gate that asks
	 * only "is B slower?" errs on that side 5 % of the time with it, where
	 * ratio_lo, which errs there 2.5 %, would give away power. */
	double ratio_least;
	bool differs;		/* the interval excludes 1 */
};

/* Which side runs `run`-th (0: A, 1: B): blocks of two pairs, ABBA then
 * BAAB, so a drift of the machine falls on both sides alike. */
int ab_side_at(size_t run);
/* a[i] and b[i] are one pair; every value > 0. n >= 1. */
void ab_compare(const double *a, const double *b, size_t n, struct ab_result *r);
/* "B is 7.4 % faster (95 % CI 5.1-9.8 %)", "B is 3.0 % slower (…)", or
 * "no difference detectable: |B/A - 1| < 1.2 % at 95 %"; `what` names the
 * measure ("wall", "CPU"). Owned by the caller. */
char *ab_verdict(const struct ab_result *r, const char *what);
/* Half the interval's width, as a share of the ratio: the precision. */
double ab_half_width(const struct ab_result *r);
/* The quantile of Student's t with `df` >= 1 degrees of freedom that
 * holds `central` of it between its negative and itself: 0.95 gives the
 * two-sided 95 % quantile (12.706 for 1, 4.303 for 2, 1.960 in the limit),
 * 0.90 the one-sided 95 % one (6.314 for 1, 2.132 for 4). */
double t_quantile(double central, unsigned df);

#endif
