/* buildwall log: the last build's timeline from .ninja_log, with no
 * compiling at all: per step its duration and weighted time, parallelism
 * over time, time by kind of step, the critical path through ninja's graph
 * (with a build dir), and a Chrome trace. */
#define _GNU_SOURCE
#include "cli.h"
#include "ninja.h"
#include "ninja_log.h"
#include "out_json.h"
#include "options.h"
#include "out_table.h"
#include "progress.h"
#include "snapshot.h"
#include "timeline.h"
#include "recorded.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall log [-C BUILD_DIR | FILE] [--build N | --all-builds] [--top K]\n"
	"                     [--trace OUT.json] [--json]\n"
	"\n"
	"Read .ninja_log (v5, v6, v7) and show one build: each step's duration and weighted\n"
	"time (its duration split among the steps running with it), parallelism over\n"
	"time, time by kind of step (kernel TU, host TU, link, other) and, with a build\n"
	"dir, the critical path of the recorded build through ninja's dependency graph.\n"
	"A build is a stretch of lines whose end times do not fall (ninja restarts its\n"
	"clock every run); lines ninja rewrote when it recompacted the log are skipped.\n"
	"\n"
	"FILE: a .ninja_log alone (no critical path).\n"
	"\n";

struct log_cmd {
	const char *dir;	/* NULL with FILE */
	char *path;
	long back, top;
	bool all_builds, json;
	const char *trace;
	struct ninja_log build;
	long nbuilds;
	struct timeline tl;
	struct recorded rec;	/* with a build dir: critical path and recorded chain */
	bool have_graph;
};

/* ---- the recorded build against ninja's graph ---- */

static void critical_path(struct log_cmd *c)
{
	struct ninja_build b;
	ninja_load(c->dir, &b);
	recorded_analyze(&b, &c->build, &c->tl, &c->rec);
	ninja_build_free(&b);
	c->have_graph = true;
}

/* ---- renderers ---- */

static int cmp_weighted(const void *a, const void *b)
{
	const struct step *x = *(const struct step *const *)a, *y = *(const struct step *const *)b;
	return (x->weighted < y->weighted) - (x->weighted > y->weighted);
}

static const struct step **by_weight(const struct timeline *tl)
{
	const struct step **order = xcalloc(tl->n, sizeof(*order));
	for (size_t i = 0; i < tl->n; i++)
		order[i] = &tl->steps[i];
	qsort(order, tl->n, sizeof(*order), cmp_weighted);
	return order;
}

static void render_table(const struct log_cmd *c)
{
	const struct timeline *tl = &c->tl;
	printf("%slog%s: %s, build %ld of %ld (%s), %zu steps from line %ld\n", c_bold(stdout), c_reset(stdout),
	       c->path, c->nbuilds - c->back, c->nbuilds, c->back ? "counting back from the latest" : "the latest",
	       tl->n, c->build.first_line);
	printf("wall %.2f s, busy %.2f s, parallelism %.2f (busy / wall), at most %d at once\n\n", tl->wall,
	       tl->busy, tl->wall > 0 ? tl->busy / tl->wall : 0, tl->slots);
	struct table *tab = table_new();
	const char *cols[] = { "step", "kind", "start s", "end s", "duration s", "weighted s" };
	for (int k = 0; k < 6; k++)
		table_column(tab, cols[k], k >= 2);
	const struct step **order = by_weight(tl);
	size_t shown = c->top && (size_t)c->top < tl->n ? (size_t)c->top : tl->n;
	for (size_t i = 0; i < shown; i++) {
		const struct step *s = order[i];
		if (s->noutputs > 1)
			table_cell(tab, "%s (+%zu outputs)", s->first->output, s->noutputs - 1);
		else
			table_cell(tab, "%s", s->first->output);
		table_cell(tab, "%s", step_kind_names[s->kind]);
		table_cell(tab, "%.2f", s->start);
		table_cell(tab, "%.2f", s->end);
		table_cell(tab, "%.2f", s->end - s->start);
		table_cell(tab, "%.2f", s->weighted);
	}
	table_print(tab, stdout);
	table_free(tab);
	free(order);
	if (shown < tl->n)
		printf("(%zu more; --top 0 shows all)\n", tl->n - shown);

	printf("\nby kind:");
	for (int k = 0; k < NKINDS; k++)
		if (tl->count_by_kind[k])
			printf("  %s %zu step%s %.2f s (weighted %.2f s)", step_kind_names[k], tl->count_by_kind[k],
			       tl->count_by_kind[k] == 1 ? "" : "s", tl->by_kind[k], tl->weighted_by_kind[k]);
	printf("\nparallelism over time (mean running steps per 5%% of the wall):");
	for (int b = 0; b < TIMELINE_BUCKETS; b++)
		printf(" %.1f", tl->profile[b]);
	printf("\n");
	if (!c->have_graph) {
		printf("critical path: needs the build dir (-C) for ninja's graph\n");
		return;
	}
	printf("critical path (longest chain through ninja's graph, %.2f s):", c->rec.critical_s);
	for (size_t i = 0; i < c->rec.ncritical; i++) {
		const struct step *s = &tl->steps[c->rec.critical[i]];
		printf("%s %s (%.2f s)", i ? " ->" : "", s->first->output, s->end - s->start);
	}
	printf("\nrecorded chain (what each step waited for):");
	for (size_t i = c->rec.nchain; i-- > 0;) {
		const struct step *s = &tl->steps[c->rec.chain[i]];
		printf("%s%s %s (%.2f s)", i + 1 == c->rec.nchain ? "" : " ->", i + 1 < c->rec.nchain && c->rec.waited[i] &&
		       !strcmp(c->rec.waited[i], "slot") ? " [slot]" : "", s->first->output, s->end - s->start);
	}
	printf("\n");
}

static json_t *json_step(const struct step *s)
{
	json_t *outputs = json_array();
	for (size_t o = 0; o < s->noutputs; o++)
		json_array_append_new(outputs, json_string(s->first[o].output));
	return json_build("{s:s, s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:i}", "output", s->first->output, "outputs", outputs,
			 "hash", s->first->hash, "kind", step_kind_names[s->kind], "start_s", json_seconds(s->start),
			 "end_s", json_seconds(s->end), "duration_s", json_seconds(s->end - s->start),
			 "weighted_s", json_seconds(s->weighted), "slot", s->slot);
}

static void render_json(const struct log_cmd *c)
{
	const struct timeline *tl = &c->tl;
	json_t *doc = json_document("log", c->dir, 0);
	json_object_set_new(doc, "log", json_string(c->path));
	json_object_set_new(doc, "build", json_build("{s:I, s:I, s:I, s:I, s:I}", "back", (json_int_t)c->back,
		"builds_in_file", (json_int_t)c->nbuilds, "first_line", (json_int_t)c->build.first_line,
		"lines", (json_int_t)c->build.n, "log_version", (json_int_t)c->build.version));
	json_object_set_new(doc, "wall_s", json_seconds(tl->wall));
	json_object_set_new(doc, "busy_s", json_seconds(tl->busy));
	json_object_set_new(doc, "parallelism", json_real(tl->wall > 0 ? round(tl->busy / tl->wall * 1000) / 1000 : 0));
	json_object_set_new(doc, "max_running", json_integer(tl->slots));
	json_t *profile = json_array();
	for (int b = 0; b < TIMELINE_BUCKETS; b++)
		json_array_append_new(profile, json_real(round(tl->profile[b] * 1000) / 1000));
	json_object_set_new(doc, "parallelism_profile", profile);
	json_t *kinds = json_object();
	for (int k = 0; k < NKINDS; k++)
		json_object_set_new(kinds, step_kind_names[k], json_build("{s:I, s:o, s:o}", "steps",
			(json_int_t)tl->count_by_kind[k], "seconds", json_seconds(tl->by_kind[k]),
			"weighted_s", json_seconds(tl->weighted_by_kind[k])));
	json_object_set_new(doc, "by_kind", kinds);
	json_t *steps = json_array();
	const struct step **order = by_weight(tl);
	for (size_t i = 0; i < tl->n; i++)
		json_array_append_new(steps, json_step(order[i]));
	free(order);
	json_object_set_new(doc, "steps", steps);
	if (c->have_graph) {
		json_t *path = json_array(), *chain = json_array();
		for (size_t i = 0; i < c->rec.ncritical; i++)
			json_array_append_new(path, json_step(&tl->steps[c->rec.critical[i]]));
		for (size_t i = c->rec.nchain; i-- > 0;) {
			json_t *step = json_step(&tl->steps[c->rec.chain[i]]);
			/* What this step waited for: the entry before it. */
			json_object_set_new(step, "waited_for", c->rec.waited[i] ? json_string(c->rec.waited[i]) : json_null());
			json_array_append_new(chain, step);
		}
		json_object_set_new(doc, "critical_path", path);
		json_object_set_new(doc, "critical_path_s", json_seconds(c->rec.critical_s));
		json_object_set_new(doc, "recorded_chain", chain);
	} else {
		json_object_set_new(doc, "critical_path", json_null());
		json_object_set_new(doc, "note", json_string("the critical path needs the build dir (-C)"));
	}
	json_print(doc);
}

/* ---- --trace: a Chrome trace ---- */

static void write_trace(const struct log_cmd *c)
{
	const struct timeline *tl = &c->tl;
	json_t *events = json_array();
	json_array_append_new(events, json_build("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name", "ph", "M", "pid", 1,
						"args", "name", "ninja build"));
	for (int s = 0; s < tl->slots; s++) {
		char *name = xasprintf("slot %d", s);
		json_array_append_new(events, json_build("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M",
							"pid", 1, "tid", s, "args", "name", name));
		free(name);
	}
	for (size_t i = 0; i < tl->n; i++) {
		const struct step *s = &tl->steps[i];
		json_array_append_new(events, json_build("{s:s, s:s, s:s, s:I, s:I, s:i, s:i, s:{s:o, s:o, s:i}}",
			"name", s->first->output, "cat", step_kind_names[s->kind], "ph", "X",
			"ts", (json_int_t)s->first->start_ms * 1000, "dur",
			(json_int_t)(s->first->end_ms - s->first->start_ms) * 1000, "pid", 1, "tid", s->slot, "args",
			"duration_s", json_seconds(s->end - s->start), "weighted_s", json_seconds(s->weighted),
			"outputs", (int)s->noutputs));
	}
	json_t *doc = json_build("{s:o, s:s}", "traceEvents", events, "displayTimeUnit", "ms");
	json_write_file(doc, c->trace);
}

/* ---- --all-builds: one row per build, streamed ---- */

struct all_builds {
	struct table *tab;
	json_t *rows;
	long index, rewritten;
};

static void add_build_row(struct ninja_log *b, bool rewritten, void *ctx)
{
	struct all_builds *a = ctx;
	if (rewritten) {
		a->rewritten += (long)b->n;
		return;
	}
	struct timeline tl;
	timeline_build(b, &tl);
	a->index++;
	progress_set("build %ld (line %ld)", a->index, b->first_line);
	double par = tl.wall > 0 ? tl.busy / tl.wall : 0;
	if (a->rows) {
		json_array_append_new(a->rows, json_build("{s:I, s:I, s:I, s:o, s:o, s:f}", "build", (json_int_t)a->index,
			"first_line", (json_int_t)b->first_line, "steps", (json_int_t)tl.n, "wall_s", json_seconds(tl.wall),
			"busy_s", json_seconds(tl.busy), "parallelism", round(par * 1000) / 1000));
	} else {
		table_cell(a->tab, "%ld", a->index);
		table_cell(a->tab, "%ld", b->first_line);
		table_cell(a->tab, "%zu", tl.n);
		table_cell(a->tab, "%.2f", tl.wall);
		table_cell(a->tab, "%.2f", tl.busy);
		table_cell(a->tab, "%.2f", par);
	}
	timeline_free(&tl);
}

static int all_builds(struct log_cmd *c)
{
	struct all_builds a = { 0 };
	if (c->json) {
		a.rows = json_array();
	} else {
		a.tab = table_new();
		const char *cols[] = { "build", "line", "steps", "wall s", "busy s", "parallelism" };
		for (int k = 0; k < 6; k++)
			table_column(a.tab, cols[k], true);
	}
	char *err;
	if (!ninja_log_each(c->path, add_build_row, &a, &err))
		die(EXIT_BAD_INPUT, "%s", err ? err : xasprintf("%s: no such file", c->path));
	progress_clear();
	if (c->json) {
		json_t *doc = json_document("log", c->dir, 0);
		json_object_set_new(doc, "log", json_string(c->path));
		json_object_set_new(doc, "builds", a.rows);
		json_object_set_new(doc, "rewritten_lines", json_integer(a.rewritten));
		json_print(doc);
	} else {
		printf("%slog%s: %s, %ld build%s, oldest first\n", c_bold(stdout), c_reset(stdout), c->path, a.index,
		       a.index == 1 ? "" : "s");
		table_print(a.tab, stdout);
		table_free(a.tab);
		if (a.rewritten)
			printf("(%ld lines rewritten by a recompaction are not counted as builds)\n", a.rewritten);
	}
	return EXIT_OK;
}

int cmd_log(int argc, char **argv)
{
	struct log_cmd c = { .top = 15 };
	const char *dir = NULL;
	const struct opt opts[] = {
		{ OPT_STRING, 'C', NULL, &dir, "DIR", "the build dir: DIR/.ninja_log, and ninja's graph (default .)", 0, 0, NULL },
		{ OPT_INT, 0, "build", &c.back, "N", "the build N runs before the latest (default 0: the latest)", 0, 1000000000, NULL },
		{ OPT_FLAG, 0, "all-builds", &c.all_builds, NULL, "one row per build in the file", 0, 0, NULL },
		OPT_TOP(&c.top, 0, "the K steps with the most weighted time (default 15; 0: all)"),
		{ OPT_STRING, 0, "trace", &c.trace, "OUT", "write a Chrome trace (Perfetto, chrome://tracing): a track per job slot", 0, 0, NULL },
		OPT_JSON(&c.json),
		OPT_TABLE_END,
	};
	int first = parse_options("log", argc, argv, opts, usage);
	if (argc - first > 1)
		usage_error("log", "one log at a time: %s", argv[first + 1]);
	if (argc - first == 1) {
		if (dir)
			usage_error("log", "give -C BUILD_DIR or FILE, not both");
		if (is_directory(argv[first]))
			dir = argv[first];
		else
			c.path = xstrdup(argv[first]);
	}
	if (!c.path) {
		c.dir = dir ? dir : ".";
		ninja_check_dir(c.dir);
		snapshot_guard(c.dir);
		c.path = xasprintf("%s/.ninja_log", c.dir);
	}
	if (c.all_builds && (c.back || c.trace))
		usage_error("log", "--all-builds lists builds; --build and --trace show one");
	if (c.all_builds) {
		int rc = all_builds(&c);
		free(c.path);
		return rc;
	}
	char *err;
	if (!ninja_log_read_build(c.path, c.back, &c.build, &c.nbuilds, &err)) {
		if (err)
			die(EXIT_BAD_INPUT, "%s", err);
		if (!file_exists(c.path))
			die(EXIT_BAD_INPUT, "%s: no such file%s", c.path, c.dir ? " (has the tree been built with ninja?)" : "");
		if (!c.nbuilds)
			die(EXIT_BAD_INPUT, "%s: no builds recorded yet", c.path);
		die(EXIT_BAD_INPUT, "%s: --build %ld goes back past the oldest of its %ld build%s", c.path, c.back,
		    c.nbuilds, c.nbuilds == 1 ? "" : "s");
	}
	timeline_build(&c.build, &c.tl);
	if (c.dir)
		critical_path(&c);
	if (c.trace)
		write_trace(&c);
	if (c.json)
		render_json(&c);
	else
		render_table(&c);
	if (c.trace && !c.json)
		printf("trace: %s (open it in Perfetto or chrome://tracing)\n", c.trace);
	timeline_free(&c.tl);
	ninja_log_free(&c.build);
	recorded_free(&c.rec);
	free(c.path);
	return EXIT_OK;
}
