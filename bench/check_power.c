/* check's gate, simulated: how often it says "over" for a regression
 * planted into noise measured on this machine. Reads the residuals of
 * clean builds (log of each wall over their median, one per line, as
 * check_power.sh measures them) and, for each estimator (the t interval
 * alone, and with the outlier fence at several floors), each number of
 * builds a side and each planted regression, judges TRIALS made-up
 * comparisons with regression_judge itself, the reference and candidate
 * walls drawn from the residuals, a build cold with probability COLD
 * (slower by COLD_FACTOR). A second scenario makes the reference's first
 * build cold and no other (the reference: one cold build, then
 * warm ones). Prints one table; the rates are shares of the trials.
 *
 * SCALE multiplies every residual: 2 stands for a machine twice as noisy.
 *
 * usage: check_power RESIDUALS [TRIALS] [COLD] [COLD_FACTOR] [SCALE] */
#include "regression.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;	/* fixed: the same run twice gives the same table */

/* splitmix64: a uniform double in [0, 1) */
static double uniform(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / 9007199254740992.0;
}

struct noise {
	double *residuals;
	size_t n;
	double cold, cold_factor;
};

/* One clean build's wall around 1: a measured residual, cold with
 * probability `cold`. */
static double draw(const struct noise *z, double cold)
{
	double wall = exp(z->residuals[(size_t)(uniform() * (double)z->n)]);
	return uniform() < cold ? wall * z->cold_factor : wall;
}

static double over_rate(const struct noise *z, const struct regression_options *o, size_t per_side, double planted,
			bool cold_reference, long trials)
{
	double ref[16], cand[16];
	long over = 0;
	for (long t = 0; t < trials; t++) {
		double cold = cold_reference ? 0 : z->cold;
		for (size_t i = 0; i < per_side; i++) {
			ref[i] = draw(z, cold_reference && i == 0 ? 1 : cold);
			cand[i] = draw(z, cold) * (1 + planted);
		}
		struct regression r;
		regression_judge(ref, per_side, cand, per_side, o, &r, NULL, NULL);
		over += r.over;
	}
	return (double)over / (double)trials;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: check_power RESIDUALS [TRIALS] [COLD] [COLD_FACTOR] [SCALE]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	struct noise z = { malloc(1024 * sizeof(double)), 0, argc > 3 ? atof(argv[3]) : 0.1,
			   argc > 4 ? atof(argv[4]) : 2.27 };
	double scale = argc > 5 ? atof(argv[5]) : 1;
	while (z.n < 1024 && fscanf(f, "%lf", &z.residuals[z.n]) == 1)
		z.residuals[z.n++] *= scale;
	fclose(f);
	if (z.n < 3) {
		fprintf(stderr, "%s: %zu residuals, 3 at least\n", argv[1], z.n);
		return 2;
	}
	long trials = argc > 2 ? atol(argv[2]) : 4000;
	const double planted[] = { 0, 0.05, 0.10, 0.20, 0.50 };
	const struct {
		const char *name;
		double floor;
	} estimators[] = { { "t, no fence", -1 }, { "fence, floor 0", 0 }, { "fence, floor 10 %", 0.10 },
			   { "fence, floor 20 %", 0.20 } };
	printf("%zu residuals (x%.1f), a build cold with probability %.2f (x%.2f), %ld trials a cell, over at 5 %%\n", z.n,
	       scale, z.cold, z.cold_factor, trials);
	printf("%-18s %-6s %-20s %6s %6s %6s %6s %6s\n", "estimator", "a side", "reference", "0 %", "+5 %", "+10 %",
	       "+20 %", "+50 %");
	for (size_t e = 0; e < sizeof(estimators) / sizeof(estimators[0]); e++)
		for (size_t per_side = 3; per_side <= 5; per_side += 2)
			for (int forced = 0; forced <= 1; forced++) {
				const struct regression_options o = { 0.05, estimators[e].floor };
				printf("%-18s %-6zu %-20s", estimators[e].name, per_side,
				       forced ? "first cold, no other" : "as drawn");
				for (size_t p = 0; p < sizeof(planted) / sizeof(planted[0]); p++)
					printf(" %5.1f%%", 100 * over_rate(&z, &o, per_side, planted[p], forced, trials));
				printf("\n");
			}
	free(z.residuals);
	return 0;
}
