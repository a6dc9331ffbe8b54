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
#include "log_view.h"
#include "json_stream.h"
#include "outfile.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall log [-C BUILD_DIR | FILE] [--build N | --all-builds] [--top K]\n"
	"                     [--trace OUT.json] [--distcc-log FILE] [--json]\n"
	"\n"
	"Read .ninja_log (v5, v6, v7) and show one build: each step's duration and weighted\n"
	"time (its duration split among the steps running with it), parallelism over\n"
	"time, time by kind of step (kernel TU, host TU, link, other) and, with a build\n"
	"dir, the critical path of the recorded build through ninja's dependency graph.\n"
	"A build is a stretch of lines whose end times do not fall (ninja restarts its\n"
	"clock every run); lines ninja rewrote when it recompacted the log are skipped.\n"
	"\n"
	"FILE: a .ninja_log alone (no critical path).\n"
	"\n"
	"--distcc-log FILE: the build's distcc client log (DISTCC_VERBOSE=1 DISTCC_LOG=FILE,\n"
	"or 'wall --distcc-log'): where each compile ran, the remote host's hold against the\n"
	"part here and the waits for a slot, the slots offered and which bound held.\n"
	"\n";

struct log_cmd {
	const char *dir;	/* NULL with FILE */
	char *path;
	long back, top;
	bool all_builds, json;
	const char *trace;
	const char *distcc_path;
	struct distcc_log distcc;
	struct cluster_report cluster;
	struct log_view v;
};

/* ---- renderers ---- */

static void cluster_cells(struct table *tab, const struct cluster_report *cr, size_t step)
{
	const struct distcc_job *j = cr->job[step];
	if (!j) {
		for (int k = 0; k < 3; k++)
			table_cell(tab, "-");
		return;
	}
	table_cell(tab, "%s%s", j->remote ? j->host : "here", j->fell_back ? " (cluster failed it)" : "");
	if (j->remote && !isnan(j->remote_s))
		table_cell(tab, "%.2f", j->remote_s);
	else
		table_cell(tab, "-");
	table_cell(tab, "%.2f", j->wait_s);
}

static void print_cluster(const struct cluster_report *cr)
{
	printf("\ncluster (distcc): %zu compile%s sent to %zu host%s (%d slot%s offered), %zu kept here",
	       cr->sent, cr->sent == 1 ? "" : "s", cr->sum.remote_hosts, cr->sum.remote_hosts == 1 ? "" : "s",
	       cr->remote_slots, cr->remote_slots == 1 ? "" : "s", cr->kept_here);
	if (cr->sum.fell_back)
		printf(" (%zu after the cluster failed them)", cr->sum.fell_back);
	printf("\n  there %.2f s (the remote hosts' holds: sending, compiling, receiving), here %.2f s (compiles' own part, "
	       "sent or kept), other steps %.2f s (links, generators), waiting for a slot %.2f s\n",
	       cr->there_s, cr->here_s, cr->local_s, cr->wait_s);
	printf("  bound: %s: %s\n", cr->bound, cr->bound_why);
}

static void render_table(const struct log_cmd *c)
{
	const struct timeline *tl = &c->v.tl;
	printf("%slog%s: %s, build %ld of %ld (%s), %zu steps from line %ld\n", c_bold(stdout), c_reset(stdout),
	       c->path, c->v.nbuilds - c->back, c->v.nbuilds, c->back ? "counting back from the latest" : "the latest",
	       tl->n, c->v.build.first_line);
	printf("wall %.2f s, busy %.2f s, parallelism %.2f (busy / wall), at most %d at once\n\n", tl->wall,
	       tl->busy, tl->wall > 0 ? tl->busy / tl->wall : 0, tl->slots);
	struct table *tab = table_new();
	const char *cols[] = { "step", "kind", "start s", "end s", "duration s", "weighted s" };
	for (int k = 0; k < 6; k++)
		table_column(tab, cols[k], k >= 2);
	const struct cluster_report *cr = c->v.cluster;
	if (cr) {
		table_column(tab, "ran on", false);
		table_column(tab, "there s", true);
		table_column(tab, "waited s", true);
	}
	size_t shown = c->top && (size_t)c->top < tl->n ? (size_t)c->top : tl->n;
	uint32_t *order = log_view_by_weight(tl, shown);
	for (size_t i = 0; i < shown; i++) {
		const struct step *s = &tl->steps[order[i]];
		const char *output = step_line(tl, s, 0).output;
		if (s->noutputs > 1)
			table_cell(tab, "%s (+%u outputs)", output, s->noutputs - 1);
		else
			table_cell(tab, "%s", output);
		table_cell(tab, "%s", step_kind_names[s->kind]);
		table_cell(tab, "%.2f", step_start(tl, s));
		table_cell(tab, "%.2f", step_end(tl, s));
		table_cell(tab, "%.2f", step_duration(tl, s));
		table_cell(tab, "%.2f", s->weighted);
		if (cr)
			cluster_cells(tab, cr, order[i]);
	}
	table_print(tab, stdout);
	table_free(tab);
	free(order);
	if (shown < tl->n)
		printf("(%zu more; --top 0 shows all)\n", tl->n - shown);

	if (cr)
		print_cluster(cr);
	else if (c->v.sent_by_launcher)
		printf("\n%zu of %zu compiles run behind %s: --distcc-log FILE (the build's DISTCC_VERBOSE=1 DISTCC_LOG) "
		       "tells where each ran\n", c->v.sent_by_launcher, c->v.compiles, c->v.launcher);
	printf("\nby kind:");
	for (int k = 0; k < NKINDS; k++)
		if (tl->count_by_kind[k])
			printf("  %s %zu step%s %.2f s (weighted %.2f s)", step_kind_names[k], tl->count_by_kind[k],
			       tl->count_by_kind[k] == 1 ? "" : "s", tl->by_kind[k], tl->weighted_by_kind[k]);
	printf("\nparallelism over time (mean running steps per 5%% of the wall):");
	for (int b = 0; b < TIMELINE_BUCKETS; b++)
		printf(" %.1f", tl->profile[b]);
	printf("\n");
	if (!c->v.have_graph) {
		printf("critical path: needs the build dir (-C) for ninja's graph\n");
		return;
	}
	printf("critical path (longest chain through ninja's graph, %.2f s):", c->v.rec.critical_s);
	for (size_t i = 0; i < c->v.rec.ncritical; i++) {
		const struct step *s = &tl->steps[c->v.rec.critical[i]];
		printf("%s %s (%.2f s)", i ? " ->" : "", step_line(tl, s, 0).output, step_duration(tl, s));
	}
	printf("\nrecorded chain (what each step waited for):");
	for (size_t i = c->v.rec.nchain; i-- > 0;) {
		const struct step *s = &tl->steps[c->v.rec.chain[i]];
		printf("%s%s %s (%.2f s)", i + 1 == c->v.rec.nchain ? "" : " ->", i + 1 < c->v.rec.nchain && c->v.rec.waited[i] &&
		       !strcmp(c->v.rec.waited[i], "slot") ? " [slot]" : "", step_line(tl, s, 0).output, step_duration(tl, s));
	}
	printf("\n");
}

/* ---- --json and --trace, written as they are made ---- */

static void stream_to(FILE *f, bool indent, void (*write)(const struct log_view *, struct json_stream *),
		      const struct log_view *v, const char *what)
{
	struct json_stream *s = xmalloc(sizeof(*s));
	json_stream_init(s, f, indent);
	write(v, s);
	int err = json_stream_flush(s);
	if (indent && !err && fputc('\n', f) == EOF)
		err = errno ? errno : EIO;
	free(s);
	if (err && f == stdout)
		stdout_write_failed(err);	/* reported at exit, with the rest (main.c) */
	else if (err)
		die(EXIT_INTERNAL, "%s: cannot write: %s", what, strerror(err));
}

/* Streamed as it is written: a log of 100k steps is never one json_t. */
static void render_json(const struct log_cmd *c)
{
	stream_to(stdout, true, log_view_write, &c->v, "standard output");
}

static void write_trace(const struct log_cmd *c)
{
	struct outfile o;
	FILE *f = outfile_open(&o, c->trace);
	stream_to(f, false, log_view_write_trace, &c->v, c->trace);
	outfile_commit(&o);
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
	if (!ninja_log_each(c->path, false, add_build_row, &a, &err))
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
		OPT_STRING('C', NULL, &dir, "DIR", "the build dir: DIR/.ninja_log, and ninja's graph (default .)"),
		OPT_INT(0, "build", &c.back, "N", "the build N runs before the latest (default 0: the latest)", 0, 1000000000),
		OPT_FLAG(0, "all-builds", &c.all_builds, "one row per build in the file"),
		OPT_TOP(&c.top, 0, "the K steps with the most weighted time (default 15; 0: all)"),
		OPT_STRING(0, "trace", &c.trace, "OUT", "write a Chrome trace (Perfetto, chrome://tracing): a track per job slot"),
		OPT_DISTCC_LOG(&c.distcc_path, "the build's distcc log: local against remote work"),
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
	if (c.all_builds && (c.back || c.trace || c.distcc_path))
		usage_error("log", "--all-builds lists builds; --build, --trace and --distcc-log show one");
	if (c.all_builds) {
		int rc = all_builds(&c);
		free(c.path);
		return rc;
	}
	char *err = NULL;
	if (!log_view_load(&c.v, c.dir, c.path, c.back, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	if (c.distcc_path) {
		if (!distcc_log_read(c.distcc_path, &c.distcc, &err))
			die(EXIT_BAD_INPUT, "%s", err);
		cluster_report_build(&c.v.tl, &c.distcc, &c.cluster);
		c.v.cluster = &c.cluster;
	}
	if (c.trace) {
		/* Reading is over: the tree is checked now, so a trace the user
		 * asked for inside it is not taken for a change. */
		snapshot_guard_release();
		write_trace(&c);
	}
	if (c.json)
		render_json(&c);
	else
		render_table(&c);
	if (c.trace && !c.json)
		printf("trace: %s (open it in Perfetto or chrome://tracing)\n", c.trace);
	log_view_free(&c.v);
	cluster_report_free(&c.cluster);
	distcc_log_free(&c.distcc);
	free(c.path);
	return EXIT_OK;
}
