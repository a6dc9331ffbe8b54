#include "regression.h"
#include "abstats.h"
#include "stats.h"

#include <math.h>

static double mean_log(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += log(v[i]);
	return s / (double)n;
}

static double squares_about(const double *v, size_t n, double mean)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += (log(v[i]) - mean) * (log(v[i]) - mean);
	return s;
}

void regression_judge(const double *ref, size_t n_ref, const double *cand, size_t n_cand, double max_regression,
		      struct regression *r)
{
	*r = (struct regression){ .n_ref = n_ref, .n_cand = n_cand, .ref_median = median_of(ref, n_ref),
				  .cand_median = median_of(cand, n_cand), .ratio_lo = NAN, .ratio_hi = NAN };
	double mr = mean_log(ref, n_ref), mc = mean_log(cand, n_cand);
	double diff = mc - mr;
	r->ratio = exp(diff);
	size_t df = n_ref + n_cand >= 3 ? n_ref + n_cand - 2 : 0;
	if (!df)
		return;
	double pooled = (squares_about(ref, n_ref, mr) + squares_about(cand, n_cand, mc)) / (double)df;
	double se = sqrt(pooled * (1.0 / (double)n_ref + 1.0 / (double)n_cand));
	double t = t_quantile_95((unsigned)df);
	r->ratio_lo = exp(diff - t * se);
	r->ratio_hi = exp(diff + t * se);
	r->decided = true;
	r->over = r->ratio - 1 > max_regression && r->ratio_lo > 1;
}
