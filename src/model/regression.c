#include "regression.h"
#include "abstats.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/* One side's log walls kept (inside the fence): their count, mean and
 * squares about it. */
struct side {
	size_t kept;
	double mean, squares;
};

static struct side judge_side(const double *walls, size_t n, const struct regression_options *o, bool *fenced)
{
	double limit = o->fence_floor >= 0 ? fence_limit(walls, n, o->fence_floor) : INFINITY;
	struct side s = { 0 };
	for (size_t i = 0; i < n; i++) {
		fenced[i] = log(walls[i]) > limit;
		if (!fenced[i]) {
			s.mean += log(walls[i]);
			s.kept++;
		}
	}
	s.mean /= (double)s.kept;
	for (size_t i = 0; i < n; i++)
		if (!fenced[i])
			s.squares += (log(walls[i]) - s.mean) * (log(walls[i]) - s.mean);
	return s;
}

static double kept_median(const double *walls, size_t n, const bool *fenced)
{
	double *v = xcalloc(n, sizeof(double));
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (!fenced[i])
			v[kept++] = walls[i];
	double m = median_of(v, kept);
	free(v);
	return m;
}

void regression_judge(const double *ref_walls, size_t n_ref, const double *cand_walls, size_t n_cand,
		      const struct regression_options *o, struct regression *r, bool *fenced_ref, bool *fenced_cand)
{
	bool *fr = fenced_ref ? fenced_ref : xcalloc(n_ref, sizeof(bool));
	bool *fc = fenced_cand ? fenced_cand : xcalloc(n_cand, sizeof(bool));
	struct side ref = judge_side(ref_walls, n_ref, o, fr), cand = judge_side(cand_walls, n_cand, o, fc);
	*r = (struct regression){ .n_ref = n_ref, .n_cand = n_cand, .ref_fenced = n_ref - ref.kept,
				  .cand_fenced = n_cand - cand.kept, .ref_median = kept_median(ref_walls, n_ref, fr),
				  .cand_median = kept_median(cand_walls, n_cand, fc), .ratio_lo = NAN, .ratio_hi = NAN, .ratio_least = NAN };
	if (!fenced_ref)
		free(fr);
	if (!fenced_cand)
		free(fc);
	double diff = cand.mean - ref.mean;
	r->ratio = exp(diff);
	size_t df = ref.kept + cand.kept >= 3 ? ref.kept + cand.kept - 2 : 0;
	if (!df)
		return;
	double pooled = (ref.squares + cand.squares) / (double)df;
	double se = sqrt(pooled * (1.0 / (double)ref.kept + 1.0 / (double)cand.kept));
	double t = t_quantile(0.95, (unsigned)df);
	r->ratio_lo = exp(diff - t * se);
	r->ratio_hi = exp(diff + t * se);
	r->ratio_least = exp(diff - t_quantile(0.90, (unsigned)df) * se);
	r->decided = true;
	r->over = regression_over(r->ratio, r->ratio_lo, o->max_regression);
}

bool regression_over(double ratio, double least, double max_regression)
{
	return ratio - 1 > max_regression && least > 1;
}

bool regression_relative(const double *walls, const double *controls, size_t n, double *out)
{
	for (size_t i = 0; i < n; i++)
		if (!(controls[i] > 0))
			return false;
	for (size_t i = 0; i < n; i++)
		out[i] = walls[i] / controls[i];
	return true;
}
