/* buildwall wall: how long a clean rebuild really takes, over N trials. */
#define _GNU_SOURCE
#include "cli.h"
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
	"usage: buildwall wall [-n N] [-j JOBS] [--match REGEX] [--timeout S] [--json] -C BUILD_DIR\n"
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
	"\n";

/* A compiler cache makes clean rebuilds measure cache hits. */
static const char *cache_in_use(const char *dir, char *const *build_argv)
{
	static const char *const names[] = { "ccache", "sccache", "buildcache", NULL };
	const char *path = getenv("PATH");
	for (int i = 0; names[i]; i++) {
		char *needle = xasprintf("/%s", names[i]);
		bool hit = path && strstr(path, needle);
		free(needle);
		const char *vars[] = { "CC", "CXX", "CUDAHOSTCXX", NULL };
		for (int v = 0; vars[v] && !hit; v++)
			hit = getenv(vars[v]) && strstr(getenv(vars[v]), names[i]);
		for (char *const *a = build_argv; a && *a && !hit; a++)
			hit = !strcmp(base_name(*a), names[i]);
		if (hit)
			return names[i];
	}
	if (!dir)
		return NULL;
	struct strvec commands = { 0 };
	const char *found = NULL;
	ninja_commands(dir, &commands);
	for (size_t i = 0; i < commands.n && !found; i++) {
		struct compile_command cmd = { 0 };
		free(driver_parse(commands.v[i], dir, &cmd));
		for (size_t k = 0; k < cmd.launchers.n && !found; k++)
			for (int j = 0; names[j] && !found; j++)
				if (!strcmp(base_name(cmd.launchers.v[k]), names[j]))
					found = names[j];
		compile_command_clear(&cmd);
	}
	strvec_clear(&commands);
	return found;
}

int cmd_wall(int argc, char **argv)
{
	long trials = 3, jobs = 0;
	const char *dir = NULL, *clean = NULL, *match = NULL;
	double timeout = 0;
	bool json = false;
	const struct opt opts[] = {
		{ OPT_INT, 'n', "trials", &trials, "N", "number of clean rebuilds (default 3)", 1, 1000, NULL },
		{ OPT_STRING, 'C', NULL, &dir, "DIR", "ninja build directory", 0, 0, NULL },
		OPT_BUILD_JOBS(&jobs, "ninja -j (default $MAX_JOBS, else ninja's own default)"),
		{ OPT_STRING, 0, "clean", &clean, "CMD", "shell command that makes the next build a clean one", 0, 0, NULL },
		{ OPT_STRING, 0, "match", &match, "REGEX", "POSIX extended regex to extract a number per trial", 0, 0, NULL },
		OPT_TIMEOUT(&timeout, "give up on a trial after S seconds (exit 3)"),
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
	const char *cache = cache_in_use(dir, dir ? NULL : spec.build.v);
	if (cache)
		warn("%s is in use: clean rebuilds may be cache hits, not compiles (set CCACHE_DISABLE=1 or remove it to time real builds)", cache);
	proc_warn_if_loaded();

	size_t n = (size_t)trials;
	double *walls = xcalloc(n, sizeof(double)), *cpus = xcalloc(n, sizeof(double));
	double *matches = xcalloc(n, sizeof(double));
	long *rss = xcalloc(n, sizeof(long));
	for (long k = 0; k < trials; k++) {
		char *what = xasprintf("trial %ld", k + 1);
		struct trial_result r;
		trial_run(&spec, what, match ? &re : NULL, timeout, &r);
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
	}
	if (noisy)
		warn("trials differ by %.0f %% (more than 10 %%): the machine is noisy; add trials (-n) or quiet it", sw.spread * 100);
	free(walls);
	free(cpus);
	free(matches);
	free(rss);
	if (match)
		regfree(&re);
	build_spec_free(&spec);
	return EXIT_OK;
}
