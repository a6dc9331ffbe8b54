/* buildwall survey: every JIT module at once, from the .ninja_logs and
 * manifests alone (no compile runs): each module's latest clean wall and
 * what sets it, the steps by role, and across modules the sources compiled
 * again in each and the framework lines parsed again in each. Each module
 * is read by a child buildwall (survey --read DIR), a few at a time, so a
 * bad tree is a row with its reason and never the end of the survey;
 * --advise and --record run advise and record on the modules the same way. */
#define _GNU_SOURCE
#include "cache.h"
#include "cli.h"
#include "options.h"
#include "out_json.h"
#include "out_table.h"
#include "pp_lines.h"
#include "proc.h"
#include "progress.h"
#include "snapshot.h"
#include "survey.h"
#include "tmpdir.h"
#include "util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: buildwall survey [DIR | GLOB]... [--pp] [--advise K] [--record [--label K=V]... [--db PATH]]\n"
	"                        [--parallel P] [--timeout S] [--no-cache] [--json]\n"
	"\n"
	"Every JIT module at once, from their .ninja_logs and manifests alone (no compile\n"
	"runs): each module's latest clean build (its wall, critical path and the step that\n"
	"sets it), its steps by role (kernel, dispatcher, binding: from each source's text),\n"
	"how many builds its log holds; across modules, the sources compiled in several\n"
	"(same content) and what compiling them again costs. One table, heaviest first.\n"
	"\n"
	"DIR: a build dir, or a dir holding build dirs up to 4 levels down; GLOB: a pattern\n"
	"of either. Default: aiter's $AITER_JIT_DIR/build (else ./aiter/jit/build) and torch's\n"
	"$TORCH_EXTENSIONS_DIR (else ~/.cache/torch_extensions), those that exist. A dir that\n"
	"cannot be read (no log, a log ninja did not write, not a build, a ninja building it\n"
	"now) is listed with the reason and skipped. Nothing in any tree is written; ninja's\n"
	"graph of each is kept in the user's cache (~/.cache/buildwall, $BUILDWALL_CACHE_DIR)\n"
	"for the next survey of an unchanged manifest.\n"
	"\n"
	"--pp: also the framework lines (torch, pybind11, Python) each TU parses, host and\n"
	"device passes (a -E run per pass in a private temp dir; one module at a time).\n"
	"--advise K: advise on the K heaviest modules, one after another: the top fix and the\n"
	"wall predicted after the plan. --record: record --all of every module read.\n"
	"\n";

/* One child buildwall per module: what it printed, or why it failed. */
struct module_run {
	const char *dir;
	char *cached;		/* the cache entry to keep its document as, or NULL */
	char *out_path, *err_path;
	json_t *doc;		/* its document, or NULL */
	char *failure;		/* else why not */
};

/* Children of one kind over the modules: argv is the program's own, then
 * `args` with "{}" standing for the module's dir. */
struct children {
	struct survey *survey;	/* NULL: keep each child's document in its run; else add it here */
	struct module_run *runs;
	size_t n, next;
	const char *const *args;
	const char *what;	/* for the progress line */
	double timeout;
	char *self;
	struct strvec argv;
};

static char *self_path(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		die(EXIT_INTERNAL, "survey: cannot find buildwall's own program (/proc/self/exe)");
	path[n] = '\0';
	return xstrdup(path);
}

static long next_child(void *ctx, struct proc *p)
{
	struct children *c = ctx;
	if (c->next >= c->n)
		return -1;
	size_t i = c->next++;
	struct module_run *m = &c->runs[i];
	strvec_clear(&c->argv);
	strvec_push(&c->argv, c->self);
	for (const char *const *a = c->args; *a; a++)
		strvec_push(&c->argv, !strcmp(*a, "{}") ? m->dir : *a);
	m->out_path = xasprintf("%s/survey-%s-%zu.out", tmpdir_path(), c->args[0], i);
	m->err_path = xasprintf("%s/survey-%s-%zu.err", tmpdir_path(), c->args[0], i);
	*p = (struct proc){ .argv = c->argv.v, .out_path = m->out_path, .err_path = m->err_path, .timeout_s = c->timeout };
	progress_set("%s [%zu/%zu] %s", c->what, i + 1, c->n, m->dir);
	return (long)i;
}

/* Why a child failed: the last line it printed, without the program's
 * prefix; else how it ended. */
static char *failure_of(const struct module_run *m, const struct proc *p)
{
	char *text = read_text_file(m->err_path), *why = NULL;
	if (text) {
		char *end = text + strlen(text);
		while (end > text && (end[-1] == '\n' || end[-1] == ' '))
			*--end = '\0';
		char *line = strrchr(text, '\n');
		line = line ? line + 1 : text;
		if (has_prefix(line, "buildwall: "))
			line += strlen("buildwall: ");
		if (*line)
			why = xstrdup(line);
	}
	free(text);
	if (!why || p->timed_out) {
		free(why);
		char *f = proc_failure(p);
		why = xasprintf("%s", f);
		free(f);
	}
	return why;
}

/* A child that did its work may still have warned (a TU that would not
 * preprocess): its warnings and notes become ours, naming the module. */
static void relay_messages(const struct module_run *m)
{
	FILE *f = fopen(m->err_path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (f && (n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (has_prefix(line, "buildwall: warning: "))
			warn("%s: %s", m->dir, line + strlen("buildwall: warning: "));
		else if (has_prefix(line, "buildwall: note: "))
			note("%s: %s", m->dir, line + strlen("buildwall: note: "));
	}
	free(line);
	if (f)
		fclose(f);
}

static void child_finished(void *ctx, long task, struct proc *p)
{
	struct children *c = ctx;
	struct module_run *m = &c->runs[task];
	if (proc_succeeded(p))
		relay_messages(m);
	if (proc_succeeded(p) && c->survey) {
		if (survey_add(c->survey, m->out_path, m->dir, &m->failure) && m->cached)
			cache_store(m->out_path, m->cached);
	} else if (proc_succeeded(p)) {
		json_error_t jerr;
		if (!(m->doc = json_load_file(m->out_path, 0, &jerr)))
			m->failure = xasprintf("%s printed no document (%s)", c->args[0], jerr.text);
	} else {
		m->failure = failure_of(m, p);
	}
	remove(m->out_path);
	remove(m->err_path);
	free(m->out_path);
	free(m->err_path);
	m->out_path = m->err_path = NULL;
}

/* Run the children, `parallel` at a time. */
static void run_children(struct children *c, long parallel)
{
	c->self = self_path();
	const struct proc_pool pool = { .next = next_child, .finished = child_finished, .ctx = c };
	proc_run_parallel(parallel, &pool);
	strvec_clear(&c->argv);
	free(c->self);
}

struct survey_cmd {
	struct strvec roots, labels;
	bool pp, json, record, no_cache;
	const char *read, *db;
	long advise, parallel;
	double timeout;
	struct survey s;
	size_t failures;	/* advise and record runs that failed */
};

/* survey --read DIR: one module on stdout (what each child does). */
static int read_one(const struct survey_cmd *c)
{
	snapshot_guard(c->read);
	survey_read_module(c->read, !c->no_cache, c->pp ? build_record_pp_lines : NULL, stdout);
	return EXIT_OK;
}

static json_t *skipped_module(const char *dir, const char *why)
{
	return json_build("{s:o, s:n, s:o}", "dir", json_name(dir), "module", "skipped", json_name(why));
}

/* Whether the module is in the cache as the last survey left it, its
 * manifest and log as they were then (added to the survey if so); *entry:
 * where to keep a new reading (owned, or NULL). With --pp, never: the
 * headers change without them. */
static bool add_cached(struct survey_cmd *c, const char *dir, char **entry)
{
	*entry = c->pp || c->no_cache ? NULL : cache_path("survey", dir, (const char *const[]){ "build.ninja", ".ninja_log", NULL });
	if (!*entry || !file_exists(*entry))
		return false;
	char *err = NULL;
	if (!survey_add(&c->s, *entry, dir, &err))	/* read it again, and the entry is replaced */
		free(err);
	return !err;
}

/* Read every place (from the cache, else in a child). */
static void read_modules(struct survey_cmd *c, const struct survey_places *places)
{
	struct module_run *runs = xcalloc(places->n + 1, sizeof(*runs));
	size_t n = 0;
	for (size_t i = 0; i < places->n; i++) {
		char *entry;
		if (places->v[i].skipped) {
			survey_add_doc(&c->s, skipped_module(places->v[i].dir, places->v[i].skipped));
		} else if (add_cached(c, places->v[i].dir, &entry)) {
			free(entry);
		} else {
			runs[n].dir = places->v[i].dir;
			runs[n++].cached = entry;
		}
	}
	const char *args[] = { "survey", "--read", "{}", c->pp ? "--pp" : NULL, NULL, NULL };
	args[c->pp ? 4 : 3] = c->no_cache ? "--no-cache" : NULL;
	struct children ch = { .survey = &c->s, .runs = runs, .n = n, .args = args, .what = "survey", .timeout = c->timeout };
	run_children(&ch, c->pp ? 1 : c->parallel);
	for (size_t i = 0; i < n; i++) {
		if (runs[i].failure)
			survey_add_doc(&c->s, skipped_module(runs[i].dir, runs[i].failure));
		free(runs[i].failure);
		free(runs[i].cached);
	}
	free(runs);
	survey_finish(&c->s);
}

static json_t *advise_summary(json_t *doc)
{
	json_t *plan = json_object_get(doc, "plan");
	json_t *first = json_array_get(plan, 0), *last = json_array_get(plan, json_array_size(plan) - 1);
	json_t *baseline = json_object_get(json_object_get(doc, "baseline"), "predicted");
	json_t *after = last ? json_object_get(last, "predicted") : baseline;
	return json_build("{s:O, s:O, s:O, s:O, s:I}", "top_fix", first ? json_object_get(first, "fix") : json_null(),
			  "baseline_s", json_object_get(baseline, "wall_s"), "after_plan_s",
			  json_object_get(after, "wall_s"), "after_plan_range_s", json_object_get(after, "range_s"),
			  "plan_steps", (json_int_t)json_array_size(plan));
}

static json_t *record_summary(json_t *doc)
{
	return json_build("{s:O, s:I}", "added", json_object_get(doc, "added"), "builds",
			  (json_int_t)json_array_size(json_object_get(doc, "builds")));
}

/* advise or record on the first n modules read, one at a time; each
 * module's document gets `key`: the summary, or {failure}. */
static void run_on_modules(struct survey_cmd *c, size_t n, const char *const *args, const char *key,
			   json_t *(*summary)(json_t *doc))
{
	struct module_run *runs = xcalloc(n + 1, sizeof(*runs));
	for (size_t i = 0; i < n; i++)
		runs[i].dir = json_string_value(json_object_get(c->s.modules[i], "dir"));
	struct children ch = { .runs = runs, .n = n, .args = args, .what = args[0] };
	run_children(&ch, 1);
	for (size_t i = 0; i < n; i++) {
		json_t *v = runs[i].doc ? summary(runs[i].doc) : json_build("{s:o}", "failure", json_name(runs[i].failure));
		c->failures += !runs[i].doc;
		json_object_set_new(c->s.modules[i], key, v);
		json_decref(runs[i].doc);
		free(runs[i].failure);
	}
	free(runs);
}

/* ---- renderers ---- */

static double number(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void role_cell(struct table *tab, json_t *m, const char *role)
{
	json_t *r = json_object_get(json_object_get(m, "roles"), role);
	json_int_t steps = json_integer_value(json_object_get(r, "steps"));
	if (steps)
		table_cell(tab, "%lld (%.1f s)", (long long)steps, number(r, "seconds"));
	else
		table_cell(tab, "-");
}

static void render_modules(const struct survey *s)
{
	struct table *tab = table_new();
	const char *heads[] = { "module", "wall", "clean", "builds", "kernel", "dispatcher", "binding", "sets the wall", "dir" };
	for (size_t i = 0; i < sizeof(heads) / sizeof(*heads); i++)
		table_column(tab, heads[i], i >= 1 && i <= 3);
	for (size_t i = 0; i < s->nread; i++) {
		json_t *m = s->modules[i], *setter = json_object_get(m, "setter");
		table_cell(tab, "%s", json_string_value(json_object_get(m, "module")));
		table_cell(tab, "%.2f s", number(m, "wall_s"));
		table_cell(tab, "%s", json_is_true(json_object_get(m, "clean")) ? "yes" : "no");
		table_cell(tab, "%lld", (long long)json_integer_value(json_object_get(m, "builds")));
		role_cell(tab, m, "kernel");
		role_cell(tab, m, "dispatcher");
		role_cell(tab, m, "binding");
		if (json_is_object(setter))
			table_cell(tab, "%s %.2f s", json_string_value(json_object_get(setter, "target")),
				   number(setter, "seconds"));
		else
			table_cell(tab, "-");
		table_cell(tab, "%s", json_string_value(json_object_get(m, "dir")));
	}
	table_print(tab, stdout);
	table_free(tab);
}

static void render_shared(const struct survey *s)
{
	double again = 0;
	for (size_t k = 0; k < s->nshared; k++)
		again += s->shared[k].total_s - s->shared[k].once_s;
	printf("\n%ssources compiled in several modules%s (same content): %zu, %.1f s compiled again\n", c_bold(stdout),
	       c_reset(stdout), s->nshared, again);
	if (!s->nshared)
		return;
	struct table *tab = table_new();
	const char *heads[] = { "source", "modules", "in all", "once", "again" };
	for (size_t i = 0; i < 5; i++)
		table_column(tab, heads[i], i > 0);
	for (size_t k = 0; k < s->nshared && k < 20; k++) {
		const struct survey_shared *sh = &s->shared[k];
		table_cell(tab, "%s", sh->path);
		table_cell(tab, "%zu", sh->nmodules);
		table_cell(tab, "%.2f s", sh->total_s);
		table_cell(tab, "%.2f s", sh->once_s);
		table_cell(tab, "%.2f s", sh->total_s - sh->once_s);
	}
	table_print(tab, stdout);
	table_free(tab);
	if (s->nshared > 20)
		printf("(%zu more in --json)\n", s->nshared - 20);
	printf("compiled once (a dedicated TU or library the modules share), each costs the 'once' column\n");
}

static void render_followups(const struct survey *s, const char *key)
{
	bool any = false;
	for (size_t i = 0; i < s->nread && !any; i++)
		any = json_object_get(s->modules[i], key) != NULL;
	if (!any)
		return;
	bool advise = !strcmp(key, "advise");
	printf("\n%s%s%s\n", c_bold(stdout), advise ? "advise, heaviest first" : "recorded", c_reset(stdout));
	struct table *tab = table_new();
	table_column(tab, "module", false);
	if (advise) {
		table_column(tab, "wall now (predicted)", true);
		table_column(tab, "top fix", false);
		table_column(tab, "after the plan", true);
	} else {
		table_column(tab, "builds in its log", true);
		table_column(tab, "added", true);
	}
	for (size_t i = 0; i < s->nread; i++) {
		json_t *m = s->modules[i], *v = json_object_get(m, key);
		if (!v)
			continue;
		table_cell(tab, "%s", json_string_value(json_object_get(m, "module")));
		const char *failure = json_string_value(json_object_get(v, "failure"));
		if (failure) {
			table_cell(tab, "failed: %s", failure);
			table_cell(tab, "%s", "");
			if (advise)
				table_cell(tab, "%s", "");
			continue;
		}
		if (advise) {
			json_t *range = json_object_get(v, "after_plan_range_s");
			table_cell(tab, "%.2f s", number(v, "baseline_s"));
			table_cell(tab, "%s", json_is_string(json_object_get(v, "top_fix")) ?
				   json_string_value(json_object_get(v, "top_fix")) : "none");
			table_cell(tab, "%.2f s (%.2f-%.2f)", number(v, "after_plan_s"),
				   json_number_value(json_array_get(range, 0)), json_number_value(json_array_get(range, 1)));
		} else {
			table_cell(tab, "%lld", (long long)json_integer_value(json_object_get(v, "builds")));
			table_cell(tab, "%lld", (long long)json_integer_value(json_object_get(v, "added")));
		}
	}
	table_print(tab, stdout);
	table_free(tab);
}

static void render_json(const struct survey_cmd *c)
{
	json_t *doc = json_document("survey", NULL, c->failures);
	json_t *roots = json_array();
	for (size_t i = 0; i < c->roots.n; i++)
		json_array_append_new(roots, json_name(c->roots.v[i]));
	json_object_set_new(doc, "roots", roots);
	json_object_set_new(doc, "method", json_string("each module's latest build that ran every compile step of its "
		"graph (else its latest), from its .ninja_log and ninja -t graph (cached per manifest); roles from each "
		"source's text (PYBIND11_MODULE or TORCH_LIBRARY: binding; a __global__ kernel or a launch: kernel; else "
		"dispatcher), from its extension when it cannot be read; shared: the same content (or path) compiled in "
		"several modules"));
	survey_document(&c->s, doc);
	json_print(doc);
}

static void render_table(const struct survey_cmd *c)
{
	const struct survey *s = &c->s;
	printf("%ssurvey%s: %zu build dir%s found, %zu read, %zu skipped; from each .ninja_log and ninja's graph, no compile ran\n",
	       c_bold(stdout), c_reset(stdout), s->n, s->n == 1 ? "" : "s", s->nread, s->n - s->nread);
	if (s->nread)
		render_modules(s);
	for (size_t i = s->nread; i < s->n; i++)
		printf("skipped %s: %s\n", json_string_value(json_object_get(s->modules[i], "dir")),
		       json_string_value(json_object_get(s->modules[i], "skipped")));
	if (s->nread > 1)
		render_shared(s);
	if (s->have_lines) {
		char *host = format_count(s->framework_host), *device = format_count(s->framework_device);
		printf("\n%sframework headers%s: %s host and %s device lines of torch, pybind11 and Python in %zu TU passes of %zu module%s, parsed again in each\n",
		       c_bold(stdout), c_reset(stdout), host, device, s->framework_passes, s->framework_modules,
		       s->framework_modules == 1 ? "" : "s");
		free(host);
		free(device);
	}
	render_followups(s, "advise");
	render_followups(s, "recorded");
}

int cmd_survey(int argc, char **argv)
{
	struct survey_cmd c = { .parallel = cpu_count(), .timeout = 300 };
	const struct opt opts[] = {
		OPT_FLAG(0, "pp", &c.pp, "also the framework lines each TU parses, host and device passes"),
		OPT_INT(0, "advise", &c.advise, "K", "advise on the K heaviest modules, one after another", 1, 1000),
		OPT_FLAG(0, "record", &c.record, "record --all of every module read, into the history"),
		OPT_LABEL(&c.labels, "with --record: a label for every build recorded (repeatable)"),
		OPT_DB(&c.db),
		OPT_PARALLEL(&c.parallel, "read P modules at once (default: the CPU count)"),
		OPT_TIMEOUT(&c.timeout, "give up on reading one module after S seconds (default 300)"),
		OPT_FLAG(0, "no-cache", &c.no_cache, "ask ninja for every graph, not the user's cache of them"),
		OPT_STRING(0, "read", &c.read, "DIR", "one module's document alone (what survey runs for each)"),
		OPT_JSON(&c.json),
		OPT_TABLE_END,
	};
	int first = parse_options("survey", argc, argv, opts, usage);
	if (c.read) {
		if (first < argc || c.advise || c.record)
			usage_error("survey", "--read DIR reads one module: no other dirs, --advise or --record");
		return read_one(&c);
	}
	if ((c.labels.n || c.db) && !c.record)
		usage_error("survey", "--label and --db go with --record");
	for (int i = first; i < argc; i++)
		strvec_push(&c.roots, argv[i]);
	if (!c.roots.n) {
		survey_default_roots(&c.roots);
		if (!c.roots.n)
			die(EXIT_BAD_INPUT, "survey: none of the default places exists (aiter/jit/build or $AITER_JIT_DIR/build, "
			    "~/.cache/torch_extensions or $TORCH_EXTENSIONS_DIR); name a dir");
	}
	struct survey_places places;
	survey_find(&c.roots, &places);
	read_modules(&c, &places);
	if (c.advise)
		run_on_modules(&c, (size_t)c.advise < c.s.nread ? (size_t)c.advise : c.s.nread,
			       (const char *const[]){ "advise", "-C", "{}", "--json", NULL }, "advise", advise_summary);
	if (c.record) {
		struct strvec args = { 0 };
		strvec_push(&args, "record");
		strvec_push(&args, "-C");
		strvec_push(&args, "{}");
		strvec_push(&args, "--all");
		strvec_push(&args, "--json");
		if (c.db)
			strvec_pushf(&args, "--db=%s", c.db);
		for (size_t i = 0; i < c.labels.n; i++)
			strvec_pushf(&args, "--label=%s", c.labels.v[i]);
		run_on_modules(&c, c.s.nread, (const char *const *)args.v, "recorded", record_summary);
		strvec_clear(&args);
	}
	if (c.json)
		render_json(&c);
	else
		render_table(&c);
	survey_free(&c.s);
	survey_places_free(&places);
	strvec_clear(&c.roots);
	strvec_clear(&c.labels);
	/* A module that could not be read is a row, not a failure; an advise
	 * or record that failed on one is. */
	return failures_status(c.failures, "advise or record run", " (the reason is in its row)");
}
