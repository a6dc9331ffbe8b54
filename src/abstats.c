#include "abstats.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* xorshift64*: a fixed, portable sequence for the bootstrap. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 2685821657736338717ULL;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

void ab_compare(const double *a, const double *b, size_t n, struct ab_result *r)
{
	double *ratios = xcalloc(n, sizeof(double)), *sample = xcalloc(n, sizeof(double));
	double *boot = xcalloc(AB_RESAMPLES, sizeof(double));
	for (size_t i = 0; i < n; i++)
		ratios[i] = b[i] / a[i];
	*r = (struct ab_result){ .n = n, .median_a = median_of(a, n), .median_b = median_of(b, n),
				 .ratio = median_of(ratios, n) };
	uint64_t state = 0x9e3779b97f4a7c15ULL;
	for (size_t k = 0; k < AB_RESAMPLES; k++) {
		for (size_t i = 0; i < n; i++)
			sample[i] = ratios[next_random(&state) % n];
		boot[k] = median_of(sample, n);
	}
	qsort(boot, AB_RESAMPLES, sizeof(double), by_value);
	r->ratio_lo = boot[(size_t)(0.025 * AB_RESAMPLES)];
	r->ratio_hi = boot[(size_t)(0.975 * AB_RESAMPLES) - 1];
	r->differs = r->ratio_lo > 1 || r->ratio_hi < 1;
	free(boot);
	free(sample);
	free(ratios);
}

double ab_half_width(const struct ab_result *r)
{
	return r->ratio > 0 ? (r->ratio_hi - r->ratio_lo) / 2 / r->ratio : INFINITY;
}

char *ab_verdict(const struct ab_result *r, const char *what)
{
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
