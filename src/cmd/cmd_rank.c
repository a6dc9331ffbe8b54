/* buildwall rank: re-run every compile step in isolation, rank the TUs by
 * wall time, and predict the module's wall from ninja's graph. The build
 * directory is only read: every output goes to buildwall's temp dir. */
#define _GNU_SOURCE
#include "cli.h"
#include "graph.h"
#include "measure.h"
#include "ninja.h"
#include "json_facts.h"
#include "out_json.h"
#include "options.h"
#include "out_table.h"
#include "proc.h"
#include "snapshot.h"
#include "steps.h"
#include "util.h"
#include "whatif.h"

#include <math.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall rank [-C BUILD_DIR] [TARGET...] [--parallel P] [-j JOBS] [-r REPEATS]\n"
	"                      [--top K] [--policy manifest|critical] [--contention HOW] [--timeout S]\n"
	"                      [--launcher distcc] [--json]\n"
	"\n"
	"Re-run each compile step (default: every object file; TARGET names an output path,\n"
	"its basename or a glob such as '*.cuda.o') in isolation, with every file it writes\n"
	"redirected to a private temp dir: the build directory stays byte-identical.\n"
	"Compiler launchers (ccache, sccache, distcc) are stripped so the compiler is timed.\n"
	"--launcher distcc sends each compile through distcc instead (its hosts from\n"
	"DISTCC_HOSTS or ~/.distcc/hosts; --parallel may go beyond the CPUs here): each TU\n"
	"is timed as the cluster compiles it, and distcc's own log says where each run ran;\n"
	"one the cluster failed ran here (distcc's fallback) and is marked so.\n"
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

struct rank {
	const char *dir;
	struct ninja_build build;
	struct measure_options opt;
	long jobs, top;
	struct measurement m;	/* the TUs' times and every step's */

	/* The model the renderers show, filled by predict(). */
	struct model model;
	struct prediction prediction;	/* the wall and its two lower bounds */
	struct step_memory *memory;	/* per edge, the model's (it borrows the shapes) */
	enum sched_policy policy;
	char *policy_why;
	size_t *chain, nchain;	/* the longest chain of dependencies, first to last */
	struct tu **order;	/* slowest first, failed last */
	double serial;
	size_t measured, unknown;
};

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
	for (size_t i = 0; i < n; i++)
		r->unknown += !strcmp(r->m.steps[i].source, "none");
	double *seconds = measurement_seconds(&r->m);
	model_from_build(&r->model, &r->build, seconds);
	free(seconds);
	r->memory = measurement_memory(&r->m);
	model_set_memory(&r->model, r->memory, n);
	const struct sched_options o = { .jobs = (int)r->jobs, .policy = r->policy,
					 .cores = r->m.contention.samples ? r->m.contention.cores : 0,
					 .contention = r->m.contention.share };
	bool ok = model_predict(&r->model, &o, &r->prediction);
	proc_exit_if_interrupted();
	if (!ok)
		die(EXIT_BAD_INPUT, "%s: the build graph has a cycle", r->dir);
	r->chain = xcalloc(n, sizeof(size_t));
	r->nchain = graph_longest_chain(r->model.nodes, n, r->chain);
	r->order = xcalloc(r->m.ntus, sizeof(*r->order));
	for (size_t i = 0; i < r->m.ntus; i++) {
		r->order[i] = &r->m.tus[i];
		if (!r->m.tus[i].failed) {
			r->serial += r->m.tus[i].wall.median;
			r->measured++;
		}
	}
	qsort(r->order, r->m.ntus, sizeof(*r->order), cmp_tu);
}

/* Steps that are neither phony nor a ranked TU but have a time: the link
 * and the like, with where their time came from. */
static bool is_other_step(const struct rank *r, size_t i)
{
	return r->m.tu_of[i] < 0 && strcmp(r->m.steps[i].source, "phony") && strcmp(r->m.steps[i].source, "none");
}

static const char *const measured_text =
	"each compile re-run in isolation, outputs in a private temp dir: wall = median of repeats "
	"(monotonic clock); cpu = user+sys incl. children; max_rss = largest single process";

static json_t *json_step(const struct rank *r, size_t i)
{
	return json_build("{s:s, s:o, s:s}", "target", r->build.edges[i].outputs.v[0],
			 "seconds", json_seconds(r->m.steps[i].seconds), "source", r->m.steps[i].source);
}


/* How its memory ran: a share of its peak in each sixteenth of its run. */
static json_t *json_shape(const struct tu *t)
{
	if (!t->has_shape || t->peak_kb <= 0)
		return json_null();
	json_t *a = json_array();
	for (int k = 0; k < PROC_SHAPE_BINS; k++)
		json_array_append_new(a, json_real(round(t->shape[k] * 1000) / 1000));
	return a;
}

static void render_json(const struct rank *r)
{
	json_t *doc = json_document("rank", r->dir, r->m.failures);
	json_t *stripped = json_array();
	for (size_t i = 0; i < r->m.stripped.n; i++)
		json_array_append_new(stripped, json_string(r->m.stripped.v[i]));
	json_object_set_new(doc, "method", json_build("{s:I, s:I, s:s, s:o, s:o}", "repeats", (json_int_t)r->opt.repeats,
		"parallel", (json_int_t)r->opt.parallel, "measured", measured_text, "launchers_stripped", stripped,
		"launcher", r->opt.launcher ? json_string(r->opt.launcher) : json_null()));
	json_t *tus = json_array();
	for (size_t i = 0; i < r->m.ntus; i++) {
		const struct tu *t = r->order[i];
		const struct ninja_edge *e = &r->build.edges[t->edge];
		json_t *walls = json_array();
		for (size_t k = 0; k < t->runs; k++)
			json_array_append_new(walls, json_seconds(t->walls[k]));
		double missing = NAN;
		json_array_append_new(tus, json_build("{s:i, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o}",
			"rank", (int)i + 1, "target", e->outputs.v[0], "rule", e->rule,
			"compiler", compiler_name(t->cmd.compiler), "status", t->failed ? "failed" : "ok",
			"wall_s", json_seconds(t->failed ? missing : t->wall.median),
			"wall_min_s", json_seconds(t->failed ? missing : t->wall.min),
			"wall_max_s", json_seconds(t->failed ? missing : t->wall.max),
			"walls_s", walls, "cpu_s", json_seconds(t->failed ? missing : t->cpu.median),
			"max_rss_kib", (json_int_t)t->maxrss_kb,
			"peak_kib", t->peak_kb > 0 ? json_integer(t->peak_kb) : json_null(),
			"peak_by", t->peak_kb > 0 ? json_string(t->peak_by) : json_null(),
			"peak_shape", json_shape(t),
			"share", t->failed || r->serial <= 0 ? json_null() : json_real(round(t->wall.median / r->serial * 10000) / 10000),
			"failure", t->failure ? json_string(t->failure) : json_null()));
		if (r->opt.launcher)
			json_object_set_new(json_array_get(tus, json_array_size(tus) - 1), "cluster", json_cluster_runs(t));
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
	json_object_set_new(doc, "prediction", json_build("{s:I, s:o, s:s, s:s, s:o, s:o, s:s, s:o, s:o, s:o, s:I, s:o, s:I}",
		"jobs", (json_int_t)r->jobs, "wall_s", json_seconds(r->prediction.wall),
		"policy", r->policy == POLICY_CRITICAL ? "critical" : "manifest", "policy_source", r->policy_why,
		"critical_path_s", json_seconds(r->prediction.critical), "work_bound_s", json_seconds(r->prediction.work),
		"binds", r->prediction.binds, "contention", json_contention(&r->m.contention),
		"critical_path", path, "other_steps", others,
		"steps_without_time", (json_int_t)r->unknown,
		"peak_kib", r->prediction.peak_kb > 0 ? json_integer((json_int_t)r->prediction.peak_kb) : json_null(),
		"steps_without_peak", (json_int_t)r->prediction.peak_unknown));
	json_print(doc);
}

/* Where a TU's runs ran, through the launcher. */
static char *where_text(const struct tu *t)
{
	if (!t->sent && !t->kept_here)
		return xstrdup("not in distcc's log");
	if (t->kept_here)
		return xasprintf("here: %zu of %zu run%s%s", t->kept_here, t->sent + t->kept_here,
				 t->sent + t->kept_here == 1 ? "" : "s", t->fell_back ? ", the cluster failed it" : ", not sent");
	return xasprintf("%s%s%s", t->host, t->retried ? ", after a host failed it" : "",
			 t->sent > 1 ? ", the last run" : "");
}

static void render_table(const struct rank *r)
{
	printf("%srank%s: %zu compile step%s in %s, each re-run %s (%ld repeat%s, %ld at a time)\n",
	       c_bold(stdout), c_reset(stdout), r->m.ntus, r->m.ntus == 1 ? "" : "s", r->dir,
	       r->opt.launcher ? "through distcc, as the cluster compiles it" : "in isolation", r->opt.repeats,
	       r->opt.repeats == 1 ? "" : "s", r->opt.parallel);
	const char *peak_by = NULL;
	for (size_t i = 0; i < r->m.ntus && !peak_by; i++)
		peak_by = r->m.tus[i].peak_kb > 0 ? r->m.tus[i].peak_by : NULL;
	printf("measured: wall = %s (monotonic clock), CPU = user+sys incl. children, memory = the most its processes held at "
	       "once (%s)\n\n", r->opt.repeats > 1 ? "median of the repeats" : "one run",
	       peak_by ? peak_by : "not measured: the largest process's RSS");
	struct table *tab = table_new();
	table_column(tab, "#", true);
	table_column(tab, "TU", false);
	table_column(tab, "wall s", true);
	if (r->opt.repeats > 1)
		table_column(tab, "min-max s", true);
	table_column(tab, "cpu s", true);
	table_column(tab, "peak mem", true);
	table_column(tab, "share", true);
	table_column(tab, "compiler", false);
	if (r->opt.launcher)
		table_column(tab, "ran on", false);
	size_t shown = r->top && (size_t)r->top < r->m.ntus ? (size_t)r->top : r->m.ntus;
	for (size_t i = 0; i < shown; i++) {
		const struct tu *t = r->order[i];
		table_cell(tab, "%zu", i + 1);
		table_cell(tab, "%s", r->build.edges[t->edge].outputs.v[0]);
		if (t->failed) {
			table_cell(tab, "FAILED");
			for (int k = r->opt.repeats > 1 ? 4 : 3; k > 0; k--)
				table_cell(tab, "-");
		} else {
			char *mem = format_kib(t->peak_kb > 0 ? t->peak_kb : t->maxrss_kb);
			table_cell(tab, "%.2f", t->wall.median);
			if (r->opt.repeats > 1)
				table_cell(tab, "%.2f-%.2f", t->wall.min, t->wall.max);
			table_cell(tab, "%.2f", t->cpu.median);
			table_cell(tab, "%s", mem);
			table_cell(tab, "%.1f%%", r->serial > 0 ? 100 * t->wall.median / r->serial : 0);
			free(mem);
		}
		table_cell(tab, "%s", compiler_name(t->cmd.compiler));
		if (r->opt.launcher) {
			char *where = where_text(t);
			table_cell(tab, "%s", where);
			free(where);
		}
	}
	table_print(tab, stdout);
	table_free(tab);
	if (shown < r->m.ntus)
		printf("(%zu more; --top shows the %zu slowest)\n", r->m.ntus - shown, shown);

	printf("\nserial sum: %.2f s over %zu compile step%s\n", r->serial, r->measured, r->measured == 1 ? "" : "s");
	printf("predicted wall at -j %ld: %s%.2f s%s (list scheduling over ninja's graph, %s: %s)\n", r->jobs,
	       c_bold(stdout), r->prediction.wall, c_reset(stdout),
	       r->policy == POLICY_CRITICAL ? "longest path first" : "manifest order", r->policy_why);
	printf("bounds: critical path %.2f s, total work / jobs %.2f s: the %s binds\n", r->prediction.critical, r->prediction.work,
	       r->prediction.binds);
	if (r->prediction.peak_kb > 0) {
		char *mem = format_kib((long)r->prediction.peak_kb);
		printf("predicted peak memory at -j %ld: %s (the steps running at once, each at its process tree's peak",
		       r->jobs, mem);
		if (r->prediction.peak_unknown)
			printf("; %zu step%s not measured counted as none", r->prediction.peak_unknown,
			       r->prediction.peak_unknown == 1 ? "" : "s");
		printf(")\n");
		free(mem);
	}
	char *cont = contention_text(&r->m.contention);
	printf("contention: %s\n", cont);
	free(cont);
	size_t others = 0;
	for (size_t i = 0; i < r->build.n; i++) {
		if (!is_other_step(r, i))
			continue;
		if (others++ < 5)
			printf("%s %s %.2f s (%s)", others == 1 ? "other steps:" : ",", r->build.edges[i].outputs.v[0],
			       r->m.steps[i].seconds, !strcmp(r->m.steps[i].source, ".ninja_log") ? "from .ninja_log"
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
		printf("%s %s (%.2f s)", first ? "" : " ->", r->build.edges[e].outputs.v[0], r->m.steps[e].seconds);
		first = false;
	}
	printf("\n");
	if (r->opt.parallel > 1)
		printf("note: %ld TUs were measured at once; contention for cores and memory inflates their walls\n",
		       r->opt.parallel);
}

static void rank_free(struct rank *r)
{
	measurement_free(&r->m);
	model_free(&r->model);
	free(r->memory);
	free(r->chain);
	free(r->policy_why);
	free(r->order);
	ninja_build_free(&r->build);
}

static bool parse_contention(void *mode, const char *arg, char **err)
{
	static const char *const names[] = { "measure", "log", "none" };
	for (int i = 0; i < 3; i++)
		if (!strcmp(arg, names[i])) {
			*(int *)mode = i;
			return true;
		}
	return fail_with(err, xasprintf("--contention is measure, log or none, not '%s'", arg));
}

int cmd_rank(int argc, char **argv)
{
	struct rank r = { .dir = ".", .opt = { .repeats = 1, .parallel = 1 } };
	struct policy_option policy = { 0 };
	bool json = false;
	const struct opt opts[] = {
		OPT_DIR(&r.dir),
		OPT_INT('r', "repeats", &r.opt.repeats, "R", "runs per TU; the median is reported (default 1)", 1, 1000),
		OPT_PARALLEL(&r.opt.parallel, "measure P TUs at once (default 1; contention inflates walls)"),
		OPT_BUILD_JOBS(&r.jobs, "the job count to predict the wall for (default $MAX_JOBS, else CPUs)"),
		OPT_TOP(&r.top, 1, "show the K slowest TUs only"),
		OPT_POLICY(&policy),
		OPT_CALL(0, "contention", &r.opt.contention, "HOW", "measure (default: the TUs once more, one per core at once),\n"
			"log (the recorded build in .ninja_log) or none", parse_contention),
		OPT_TIMEOUT(&r.opt.timeout, "give up on a compile after S seconds (counts as failed)"),
		OPT_LAUNCHER(&r.opt.launcher, "send the compiles through distcc (default: stripped)"),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	r.opt.contention = -1;	/* unset */
	int first = parse_options("rank", argc, argv, opts, usage);
	if (!r.jobs)
		r.jobs = jobs_default("rank");
	/* Side by side here says nothing of compiles that run on the hosts. */
	if ((int)r.opt.contention == -1)
		r.opt.contention = r.opt.launcher ? CONTENTION_NONE : CONTENTION_MEASURE;

	snapshot_guard(r.dir);
	ninja_load(r.dir, &r.build);
	bool *selected = xcalloc(r.build.n, sizeof(bool));
	steps_select("rank", &r.build, argv + first, (size_t)(argc - first), selected);
	measure_tus(r.dir, &r.build, selected, &r.opt, &r.m);
	free(selected);
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
	int status = failures_status(r.m.failures, "step", "");
	rank_free(&r);
	return status;
}
