/* buildwall record: put a build into the history (history_db), keyed by
 * its module, the sources' commit, the machine and compilers; no compile
 * runs (seconds), unless --pp preprocesses the TUs for their lines. */
#define _GNU_SOURCE
#include "build_record.h"
#include "pp_lines.h"
#include "cli.h"
#include "control.h"
#include "history_db.h"
#include "log_view.h"
#include "options.h"
#include "out_json.h"
#include "out_table.h"
#include "proc.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall record [-C BUILD_DIR] [--all] [--pp] [--label K=V]... [--module NAME] [--db PATH] [--json]\n"
	"       buildwall record --from FILE [--label K=V]... --module NAME [--db PATH] [--json]\n"
	"\n"
	"Put the latest build in BUILD_DIR's .ninja_log into the history (--all: every build\n"
	"the log still holds, oldest first), from the log alone: no compile runs. Kept per\n"
	"build: its wall, critical path and every step's duration, whether it ran every\n"
	"compile step (a clean build: only those are compared), the most steps at once; keyed\n"
	"by the module (its linked output's name, else the build dir's), the git commit of\n"
	"its sources (and whether tracked files changed), the machine (CPUs and model), the\n"
	"compilers' versions, and any labels. --pp adds each TU's preprocessed lines per\n"
	"header group and pass (a -E run per pass, outputs in a private temp dir) to the\n"
	"latest build: what check names when a TU grew. --from records a saved 'log --json'\n"
	"document (one build), 'wall --json' document (one per trial) or 'advise --json'\n"
	"document (its baseline: the recorded wall, each TU's isolated seconds, its lines per\n"
	"group and, for the TUs it split, its seconds per pass: the host/device split).\n"
	"\n"
	"The builds of this sitting (ended in the last 30 minutes, by the log's times) get\n"
	"the control compile timed now: a small C++ TU buildwall carries, compiled with the\n"
	"build's own compiler, as many at once as the build ran compiles, median of 3 (about a\n"
	"second). check compares walls in units of\n"
	"it, so a machine slower this hour does not read as a slower build; --no-control\n"
	"leaves it out. A wall document's trials carry their own.\n"
	"\n"
	"A build is known by a hash of its own log lines: recording it again changes nothing.\n"
	"The history is one SQLite file (docs/db.md): --db, else $BUILDWALL_DB, else\n"
	"~/.local/share/buildwall/history.db; each build is written in one transaction.\n"
	"\n";

/* Each build read, as a record. */
struct collect {
	const struct build_outputs *outputs;
	const char *module;
	struct build_record *records;
	size_t n;
};

static void collect_build(struct log_view *v, void *ctx)
{
	struct collect *c = ctx;
	c->records = xrealloc(c->records, (c->n + 1) * sizeof(*c->records));
	build_record_from_view(&c->records[c->n++], v, c->outputs, c->module);
}

static char *short_id(const char *identity)
{
	return xstrndup(identity, 12);
}

/* The control compile for the builds of this sitting: those that ended
 * within CONTROL_SITTING_S by the log's times, as many copies at once as
 * the most steps they ran at once (the CPUs at most). Nothing is timed when
 * none did, or the build names no compiler. */
static void control_for_sitting(const char *dir, const struct ninja_build *b, struct build_record *records, size_t n,
				struct control *c)
{
	long jobs = 0;
	for (size_t i = 0; i < n; i++)
		if (control_this_sitting(records[i].built_at) && records[i].jobs >= jobs)
			jobs = records[i].jobs > 0 ? records[i].jobs : 1;
	char *compiler = jobs ? control_compiler(dir, b) : NULL, *err = NULL;
	if (!compiler)
		return;
	if (!control_measure(compiler, control_copies(jobs), CONTROL_RUNS, c, &err)) {
		warn("%s: the builds are recorded without one", err);
		free(err);
		control_clear(c);
	}
	for (size_t i = 0; c->runs && i < n; i++)
		if (control_this_sitting(records[i].built_at)) {
			records[i].control = c->seconds;
			records[i].control_by = control_name(c);
		}
	free(compiler);
}

/* What record added, for its two renderers. */
struct record_run {
	const struct control *control;	/* timed now, or runs 0 */
	const char *dir, *from, *db_path;
	const struct record_context *ctx;
	const struct build_record *records;
	size_t n;
	const bool *added;
	size_t nadded;
	char *labels_text;	/* "k=v, k2=v2", or NULL */
};

static void render_json(const struct record_run *w)
{
	json_t *doc = json_document("record", w->from ? NULL : w->dir, 0);
	json_t *arr = json_array();
	for (size_t i = 0; i < w->n; i++) {
		const struct build_record *r = &w->records[i];
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:o, s:I, s:I, s:b, s:b, s:I, s:o}", "identity",
			r->identity, "source", r->source, "wall_s", json_seconds(r->wall), "critical_path_s",
			json_seconds(r->critical), "steps", (json_int_t)r->nsteps, "jobs", (json_int_t)r->jobs,
			"complete", r->complete, "added", w->added[i], "lines", (json_int_t)r->nlines,
			"control_s", r->control > 0 ? json_seconds(r->control) : json_null()));
	}
	json_t *lab = json_object();
	for (size_t i = 0; i < w->ctx->labels.n; i++) {
		char *eq = strchr(w->ctx->labels.v[i], '=');
		char *key = xstrndup(w->ctx->labels.v[i], (size_t)(eq - w->ctx->labels.v[i]));
		json_object_set_new(lab, key, json_string(eq + 1));
		free(key);
	}
	json_object_set_new(doc, "db", json_string(w->db_path));
	json_object_set_new(doc, "module", json_string(w->ctx->module));
	json_object_set_new(doc, "commit", w->ctx->commit ? json_string(w->ctx->commit) : json_null());
	json_object_set_new(doc, "dirty", json_boolean(w->ctx->dirty));
	json_object_set_new(doc, "machine", json_pack("{s:I, s:s}", "cpus", (json_int_t)w->ctx->cpus, "model", w->ctx->model));
	json_object_set_new(doc, "compilers", w->ctx->compilers ? json_string(w->ctx->compilers) : json_null());
	json_object_set_new(doc, "labels", lab);
	json_object_set_new(doc, "builds", arr);
	json_object_set_new(doc, "added", json_integer((json_int_t)w->nadded));
	const struct control *c = w->control;
	json_object_set_new(doc, "control", c->runs ? json_pack("{s:s, s:I, s:o, s:o, s:o, s:I}", "compiler", c->compiler,
		"copies", (json_int_t)c->copies, "seconds", json_seconds(c->seconds), "least_s", json_seconds(c->lo),
		"most_s", json_seconds(c->hi), "runs", (json_int_t)c->runs) : json_null());
	json_print(doc);
}

static void render_table(const struct record_run *w)
{
	printf("record: %s%s%s", w->ctx->module, w->ctx->commit ? " at " : "", w->ctx->commit ? w->ctx->commit : "");
	printf("%s on %ld CPUs (%s)%s%s into %s\n", w->ctx->dirty ? " (tracked files changed)" : "", w->ctx->cpus, w->ctx->model,
	       w->labels_text ? ", labels " : "", w->labels_text ? w->labels_text : "", w->db_path);
	for (size_t i = 0; i < w->n; i++) {
		const struct build_record *r = &w->records[i];
		char *id = short_id(r->identity);
		char *control = r->control > 0 ? xasprintf(", control %.3f s", r->control) : xstrdup("");
		printf("  %s  wall %.2f s, %zu steps%s%s%s, %s%s\n", id, r->wall, r->nsteps,
		       r->complete ? ", every compile" : ", incremental (not compared)",
		       r->nlines ? ", header lines" : "", control, r->source, w->added[i] ? "" : ": already recorded");
		free(control);
		free(id);
	}
	printf("%zu build%s added, %zu already there\n", w->nadded, w->nadded == 1 ? "" : "s", w->n - w->nadded);
	if (w->control->runs)
		printf("control compile: %s, %zu at once, %.3f s (median of %zu, %.3f-%.3f s), for the builds of this sitting\n",
		       w->control->compiler, w->control->copies, w->control->seconds, w->control->runs, w->control->lo,
		       w->control->hi);
}

int cmd_record(int argc, char **argv)
{
	const char *dir = NULL, *db_option = NULL, *from = NULL, *module = NULL;
	bool json = false, all = false, pp = false, no_control = false;
	struct strvec labels = { 0 };
	const struct opt opts[] = {
		OPT_DIR(&dir),
		OPT_FLAG(0, "all", &all, "every build the log still holds, oldest first (default: the latest)"),
		OPT_FLAG(0, "pp", &pp, "also each TU's preprocessed lines per header group and pass"),
		OPT_FLAG(0, "no-control", &no_control, "no control compile timed for the builds of this sitting"),
		OPT_LABEL(&labels, "a label to find the build by (repeatable): branch=main, variant=fused"),
		OPT_MODULE(&module),
		OPT_STRING(0, "from", &from, "FILE", "a saved log, wall or advise document to record instead"),
		OPT_DB(&db_option),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("record", argc, argv, opts, usage);
	if (first < argc)
		usage_error("record", "unexpected argument '%s'", argv[first]);
	if (from && (dir || all || pp || no_control))
		usage_error("record", "--from records a document: -C, --all, --pp and --no-control go with a build dir");
	if (from && !module)
		usage_error("record", "--from needs --module NAME (a document does not say which module it is)");
	if (!dir)
		dir = ".";

	struct record_context ctx;
	struct control control = { 0 };
	struct build_record *records = NULL;
	size_t nrecords = 0;
	char *db_path = history_db_path(db_option);
	if (from) {
		char *err = NULL;
		if (!build_records_from_file(from, module, &records, &nrecords, &err))
			die(EXIT_BAD_INPUT, "%s", err);
		record_context_init(&ctx, NULL, NULL, module, false);
	} else {
		ninja_check_dir(dir);
		struct ninja_build b;
		struct build_outputs outputs;
		ninja_load(dir, &b);
		build_outputs_of(&outputs, &b);
		record_context_init(&ctx, dir, &b, module ? module : outputs.module, true);
		char *log = path_in(dir, ".ninja_log");
		struct collect c = { .outputs = &outputs, .module = ctx.module };
		char *err;
		if (all) {
			err = NULL;
			log_view_each(&b, log, collect_build, &c, NULL, &err);
		} else {	/* the latest alone: no other build analyzed */
			struct log_view v;
			err = NULL;
			if (log_view_load_graph(&v, &b, log, 0, &err)) {
				collect_build(&v, &c);
				log_view_free(&v);
			}
		}
		if (err)
			die(EXIT_BAD_INPUT, "%s", err);
		records = c.records;
		nrecords = c.n;
		if (pp)
			build_record_pp_lines("record", dir, &b, &records[nrecords - 1]);
		if (!no_control)
			control_for_sitting(dir, &b, records, nrecords, &control);
		free(log);
		build_outputs_free(&outputs);
		ninja_build_free(&b);
	}
	for (size_t i = 0; i < labels.n; i++)
		strvec_push(&ctx.labels, labels.v[i]);
	strvec_sort(&ctx.labels);

	struct history_db h;
	char *err = NULL;
	if (!history_db_open(&h, db_path, true, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	bool *added = xcalloc(nrecords ? nrecords : 1, sizeof(bool));
	size_t nadded = 0;
	for (size_t i = 0; i < nrecords; i++) {
		if (!history_db_add(&h, &ctx, &records[i], &added[i], &err))
			die(EXIT_INTERNAL, "%s", err);
		nadded += added[i];
	}
	history_db_close(&h);

	struct record_run w = { .control = &control, .dir = dir, .from = from, .db_path = db_path, .ctx = &ctx, .records = records,
			      .n = nrecords, .added = added, .nadded = nadded,
			      .labels_text = ctx.labels.n ? strvec_join(&ctx.labels, ", ") : NULL };
	if (json)
		render_json(&w);
	else
		render_table(&w);
	free(w.labels_text);
	for (size_t i = 0; i < nrecords; i++)
		build_record_free(&records[i]);
	free(records);
	free(added);
	free(db_path);
	strvec_clear(&labels);
	record_context_free(&ctx);
	control_clear(&control);
	return EXIT_OK;
}
