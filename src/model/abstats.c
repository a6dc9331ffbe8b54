#include "abstats.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/* P(|T| < t) for Student's t with integer df, in closed form (the finite
 * series in theta = atan(t / sqrt(df)), odd and even df apart). */
static double t_central_probability(double t, unsigned df)
{
	double theta = atan(t / sqrt(df)), c2 = cos(theta) * cos(theta), s = sin(theta);
	if (df % 2 == 0) {
		double term = 1, sum = 1;
		for (unsigned k = 2; k < df; k += 2) {
			term *= c2 * (k - 1) / k;
			sum += term;
		}
		return s * sum;
	}
	double sum = 0;
	if (df > 1) {
		double term = cos(theta);
		sum = term;
		for (unsigned k = 3; k < df; k += 2) {
			term *= c2 * (k - 1) / k;
			sum += term;
		}
	}
	return 2 / acos(-1) * (theta + s * sum);
}

double t_quantile(double central, unsigned df)
{
	double lo = 0, hi = 1000;	/* the two-sided 95 % quantile for df 1 is 12.7 */
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;
		if (t_central_probability(mid, df) < central)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

int ab_side_at(size_t run)
{
	static const int orders[2][4] = { { 0, 1, 1, 0 }, { 1, 0, 0, 1 } };
	return orders[(run / 4) % 2][run % 4];
}

void ab_compare(const double *a, const double *b, size_t n, struct ab_result *r)
{
	double mean = 0, squares = 0;
	for (size_t i = 0; i < n; i++)
		mean += log(b[i] / a[i]);
	mean /= n;
	for (size_t i = 0; i < n; i++) {
		double d = log(b[i] / a[i]) - mean;
		squares += d * d;
	}
	*r = (struct ab_result){ .n = n, .median_a = median_of(a, n), .median_b = median_of(b, n),
				 .ratio = exp(mean), .ratio_lo = 0, .ratio_hi = INFINITY, .ratio_least = 0 };
	if (n >= 2) {
		double se = sqrt(squares / (n - 1) / n), half = t_quantile(0.95, n - 1) * se;
		r->ratio_lo = exp(mean - half);
		r->ratio_hi = exp(mean + half);
		r->ratio_least = exp(mean - t_quantile(0.90, n - 1) * se);
	}
	r->differs = r->ratio_lo > 1 || r->ratio_hi < 1;
}

double ab_half_width(const struct ab_result *r)
{
	return r->ratio > 0 ? (r->ratio_hi - r->ratio_lo) / 2 / r->ratio : INFINITY;
}

char *ab_verdict(const struct ab_result *r, const char *what)
{
	if (r->n < 2)
		return xasprintf("%s: no difference detectable from one pair (B/A %.3f)", what, r->ratio);
	if (!r->differs) {
		double lo = fabs(r->ratio_lo - 1), hi = fabs(r->ratio_hi - 1);
		return xasprintf("%s: no difference detectable: |B/A - 1| < %.1f %% at 95 %%", what, 100 * (lo > hi ? lo : hi));
	}
	bool faster = r->ratio < 1;
	/* For "faster", the saving 1 - B/A; its interval runs the other way. */
	double est = faster ? 1 - r->ratio : r->ratio - 1;
	double lo = faster ? 1 - r->ratio_hi : r->ratio_lo - 1, hi = faster ? 1 - r->ratio_lo : r->ratio_hi - 1;
	return xasprintf("%s: B is %.1f %% %s (95 %% CI %.1f-%.1f %%)", what, 100 * est, faster ? "faster" : "slower",
			 100 * lo, 100 * hi);
}
