/* buildwall wall: how long a clean rebuild really takes, over N trials. */
#define _GNU_SOURCE
#include "cli.h"
#include "busy.h"
#include "cluster.h"
#include "cluster_trials.h"
#include "control.h"
#include "driver.h"
#include "match.h"
#include "ninja.h"
#include "out_json.h"
#include "options.h"
#include "out_table.h"
#include "proc.h"
#include "stats.h"
#include "trial.h"
#include "util.h"

#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall wall [-n N] [-j JOBS] [--match REGEX] [--timeout S] [--distcc-log FILE] [--no-control]\n"
	"                      [--json] -C BUILD_DIR\n"
	"       buildwall wall [-n N] [--match REGEX] [--timeout S] [--json] [--clean CMD] -- BUILD_CMD...\n"
	"\n"
	"Time N clean rebuilds (default 3) and summarise them: min, median, max, spread.\n"
	"With -C, each trial runs 'ninja -t clean' then 'ninja' (with -j JOBS, else $MAX_JOBS,\n"
	"else ninja's default). Otherwise CMD (run by /bin/sh) cleans and BUILD_CMD builds;\n"
	"without --clean no clean step runs: for a build command that cleans by itself\n"
	"(aiter's AITER_REBUILD=1 python3 -c ...). The tree is left built after the last trial.\n"
	"\n"
	"Measured per trial, for the build command only: wall time (monotonic clock), CPU\n"
	"(user+sys of the build and every process it waited for), peak RSS (the largest\n"
	"single process). --match REGEX extracts a number from the build's output with ANSI\n"
	"colour codes removed: the first capture group, else the whole match, last match wins;\n"
	"e.g. --match 'cost ([0-9.]+)s' reads aiter's 'finish build [...], cost 11.1s'.\n"
	"\n"
	"A build whose compiles go through distcc (its commands, or CC/CXX) runs with\n"
	"DISTCC_VERBOSE=1 and DISTCC_LOG in buildwall's temp dir: each trial then says how\n"
	"many compiles were sent, kept here or failed by the cluster, the remote hosts' hold\n"
	"and the waits for a slot; with -C, the last trial's slots offered and which bound\n"
	"held. --distcc-log FILE keeps that log for log and sim.\n"
	"\n"
	"With -C, the control compile is timed before the first trial and after each (a small\n"
	"C++ TU buildwall carries, compiled with the build's own compiler, median of 3): each\n"
	"trial carries the mean of the two around it, so record and check can tell a machine\n"
	"that slowed from a build that did (--no-control: none).\n"
	"\n";

/* The launchers the build runs its compiles behind: a compiler cache (clean
 * rebuilds would measure cache hits) and a cluster (distcc, icecc: wall
 * then reads where each compile ran). */
struct launchers_seen {
	const char *cache, *cluster;
};

static void launchers_in_use(const char *dir, char *const *build_argv, struct launchers_seen *seen)
{
	static const char *const caches[] = { "ccache", "sccache", "buildcache", NULL };
	*seen = (struct launchers_seen){ 0 };
	const char *path = getenv("PATH");
	const char *vars[] = { "CC", "CXX", "CUDAHOSTCXX", NULL };
	for (int i = 0; caches[i] && !seen->cache; i++) {
		char *needle = xasprintf("/%s", caches[i]);
		bool hit = path && strstr(path, needle);
		free(needle);
		for (int v = 0; vars[v] && !hit; v++)
			hit = getenv(vars[v]) && strstr(getenv(vars[v]), caches[i]);
		for (char *const *a = build_argv; a && *a && !hit; a++)
			hit = !strcmp(base_name(*a), caches[i]);
		if (hit)
			seen->cache = caches[i];
	}
	for (int v = 0; vars[v] && !seen->cluster; v++)
		seen->cluster = cluster_launcher(getenv(vars[v]), ".");
	if (!dir)
		return;
	struct strvec commands = { 0 };
	ninja_commands(dir, &commands);
	for (size_t i = 0; i < commands.n && !(seen->cache && seen->cluster); i++) {
		struct compile_command cmd = { 0 };
		char *unparsed = NULL;	/* a step that is no compiler command has no launcher */
		driver_parse(commands.v[i], dir, &cmd, &unparsed);
		free(unparsed);
		for (size_t k = 0; k < cmd.launchers.n && !seen->cache; k++)
			for (int j = 0; caches[j] && !seen->cache; j++)
				if (!strcmp(base_name(cmd.launchers.v[k]), caches[j]))
					seen->cache = caches[j];
		compile_command_clear(&cmd);
		if (!seen->cluster)
			seen->cluster = cluster_launcher(commands.v[i], dir);
	}
	strvec_clear(&commands);
}

static void print_cluster_trials(const struct cluster_trials *ct, const char *keep)
{
	printf("\ncluster (%s): where each trial's compiles ran, from distcc's own log (DISTCC_VERBOSE=1); the cpu above is "
	       "this machine's, the sent compiles ran on the hosts\n", ct->launcher);
	struct table *tab = table_new();
	const char *cols[] = { "trial", "sent", "kept here", "cluster failed", "there s", "waited s" };
	for (int c = 0; c < 6; c++)
		table_column(tab, cols[c], true);
	for (size_t k = 0; k < ct->n; k++) {
		const struct distcc_summary *s = &ct->sum[k];
		table_cell(tab, "%zu", k + 1);
		if (!ct->have[k]) {
			for (int c = 1; c < 6; c++)
				table_cell(tab, "-");
			continue;
		}
		table_cell(tab, "%zu", s->remote);
		table_cell(tab, "%zu", s->local + s->fell_back);
		table_cell(tab, "%zu", s->fell_back);
		table_cell(tab, "%.2f", s->remote_s);
		table_cell(tab, "%.2f", s->wait_s);
	}
	table_print(tab, stdout);
	table_free(tab);
	if (ct->have_last) {
		const struct cluster_report *r = &ct->last;
		printf("last trial: %d remote slot%s offered on %zu host%s, at most %d sent at once; here %.2f s of the compiles, "
		       "%.2f s of other steps\nbound: %s: %s\n", r->remote_slots, r->remote_slots == 1 ? "" : "s",
		       r->sum.remote_hosts, r->sum.remote_hosts == 1 ? "" : "s", r->most_sent, r->here_s, r->local_s, r->bound,
		       r->bound_why);
	}
	if (keep)
		printf("distcc log of the last trial: %s (log --distcc-log, sim --remote N --distcc-log)\n", keep);
}

static json_t *json_cluster_trials(const struct cluster_trials *ct)
{
	if (!ct->launcher)
		return json_null();
	json_t *rows = json_array();
	for (size_t k = 0; k < ct->n; k++) {
		const struct distcc_summary *s = &ct->sum[k];
		json_array_append_new(rows, !ct->have[k] ? json_null() :
			json_build("{s:I, s:I, s:I, s:I, s:o, s:o}", "sent", (json_int_t)s->remote, "kept_here",
				   (json_int_t)(s->local + s->fell_back), "cluster_failed", (json_int_t)s->fell_back, "failed",
				   (json_int_t)s->failed, "there_s", json_seconds(s->remote_s), "wait_s", json_seconds(s->wait_s)));
	}
	json_t *c = json_build("{s:s, s:o}", "launcher", ct->launcher, "trials", rows);
	if (ct->have_last)
		json_object_set_new(c, "last_trial", json_build("{s:I, s:I, s:o, s:o, s:s, s:s}", "remote_slots",
			(json_int_t)ct->last.remote_slots, "most_sent_at_once", (json_int_t)ct->last.most_sent, "here_s",
			json_seconds(ct->last.here_s), "other_steps_s", json_seconds(ct->last.local_s), "bound", ct->last.bound,
			"bound_why", ct->last.bound_why));
	return c;
}

/* A wall run: what was asked, and the trials measured. */
struct wall_cmd {
	long trials, jobs;
	const char *dir, *clean, *match, *distcc_keep;
	double timeout;
	bool json, no_control;
	regex_t re;
	struct build_spec spec;
	struct launchers_seen seen;
	/* per trial */
	double *walls, *cpus, *matches;
	long *rss, *peak;	/* the largest process's; the whole build's */
	const char *peak_by;
	struct summary sw, sc, sm;
	bool noisy;		/* the trials differ by more than 10 % */
	struct cluster_trials ct;
	/* Around the trials; its compiler NULL: no control. Copies: the
	 * build's jobs, the CPUs at most. */
	struct control_series control;
	double *controls;	/* per trial: the mean of the controls before and after it */
};

/* Run the trials, each a clean rebuild (or the build command alone). */
static void measure_trials(struct wall_cmd *w)
{
	size_t n = (size_t)w->trials;
	w->walls = xcalloc(n, sizeof(double));
	w->cpus = xcalloc(n, sizeof(double));
	w->matches = xcalloc(n, sizeof(double));
	w->rss = xcalloc(n, sizeof(long));
	w->peak = xcalloc(n, sizeof(long));
	cluster_trials_start(&w->ct, n, w->seen.cluster);
	w->controls = xcalloc(n, sizeof(double));
	control_series_start(&w->control);
	for (size_t k = 0; k < n; k++) {
		char *what = xasprintf("trial %zu", k + 1);
		struct trial_result r;
		cluster_trial_before(&w->ct, k);
		trial_run(&w->spec, what, w->match ? &w->re : NULL, w->timeout, &r);
		cluster_trial_after(&w->ct, k);
		free(what);
		w->walls[k] = r.wall;
		w->cpus[k] = r.cpu;
		w->rss[k] = r.maxrss_kb;
		w->peak[k] = r.peak_kb;
		w->peak_by = r.peak_by;
		w->matches[k] = r.match;
		if (w->match && isnan(w->matches[k]))
			warn("trial %zu: --match found no number in the build's output", k + 1);
		w->controls[k] = control_series_next(&w->control);
	}
	if (!w->control.compiler)	/* one failed: none of them counts */
		memset(w->controls, 0, n * sizeof(double));
	w->sw = summarize(w->walls, n);
	w->sc = summarize(w->cpus, n);
	w->sm = summarize(w->matches, n);
	w->noisy = w->sw.spread > 0.10;
	cluster_trials_finish(&w->ct, w->dir, w->distcc_keep);
}

static void render_json(const struct wall_cmd *w)
{
	json_t *doc = json_document("wall", w->dir, 0);
	json_t *arr = json_array();
	for (long k = 0; k < w->trials; k++)
		json_array_append_new(arr, json_build("{s:i, s:o, s:o, s:I, s:o, s:o, s:o}", "trial", (int)k + 1, "wall_s",
						      json_seconds(w->walls[k]), "cpu_s", json_seconds(w->cpus[k]),
						      "max_rss_kib", (json_int_t)w->rss[k],
						      "peak_kib", w->peak[k] > 0 ? json_integer(w->peak[k]) : json_null(),
						      "match", json_seconds(w->matches[k]),
						      "control_s", w->controls[k] > 0 ? json_seconds(w->controls[k]) : json_null()));
	json_object_set_new(doc, "clean_command", w->spec.clean_line ? json_string(w->spec.clean_line) : json_null());
	json_object_set_new(doc, "build_command", json_string(w->spec.build_line));
	json_object_set_new(doc, "jobs", w->jobs ? json_integer(w->jobs) : json_null());
	char *measured = xasprintf("build command only: wall = monotonic clock; cpu = user+sys of it and its reaped "
				   "children; max_rss = largest single process; peak = the most all its processes held at "
				   "once (%s)", w->peak_by ? w->peak_by : "not measured");
	json_object_set_new(doc, "measured", json_string(measured));
	free(measured);
	json_object_set_new(doc, "trials", arr);
	json_object_set_new(doc, "wall_s", json_summary(w->sw));
	json_object_set_new(doc, "cpu_s", json_summary(w->sc));
	json_object_set_new(doc, "match", w->match ? json_summary(w->sm) : json_null());
	json_object_set_new(doc, "cache", w->seen.cache ? json_string(w->seen.cache) : json_null());
	json_object_set_new(doc, "noisy", json_boolean(w->noisy));
	json_object_set_new(doc, "cluster", json_cluster_trials(&w->ct));
	json_object_set_new(doc, "control", w->control.compiler ? json_pack("{s:s, s:I, s:I, s:s}", "compiler", w->control.compiler,
		"copies", (json_int_t)w->control.copies, "runs", (json_int_t)CONTROL_RUNS, "measured", "the control TU compiled before the first trial and after "
		"each; a trial's control_s is the mean of the medians around it") : json_null());
	json_print(doc);
}

static void render_table(const struct wall_cmd *w)
{
	printf("%swall%s: %ld %s%s of %s: %s%s\n", c_bold(stdout), c_reset(stdout), w->trials,
	       w->spec.clean.n ? "clean rebuild" : "run", w->trials == 1 ? "" : "s", w->dir ? w->dir : ".",
	       w->spec.build_line, w->dir && !w->jobs ? " (ninja's default jobs)" : "");
	if (!w->spec.clean.n)
		printf("no clean step ran: each trial is the build command alone (give --clean CMD if it does not clean by "
		       "itself)\n");
	printf("measured: the build command's wall (monotonic clock), CPU (user+sys, incl. children), peak memory (the most "
	       "all its processes held at once: %s)\n\n", w->peak_by ? w->peak_by : "not measured");
	struct table *tab = table_new();
	table_column(tab, "trial", true);
	table_column(tab, "wall s", true);
	table_column(tab, "cpu s", true);
	table_column(tab, "peak mem", true);
	if (w->match)
		table_column(tab, "match", true);
	if (w->control.compiler)
		table_column(tab, "control s", true);
	for (long k = 0; k < w->trials; k++) {
		char *mem = format_kib(w->peak[k] > 0 ? w->peak[k] : w->rss[k]);
		table_cell(tab, "%ld", k + 1);
		table_cell(tab, "%.2f", w->walls[k]);
		table_cell(tab, "%.2f", w->cpus[k]);
		table_cell(tab, "%s", mem);
		if (w->match && isnan(w->matches[k]))
			table_cell(tab, "-");
		else if (w->match)
			table_cell(tab, "%g", w->matches[k]);
		if (w->control.compiler)
			table_cell(tab, "%.3f", w->controls[k]);
		free(mem);
	}
	table_print(tab, stdout);
	table_free(tab);
	printf("\nwall:  min %.2f s  median %s%.2f s%s  max %.2f s  spread %.1f %%\n", w->sw.min, c_bold(stdout),
	       w->sw.median, c_reset(stdout), w->sw.max, w->sw.spread * 100);
	printf("cpu:   median %.2f s (%.2f cores busy on average)\n", w->sc.median,
	       w->sw.median > 0 ? w->sc.median / w->sw.median : 0);
	if (w->match && w->sm.n)
		printf("match: min %g  median %g  max %g  (%zu of %ld trials)\n", w->sm.min, w->sm.median, w->sm.max,
		       w->sm.n, w->trials);
	if (w->ct.launcher)
		print_cluster_trials(&w->ct, w->distcc_keep);
	if (w->control.compiler)
		printf("control: %s compiling buildwall's control TU, %zu at once, before the first trial and after each "
		       "(median of %d); record and check take each trial's\n", w->control.compiler, w->control.copies, CONTROL_RUNS);
}

static void wall_free(struct wall_cmd *w)
{
	free(w->walls);
	free(w->cpus);
	free(w->matches);
	free(w->rss);
	free(w->peak);
	free(w->controls);
	control_series_clear(&w->control);
	cluster_trials_free(&w->ct);
	if (w->match)
		regfree(&w->re);
	build_spec_free(&w->spec);
}

int cmd_wall(int argc, char **argv)
{
	struct wall_cmd w = { .trials = 3 };
	const struct opt opts[] = {
		OPT_INT('n', "trials", &w.trials, "N", "number of clean rebuilds (default 3)", 1, 1000),
		OPT_STRING('C', NULL, &w.dir, "DIR", "ninja build directory"),
		OPT_BUILD_JOBS(&w.jobs, "ninja -j (default $MAX_JOBS, else ninja's own default)"),
		OPT_STRING(0, "clean", &w.clean, "CMD", "shell command that makes the next build a clean one"),
		OPT_STRING(0, "match", &w.match, "REGEX", "POSIX extended regex to extract a number per trial"),
		OPT_TIMEOUT(&w.timeout, "give up on a trial after S seconds (exit 3)"),
		OPT_DISTCC_LOG(&w.distcc_keep, "keep the last trial's distcc client log (for log and sim)"),
		OPT_FLAG(0, "no-control", &w.no_control, "no control compile between the trials"),
		OPT_JSON(&w.json),
		OPT_TABLE_END,
	};
	int first = parse_options("wall", argc, argv, opts, usage);
	char **build_cmd = argv + first;
	size_t nbuild = (size_t)(argc - first);
	if (w.dir && w.clean)
		usage_error("wall", "-C and --clean are two ways to name the build; give one");
	if (!w.dir && !nbuild)
		usage_error("wall", "name the build: -C BUILD_DIR, or [--clean CMD] -- BUILD_CMD...");
	if (w.dir && nbuild)
		usage_error("wall", "unexpected argument '%s' with -C", build_cmd[0]);
	if (w.clean && !nbuild)
		usage_error("wall", "--clean needs the build command after '--'");
	if (w.clean && w.jobs)
		usage_error("wall", "-j applies to -C builds; put the job count in BUILD_CMD");
	if (!w.jobs && w.dir)
		w.jobs = jobs_from_env("wall");
	if (w.match) {
		char *err = NULL;
		if (!regex_compile(&w.re, w.match, 0, &err))
			usage_error("wall", "--match: invalid regex '%s': %s", w.match, err);
	}
	if (w.dir) {
		ninja_check_dir(w.dir);
		build_spec_ninja(&w.spec, w.dir, w.jobs);
		if (!w.no_control) {
			struct ninja_build b;
			ninja_load(w.dir, &b);
			w.control = (struct control_series){ .compiler = control_compiler(w.dir, &b),
							     .copies = control_copies(w.jobs > 0 ? w.jobs : cpu_count()),
							     .without = "the trials carry no control" };
			ninja_build_free(&b);
		}
	} else {
		build_spec_argv(&w.spec, w.clean, build_cmd, nbuild);
	}
	launchers_in_use(w.dir, w.dir ? NULL : w.spec.build.v, &w.seen);
	if (w.distcc_keep && !w.seen.cluster)
		usage_error("wall", "--distcc-log: the build runs no compile behind distcc (nor CC/CXX name it)");
	if (w.seen.cache)
		warn("%s is in use: clean rebuilds may be cache hits, not compiles (set CCACHE_DISABLE=1 or remove it to "
		     "time real builds)", w.seen.cache);
	warn_if_busy();
	measure_trials(&w);
	if (w.json)
		render_json(&w);
	else
		render_table(&w);
	if (w.noisy)
		warn("trials differ by %.0f %% (more than 10 %%): the machine is noisy; add trials (-n) or quiet it",
		     w.sw.spread * 100);
	wall_free(&w);
	return EXIT_OK;
}
