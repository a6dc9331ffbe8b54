/* buildwall rank: re-run every compile step in isolation, rank the TUs by
 * wall time, and predict the module's wall from ninja's graph. The build
 * directory is only read: every output goes to buildwall's temp dir. */
#define _GNU_SOURCE
#include "cli.h"
#include "driver.h"
#include "graph.h"
#include "ninja.h"
#include "ninja_log.h"
#include "out_json.h"
#include "options.h"
#include "out_table.h"
#include "proc.h"
#include "progress.h"
#include "snapshot.h"
#include "stats.h"
#include "steps.h"
#include "tmpdir.h"
#include "util.h"
#include "whatif.h"

#include <math.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall rank [-C BUILD_DIR] [TARGET...] [--parallel P] [-j JOBS] [-r REPEATS]\n"
	"                      [--top K] [--policy manifest|critical] [--contention HOW] [--timeout S] [--json]\n"
	"\n"
	"Re-run each compile step (default: every object file; TARGET names an output path,\n"
	"its basename or a glob such as '*.cuda.o') in isolation, with every file it writes\n"
	"redirected to a private temp dir: the build directory stays byte-identical.\n"
	"Compiler launchers (ccache, sccache, distcc) are stripped so the compiler is timed.\n"
	"\n"
	"Per TU: median wall of the repeats (monotonic clock), CPU (user+sys incl. children),\n"
	"peak RSS (largest process), share of the serial sum. Then the module wall predicted\n"
	"for -j JOBS by list scheduling over ninja's dependency graph, ready steps in the order\n"
	"the installed ninja picks them (manifest order up to 1.11, longest path first from\n"
	"1.12), the link timed from .ninja_log when it is there, else by re-running it on the\n"
	"temp objects; the bound that sets the wall (the critical path through the dependency\n"
	"graph, or total work / jobs) and that critical path, step by step. Contention (a TU\n"
	"is slower beside others) is measured by running the TUs once more, one per core at\n"
	"once, and applied to the prediction.\n"
	"\n";

struct tu {
	size_t edge;
	struct compile_command cmd;
	double *walls, *cpus;
	size_t runs;
	long maxrss_kb;
	bool running, failed;
	char *log;		/* while a run is under way: its output */
	char *failure;
	struct summary wall, cpu;
};

struct step_time {
	double seconds;
	const char *source;	/* "measured", ".ninja_log", "re-run link", "phony", "none" */
};

struct rank {
	const char *dir;
	struct ninja_build build;
	struct tu *tus;
	size_t ntus;
	long *tu_of;		/* edge -> index in tus, or -1 */
	long repeats, parallel, jobs, top;
	double timeout;
	size_t failures;
	struct strvec stripped;	/* launchers we removed, for the report */

	/* The model the renderers show, filled by predict(). */
	struct step_time *steps;	/* per edge */
	struct model model;
	enum { CONTENTION_MEASURE, CONTENTION_LOG, CONTENTION_NONE } contention_mode;
	struct contention contention;	/* a recorded build against the isolated times */
	char *contention_source;
	struct prediction prediction;	/* the wall and its two lower bounds */
	enum sched_policy policy;
	char *policy_why;
	size_t *chain, nchain;	/* the longest chain of dependencies, first to last */
	struct tu **order;	/* slowest first, failed last */
	double serial;
	size_t measured, unknown;
};

static void select_tus(struct rank *r, char **patterns, size_t npatterns)
{
	struct ninja_build *b = &r->build;
	bool *selected = xcalloc(b->n, sizeof(bool));
	steps_select("rank", b, patterns, npatterns, selected);
	r->tus = xcalloc(b->n, sizeof(struct tu));
	r->tu_of = xcalloc(b->n, sizeof(long));
	for (size_t i = 0; i < b->n; i++) {
		r->tu_of[i] = -1;
		if (!selected[i])
			continue;
		r->tu_of[i] = (long)r->ntus;
		struct tu *t = &r->tus[r->ntus];
		t->edge = i;
		t->walls = xcalloc((size_t)r->repeats, sizeof(double));
		t->cpus = xcalloc((size_t)r->repeats, sizeof(double));
		steps_check_built(r->dir, &b->edges[i]);
		char *sub = xasprintf("tu-%zu", r->ntus);
		steps_prepare(r->dir, &b->edges[i], sub, &t->cmd, &r->stripped);
		free(sub);
		r->ntus++;
	}
	free(selected);
}

static void record_failure(struct rank *r, struct tu *t, struct proc *p, const char *log)
{
	t->failed = true;
	t->failure = proc_report_failure(p, log, "%s: compile", r->build.edges[t->edge].outputs.v[0]);
	r->failures++;
}

/* Run every (TU, repeat) pair, P at a time; a TU never runs beside itself. */
/* The pool's view of the repeats: job k is repeat k / ntus of TU k % ntus. */
struct measuring {
	struct rank *r;
	bool *started;
	size_t total, nstarted;
};

static char *tu_log(size_t tu)
{
	return xasprintf("%s/tu-%zu.log", tmpdir_path(), tu);
}

/* The first pending job (repeat-major) whose TU is idle and still good. */
static long next_job(void *ctx, struct proc *p)
{
	struct measuring *m = ctx;
	struct rank *r = m->r;
	for (size_t job = 0; job < m->total; job++) {
		struct tu *t = &r->tus[job % r->ntus];
		if (m->started[job] || t->running || t->failed)
			continue;
		m->started[job] = true;
		t->running = true;
		t->log = tu_log(job % r->ntus);
		*p = (struct proc){ .argv = t->cmd.argv.v, .env_extra = t->cmd.env.v, .cwd = r->dir, .out_path = t->log,
				    .timeout_s = r->timeout };
		progress_set("[%zu/%zu] %s", ++m->nstarted, m->total, r->build.edges[t->edge].outputs.v[0]);
		return (long)job;
	}
	return -1;
}

static void job_finished(void *ctx, long job, struct proc *p)
{
	struct measuring *m = ctx;
	struct rank *r = m->r;
	struct tu *t = &r->tus[(size_t)job % r->ntus];
	t->running = false;
	if (!proc_succeeded(p)) {
		record_failure(r, t, p, t->log);
	} else {
		t->walls[t->runs] = p->wall_s;
		t->cpus[t->runs] = p->cpu_s;
		if (p->maxrss_kb > t->maxrss_kb)
			t->maxrss_kb = p->maxrss_kb;
		t->runs++;
	}
	free(t->log);
	t->log = NULL;
}

static void measure(struct rank *r)
{
	struct measuring m = { .r = r, .total = r->ntus * (size_t)r->repeats };
	m.started = xcalloc(m.total, sizeof(bool));
	proc_warn_if_loaded();
	const struct proc_pool pool = { next_job, job_finished, &m };
	proc_run_parallel(r->parallel, &pool);
	free(m.started);
	for (size_t i = 0; i < r->ntus; i++) {
		r->tus[i].wall = summarize(r->tus[i].walls, r->tus[i].runs);
		r->tus[i].cpu = summarize(r->tus[i].cpus, r->tus[i].runs);
	}
}

/* Contention, measured: every TU once more, `cores` at a time, each run's
 * start and end kept as a recorded build that contention_calibrate fits
 * against the isolated times. Warm caches, like the isolated runs: a
 * first, cold build in .ninja_log would read as contention. */
struct side_by_side {
	struct rank *r;
	size_t next;
	double t0;
	struct log_entry *entries;
	size_t n;
};

static long next_side(void *ctx, struct proc *p)
{
	struct side_by_side *sb = ctx;
	struct rank *r = sb->r;
	while (sb->next < r->ntus && r->tus[sb->next].failed)
		sb->next++;
	if (sb->next == r->ntus)
		return -1;
	struct tu *t = &r->tus[sb->next];
	t->log = tu_log(sb->next);
	*p = (struct proc){ .argv = t->cmd.argv.v, .env_extra = t->cmd.env.v, .cwd = r->dir, .out_path = t->log,
			    .timeout_s = r->timeout };
	progress_set("[%zu/%zu] %s, side by side", sb->next + 1, r->ntus, r->build.edges[t->edge].outputs.v[0]);
	return (long)sb->next++;
}

static void side_finished(void *ctx, long i, struct proc *p)
{
	struct side_by_side *sb = ctx;
	struct tu *t = &sb->r->tus[i];
	free(t->log);
	t->log = NULL;
	if (!proc_succeeded(p))
		return;	/* it passed alone: a failure here is noise, not a measurement */
	long start = (long)((p->t_start - sb->t0) * 1000);
	sb->entries[sb->n++] = (struct log_entry){ .start_ms = start, .end_ms = start + (long)(p->wall_s * 1000),
						   .output = xstrdup(sb->r->build.edges[t->edge].outputs.v[0]),
						   .hash = xstrdup("") };
}

static int by_end(const void *a, const void *b)
{
	const struct log_entry *x = a, *y = b;
	return (x->end_ms > y->end_ms) - (x->end_ms < y->end_ms);
}

static void measure_contention(struct rank *r, const double *isolated)
{
	long cores = cpu_count();
	struct side_by_side sb = { .r = r, .t0 = monotonic_seconds() };
	sb.entries = xcalloc(r->ntus, sizeof(*sb.entries));
	const struct proc_pool pool = { next_side, side_finished, &sb };
	proc_run_parallel(cores < PROC_MAX_RUNNING ? cores : PROC_MAX_RUNNING, &pool);
	qsort(sb.entries, sb.n, sizeof(*sb.entries), by_end);
	struct ninja_log run = { .version = 5, .entries = sb.entries, .n = sb.n };
	char *what = xasprintf("a side-by-side pass of the TUs, %ld at a time", cores);
	r->contention_source = what;
	contention_calibrate(&r->build, &run, isolated, (double)cores, what, &r->contention);
	ninja_log_free(&run);
}

/* Can the link run? Every explicit input is one of our temp objects or
 * already exists in the build dir. */
static bool link_inputs_available(const struct rank *r, const struct ninja_edge *e)
{
	for (size_t i = 0; i < e->inputs.n; i++) {
		long d = ninja_edge_of(&r->build, e->inputs.v[i]);
		if (d >= 0 && r->tu_of[d] >= 0)
			continue;
		char *path = path_in(r->dir, e->inputs.v[i]);
		bool there = file_exists(path);
		free(path);
		if (!there)
			return false;
	}
	return true;
}

/* Re-run a link step on our temp objects (the build's own for TUs we did
 * not re-run) and return its median wall, or NaN when it failed. */
static double time_link(struct rank *r, size_t edge, size_t k)
{
	const struct ninja_edge *e = &r->build.edges[edge];
	struct compile_command cmd = { 0 };
	char *sub = xasprintf("link-%zu", k);
	steps_prepare(r->dir, e, sub, &cmd, &r->stripped);
	struct strvec from = { 0 }, to = { 0 };
	for (size_t i = 0; i < r->ntus; i++) {
		const struct compile_command *c = &r->tus[i].cmd;
		for (size_t m = 0; m < c->moved_from.n; m++) {
			strvec_push(&from, c->moved_from.v[m]);
			strvec_push(&to, c->moved_to.v[m]);
		}
	}
	driver_substitute(&cmd, &from, &to);
	char *log = xasprintf("%s/%s.log", tmpdir_path(), sub);
	double *walls = xcalloc((size_t)r->repeats, sizeof(double));
	double result = NAN;
	long runs = 0;
	for (long i = 0; i < r->repeats; i++) {
		struct proc p = { .argv = cmd.argv.v, .env_extra = cmd.env.v, .cwd = r->dir, .out_path = log,
				  .timeout_s = r->timeout };
		progress_set("[link] %s", e->outputs.v[0]);
		proc_run(&p);
		progress_clear();
		proc_exit_if_interrupted();
		if (!proc_succeeded(&p)) {
			free(proc_report_failure(&p, log, "%s: link re-run", e->outputs.v[0]));
			r->failures++;
			break;
		}
		walls[runs++] = p.wall_s;
	}
	if (runs)
		result = median_of(walls, (size_t)runs);
	free(walls);
	free(log);
	free(sub);
	strvec_clear(&from);
	strvec_clear(&to);
	compile_command_clear(&cmd);
	return result;
}

/* Durations for every edge: measured TUs, else .ninja_log, else a link
 * re-run for steps that consume our objects, else unknown (0). */
static void step_times(struct rank *r)
{
	struct ninja_build *b = &r->build;
	struct ninja_log log;
	char *log_path = xasprintf("%s/.ninja_log", r->dir);
	char *err;
	bool have_log = ninja_log_read_latest(log_path, &log, &err);
	if (err)
		warn("%s; no step times from it", err);
	free(err);
	double *logged = xcalloc(b->n, sizeof(double));
	for (size_t i = 0; i < b->n; i++)
		logged[i] = NAN;
	if (have_log)
		durations_from_log(b, &log, logged);
	size_t links = 0;
	r->steps = xcalloc(b->n, sizeof(*r->steps));
	for (size_t i = 0; i < b->n; i++) {
		const struct ninja_edge *e = &b->edges[i];
		long t = r->tu_of[i];
		struct step_time *st = &r->steps[i];
		*st = (struct step_time){ 0, "none" };
		if (ninja_edge_is_phony(e)) {
			st->source = "phony";
		} else if (t >= 0) {
			if (!r->tus[t].failed)
				*st = (struct step_time){ r->tus[t].wall.median, "measured" };
		} else if (!isnan(logged[i])) {
			*st = (struct step_time){ logged[i], ".ninja_log" };
		} else {
			bool consumes = false;
			for (size_t d = 0; d < e->ndeps; d++)
				consumes |= r->tu_of[e->deps[d]] >= 0;
			if (consumes && !r->failures && link_inputs_available(r, e)) {
				double sec = time_link(r, i, links++);
				if (!isnan(sec))
					*st = (struct step_time){ sec, "re-run link" };
			}
		}
	}
	double *isolated = xcalloc(b->n, sizeof(double));
	for (size_t i = 0; i < b->n; i++)
		isolated[i] = r->tu_of[i] >= 0 && !r->tus[r->tu_of[i]].failed ? r->tus[r->tu_of[i]].wall.median : NAN;
	size_t timed = 0;
	for (size_t i = 0; i < r->ntus; i++)
		timed += !r->tus[i].failed;
	if (r->contention_mode == CONTENTION_MEASURE && cpu_count() >= 2 && timed >= 2)
		measure_contention(r, isolated);
	else if (r->contention_mode == CONTENTION_LOG && have_log)
		contention_calibrate(b, &log, isolated, cpu_count(), "the recorded build in .ninja_log", &r->contention);
	free(isolated);
	if (have_log)
		ninja_log_free(&log);
	free(logged);
	free(log_path);
}

static int cmp_tu(const void *a, const void *b)
{
	const struct tu *x = *(struct tu *const *)a, *y = *(struct tu *const *)b;
	if (x->failed != y->failed)
		return x->failed - y->failed;
	double d = y->wall.median - x->wall.median;
	return (d > 0) - (d < 0);
}

/* The prediction and the figures the renderers show. */
static void predict(struct rank *r)
{
	size_t n = r->build.n;
	double *seconds = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		seconds[i] = r->steps[i].seconds;
		r->unknown += !strcmp(r->steps[i].source, "none");
	}
	model_from_build(&r->model, &r->build, seconds);
	free(seconds);
	const struct sched_options o = { (int)r->jobs, r->policy, r->contention.samples ? r->contention.cores : 0,
					 r->contention.share };
	bool ok = model_predict(&r->model, &o, &r->prediction);
	proc_exit_if_interrupted();
	if (!ok)
		die(EXIT_BAD_INPUT, "%s: the build graph has a cycle", r->dir);
	r->chain = xcalloc(n, sizeof(size_t));
	r->nchain = graph_longest_chain(r->model.nodes, n, r->chain);
	r->order = xcalloc(r->ntus, sizeof(*r->order));
	for (size_t i = 0; i < r->ntus; i++) {
		r->order[i] = &r->tus[i];
		if (!r->tus[i].failed) {
			r->serial += r->tus[i].wall.median;
			r->measured++;
		}
	}
	qsort(r->order, r->ntus, sizeof(*r->order), cmp_tu);
}

/* Steps that are neither phony nor a ranked TU but have a time: the link
 * and the like, with where their time came from. */
static bool is_other_step(const struct rank *r, size_t i)
{
	return r->tu_of[i] < 0 && strcmp(r->steps[i].source, "phony") && strcmp(r->steps[i].source, "none");
}

static const char *const measured_text =
	"each compile re-run in isolation, outputs in a private temp dir: wall = median of repeats "
	"(monotonic clock); cpu = user+sys incl. children; max_rss = largest single process";

static json_t *json_step(const struct rank *r, size_t i)
{
	return json_build("{s:s, s:o, s:s}", "target", r->build.edges[i].outputs.v[0],
			 "seconds", json_seconds(r->steps[i].seconds), "source", r->steps[i].source);
}


static void render_json(const struct rank *r)
{
	json_t *doc = json_document("rank", r->dir, r->failures);
	json_t *stripped = json_array();
	for (size_t i = 0; i < r->stripped.n; i++)
		json_array_append_new(stripped, json_string(r->stripped.v[i]));
	json_object_set_new(doc, "method", json_build("{s:I, s:I, s:s, s:o}", "repeats", (json_int_t)r->repeats,
		"parallel", (json_int_t)r->parallel, "measured", measured_text, "launchers_stripped", stripped));
	json_t *tus = json_array();
	for (size_t i = 0; i < r->ntus; i++) {
		const struct tu *t = r->order[i];
		const struct ninja_edge *e = &r->build.edges[t->edge];
		json_t *walls = json_array();
		for (size_t k = 0; k < t->runs; k++)
			json_array_append_new(walls, json_seconds(t->walls[k]));
		double missing = NAN;
		json_array_append_new(tus, json_build("{s:i, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o}",
			"rank", (int)i + 1, "target", e->outputs.v[0], "rule", e->rule,
			"compiler", compiler_name(t->cmd.compiler), "status", t->failed ? "failed" : "ok",
			"wall_s", json_seconds(t->failed ? missing : t->wall.median),
			"wall_min_s", json_seconds(t->failed ? missing : t->wall.min),
			"wall_max_s", json_seconds(t->failed ? missing : t->wall.max),
			"walls_s", walls, "cpu_s", json_seconds(t->failed ? missing : t->cpu.median),
			"max_rss_kib", (json_int_t)t->maxrss_kb,
			"share", t->failed || r->serial <= 0 ? json_null() : json_real(round(t->wall.median / r->serial * 10000) / 10000),
			"failure", t->failure ? json_string(t->failure) : json_null()));
	}
	json_object_set_new(doc, "tus", tus);
	json_object_set_new(doc, "serial_sum_s", json_seconds(r->serial));
	json_t *path = json_array(), *others = json_array();
	for (size_t i = 0; i < r->nchain; i++)
		if (!r->model.nodes[r->chain[i]].free)
			json_array_append_new(path, json_step(r, r->chain[i]));
	for (size_t i = 0; i < r->build.n; i++)
		if (is_other_step(r, i))
			json_array_append_new(others, json_step(r, i));
	json_object_set_new(doc, "prediction", json_build("{s:I, s:o, s:s, s:s, s:o, s:o, s:s, s:o, s:o, s:o, s:I}",
		"jobs", (json_int_t)r->jobs, "wall_s", json_seconds(r->prediction.wall),
		"policy", r->policy == POLICY_CRITICAL ? "critical" : "manifest", "policy_source", r->policy_why,
		"critical_path_s", json_seconds(r->prediction.critical), "work_bound_s", json_seconds(r->prediction.work),
		"binds", r->prediction.binds, "contention", json_contention(&r->contention),
		"critical_path", path, "other_steps", others,
		"steps_without_time", (json_int_t)r->unknown));
	json_print(doc);
}

static void render_table(const struct rank *r)
{
	printf("%srank%s: %zu compile step%s in %s, each re-run in isolation (%ld repeat%s, %ld at a time)\n",
	       c_bold(stdout), c_reset(stdout), r->ntus, r->ntus == 1 ? "" : "s", r->dir, r->repeats,
	       r->repeats == 1 ? "" : "s", r->parallel);
	printf("measured: wall = %s (monotonic clock), CPU = user+sys incl. children, RSS = largest process\n\n",
	       r->repeats > 1 ? "median of the repeats" : "one run");
	struct table *tab = table_new();
	table_column(tab, "#", true);
	table_column(tab, "TU", false);
	table_column(tab, "wall s", true);
	if (r->repeats > 1)
		table_column(tab, "min-max s", true);
	table_column(tab, "cpu s", true);
	table_column(tab, "peak RSS", true);
	table_column(tab, "share", true);
	table_column(tab, "compiler", false);
	size_t shown = r->top && (size_t)r->top < r->ntus ? (size_t)r->top : r->ntus;
	for (size_t i = 0; i < shown; i++) {
		const struct tu *t = r->order[i];
		table_cell(tab, "%zu", i + 1);
		table_cell(tab, "%s", r->build.edges[t->edge].outputs.v[0]);
		if (t->failed) {
			table_cell(tab, "FAILED");
			for (int k = r->repeats > 1 ? 4 : 3; k > 0; k--)
				table_cell(tab, "-");
		} else {
			char *mem = format_kib(t->maxrss_kb);
			table_cell(tab, "%.2f", t->wall.median);
			if (r->repeats > 1)
				table_cell(tab, "%.2f-%.2f", t->wall.min, t->wall.max);
			table_cell(tab, "%.2f", t->cpu.median);
			table_cell(tab, "%s", mem);
			table_cell(tab, "%.1f%%", r->serial > 0 ? 100 * t->wall.median / r->serial : 0);
			free(mem);
		}
		table_cell(tab, "%s", compiler_name(t->cmd.compiler));
	}
	table_print(tab, stdout);
	table_free(tab);
	if (shown < r->ntus)
		printf("(%zu more; --top shows the %zu slowest)\n", r->ntus - shown, shown);

	printf("\nserial sum: %.2f s over %zu compile step%s\n", r->serial, r->measured, r->measured == 1 ? "" : "s");
	printf("predicted wall at -j %ld: %s%.2f s%s (list scheduling over ninja's graph, %s: %s)\n", r->jobs,
	       c_bold(stdout), r->prediction.wall, c_reset(stdout),
	       r->policy == POLICY_CRITICAL ? "longest path first" : "manifest order", r->policy_why);
	printf("bounds: critical path %.2f s, total work / jobs %.2f s: the %s binds\n", r->prediction.critical, r->prediction.work,
	       r->prediction.binds);
	char *cont = contention_text(&r->contention);
	printf("contention: %s\n", cont);
	free(cont);
	size_t others = 0;
	for (size_t i = 0; i < r->build.n; i++) {
		if (!is_other_step(r, i))
			continue;
		if (others++ < 5)
			printf("%s %s %.2f s (%s)", others == 1 ? "other steps:" : ",", r->build.edges[i].outputs.v[0],
			       r->steps[i].seconds, !strcmp(r->steps[i].source, ".ninja_log") ? "from .ninja_log"
			       : "re-run on the temp objects");
	}
	if (others > 5)
		printf(", +%zu more", others - 5);
	if (others)
		printf("\n");
	if (r->unknown)
		printf("note: %zu step%s without a time (not re-run, not in .ninja_log) counted as 0 s\n",
		       r->unknown, r->unknown == 1 ? "" : "s");
	printf("critical path (longest chain of dependencies, %.2f s):", r->prediction.critical);
	bool first = true;
	for (size_t i = 0; i < r->nchain; i++) {
		size_t e = r->chain[i];
		if (r->model.nodes[e].free)
			continue;
		printf("%s %s (%.2f s)", first ? "" : " ->", r->build.edges[e].outputs.v[0], r->steps[e].seconds);
		first = false;
	}
	printf("\n");
	if (r->parallel > 1)
		printf("note: %ld TUs were measured at once; contention for cores and memory inflates their walls\n",
		       r->parallel);
}

static void rank_free(struct rank *r)
{
	for (size_t i = 0; i < r->ntus; i++) {
		compile_command_clear(&r->tus[i].cmd);
		free(r->tus[i].walls);
		free(r->tus[i].cpus);
		free(r->tus[i].failure);
	}
	free(r->tus);
	free(r->tu_of);
	free(r->steps);
	model_free(&r->model);
	free(r->contention_source);
	free(r->chain);
	free(r->policy_why);
	free(r->order);
	strvec_clear(&r->stripped);
	ninja_build_free(&r->build);
}

static char *parse_contention(void *mode, const char *arg)
{
	static const char *const names[] = { "measure", "log", "none" };
	for (int i = 0; i < 3; i++)
		if (!strcmp(arg, names[i])) {
			*(int *)mode = i;
			return NULL;
		}
	return xasprintf("--contention is measure, log or none, not '%s'", arg);
}

int cmd_rank(int argc, char **argv)
{
	struct rank r = { .dir = ".", .repeats = 1, .parallel = 1 };
	struct policy_option policy = { 0 };
	bool json = false;
	const struct opt opts[] = {
		OPT_DIR(&r.dir),
		{ OPT_INT, 'r', "repeats", &r.repeats, "R", "runs per TU; the median is reported (default 1)", 1, 1000, NULL },
		OPT_PARALLEL(&r.parallel, "measure P TUs at once (default 1; contention inflates walls)"),
		OPT_BUILD_JOBS(&r.jobs, "the job count to predict the wall for (default $MAX_JOBS, else CPUs)"),
		OPT_TOP(&r.top, 1, "show the K slowest TUs only"),
		OPT_POLICY(&policy),
		{ OPT_CALL, 0, "contention", &r.contention_mode, "HOW", "measure (default: the TUs once more, one per core at once),\n"
			"log (the recorded build in .ninja_log) or none", 0, 0, parse_contention },
		OPT_TIMEOUT(&r.timeout, "give up on a compile after S seconds (counts as failed)"),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("rank", argc, argv, opts, usage);
	if (!r.jobs)
		r.jobs = jobs_from_env("rank");
	if (!r.jobs)
		r.jobs = cpu_count();

	snapshot_guard(r.dir);
	ninja_load(r.dir, &r.build);
	select_tus(&r, argv + first, (size_t)(argc - first));
	steps_note_stripped(&r.stripped);
	measure(&r);
	step_times(&r);
	if (policy.given) {
		r.policy = policy.policy;
		r.policy_why = xstrdup("--policy");
	} else {
		r.policy = ninja_policy(&r.policy_why);
	}
	predict(&r);
	if (json)
		render_json(&r);
	else
		render_table(&r);
	int status = failures_status(r.failures, "step", "");
	rank_free(&r);
	return status;
}
