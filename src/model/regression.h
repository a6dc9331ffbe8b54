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
 * Outliers first: each side's slow outliers fenced (stats.h:
 * fence_outliers), the estimate and interval on the walls kept. One cold
 * build among three otherwise widened the interval past any regression
 * worth catching (+26 %, 95 % CI -31 to +132 %, for a TU made 55 %
 * slower); bench/check_power.sh measures the gate's false positives and
 * power with and without the fence.
 *
 * Over (regression_over): the candidate is slower by more than the allowed
 * share, and slower beyond noise: here, builds of two sittings, the
 * two-sided 95 % interval's lower end is above 1. The interval holds the
 * noise within each side, not the drift of the machine between the
 * sittings, so the stricter end is what keeps an unchanged build within
 * (bench/check_power.sh: 4.6-15.1 % false positives with a neighbour on
 * the runner, 5.8-19.1 % on the one-sided bound). Pairs built in turn in
 * one sitting (check --against-dir, abstats.h) cancel the drift and take
 * the one-sided bound: the gate asks one question.
 *
 * The machine's drift between sittings (a shared runner 10-30 % slower
 * an hour later) is not noise within a side: it moves a whole side. Where
 * every build has its sitting's control compile (probe/control.h), the
 * walls are judged in units of it (regression_relative): a machine 25 %
 * slower makes both 25 % slower, and their ratio stays. */
#ifndef BUILDWALL_REGRESSION_H
#define BUILDWALL_REGRESSION_H

#include <stdbool.h>
#include <stddef.h>

struct regression_options {
	double max_regression;	/* a share: 0.05 */
	double fence_floor;	/* fence_outliers' floor; negative: no fence */
};

struct regression {
	size_t n_ref, n_cand;	/* the builds given */
	size_t ref_fenced, cand_fenced;	/* of those, fenced as outliers */
	double ref_median, cand_median;
	double ratio, ratio_lo, ratio_hi;	/* candidate / reference; lo, hi NaN without an interval */
	double ratio_least;	/* the one-sided 95 % lower bound (said, not gated on); NaN without an interval */
	bool decided;		/* an interval could be made */
	bool over;		/* slower beyond noise and beyond max_regression */
};

/* Every wall > 0; n_ref, n_cand >= 1. fenced_ref, fenced_cand: NULL, or
 * n_ref and n_cand flags, set for the walls fenced. The medians are of
 * the walls kept. */
void regression_judge(const double *ref, size_t n_ref, const double *cand, size_t n_cand,
		      const struct regression_options *o, struct regression *r, bool *fenced_ref, bool *fenced_cand);
/* The gate: a ratio above 1 + max_regression whose lower bound `least`
 * (the interval's lower end across sittings, the one-sided bound in
 * pairs) is above 1. */
bool regression_over(double ratio, double least, double max_regression);
/* out[i] = walls[i] / controls[i]: each wall in units of its sitting's
 * control. False, out untouched, when a control is missing (0 or less). */
bool regression_relative(const double *walls, const double *controls, size_t n, double *out);

#endif
