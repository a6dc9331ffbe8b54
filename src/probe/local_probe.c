#include "local_probe.h"
#include "preprocess.h"
#include "steps.h"
#include "util.h"

#include <math.h>
#include <sys/stat.h>
#include <stdlib.h>

struct timed {
	struct local_probe *lp;
	const struct pp_run *runs;
	const size_t *edge_of;
};

static void record(void *ctx, size_t i)
{
	struct timed *t = ctx;
	struct stat st;
	t->lp->seconds[t->edge_of[i]] = t->runs[i].proc.wall_s;
	t->lp->bytes[t->edge_of[i]] = stat(t->runs[i].pass->output, &st) ? NAN : (double)st.st_size;
	t->lp->probed++;
}

void local_probe_run(const struct ninja_build *b, const char *dir, const bool *which, long at_once, double timeout_s,
		     struct local_probe *lp)
{
	*lp = (struct local_probe){ .seconds = xcalloc(b->n ? b->n : 1, sizeof(double)),
				    .bytes = xcalloc(b->n ? b->n : 1, sizeof(double)), .at_once = at_once };
	for (size_t e = 0; e < b->n; e++)
		lp->seconds[e] = lp->bytes[e] = NAN;
	struct compile_command *cmds = xcalloc(b->n ? b->n : 1, sizeof(*cmds));
	struct pp_plan *plans = xcalloc(b->n ? b->n : 1, sizeof(*plans));
	struct pp_run *runs = NULL;
	size_t *edge_of = NULL, n = 0;
	struct strvec stripped = { 0 };
	for (size_t e = 0; e < b->n; e++) {
		if (!which[e])
			continue;
		size_t first = n;	/* the host pass alone: a run an edge, or none */
		if (!preprocess_plan_edge(dir, &b->edges[e], e, false, timeout_s, &cmds[e], &plans[e], &stripped, &runs, &n) ||
		    n == first)
			lp->failed++;
		edge_of = xrealloc(edge_of, (n ? n : 1) * sizeof(*edge_of));
		for (size_t r = first; r < n; r++)
			edge_of[r] = e;
	}
	steps_note_stripped(&stripped);	/* distcc's client preprocesses without it too */
	strvec_clear(&stripped);
	struct timed t = { lp, runs, edge_of };
	preprocess_run_all(runs, n, at_once, record, &t);
	for (size_t i = 0; i < n; i++)
		lp->failed += runs[i].failed;
	preprocess_plans_free(b->n, cmds, plans, runs, n);
	free(edge_of);
}

void local_probe_free(struct local_probe *lp)
{
	free(lp->seconds);
	free(lp->bytes);
	*lp = (struct local_probe){ 0 };
}
