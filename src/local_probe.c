#include "local_probe.h"
#include "preprocess.h"
#include "steps.h"
#include "tmpdir.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

struct timed {
	struct local_probe *lp;
	const struct pp_run *runs;
	const size_t *edge_of;
};

static void record(void *ctx, size_t i)
{
	struct timed *t = ctx;
	t->lp->seconds[t->edge_of[i]] = t->runs[i].proc.wall_s;
	t->lp->probed++;
}

void local_probe_run(const struct ninja_build *b, const char *dir, const bool *which, long at_once, double timeout_s,
		     struct local_probe *lp)
{
	*lp = (struct local_probe){ .seconds = xcalloc(b->n ? b->n : 1, sizeof(double)), .at_once = at_once };
	for (size_t e = 0; e < b->n; e++)
		lp->seconds[e] = NAN;
	struct compile_command *cmds = xcalloc(b->n ? b->n : 1, sizeof(*cmds));
	struct pp_plan *plans = xcalloc(b->n ? b->n : 1, sizeof(*plans));
	struct pp_run *runs = xcalloc(b->n ? b->n : 1, sizeof(*runs));
	size_t *edge_of = xcalloc(b->n ? b->n : 1, sizeof(size_t)), n = 0;
	struct strvec stripped = { 0 };
	for (size_t e = 0; e < b->n; e++) {
		if (!which[e])
			continue;
		char *sub = xasprintf("local-%zu", e), *outdir = tmpdir_subdir(sub);
		char *log = xasprintf("%s/driver.log", outdir);
		steps_prepare(dir, &b->edges[e], sub, &cmds[e], &stripped);
		char *err = preprocess_plan(&cmds[e], dir, false, outdir, log, timeout_s, &plans[e]);
		if (err || !plans[e].n) {
			warn("%s: no preprocessing command (%s): its local part not measured", b->edges[e].outputs.v[0],
			     err ? err : "the driver listed none");
			lp->failed++;
		} else {
			runs[n] = (struct pp_run){ .pass = &plans[e].v[0], .cwd = dir, .timeout = timeout_s,
						   .what = xasprintf("%s (preprocessing)", b->edges[e].outputs.v[0]),
						   .log = xasprintf("%s/pp.log", outdir) };
			edge_of[n++] = e;
		}
		free(err);
		free(log);
		free(outdir);
		free(sub);
	}
	strvec_clear(&stripped);	/* the caller names what it strips */
	struct timed t = { lp, runs, edge_of };
	preprocess_run_all(runs, n, at_once, record, &t);
	for (size_t i = 0; i < n; i++) {
		lp->failed += runs[i].failed;
		free(runs[i].what);
		free(runs[i].log);
	}
	for (size_t e = 0; e < b->n; e++) {
		pp_plan_free(&plans[e]);
		compile_command_clear(&cmds[e]);
	}
	free(edge_of);
	free(runs);
	free(plans);
	free(cmds);
}

void local_probe_free(struct local_probe *lp)
{
	free(lp->seconds);
	*lp = (struct local_probe){ 0 };
}
