#include "load_probe.h"
#include "proc.h"
#include "progress.h"
#include "settle_budget.h"
#include "stats.h"
#include "tmpdir.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

struct level_run {
	const char *what;	/* names a failure: "the load probe" */
	const struct compile_command *cmds;
	const char *dir;
	double timeout;
	size_t copies, started;
	size_t round_at;	/* walls before this round: copy i's wall goes to round_at + i */
	char **logs;
	double *walls;
	size_t nwalls;
	double round_s;	/* the last round's, start to end */
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
			free(proc_report_failure(p, r->logs[i], "%s (%s, %zu at once)", r->what, base_name(r->cmds[i].argv.v[0]),
						 r->copies));
		r->failed = true;
		return;
	}
	r->walls[r->round_at + (size_t)i] = p->wall_s;
	r->nwalls++;
}

/* One round: k copies started together; their walls appended. */
static bool run_round(struct level_run *r, size_t k)
{
	r->copies = k;
	r->started = 0;
	r->round_at = r->nwalls;
	const struct proc_pool pool = { .next = next_copy, .finished = copy_finished, .ctx = r };
	double start = monotonic_seconds();
	proc_run_parallel((long)k, &pool);
	r->round_s = monotonic_seconds() - start;
	proc_exit_if_interrupted();
	return !r->failed;
}

/* A level has its walls: `reps` of them, or with settle two or more that agree. */
static bool level_done(const double *walls, size_t n, size_t reps, const struct settle_budget *settle)
{
	return n >= reps || (settle && walls_agree(walls, n));
}

/* Whether a level short of its walls runs another round: any its first
 * walls need; one that only settles where the budget allows it (round_s
 * its last round's, `own` the probe's other first rounds to come). */
static bool round_allowed(struct settle_budget *settle, size_t nwalls, size_t reps, double round_s, double own)
{
	return !settle || nwalls < settle_first_walls((long)reps) || settle_budget_allows(settle, monotonic_seconds(), round_s, own);
}

/* The rounds a level of `copies` at once still needs for its first walls. */
static size_t first_rounds_left(size_t nwalls, size_t copies, size_t reps)
{
	size_t want = settle_first_walls((long)reps);
	return nwalls >= want ? 0 : (want - nwalls + copies - 1) / copies;
}

void load_probe_measure(const char *dir, const struct compile_command *cmds, size_t ncmds, long repeats,
			struct settle_budget *settle, double timeout, struct load_curve *c, size_t *failures, double **top,
			size_t *ntop)
{
	*c = (struct load_curve){ 0 };
	if (top)
		*top = NULL, *ntop = 0;
	if (!ncmds)
		return;
	size_t reps = repeats > 0 ? (size_t)repeats : 1;
	struct level_run r = { .what = "the load probe", .cmds = cmds, .dir = dir, .timeout = timeout };
	r.logs = xcalloc(ncmds, sizeof(char *));
	for (size_t i = 0; i < ncmds; i++)
		r.logs[i] = xasprintf("%s/load-probe-%zu.log", tmpdir_path(), i);
	/* The levels: alone and all ncmds at once; between them the curve is
	 * linear. Levels between cost a round of walls each and told nothing
	 * the machine's noise did not swamp (on 16 CPUs 2 and 4 at once read
	 * 0.84 and 0.85, 8 read 1.01): they were a third of advise's cost. */
	size_t at[2] = { 1, ncmds }, nlevels = ncmds > 1 ? 2 : 1;
	double *walls[2], round_s[2] = { 0 };
	size_t nwalls[2] = { 0 };
	bool declined[2] = { false };
	for (size_t l = 0; l < nlevels; l++)
		walls[l] = xcalloc(reps + at[l], sizeof(double));
	/* A pass runs one round of every level still short of its walls, in
	 * order: a machine that drifts (turbo, neighbours) drifts for every
	 * level alike instead of between the alone runs and the rest. */
	for (bool short_of = true; short_of && !r.failed;) {
		short_of = false;
		for (size_t l = 0; l < nlevels && !r.failed; l++) {
			if (declined[l] || level_done(walls[l], nwalls[l], reps, settle))
				continue;
			double own = 0;	/* the other level's first rounds */
			for (size_t m = 0; m < nlevels; m++)
				own += m == l ? 0 : (double)first_rounds_left(nwalls[m], at[m], reps) * round_s[m];
			if ((declined[l] = !round_allowed(settle, nwalls[l], reps, round_s[l], own)))
				continue;
			r.walls = walls[l];
			r.nwalls = nwalls[l];
			if (at[l] == 1)
				progress_set("load curve: %s alone (run %zu/%zu)", base_name(cmds[0].argv.v[0]),
					     nwalls[l] + 1, reps);
			else
				progress_set("load curve: %zu at once (%zu of %zu walls)", at[l], nwalls[l], reps);
			if (run_round(&r, at[l]))	/* a failed round's walls do not count */
				nwalls[l] = r.nwalls;
			round_s[l] = r.round_s;
			short_of |= !level_done(walls[l], nwalls[l], reps, settle);
		}
	}
	progress_clear();
	for (size_t l = 0; l < nlevels; l++)
		if (nwalls[l])
			load_curve_add_level(c, (double)at[l], walls[0], nwalls[0], walls[l], nwalls[l]);
	*failures += r.failed;
	if (top && nlevels > 1 && nwalls[1]) {
		*top = walls[1], *ntop = nwalls[1];
		walls[1] = NULL;
	}
	for (size_t l = 0; l < nlevels; l++)
		free(walls[l]);
	for (size_t i = 0; i < ncmds; i++) {
		remove(r.logs[i]);
		free(r.logs[i]);
	}
	free(r.logs);
}

double *load_probe_level(const char *what, const char *dir, const struct compile_command *cmds, size_t copies,
			 long repeats, struct settle_budget *settle, double timeout, size_t *n, size_t *failures)
{
	size_t reps = repeats > 0 ? (size_t)repeats : 1;
	struct level_run r = { .what = what, .cmds = cmds, .dir = dir, .timeout = timeout };
	r.logs = xcalloc(copies, sizeof(char *));
	for (size_t i = 0; i < copies; i++)
		r.logs[i] = xasprintf("%s/load-probe-%zu.log", tmpdir_path(), i);
	r.walls = xcalloc(reps + copies, sizeof(double));
	while (!r.failed && !level_done(r.walls, r.nwalls, reps, settle)) {
		if (!round_allowed(settle, r.nwalls, reps, r.round_s, 0))
			break;
		size_t before = r.nwalls;
		progress_set("%s: %zu at once (%zu of %zu walls)", what, copies, r.nwalls, reps);
		if (!run_round(&r, copies))
			r.nwalls = before;	/* a failed round's walls do not count */
	}
	progress_clear();
	*failures += r.failed;
	*n = r.nwalls;
	for (size_t i = 0; i < copies; i++) {
		remove(r.logs[i]);
		free(r.logs[i]);
	}
	free(r.logs);
	return r.walls;
}
