/* .ninja_log: the reader and each build's timeline. Invariant: the
 * weighted times of a build add up to the time some step was running (the
 * union of the steps' intervals), and no weight is negative. */
#include "fuzz.h"
#include "ninja_log.h"
#include "timeline.h"

#include <math.h>

struct span {
	double start, end;
};

static int cmp_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

static void check_build(struct ninja_log *build, bool rewritten, void *ctx)
{
	(void)rewritten;
	(void)ctx;
	struct timeline t;
	timeline_build(build, &t);
	double weights = 0;
	for (size_t i = 0; i < t.n; i++) {
		INVARIANT(t.steps[i].weighted >= -1e-9);
		if (step_duration(&t, &t.steps[i]) == 0)
			INVARIANT(t.steps[i].weighted == 0);
		weights += t.steps[i].weighted;
	}
	struct span *sorted = malloc((t.n + 1) * sizeof(*sorted));
	INVARIANT(sorted);
	for (size_t i = 0; i < t.n; i++)
		sorted[i] = (struct span){ step_start(&t, &t.steps[i]), step_end(&t, &t.steps[i]) };
	qsort(sorted, t.n, sizeof(*sorted), cmp_start);
	double covered = 0, lo = 0, hi = -1;
	for (size_t i = 0; i < t.n; i++) {
		if (sorted[i].start > hi) {
			if (hi > lo)
				covered += hi - lo;
			lo = sorted[i].start;
			hi = sorted[i].end;
		} else if (sorted[i].end > hi) {
			hi = sorted[i].end;
		}
	}
	if (hi > lo)
		covered += hi - lo;
	free(sorted);
	INVARIANT(fabs(weights - covered) <= 1e-6 * (1 + t.wall));
	INVARIANT(covered <= t.wall + 1e-9);
	timeline_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	if (!size) {
		fclose(f);
		return 0;
	}
	char *err = NULL;
	ninja_log_scan(f, "fuzz", size & 1, check_build, NULL, &err);	/* names held, or not */
	free(err);
	fclose(f);
	return 0;
}
