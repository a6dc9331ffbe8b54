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
 * --sittings: the machine's drift between sittings. Reads "SITTING WALL
 * CONTROL" lines (clean builds in sittings minutes apart, each with the
 * control compile of its trial, as check_power.sh measures them) and
 * judges comparisons whose reference comes from one sitting and
 * candidate from another, on the raw walls and in units of the controls
 * (as check does), with the sittings as measured and with a further drift
 * of 0-25 % (uniform) making the candidate's sitting slower, walls and
 * controls alike. A last row is what a same-sitting comparison would
 * see: pairs of builds run one after the other in one sitting (ABBA, as
 * ab runs them), compared by ab's paired statistics, raw and each build
 * over its control ("pairs/c"). Each row twice: with the one-sided 95 %
 * bound and with the two-sided interval's lower end (check's gate takes
 * the lower end across sittings, the one-sided bound in pairs).
 *
 * usage: check_power RESIDUALS [TRIALS] [COLD] [COLD_FACTOR] [SCALE]
 *        check_power --sittings BUILDS [TRIALS] */
#include "abstats.h"
#include "regression.h"
#include "stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define SITTINGS_MAX 64
#define SITTING_BUILDS_MAX 64

struct sitting {
	double walls[SITTING_BUILDS_MAX], controls[SITTING_BUILDS_MAX];
	size_t n;
};

/* One side: per_side builds of sitting s drawn with their controls, the
 * walls slowed by `planted`, both by `drift`; relative: each over its
 * control. */
static void draw_side(const struct sitting *s, size_t per_side, double planted, double drift, bool relative,
		      double *out)
{
	for (size_t i = 0; i < per_side; i++) {
		size_t k = (size_t)(uniform() * (double)s->n);
		double wall = s->walls[k] * (1 + planted) * (1 + drift), control = s->controls[k] * (1 + drift);
		out[i] = relative ? wall / control : wall;
	}
}

static int sittings_main(const char *path, long trials)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return 2;
	}
	static struct sitting sittings[SITTINGS_MAX];
	size_t n = 0;
	int index;
	double wall, control;
	while (fscanf(f, "%d %lf %lf", &index, &wall, &control) == 3)
		if (index >= 0 && index < SITTINGS_MAX && sittings[index].n < SITTING_BUILDS_MAX && wall > 0 && control > 0) {
			struct sitting *s = &sittings[index];
			s->walls[s->n] = wall, s->controls[s->n] = control;
			s->n++;
			n = (size_t)index + 1 > n ? (size_t)index + 1 : n;
		}
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (sittings[i].n < 2) {
			fprintf(stderr, "%s: sitting %zu has %zu builds, 2 at least\n", path, i, sittings[i].n);
			return 2;
		}
	if (n < 2) {
		fprintf(stderr, "%s: %zu sittings, 2 at least\n", path, n);
		return 2;
	}
	printf("%zu sittings: median wall, median control, their ratio\n", n);
	for (size_t i = 0; i < n; i++) {
		double rel[SITTING_BUILDS_MAX];
		for (size_t k = 0; k < sittings[i].n; k++)
			rel[k] = sittings[i].walls[k] / sittings[i].controls[k];
		printf("  sitting %zu: %zu builds, wall %.2f s, control %.3f s, wall/control %.2f\n", i, sittings[i].n,
		       median_of(sittings[i].walls, sittings[i].n), median_of(sittings[i].controls, sittings[i].n),
		       median_of(rel, sittings[i].n));
	}
	const double planted[] = { 0, 0.10, 0.20, 0.50 };
	printf("a reference from one sitting, a candidate from another, %ld trials a cell, over at 5 %%, outliers fenced\n",
	       trials);
	printf("bound: one-sided 95 %%, or two-sided: the 95 %% interval's lower end; check's gate: two-sided across sittings, "
	       "one-sided in pairs\n");
	printf("%-8s %-6s %-22s %-10s %6s %6s %6s %6s\n", "basis", "a side", "between sittings", "bound", "0 %", "+10 %",
	       "+20 %", "+50 %");
	const struct regression_options o = { 0.05, FENCE_FLOOR };
	for (int relative = 0; relative <= 1; relative++)
		for (size_t per_side = 3; per_side <= 5; per_side += 2)
			for (int extra = 0; extra <= 1; extra++)
				for (int one_sided = 1; one_sided >= 0; one_sided--) {
					printf("%-8s %-6zu %-22s %-10s", relative ? "control" : "raw", per_side,
					       extra ? "as measured + 0-25 %" : "as measured", one_sided ? "one-sided" : "two-sided");
					for (size_t p = 0; p < sizeof(planted) / sizeof(planted[0]); p++) {
						long over = 0;
						for (long t = 0; t < trials; t++) {
							size_t a = (size_t)(uniform() * (double)n);
							size_t b = (size_t)(uniform() * (double)(n - 1));
							b += b >= a;
							double ref[8], cand[8], drift = extra ? 0.25 * uniform() : 0;
							draw_side(&sittings[a], per_side, 0, 0, relative, ref);
							draw_side(&sittings[b], per_side, planted[p], drift, relative, cand);
							struct regression r;
							regression_judge(ref, per_side, cand, per_side, &o, &r, NULL, NULL);
							over += r.decided && regression_over(r.ratio, one_sided ? r.ratio_least : r.ratio_lo,
											     o.max_regression);
						}
						printf(" %5.1f%%", 100 * (double)over / (double)trials);
					}
					printf("\n");
				}
	for (int relative = 0; relative <= 1; relative++)
		for (size_t per_side = 3; per_side <= 5; per_side += 2)
			for (int one_sided = 1; one_sided >= 0; one_sided--) {
				printf("%-8s %-6zu %-22s %-10s", relative ? "pairs/c" : "pairs", per_side, "one sitting, ABBA",
				       one_sided ? "one-sided" : "two-sided");
				for (size_t p = 0; p < sizeof(planted) / sizeof(planted[0]); p++) {
					long over = 0;
					for (long t = 0; t < trials; t++) {
						const struct sitting *st = &sittings[(size_t)(uniform() * (double)n)];
						double a[8], b[8];
						for (size_t i = 0; i < per_side; i++) {	/* two builds back to back, either first */
							size_t k = (size_t)(uniform() * (double)(st->n - 1)), first = uniform() < 0.5;
							a[i] = st->walls[k + !first] / (relative ? st->controls[k + !first] : 1);
							b[i] = st->walls[k + first] * (1 + planted[p]) /
							       (relative ? st->controls[k + first] : 1);
						}
						struct ab_result r;
						ab_compare(a, b, per_side, &r);
						over += regression_over(r.ratio, one_sided ? r.ratio_least : r.ratio_lo, o.max_regression);
					}
					printf(" %5.1f%%", 100 * (double)over / (double)trials);
				}
				printf("\n");
			}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--sittings"))
		return sittings_main(argv[2], argc > 3 ? atol(argv[3]) : 4000);
	if (argc < 2) {
		fprintf(stderr, "usage: check_power RESIDUALS [TRIALS] [COLD] [COLD_FACTOR] [SCALE]\n"
				"       check_power --sittings BUILDS [TRIALS]\n");
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
