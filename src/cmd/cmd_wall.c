/* buildwall wall: how long a clean rebuild really takes, over N trials. */
#define _GNU_SOURCE
#include "cli.h"
#include "cluster.h"
#include "cluster_trials.h"
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
	"usage: buildwall wall [-n N] [-j JOBS] [--match REGEX] [--timeout S] [--distcc-log FILE] [--json]\n"
	"                      -C BUILD_DIR\n"
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
		free(driver_parse(commands.v[i], dir, &cmd));
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

int cmd_wall(int argc, char **argv)
{
	long trials = 3, jobs = 0;
	const char *dir = NULL, *clean = NULL, *match = NULL, *distcc_keep = NULL;
	double timeout = 0;
	bool json = false;
	const struct opt opts[] = {
		OPT_INT('n', "trials", &trials, "N", "number of clean rebuilds (default 3)", 1, 1000),
		OPT_STRING('C', NULL, &dir, "DIR", "ninja build directory"),
		OPT_BUILD_JOBS(&jobs, "ninja -j (default $MAX_JOBS, else ninja's own default)"),
		OPT_STRING(0, "clean", &clean, "CMD", "shell command that makes the next build a clean one"),
		OPT_STRING(0, "match", &match, "REGEX", "POSIX extended regex to extract a number per trial"),
		OPT_TIMEOUT(&timeout, "give up on a trial after S seconds (exit 3)"),
		OPT_DISTCC_LOG(&distcc_keep, "keep the last trial's distcc client log (for log and sim)"),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("wall", argc, argv, opts, usage);
	char **build_cmd = argv + first;
	size_t nbuild = (size_t)(argc - first);
	if (dir && clean)
		usage_error("wall", "-C and --clean are two ways to name the build; give one");
	if (!dir && !nbuild)
		usage_error("wall", "name the build: -C BUILD_DIR, or [--clean CMD] -- BUILD_CMD...");
	if (dir && nbuild)
		usage_error("wall", "unexpected argument '%s' with -C", build_cmd[0]);
	if (clean && !nbuild)
		usage_error("wall", "--clean needs the build command after '--'");
	if (clean && jobs)
		usage_error("wall", "-j applies to -C builds; put the job count in BUILD_CMD");
	if (!jobs && dir)
		jobs = jobs_from_env("wall");

	regex_t re;
	if (match) {
		char *err = regex_compile(&re, match, 0);
		if (err)
			usage_error("wall", "--match: invalid regex '%s': %s", match, err);
	}

	struct build_spec spec;
	if (dir) {
		ninja_check_dir(dir);
		build_spec_ninja(&spec, dir, jobs);
	} else {
		build_spec_argv(&spec, clean, build_cmd, nbuild);
	}
	struct launchers_seen seen;
	launchers_in_use(dir, dir ? NULL : spec.build.v, &seen);
	const char *cache = seen.cache;
	if (distcc_keep && !seen.cluster)
		usage_error("wall", "--distcc-log: the build runs no compile behind distcc (nor CC/CXX name it)");
	if (cache)
		warn("%s is in use: clean rebuilds may be cache hits, not compiles (set CCACHE_DISABLE=1 or remove it to time real builds)", cache);
	proc_warn_if_loaded();

	size_t n = (size_t)trials;
	double *walls = xcalloc(n, sizeof(double)), *cpus = xcalloc(n, sizeof(double));
	double *matches = xcalloc(n, sizeof(double));
	long *rss = xcalloc(n, sizeof(long));
	struct cluster_trials ct;
	cluster_trials_start(&ct, n, seen.cluster);
	for (long k = 0; k < trials; k++) {
		char *what = xasprintf("trial %ld", k + 1);
		struct trial_result r;
		cluster_trial_before(&ct, (size_t)k);
		trial_run(&spec, what, match ? &re : NULL, timeout, &r);
		cluster_trial_after(&ct, (size_t)k);
		free(what);
		walls[k] = r.wall;
		cpus[k] = r.cpu;
		rss[k] = r.maxrss_kb;
		matches[k] = r.match;
		if (match && isnan(matches[k]))
			warn("trial %ld: --match found no number in the build's output", k + 1);
	}

	struct summary sw = summarize(walls, n), sc = summarize(cpus, n), sm = summarize(matches, n);
	bool noisy = sw.spread > 0.10;
	cluster_trials_finish(&ct, dir, distcc_keep);

	if (json) {
		json_t *doc = json_document("wall", dir, 0);
		json_t *arr = json_array();
		for (long k = 0; k < trials; k++)
			json_array_append_new(arr, json_build("{s:i, s:o, s:o, s:I, s:o}", "trial", (int)k + 1,
				"wall_s", json_seconds(walls[k]), "cpu_s", json_seconds(cpus[k]),
				"max_rss_kib", (json_int_t)rss[k], "match", json_seconds(matches[k])));
		json_object_set_new(doc, "clean_command", spec.clean_line ? json_string(spec.clean_line) : json_null());
		json_object_set_new(doc, "build_command", json_string(spec.build_line));
		json_object_set_new(doc, "jobs", jobs ? json_integer(jobs) : json_null());
		json_object_set_new(doc, "measured", json_string(
			"build command only: wall = monotonic clock; cpu = user+sys of it and its reaped children; max_rss = largest single process"));
		json_object_set_new(doc, "trials", arr);
		json_object_set_new(doc, "wall_s", json_summary(sw));
		json_object_set_new(doc, "cpu_s", json_summary(sc));
		json_object_set_new(doc, "match", match ? json_summary(sm) : json_null());
		json_object_set_new(doc, "cache", cache ? json_string(cache) : json_null());
		json_object_set_new(doc, "noisy", json_boolean(noisy));
		json_object_set_new(doc, "cluster", json_cluster_trials(&ct));
		json_print(doc);
	} else {
		printf("%swall%s: %ld %s%s of %s: %s%s\n", c_bold(stdout), c_reset(stdout), trials,
		       spec.clean.n ? "clean rebuild" : "run", trials == 1 ? "" : "s", dir ? dir : ".", spec.build_line,
		       dir && !jobs ? " (ninja's default jobs)" : "");
		if (!spec.clean.n)
			printf("no clean step ran: each trial is the build command alone (give --clean CMD if it does not clean by itself)\n");
		printf("measured: the build command's wall (monotonic clock), CPU (user+sys, incl. children), peak RSS (largest process)\n\n");
		struct table *tab = table_new();
		table_column(tab, "trial", true);
		table_column(tab, "wall s", true);
		table_column(tab, "cpu s", true);
		table_column(tab, "peak RSS", true);
		if (match)
			table_column(tab, "match", true);
		for (long k = 0; k < trials; k++) {
			char *mem = format_kib(rss[k]);
			table_cell(tab, "%ld", k + 1);
			table_cell(tab, "%.2f", walls[k]);
			table_cell(tab, "%.2f", cpus[k]);
			table_cell(tab, "%s", mem);
			if (match) {
				if (isnan(matches[k]))
					table_cell(tab, "-");
				else
					table_cell(tab, "%g", matches[k]);
			}
			free(mem);
		}
		table_print(tab, stdout);
		table_free(tab);
		printf("\nwall:  min %.2f s  median %s%.2f s%s  max %.2f s  spread %.1f %%\n", sw.min,
		       c_bold(stdout), sw.median, c_reset(stdout), sw.max, sw.spread * 100);
		printf("cpu:   median %.2f s (%.2f cores busy on average)\n", sc.median,
		       sw.median > 0 ? sc.median / sw.median : 0);
		if (match && sm.n)
			printf("match: min %g  median %g  max %g  (%zu of %ld trials)\n", sm.min, sm.median, sm.max, sm.n, trials);
		if (ct.launcher)
			print_cluster_trials(&ct, distcc_keep);
	}
	if (noisy)
		warn("trials differ by %.0f %% (more than 10 %%): the machine is noisy; add trials (-n) or quiet it", sw.spread * 100);
	free(walls);
	free(cpus);
	free(matches);
	free(rss);
	cluster_trials_free(&ct);
	if (match)
		regfree(&re);
	build_spec_free(&spec);
	return EXIT_OK;
}
