/* buildwall report: the whole diagnosis as one self-contained HTML page.
 * By default it gathers what advise gathers (the same model, in-process)
 * and the latest build's timeline; with --from it draws saved --json
 * documents instead, measuring nothing. The page is written through a
 * temp file renamed into place. */
#define _GNU_SOURCE
#include "advise_render.h"
#include "build_record.h"
#include "cli.h"
#include "history_view.h"
#include "log_view.h"
#include "ninja.h"
#include "options.h"
#include "out_json.h"
#include "outfile.h"
#include "report_html.h"
#include "snapshot.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

static const char usage[] =
	"usage: buildwall report [-C BUILD_DIR] [TARGET...] [-o FILE.html] [-j JOBS] [--policy manifest|critical]\n"
	"                        [--parallel P] [--timeout S] [--json]\n"
	"       buildwall report --from DOC.json [--from DOC.json ...] [-o FILE.html] [--json]\n"
	"\n"
	"Write the diagnosis as one HTML page: the headline (measured wall, predicted wall\n"
	"after the plan), the latest build's timeline (one row per job slot, the critical\n"
	"path outlined, the parallelism beneath), host against device passes per TU split\n"
	"by phase, preprocessed lines by header group with the leak chains, the advice and\n"
	"the plan, the predicted wall against -j, and how each number was measured. One\n"
	"file: inline CSS and SVG, no request to any other file or host, readable with\n"
	"JavaScript off, light and dark, printable.\n"
	"\n"
	"By default it measures what advise does (the same model, in the same private temp\n"
	"dir; the build dir stays byte-identical) and prints advise's summary. --from draws\n"
	"saved documents of advise, log, passes, sim, wall and ab (their --json) instead;\n"
	"a survey document alone draws the page of every module it surveyed.\n"
	"The page goes to FILE (default buildwall-report.html in the current directory,\n"
	"never inside the build dir unless -o names a path there).\n"
	"\n";

struct report {
	const char *dir, *output;
	struct strvec from;
	json_t *loaded[64];
	size_t nloaded;
	json_t *trials[64];
	struct report_docs docs;
	json_t *survey;		/* a survey document: a page of its own */
};

static bool add_from(void *from, const char *path, char **err)
{
	(void)err;
	strvec_push(from, path);
	return true;
}

/* A saved document, by its envelope's command; exit 2 naming the file
 * (and line) when it is not one report can draw. */
static void load_document(struct report *r, const char *path)
{
	if (r->nloaded == sizeof(r->loaded) / sizeof(*r->loaded))
		die(EXIT_BAD_INPUT, "%s: at most %zu documents at once", path, sizeof(r->loaded) / sizeof(*r->loaded));
	json_error_t err;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
	if (!doc) {
		if (err.line < 1)
			die(EXIT_BAD_INPUT, "%s: %s", path, err.text);
		die_at(path, err.line, "column %d: %s", err.column, err.text);
	}
	if (r->survey)
		die(EXIT_BAD_INPUT, "%s: a survey document is drawn alone, on a page of its own", path);
	r->loaded[r->nloaded++] = doc;
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	const char *command = json_string_value(json_object_get(doc, "command"));
	if (!json_is_object(doc) || !schema || strcmp(schema, BUILDWALL_SCHEMA))
		die_at(path, 1, "not a buildwall --json document (its schema is not " BUILDWALL_SCHEMA ")");
	struct { const char *name; json_t **slot; } one[] = {
		{ "advise", &r->docs.advise }, { "log", &r->docs.log }, { "passes", &r->docs.passes }, { "sim", &r->docs.sim },
		{ "history", &r->docs.history },
	};
	for (size_t i = 0; command && i < sizeof(one) / sizeof(*one); i++) {
		if (strcmp(command, one[i].name))
			continue;
		if (*one[i].slot)
			die(EXIT_BAD_INPUT, "%s: a second %s document; give one of each", path, command);
		*one[i].slot = doc;
		return;
	}
	if (command && (!strcmp(command, "wall") || !strcmp(command, "ab"))) {
		r->trials[r->docs.ntrials++] = doc;
		return;
	}
	if (command && !strcmp(command, "survey")) {
		if (r->nloaded > 1)
			die(EXIT_BAD_INPUT, "%s: a survey document is drawn alone, on a page of its own", path);
		r->survey = doc;
		return;
	}
	die_at(path, 1, "a '%s' document: report draws advise, log, passes, sim, wall, ab, history and survey",
	       command ? command : "?");
}

/* The module's recorded walls, when a history holds them (nothing said
 * when there is no history file: most trees have none). */
#define REPORT_HISTORY_BUILDS 50	/* the clean builds the trend draws, per machine */

static json_t *history_of(const char *dir, const char *db_option)
{
	char *path = history_db_path(db_option);
	if (!file_exists(path)) {
		if (db_option)
			warn("no trend: %s: no history there yet", path);
		free(path);
		return NULL;
	}
	struct history_db h;
	json_t *doc = NULL;
	char *err = NULL;
	history_db_open(&h, path, false, &err);
	if (!err) {
		struct build_outputs o;
		build_outputs_load(&o, dir);
		struct history_view v;
		err = NULL;
		history_view_load(&v, &h, o.module, NULL, 0, REPORT_HISTORY_BUILDS, &err);
		if (!err && v.n)
			doc = history_view_document(&v, path);
		history_view_free(&v);
		build_outputs_free(&o);
	}
	if (err)
		warn("no trend: %s", err);
	history_db_close(&h);
	free(err);
	free(path);
	return doc;
}

static json_t *machine(void)
{
	struct utsname u;
	char *system = uname(&u) ? xstrdup("unknown") : xasprintf("%s %s %s, %d CPUs", u.sysname, u.release, u.machine,
								     cpu_count());
	char *ninja = ninja_version();
	json_t *m = json_build("{s:i, s:s, s:o}", "cpus", cpu_count(), "system", system, "ninja",
			       ninja ? json_string(ninja) : json_null());
	free(system);
	free(ninja);
	return m;
}

/* Is path (not yet there) inside dir? Compared by the real paths of its
 * directory and of dir. */
static bool inside(const char *path, const char *dir)
{
	char *copy = xstrdup(path), *slash = strrchr(copy, '/');
	const char *parent = slash ? (slash == copy ? "/" : (*slash = '\0', copy)) : ".";
	char *real_parent = realpath(parent, NULL), *real_dir = realpath(dir, NULL);
	bool in = real_parent && real_dir && (!strcmp(real_parent, real_dir) || path_below(real_parent, real_dir));
	free(real_parent);
	free(real_dir);
	free(copy);
	return in;
}

int cmd_report(int argc, char **argv)
{
	struct report r = { .dir = NULL };
	const char *db_option = NULL;
	struct advise_options o = { .cmd = "report", .parallel = cpu_count() };
	bool json = false;
	const struct opt opts[] = {
		OPT_DIR(&r.dir),
		OPT_STRING('o', "output", &r.output, "FILE", "write the page here (default buildwall-report.html)"),
		OPT_DB(&db_option),
		OPT_CALL(0, "from", &r.from, "DOC", "draw a saved --json document (advise, log, passes, sim, wall, ab,\n"
		  "history; or survey, alone); repeat for more; nothing is measured", add_from),
		OPT_BUILD_JOBS(&o.jobs, "the job count to predict the wall for (default $MAX_JOBS, else CPUs)"),
		OPT_POLICY(&o.policy),
		OPT_PARALLEL(&o.parallel, "run P probes at once (default: CPUs)"),
		OPT_TIMEOUT(&o.timeout, "give up on a compile or probe after S seconds (counts as failed)"),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("report", argc, argv, opts, usage);
	bool gather = !r.from.n;
	if (!gather && (r.dir || first < argc))
		usage_error("report", "--from draws saved documents; -C and TARGET are for measuring");
	if (!r.dir)
		r.dir = ".";
	bool named = r.output;
	if (!r.output)
		r.output = "buildwall-report.html";
	if (gather && !named && inside(r.output, r.dir))
		die(EXIT_BAD_INPUT, "the current directory is inside the build dir %s: name the page with -o FILE "
		    "(report never writes into the build dir unless asked)", r.dir);
	r.docs.trials = r.trials;
	for (size_t i = 0; i < r.from.n; i++)
		load_document(&r, r.from.v[i]);

	struct advise *ad = NULL;
	struct log_view lv = { 0 };
	char *log_path = NULL, *dir_real = NULL;
	if (gather) {
		o.dir = r.dir;
		o.targets = argv + first;
		o.ntargets = (size_t)(argc - first);
		if (!o.jobs)
			o.jobs = jobs_default("report");
		ad = advise_collect(&o);
		r.docs.advise = r.loaded[r.nloaded++] = advise_render_json(ad);
		log_path = xasprintf("%s/.ninja_log", r.dir);
		char *err = NULL;
		if (!log_view_load(&lv, r.dir, log_path, 0, &err)) {
			warn("no timeline: %s", err);
			free(err);
		} else {
			r.docs.log = r.loaded[r.nloaded++] = log_view_document(&lv);
		}
		r.docs.machine = r.loaded[r.nloaded++] = machine();
		dir_real = realpath(r.dir, NULL);
		r.docs.dir_name = dir_real ? base_name(dir_real) : NULL;
		if ((r.docs.history = history_of(r.dir, db_option)))
			r.loaded[r.nloaded++] = r.docs.history;
		if (!json)
			advise_render_table(ad);
	}
	/* Probing is over: the tree is checked now, so a page the user asked
	 * for inside it (-o) is not taken for a change. */
	snapshot_guard_release();
	struct outfile out;
	if (r.survey)
		report_html_write_survey(outfile_open(&out, r.output), r.survey);
	else
		report_html_write(outfile_open(&out, r.output), &r.docs);
	outfile_commit(&out);
	struct stat st;
	long long bytes = stat(r.output, &st) ? -1 : (long long)st.st_size;
	if (json) {
		json_t *doc = json_document("report", gather ? r.dir : NULL, ad ? advise_failures(ad) : 0);
		json_t *drawn = json_array();
		const char *names[] = { "advise", "log", "passes", "sim", "history" };
		json_t *docs[] = { r.docs.advise, r.docs.log, r.docs.passes, r.docs.sim, r.docs.history };
		for (size_t i = 0; i < 5; i++)
			if (docs[i])
				json_array_append_new(drawn, json_string(names[i]));
		for (size_t i = 0; i < r.docs.ntrials; i++)
			json_array_append_new(drawn, json_string(json_string_value(json_object_get(r.trials[i], "command"))));
		if (r.survey)
			json_array_append_new(drawn, json_string("survey"));
		json_object_set_new(doc, "report", json_string(r.output));
		json_object_set_new(doc, "bytes", json_integer(bytes));
		json_object_set_new(doc, "drawn", drawn);
		json_object_set_new(doc, "measured", json_string(gather ? "advise's evidence, gathered in-process, and the "
			"latest build in .ninja_log" : "nothing: saved documents (--from)"));
		json_print(doc);
	} else {
		printf("%sreport: %s (%.1f KB)\n", gather ? "\n" : "", r.output, bytes / 1024.0);
	}
	int status = failures_status(ad ? advise_failures(ad) : 0, "step", "");
	for (size_t i = 0; i < r.nloaded; i++)
		json_decref(r.loaded[i]);
	strvec_clear(&r.from);
	if (ad)
		advise_free(ad);
	if (r.docs.log && gather)
		log_view_free(&lv);
	free(log_path);
	free(dir_real);
	return status;
}
