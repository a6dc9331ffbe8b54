#include "memory_plan.h"
#include "util.h"

#include <stdlib.h>

bool memory_plan_make(const struct model *m, const struct sched_options *o, long max_jobs, double limit_kb,
		      struct memory_plan *mp)
{
	*mp = (struct memory_plan){ .limit_kb = limit_kb, .usable_kb = limit_kb * (1 - MEMORY_MARGIN), .best = -1,
				    .faster = -1 };
	if (max_jobs < 1)
		max_jobs = 1;
	mp->rows = xcalloc((size_t)max_jobs, sizeof(*mp->rows));
	for (long j = 1; j <= max_jobs; j++) {
		struct sched_options at = *o;
		at.jobs = (int)j;
		struct jobs_row *r = &mp->rows[mp->n];
		r->jobs = j;
		if (!model_predict(m, &at, &r->p))
			return false;
		r->fits = r->p.peak_kb <= mp->usable_kb;
		if (r->p.peak_unknown > mp->unknown)
			mp->unknown = r->p.peak_unknown;
		if (r->fits && (mp->best < 0 || r->p.wall < mp->rows[mp->best].p.wall))
			mp->best = (long)mp->n;
		mp->n++;
	}
	for (size_t i = 0; mp->best >= 0 && i < mp->n; i++) {
		const struct jobs_row *r = &mp->rows[i];
		if (r->p.wall < mp->rows[mp->best].p.wall && !r->fits &&
		    (mp->faster < 0 || r->p.peak_kb < mp->rows[mp->faster].p.peak_kb))
			mp->faster = (long)i;
	}
	return true;
}

void memory_plan_free(struct memory_plan *mp)
{
	free(mp->rows);
	*mp = (struct memory_plan){ 0 };
}
