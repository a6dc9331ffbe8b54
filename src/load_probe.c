#include "load_probe.h"
#include "proc.h"
#include "progress.h"
#include "tmpdir.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

struct level_run {
	const struct compile_command *cmds;
	const char *dir;
	double timeout;
	size_t copies, started;
	char **logs;
	double *walls;
	size_t nwalls;
	bool failed;
};

static long next_copy(void *ctx, struct proc *p)
{
	struct level_run *r = ctx;
	if (r->started == r->copies || r->failed)
		return -1;
	size_t i = r->started++;
	const struct compile_command *c = &r->cmds[i];
	*p = (struct proc){ .argv = c->argv.v, .env_extra = c->env.v, .cwd = r->dir, .out_path = r->logs[i],
			    .timeout_s = r->timeout };
	return (long)i;
}

static void copy_finished(void *ctx, long i, struct proc *p)
{
	struct level_run *r = ctx;
	if (!proc_succeeded(p)) {
		if (!r->failed)
			free(proc_report_failure(p, r->logs[i], "the load probe (%s, %zu at once)", base_name(r->cmds[i].argv.v[0]),
						 r->copies));
		r->failed = true;
		return;
	}
	r->walls[r->nwalls++] = p->wall_s;
}

/* One round: k copies started together; their walls appended. */
static bool run_round(struct level_run *r, size_t k)
{
	r->copies = k;
	r->started = 0;
	const struct proc_pool pool = { next_copy, copy_finished, r };
	proc_run_parallel((long)k, &pool);
	proc_exit_if_interrupted();
	return !r->failed;
}

void load_probe_measure(const char *dir, const struct compile_command *cmds, size_t ncmds, long repeats,
			double timeout, struct load_curve *c, size_t *failures)
{
	*c = (struct load_curve){ 0 };
	if (!ncmds)
		return;
	size_t reps = repeats > 0 ? (size_t)repeats : 1;
	struct level_run r = { .cmds = cmds, .dir = dir, .timeout = timeout };
	r.logs = xcalloc(ncmds, sizeof(char *));
	for (size_t i = 0; i < ncmds; i++)
		r.logs[i] = xasprintf("%s/load-probe-%zu.log", tmpdir_path(), i);
	double *alone = xcalloc(reps, sizeof(double));
	size_t nalone = 0;
	r.walls = alone;
	for (size_t round = 0; round < reps && !r.failed; round++) {
		progress_set("load curve: %s alone (run %zu/%zu)", base_name(cmds[0].argv.v[0]), round + 1, reps);
		run_round(&r, 1);
	}
	nalone = r.nwalls;
	load_curve_add_level(c, 1, alone, nalone, alone, nalone);
	r.walls = xcalloc(ncmds + reps, sizeof(double));
	for (size_t k = 2; !r.failed && k / 2 < ncmds; k *= 2) {
		size_t level = k < ncmds ? k : ncmds;
		r.nwalls = 0;
		while (r.nwalls < reps && !r.failed) {
			progress_set("load curve: %zu at once (%zu of %zu walls)", level, r.nwalls, reps > level ? reps : level);
			run_round(&r, level);
		}
		if (!r.failed)
			load_curve_add_level(c, (double)level, alone, nalone, r.walls, r.nwalls);
		if (level == ncmds)
			break;
	}
	progress_clear();
	*failures += r.failed;
	for (size_t i = 0; i < ncmds; i++) {
		remove(r.logs[i]);
		free(r.logs[i]);
	}
	free(r.logs);
	free(r.walls);
	free(alone);
}
