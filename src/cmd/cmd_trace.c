/* buildwall trace: which headers, templates and functions cost the time,
 * host and device passes alike. Either the TUs are compiled once more with
 * every pass traced (trace_probe.h), or existing traces are read; either
 * way the traces are streamed and summed per pass (trace_model.h). */
#define _GNU_SOURCE
#include "cli.h"
#include "busy.h"
#include "headers.h"
#include "ninja.h"
#include "options.h"
#include "json_facts.h"
#include "out_json.h"
#include "out_table.h"
#include "pass_probe.h"
#include "proc.h"
#include "snapshot.h"
#include "steps.h"
#include "trace_model.h"
#include "trace_probe.h"
#include "util.h"
#include "whatif.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: buildwall trace [-C BUILD_DIR] (TARGET... | --all | --top K) [--parallel P] [--kernels]\n"
	"       buildwall trace (FILE.json | DIR)...\n"
	"                       [--rows N] [--pass host|device|ARCH] [--project DIR] [-j N] [--json]\n"
	"\n"
	"Where a TU's compile time goes, per pass: headers by parse time (inclusive, and\n"
	"self: less the headers they include), the include chains that bring them in,\n"
	"templates and template sets (arguments folded to <$>) by instantiation time,\n"
	"functions by optimizer and codegen time, and each pass's phases.\n"
	"\n"
	"With targets, each TU is compiled once more in a private temp dir (the build dir\n"
	"is only read) with its time trace on: clang and hipcc compiles are split into\n"
	"the jobs -### lists and every compiler job, host and each device arch, gets its\n"
	"own -ftime-trace (clang's driver traces the host job only); nvcc compiles run\n"
	"with -fdevice-time-trace (its host gcc shows as a duration). gcc writes no trace:\n"
	"its TUs get passes' phases from -ftime-report instead.\n"
	"\n"
	"With files (or directories, searched for *.json), existing traces are read:\n"
	"clang's -ftime-trace and nvcc's -fdevice-time-trace. A clang trace's pass comes\n"
	"from its file name (a gfx... or sm_... word: that device arch; else host). JSON\n"
	"that is not a trace is skipped with a note; a malformed file is named with its\n"
	"line and column.\n"
	"\n";

struct trace_cmd {
	const char *dir;
	bool all, json, files_mode, kernels;
	long top, rows, parallel, read_jobs, granularity;
	double timeout;
	const char *pass;
	char *project;	/* absolute (parse_project) */
	struct trace_model model;
	struct trace_input *inputs;
	size_t ninputs;
	struct strvec paths;	/* the inputs' paths, owned */
	size_t skipped;
	/* run mode */
	struct ninja_build build;
	struct trace_probe probe;
	struct pass_probe untraced;	/* gcc TUs: passes' phases */
	double *logged;			/* per edge, from .ninja_log; NaN: none */
	size_t *probe_edge;		/* per traced TU, its edge */
	struct strvec stripped;
	size_t failures;
	/* per pass and header group: the headers' self time, and how many */
	struct header_groups groups;
	int64_t *group_us;
	size_t *group_headers;
};

/* ---- the inputs ---- */

static bool is_json_name(const char *path)
{
	return has_suffix(path, ".json");
}

/* Every *.json under dir, sorted. */
static void find_traces(const char *dir, struct strvec *out)
{
	DIR *d = opendir(dir);
	if (!d)
		die(EXIT_BAD_INPUT, "%s: %s", dir, strerror(errno));
	struct strvec here = { 0 };
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		struct stat st;
		if (!lstat(path, &st) && (S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && is_json_name(path))))
			strvec_push(&here, path);
		free(path);
	}
	closedir(d);
	strvec_sort(&here);
	for (size_t i = 0; i < here.n; i++) {
		struct stat st;
		if (!lstat(here.v[i], &st) && S_ISDIR(st.st_mode))
			find_traces(here.v[i], out);
		else
			strvec_push(out, here.v[i]);
	}
	strvec_clear(&here);
}

/* Files mode when every argument is a directory or an existing .json file. */
static bool args_are_files(char **args, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(args[i], &st) || !(S_ISDIR(st.st_mode) || (S_ISREG(st.st_mode) && is_json_name(args[i]))))
			return false;
	}
	return true;
}

static void add_input(struct trace_cmd *c, const char *path, const char *tu, const char *pass)
{
	c->inputs = xrealloc(c->inputs, (c->ninputs + 1) * sizeof(*c->inputs));
	c->inputs[c->ninputs++] = (struct trace_input){ .path = path, .tu = tu, .pass = pass };
}

/* Read the inputs; a malformed or unreadable file is bad input (exit 2),
 * a JSON file that is no trace a note. */
static void read_inputs(struct trace_cmd *c)
{
	trace_model_read(&c->model, c->inputs, c->ninputs, c->read_jobs);
	for (size_t i = 0; i < c->ninputs; i++) {
		struct trace_input *in = &c->inputs[i];
		if (in->result == TRACE_SCAN_MALFORMED && c->files_mode)
			die(EXIT_BAD_INPUT, "%s:%ld:%ld: %s", in->path, in->info.line, in->info.column, in->info.error);
		if (in->result == TRACE_SCAN_UNREADABLE && c->files_mode)
			die(EXIT_BAD_INPUT, "%s: %s", in->path, in->info.error);
		if (in->result == TRACE_SCAN_MALFORMED || in->result == TRACE_SCAN_UNREADABLE) {
			/* a trace the compiler wrote: its fault, not the input's */
			warn("%s: %s pass: the compiler's trace %s: %s", in->tu, in->pass ? in->pass : "every",
			     in->result == TRACE_SCAN_MALFORMED ? "is malformed" : "is missing", in->info.error);
			c->failures++;
		}
		if (in->result == TRACE_SCAN_NOT_TRACE) {
			note("%s: not a trace (no traceEvents); skipped", in->path);
			c->skipped++;
		}
	}
	trace_model_finish(&c->model);
}

/* ---- run mode: compile the TUs with their traces on ---- */

/* --top K: the K slowest of the selected steps in the last build of the log. */
static void keep_slowest(struct trace_cmd *c, bool *selected)
{
	size_t n = 0;
	for (size_t i = 0; i < c->build.n; i++)
		n += selected[i];
	size_t missing = steps_keep_slowest(&c->build, c->logged, (size_t)c->top, selected, NULL);
	if (missing == n)
		die(EXIT_BAD_INPUT, "--top needs the build's durations, and .ninja_log has none of these steps; name the TARGETs");
	if (missing)
		note("%zu of the %zu compile steps are not in .ninja_log's last build: ranked last", missing, n);
}

static void probe_tus(struct trace_cmd *c, char **patterns, size_t npatterns)
{
	snapshot_guard(c->dir);
	ninja_load(c->dir, &c->build);
	c->logged = xcalloc(c->build.n ? c->build.n : 1, sizeof(double));
	char *err = NULL;
	if (!durations_from_dir(c->dir, &c->build, c->logged, NULL, &err))
		for (size_t i = 0; i < c->build.n; i++)
			c->logged[i] = NAN;
	if (err)
		warn("%s", err);
	free(err);
	bool *selected = xcalloc(c->build.n ? c->build.n : 1, sizeof(bool));
	steps_select("trace", &c->build, patterns, npatterns, selected);
	if (c->top)
		keep_slowest(c, selected);
	c->probe = (struct trace_probe){ .dir = c->dir, .parallel = c->parallel, .timeout = c->timeout,
					 .granularity_us = c->granularity, .kernels = c->kernels };
	c->untraced = (struct pass_probe){ .dir = c->dir, .build = &c->build, .repeats = 1, .parallel = c->parallel,
					   .timeout = c->timeout, .th = { 5.0, 0.7 } };
	c->probe_edge = xcalloc(c->build.n ? c->build.n : 1, sizeof(size_t));
	for (size_t i = 0; i < c->build.n; i++) {
		if (!selected[i])
			continue;
		const struct ninja_edge *e = &c->build.edges[i];
		steps_check_built(c->dir, e);
		struct compile_command cmd = { 0 };
		char *sub = xasprintf("tu-%zu", i);
		steps_prepare(c->dir, e, sub, &cmd, &c->stripped);
		free(sub);
		if (cmd.compiler == COMPILER_GCC) {
			pass_probe_add(&c->untraced, e->outputs.v[0], i, &cmd);
		} else if (cmd.compiler == COMPILER_UNKNOWN) {
			warn("%s: not a compiler buildwall knows (%s); not traced", e->outputs.v[0], cmd.argv.v[0]);
			compile_command_clear(&cmd);
		} else {
			c->probe_edge[c->probe.ntus] = i;
			trace_probe_add(&c->probe, e->outputs.v[0], &cmd);
		}
	}
	free(selected);
	steps_note_stripped(&c->stripped);
	warn_if_busy();
	trace_probe_run(&c->probe);
	if (c->untraced.ntus) {
		note("gcc writes no time trace: %zu TU%s get%s passes' phases (-ftime-report) instead", c->untraced.ntus,
		     c->untraced.ntus == 1 ? "" : "s", c->untraced.ntus == 1 ? "s" : "");
		pass_probe_run(&c->untraced);
	}
	c->failures = c->probe.failures + c->untraced.failures;
	for (size_t i = 0; i < c->probe.ntus; i++) {
		const struct trace_probe_tu *t = &c->probe.tus[i];
		for (size_t f = 0; !t->failed && f < t->nfiles; f++)
			add_input(c, t->files[f].path, t->name, t->files[f].pass);
	}
}

/* The roots of the project's own headers: --project; else each traced
 * TU's, by pp's rule (its git work tree, else its directory and its -I
 * directories outside /usr); for trace files, the git work tree of the
 * current directory. */
static void project_roots(const struct trace_cmd *c, struct header_context *ctx)
{
	if (c->project) {
		strvec_push(&ctx->project, c->project);
		return;
	}
	if (c->files_mode) {
		char *top = header_git_work_tree(ctx->cwd);
		if (top)
			strvec_push_nodup(&ctx->project, top);
		return;
	}
	for (size_t i = 0; i < c->probe.ntus; i++) {
		const struct ninja_edge *e = &c->build.edges[c->probe_edge[i]];
		const struct strvec *argv = &c->probe.tus[i].cmd.argv;
		if (!e->inputs.n)
			continue;
		struct strvec user = { 0 }, system = { 0 };
		driver_include_dirs(argv->v, argv->n, ctx->cwd, &user, &system);
		struct header_context tu;
		header_context_init(&tu, ctx->cwd, e->inputs.v[0], NULL, &user, &system);
		for (size_t k = 0; k < tu.project.n; k++)
			if (!strvec_contains(&ctx->project, tu.project.v[k]))
				strvec_push(&ctx->project, tu.project.v[k]);
		header_context_free(&tu);
		strvec_clear(&user);
		strvec_clear(&system);
	}
}

/* Each pass's header parse time by header group (pp's groups: torch,
 * pybind11, Python, the standard library, …), from the self times, which
 * add up to the pass's whole header time. */
static void sum_groups(struct trace_cmd *c)
{
	const struct trace_model *m = &c->model;
	header_groups_init(&c->groups);
	size_t ng = c->groups.n, cells = (m->npasses ? m->npasses : 1) * ng;
	c->group_us = xcalloc(cells, sizeof(int64_t));
	c->group_headers = xcalloc(cells, sizeof(size_t));
	char *cwd = realpath(c->files_mode ? "." : c->dir, NULL);
	struct header_context ctx = { .cwd = cwd ? cwd : xstrdup("/") };
	project_roots(c, &ctx);
	for (size_t i = 0; i < m->nrows[TRACE_HEADERS]; i++) {
		const struct trace_row *r = &m->rows[TRACE_HEADERS][i];
		size_t g = header_classify(&c->groups, &ctx, r->name, false);
		c->group_us[r->pass * ng + g] += r->self_us;
		c->group_headers[r->pass * ng + g]++;
	}
	header_context_free(&ctx);
}

/* The host-only frameworks' share of a pass's header time. */
static int64_t heavy_us(const struct trace_cmd *c, size_t pass)
{
	int64_t us = 0;
	for (size_t g = 0; g < c->groups.n; g++)
		if (c->groups.v[g].heavy)
			us += c->group_us[pass * c->groups.n + g];
	return us;
}

/* ---- rendering ---- */

static double seconds(int64_t us)
{
	return us == TRACE_UNKNOWN ? NAN : (double)us / 1e6;
}

static bool pass_shown(const struct trace_cmd *c, const char *pass)
{
	if (!c->pass)
		return true;
	if (!strcmp(c->pass, "host") || !strcmp(c->pass, "device"))
		return has_prefix(pass, c->pass);
	return has_prefix(pass, "device ") && !strcmp(pass + 7, c->pass);
}

static bool pass_shown_arch(const struct trace_cmd *c, const char *arch)
{
	char *pass = xasprintf("device %s", arch);
	bool shown = pass_shown(c, pass);
	free(pass);
	return shown;
}

static void cell_seconds(struct table *t, int64_t us)
{
	if (us == TRACE_UNKNOWN)
		table_cell(t, "-");
	else
		table_cell(t, "%.3f", seconds(us));
}

static size_t rows_limit(const struct trace_cmd *c, size_t n)
{
	return c->rows && (size_t)c->rows < n ? (size_t)c->rows : n;
}

static void render_rows(const struct trace_cmd *c, enum trace_table which, const char *title)
{
	const struct trace_model *m = &c->model;
	size_t shown = 0, limit = rows_limit(c, m->nrows[which]);
	struct table *t = table_new();
	bool functions = which == TRACE_FUNCTIONS, headers = which == TRACE_HEADERS;
	const char *name_col = headers ? "header" : functions ? "function" : which == TRACE_TEMPLATE_SETS ? "set" : "template";
	table_column(t, "pass", false);
	table_column(t, name_col, false);
	table_column(t, headers ? "TUs" : "count", true);
	table_column(t, functions ? "total s" : "inclusive s", true);
	table_column(t, functions ? "optimizer s" : "self s", true);
	table_column(t, functions ? "codegen s" : "avg ms", true);
	if (headers)
		table_column(t, "included via (most often)", false);
	for (size_t i = 0; i < m->nrows[which] && shown < limit; i++) {
		const struct trace_row *r = &m->rows[which][i];
		if (!pass_shown(c, m->passes[r->pass].name))
			continue;
		shown++;
		table_cell(t, "%s", m->passes[r->pass].name);
		table_cell(t, "%s", r->name);
		table_cell(t, "%zu", headers ? r->tus : r->count);
		table_cell(t, "%.3f", seconds(r->inclusive_us));
		table_cell(t, "%.3f", seconds(functions ? r->optimize_us : r->self_us));
		if (functions)
			table_cell(t, "%.3f", seconds(r->self_us));
		else
			table_cell(t, "%.1f", (double)r->inclusive_us / 1e3 / (double)(r->count ? r->count : 1));
		if (headers)
			table_cell(t, "%s", r->nchains && r->chains[0].via[0] ? r->chains[0].via : "(the TU)");
	}
	if (!shown) {
		table_free(t);
		return;
	}
	printf("\n%s%s%s\n", c_bold(stdout), title, c_reset(stdout));
	table_print(t, stdout);
	table_free(t);
}

static void render_untraced(const struct trace_cmd *c)
{
	if (!c->untraced.ntus)
		return;
	static const char *const phase_cols[NPHASES] = { "front end s", "IR gen s", "optimizer s", "codegen s" };
	printf("\n%sgcc TUs (no trace: phases from -ftime-report, as passes)%s\n", c_bold(stdout), c_reset(stdout));
	struct table *t = table_new();
	table_column(t, "TU", false);
	table_column(t, "pass", false);
	table_column(t, "seconds", true);
	for (int k = 0; k < NPHASES; k++)
		table_column(t, phase_cols[k], true);
	for (size_t i = 0; i < c->untraced.ntus; i++) {
		const struct pass_tu *tu = &c->untraced.tus[i];
		for (size_t p = 0; !tu->failed && p < tu->bd.n; p++) {
			const struct pass *ps = &tu->bd.passes[p];
			table_cell(t, "%s", tu->name);
			table_cell(t, "%s", pass_kind_name(ps->kind));
			table_cell(t, "%.3f", ps->seconds);
			for (int k = 0; k < NPHASES; k++)
				if (isnan(ps->phase[k]))
					table_cell(t, "-");
				else
					table_cell(t, "%.3f", ps->phase[k]);
		}
	}
	table_print(t, stdout);
	table_free(t);
}

static void render_kernels(const struct trace_cmd *c)
{
	if (!c->kernels || c->files_mode)
		return;
	struct table *t = table_new();
	const char *cols[] = { "TU", "kernel", "arch", "what the device compiler reported" };
	for (int k = 0; k < 4; k++)
		table_column(t, cols[k], false);
	size_t n = 0;
	for (size_t i = 0; i < c->probe.ntus; i++) {
		const struct trace_probe_tu *tu = &c->probe.tus[i];
		for (size_t k = 0; k < tu->kernels.n; k++, n++) {
			const struct kernel_fact *f = &tu->kernels.v[k];
			if (!pass_shown_arch(c, f->arch))
				continue;
			char *facts = kernel_fact_summary(f);
			table_cell(t, "%s", tu->name);
			table_cell(t, "%s", f->name);
			table_cell(t, "%s", f->arch);
			table_cell(t, "%s", facts);
			free(facts);
		}
	}
	if (n) {
		printf("\n%skernels%s (from the traced compiles: -Rpass-analysis=kernel-resource-usage, ptxas -v; code from "
		       "the device objects)\n", c_bold(stdout), c_reset(stdout));
		table_print(t, stdout);
	}
	table_free(t);
}

static const struct trace_probe_tu *probed(const struct trace_cmd *c, const char *name, size_t *index)
{
	for (size_t i = 0; i < c->probe.ntus; i++)
		if (!strcmp(c->probe.tus[i].name, name)) {
			*index = i;
			return &c->probe.tus[i];
		}
	return NULL;
}

static void render_table(const struct trace_cmd *c)
{
	const struct trace_model *m = &c->model;
	char *bytes = format_kib((long)(m->bytes / 1024)), *events = format_count(m->events);
	printf("%strace%s: %zu trace%s, %s, %s events", c_bold(stdout), c_reset(stdout), m->files, m->files == 1 ? "" : "s",
	       bytes, events);
	free(bytes);
	free(events);
	if (c->skipped)
		printf(" (%zu JSON file%s skipped: not traces)", c->skipped, c->skipped == 1 ? "" : "s");
	printf("\n");
	if (!c->files_mode) {
		printf("traced compiles (the traces' own overhead is in these walls; the build's are from .ninja_log):\n");
		for (size_t i = 0; i < c->probe.ntus; i++) {
			const struct trace_probe_tu *t = &c->probe.tus[i];
			double logged = c->logged[c->probe_edge[i]];
			if (t->failed)
				printf("  %s: failed\n", t->name);
			else if (isnan(logged))
				printf("  %s: %.2f s traced (not in .ninja_log)\n", t->name, t->traced_s);
			else
				printf("  %s: %.2f s traced, %.2f s in the build (%+.0f %%)\n", t->name, t->traced_s, logged,
				       100 * (t->traced_s / logged - 1));
		}
		bool clang = false;
		for (size_t i = 0; i < c->probe.ntus; i++)
			clang |= c->probe.tus[i].cmd.compiler != COMPILER_NVCC;
		if (clang)
			printf("clang records entries of at least %ld us (-ftime-trace-granularity%s)\n",
			       c->granularity ? c->granularity : 500, c->granularity ? "" : ": clang's default; --granularity sets it");
	}

	struct table *t = table_new();
	const char *cols[] = { "pass", "TUs", "total s", "front end s", "backend s", "headers s", "frameworks s",
			       "templates s" };
	for (int k = 0; k < 8; k++)
		table_column(t, cols[k], k > 0);
	for (size_t p = 0; p < m->npasses; p++) {
		const struct trace_pass *ps = &m->passes[p];
		if (!pass_shown(c, ps->name))
			continue;
		table_cell(t, "%s", ps->name);
		table_cell(t, "%zu", ps->tus);
		cell_seconds(t, ps->total_us);
		cell_seconds(t, ps->front_end_us);
		cell_seconds(t, ps->backend_us);
		cell_seconds(t, ps->source_us);
		cell_seconds(t, heavy_us(c, p));
		cell_seconds(t, ps->templates_us);
	}
	printf("\n%sper pass%s (headers, templates: the outermost entries; frameworks: torch/ATen/c10, pybind11 and\n"
	       "Python headers' self time; - where the trace has no such phase)\n", c_bold(stdout), c_reset(stdout));
	table_print(t, stdout);
	table_free(t);

	t = table_new();
	const char *tu_cols[] = { "TU", "pass", "total s", "front end s", "backend s" };
	for (int k = 0; k < 5; k++)
		table_column(t, tu_cols[k], k > 1);
	size_t shown = 0;
	for (size_t i = 0; i < m->ntus && shown < rows_limit(c, m->ntus); i++) {
		const struct trace_tu *tu = &m->tus[i];
		if (!pass_shown(c, tu->pass))
			continue;
		shown++;
		table_cell(t, "%s", tu->tu);
		table_cell(t, "%s", tu->pass);
		cell_seconds(t, tu->total_us);
		cell_seconds(t, tu->front_end_us);
		cell_seconds(t, tu->backend_us);
	}
	printf("\n%sTUs by traced time%s\n", c_bold(stdout), c_reset(stdout));
	table_print(t, stdout);
	table_free(t);

	render_rows(c, TRACE_HEADERS, "headers by inclusive parse time (self: less the headers they include)");
	render_rows(c, TRACE_TEMPLATE_SETS, "template sets by instantiation time (arguments folded)");
	render_rows(c, TRACE_TEMPLATES, "templates by instantiation time (self: less what they instantiate)");
	render_rows(c, TRACE_FUNCTIONS, "functions by optimizer + codegen time");

	t = table_new();
	table_column(t, "pass", false);
	table_column(t, "phase", false);
	table_column(t, "seconds", true);
	size_t nphase = 0;
	for (size_t p = 0; p < m->npasses; p++)
		for (size_t k = 0; pass_shown(c, m->passes[p].name) && k < m->passes[p].nphases; k++, nphase++) {
			table_cell(t, "%s", m->passes[p].name);
			table_cell(t, "%s", m->passes[p].phases[k].name);
			table_cell(t, "%.3f", seconds(m->passes[p].phases[k].us));
		}
	if (nphase) {
		printf("\n%sphases per pass%s (the outermost of each name, summed over TUs)\n", c_bold(stdout), c_reset(stdout));
		table_print(t, stdout);
	}
	table_free(t);
	render_untraced(c);
	render_kernels(c);
}

/* Seconds to the microsecond, as the traces give them, so that sums of
 * self times can be checked exactly; null where the traces have none. */
static json_t *json_us(int64_t us)
{
	return us == TRACE_UNKNOWN ? json_null() : json_real((double)us / 1e6);
}

static json_t *json_rows(const struct trace_cmd *c, enum trace_table which)
{
	const struct trace_model *m = &c->model;
	json_t *rows = json_array();
	size_t shown = 0, limit = rows_limit(c, m->nrows[which]);
	for (size_t i = 0; i < m->nrows[which] && shown < limit; i++) {
		const struct trace_row *r = &m->rows[which][i];
		if (!pass_shown(c, m->passes[r->pass].name))
			continue;
		shown++;
		json_t *row = json_build("{s:s, s:s, s:I, s:I}", "pass", m->passes[r->pass].name, "name", r->name, "count",
					 (json_int_t)r->count, "tus", (json_int_t)r->tus);
		if (which == TRACE_FUNCTIONS) {
			json_object_set_new(row, "total_s", json_us(r->inclusive_us));
			json_object_set_new(row, "optimizer_s", json_us(r->optimize_us));
			json_object_set_new(row, "codegen_s", json_us(r->self_us));
		} else {
			json_object_set_new(row, "inclusive_s", json_us(r->inclusive_us));
			json_object_set_new(row, "self_s", json_us(r->self_us));
		}
		if (which == TRACE_HEADERS) {
			json_t *chains = json_array();
			for (size_t k = 0; k < r->nchains && k < 3; k++)
				json_array_append_new(chains, json_build("{s:s, s:I, s:o}", "via", r->chains[k].via, "count",
									 (json_int_t)r->chains[k].count, "inclusive_s",
									 json_us(r->chains[k].inclusive_us)));
			json_object_set_new(row, "included_via", chains);
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

static void render_json(const struct trace_cmd *c)
{
	const struct trace_model *m = &c->model;
	json_t *doc = json_document("trace", c->files_mode ? NULL : c->dir, c->failures);
	json_t *passes = json_array();
	for (size_t p = 0; p < m->npasses; p++) {
		const struct trace_pass *ps = &m->passes[p];
		if (!pass_shown(c, ps->name))
			continue;
		json_t *groups = json_array();
		for (size_t g = 0; g < c->groups.n; g++)
			if (c->group_headers[p * c->groups.n + g])
				json_array_append_new(groups, json_build("{s:s, s:b, s:I, s:o}", "group", c->groups.v[g].title,
									 "heavy", c->groups.v[g].heavy, "headers",
									 (json_int_t)c->group_headers[p * c->groups.n + g],
									 "self_s", json_us(c->group_us[p * c->groups.n + g])));
		json_t *phases = json_array();
		for (size_t k = 0; k < ps->nphases; k++)
			json_array_append_new(phases, json_build("{s:s, s:o}", "name", ps->phases[k].name, "seconds",
								 json_us(ps->phases[k].us)));
		json_array_append_new(passes, json_build("{s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
							 json_name(ps->name), "tus", (json_int_t)ps->tus, "total_s",
							 json_us(ps->total_us), "front_end_s", json_us(ps->front_end_us),
							 "backend_s", json_us(ps->backend_us), "headers_s",
							 json_us(ps->source_us), "frameworks_s", json_us(heavy_us(c, p)),
							 "header_groups", groups, "templates_s", json_us(ps->templates_us),
							 "phases", phases));
	}
	json_t *tus = json_array();
	for (size_t i = 0; i < m->ntus; i++) {
		const struct trace_tu *tu = &m->tus[i];
		if (!pass_shown(c, tu->pass))
			continue;
		json_t *row = json_build("{s:o, s:o, s:o, s:o, s:o, s:o}", "tu", json_name(tu->tu), "pass",
					 json_name(tu->pass), "file", json_name(c->files_mode ? tu->file : NULL),
					 "total_s", json_us(tu->total_us),
					 "front_end_s", json_us(tu->front_end_us), "backend_s", json_us(tu->backend_us));
		size_t index;
		const struct trace_probe_tu *t = c->files_mode ? NULL : probed(c, tu->tu, &index);
		if (t) {
			double logged = c->logged[c->probe_edge[index]];
			json_object_set_new(row, "traced_compile_s", json_seconds(t->traced_s));
			json_object_set_new(row, "logged_s", json_seconds(logged));
		}
		json_array_append_new(tus, row);
	}
	json_t *untraced = json_array();
	for (size_t i = 0; i < c->untraced.ntus; i++) {
		const struct pass_tu *tu = &c->untraced.tus[i];
		json_t *bd = json_array();
		for (size_t p = 0; !tu->failed && p < tu->bd.n; p++)
			json_array_append_new(bd, json_pass_breakdown(&tu->bd.passes[p]));
		json_array_append_new(untraced, json_build("{s:o, s:s, s:s, s:o}", "tu", json_name(tu->name), "compiler", "gcc", "why",
							   "gcc writes no time trace: phases from -ftime-report", "passes", bd));
	}
	json_t *result = json_build("{s:s, s:{s:I, s:I, s:I, s:I}, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "mode",
				    c->files_mode ? "files" : "compiled", "inputs", "traces", (json_int_t)m->files,
				    "skipped", (json_int_t)c->skipped, "bytes", (json_int_t)m->bytes, "events",
				    (json_int_t)m->events, "passes", passes, "tus", tus, "headers",
				    json_rows(c, TRACE_HEADERS), "template_sets", json_rows(c, TRACE_TEMPLATE_SETS),
				    "templates", json_rows(c, TRACE_TEMPLATES), "functions", json_rows(c, TRACE_FUNCTIONS),
				    "untraced", untraced);
	if (!c->files_mode)
		json_object_set_new(result, "granularity_us", json_integer(c->granularity ? c->granularity : 500));
	json_t *kernels = c->kernels && !c->files_mode ? json_array() : json_null();
	for (size_t i = 0; c->kernels && !c->files_mode && i < c->probe.ntus; i++) {
		const struct trace_probe_tu *tu = &c->probe.tus[i];
		for (size_t k = 0; k < tu->kernels.n; k++) {
			if (!pass_shown_arch(c, tu->kernels.v[k].arch))
				continue;
			json_t *o = json_kernel(&tu->kernels.v[k]);
			json_object_set_new(o, "tu", json_name(tu->name));
			json_array_append_new(kernels, o);
		}
	}
	json_object_set_new(result, "kernels", kernels);
	json_object_update(doc, result);
	json_decref(result);
	json_print(doc);
}

int cmd_trace(int argc, char **argv)
{
	struct trace_cmd c = { .dir = ".", .rows = 10, .parallel = 1, .read_jobs = 0 };
	const struct opt opts[] = {
		OPT_DIR(&c.dir),
		OPT_FLAG(0, "all", &c.all, "every compile step"),
		OPT_TOP(&c.top, 1, "the K slowest compile steps of the last build (.ninja_log); with\n"
			"FILEs, the same as --rows"),
		OPT_INT(0, "rows", &c.rows, "N", "rows per table (default 10; 0: all)", 0, 1000000000),
		OPT_PROJECT(&c.project),
		OPT_STRING(0, "pass", &c.pass, "PASS", "only host, device, or one device arch (gfx90a, sm_80)"),
		OPT_INT('j', "jobs", &c.read_jobs, "N", "read N trace files at once (default: the CPU count)", 1, PROC_MAX_RUNNING),
		OPT_PARALLEL(&c.parallel, "compile P TUs at once (default 1)"),
		OPT_INT(0, "granularity", &c.granularity, "US", "clang's -ftime-trace-granularity in microseconds\n"
		  "(default: clang's, 500)", 0, 1000000),
		OPT_FLAG(0, "kernels", &c.kernels, "also each kernel's registers, spills and code size, from the\n"
		  "traced compile itself (-Rpass-analysis=kernel-resource-usage, -Xptxas -v)"),
		OPT_TIMEOUT(&c.timeout, "give up on a traced job after S seconds (counts as failed)"),
		OPT_JSON(&c.json),
		OPT_TABLE_END,
	};
	int first = parse_options("trace", argc, argv, opts, usage);
	char **args = argv + first;
	size_t nargs = (size_t)(argc - first);
	c.files_mode = args_are_files(args, nargs);
	if (c.pass && strcmp(c.pass, "host") && strcmp(c.pass, "device") && !has_prefix(c.pass, "gfx") &&
	    !has_prefix(c.pass, "sm_"))
		usage_error("trace", "--pass wants host, device or an arch (gfx90a, sm_80): '%s'", c.pass);
	if (!c.read_jobs) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		c.read_jobs = cpus > 0 ? (cpus < PROC_MAX_RUNNING ? cpus : PROC_MAX_RUNNING) : 1;
	}
	trace_model_init(&c.model);
	if (c.files_mode) {
		if (c.all || c.kernels)
			usage_error("trace", "%s compiles; with trace files it has no meaning", c.all ? "--all" : "--kernels");
		if (c.top)
			c.rows = c.top;
		for (size_t i = 0; i < nargs; i++) {
			struct stat st;
			if (!stat(args[i], &st) && S_ISDIR(st.st_mode))
				find_traces(args[i], &c.paths);
			else
				strvec_push(&c.paths, args[i]);
		}
		if (!c.paths.n)
			die(EXIT_BAD_INPUT, "no *.json files under %s", args[0]);
		for (size_t i = 0; i < c.paths.n; i++)
			add_input(&c, c.paths.v[i], NULL, NULL);
	} else {
		if (!nargs && !c.all && !c.top)
			usage_error("trace", "name a TARGET or trace FILE, or use --all or --top K");
		if (nargs && (c.all || c.top))
			usage_error("trace", "TARGET and --all/--top exclude each other");
		if (c.all && c.top)
			usage_error("trace", "--all and --top exclude each other");
		for (size_t i = 0; i < nargs; i++)
			if (is_json_name(args[i]) && access(args[i], F_OK))
				die(EXIT_BAD_INPUT, "%s: %s", args[i], strerror(errno));
		probe_tus(&c, args, nargs);
	}
	read_inputs(&c);
	sum_groups(&c);
	if (c.json)
		render_json(&c);
	else
		render_table(&c);
	int status = failures_status(c.failures, "TU", "");
	trace_model_free(&c.model);
	header_groups_free(&c.groups);
	free(c.project);
	free(c.group_us);
	free(c.group_headers);
	for (size_t i = 0; i < c.ninputs; i++)
		trace_input_clear(&c.inputs[i]);
	free(c.inputs);
	strvec_clear(&c.paths);
	if (!c.files_mode) {
		trace_probe_free(&c.probe);
		pass_probe_free(&c.untraced);
		free(c.logged);
		free(c.probe_edge);
		strvec_clear(&c.stripped);
		ninja_build_free(&c.build);
	}
	return status;
}
