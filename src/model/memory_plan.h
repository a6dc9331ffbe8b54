/* The job count that fits a memory limit: the build scheduled at each -j
 * from 1 to max_jobs (model_predict: the wall, and the peak memory of
 * the steps running at once), and the fastest -j whose predicted peak
 * stays under the limit less MEMORY_MARGIN of it: a build's peak moves
 * from run to run (a step's peak is timed by the compiler, not by us) and
 * the rest of the machine needs some.
 *
 * Ownership: memory_plan_make fills a plan that owns its rows until
 * memory_plan_free. */
#ifndef BUILDWALL_MEMORY_PLAN_H
#define BUILDWALL_MEMORY_PLAN_H

#include "whatif.h"

#define MEMORY_MARGIN 0.10

struct jobs_row {
	long jobs;
	struct prediction p;
	bool fits;		/* its peak under the usable memory */
};

struct memory_plan {
	struct jobs_row *rows;	/* -j 1 to max_jobs */
	size_t n;
	double limit_kb, usable_kb;	/* the limit, and it less the margin */
	long best;		/* the row of the fastest -j that fits (the fewest jobs
				 * of equal walls); -1: not even -j 1 */
	long faster;		/* the row of the cheapest setting faster than that
				 * one (the least peak among the faster walls); -1:
				 * none is faster */
	size_t unknown;		/* steps without a known peak (counted as none) */
};

/* The plan for model m under o's policy and load (o->jobs ignored), at
 * most max_jobs. False on a cycle or an interrupt. */
bool memory_plan_make(const struct model *m, const struct sched_options *o, long max_jobs, double limit_kb,
		      struct memory_plan *mp);
void memory_plan_free(struct memory_plan *mp);

#endif
