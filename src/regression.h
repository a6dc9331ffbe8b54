/* Did the module get slower? check's decision, on two sets of recorded
 * builds: the reference (a commit, a label) and the candidate (the builds
 * in the tree now). The builds are not paired (each side was built on its
 * own), so the estimate is the ratio of the geometric means of the walls,
 * and its 95 % interval Student's t on the difference of the mean
 * logarithms with the two sides' variance pooled (the same machine and
 * module: one noise), n_ref + n_cand - 2 degrees of freedom, the same t
 * quantiles as ab's. With fewer than three builds in all there is no
 * interval: too few to decide.
 *
 * Over: the candidate is slower by more than the allowed share, and the
 * interval excludes no change (a slowdown beyond noise). */
#ifndef BUILDWALL_REGRESSION_H
#define BUILDWALL_REGRESSION_H

#include <stdbool.h>
#include <stddef.h>

struct regression {
	size_t n_ref, n_cand;
	double ref_median, cand_median;
	double ratio, ratio_lo, ratio_hi;	/* candidate / reference; lo, hi NaN without an interval */
	bool decided;		/* an interval could be made */
	bool over;		/* slower beyond noise and beyond max_regression */
};

/* Every wall > 0; n_ref, n_cand >= 1. max_regression: a share (0.05). */
void regression_judge(const double *ref, size_t n_ref, const double *cand, size_t n_cand, double max_regression,
		      struct regression *r);

#endif
