/* buildwall leak: which include lets torch (or any heavy header) into a
 * TU. The TU is preprocessed as it compiles (or a preprocessed file is
 * read), and while its line markers stream by, the include stack gives the
 * chain from the TU to the first file that matches; the nearest header of
 * the project on that chain holds the #include to fix. */
#include "cli.h"
#include "headers.h"
#include "leak.h"
#include "options.h"
#include "match.h"
#include "out_json.h"
#include "out_table.h"
#include "preprocess.h"
#include "util.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall leak [-C BUILD_DIR] (TARGET... | --all | FILE.ii... | -) [--pattern REGEX]\n"
	"                      [--project DIR] [--device] [--parallel P] [--timeout S] [--json]\n"
	"\n"
	"Preprocess each TU as its command compiles it (host pass; with --device also each\n"
	"device pass; or read preprocessed output) and follow its include stack to the\n"
	"first file that matches: by default a heavy, host-only framework header\n"
	"(torch/ATen/c10, pybind11, Python; the groups of 'buildwall pp'), else --pattern.\n"
	"Prints that chain from the TU down, the nearest header on it that belongs to the\n"
	"project (its #include is the line to fix; system headers never belong to the\n"
	"project), and every distinct chain with the lines it brings in (code lines\n"
	"emitted while the matching file is open).\n"
	"\n";

static void render_view(const struct leak_rule *o, const struct leak_view *v)
{
	const struct pp_section *sec = leak_view_section(v);
	char *tu = pp_section_tu(v->src, v->section, v->ctx);
	bool named = pp_pass_named(v->src, v->section);
	printf("%s%s%s%s%s%s (%s)\n", c_bold(stdout), v->src->tu, c_reset(stdout), named ? ", " : "",
	       named ? v->name : "", named ? " pass" : "", tu ? tu : "no file named");
	free(tu);
	if (!v->nchains) {
		char *rule = leak_rule_text(o);
		printf("no file matches %s: nothing leaks in\n\n", rule);
		free(rule);
		return;
	}
	const struct chain *first = v->chains[0];
	char *match = leak_link_name(v, first, first->n - 1), *lines = format_count(first->lines);
	char *text = leak_chain_text(v, first);
	const struct pp_file *mf = &sec->files[first->files[first->n - 1]];
	size_t grp = header_classify(&o->groups, v->ctx, mf->name, mf->system);
	printf("first match: %s%s%s (%s), bringing in %s lines\n", c_bold(stdout), match, c_reset(stdout),
	       o->groups.v[grp].title, lines);
	printf("  %s\n", text);
	if (v->fix >= 0) {
		char *fix = leak_fix_text(v), *next = leak_link_name(v, v->fix_chain, (size_t)v->fix + 1);
		printf("line to fix: %s%s%s includes %s (the nearest project header on the chain)\n", c_bold(stdout), fix,
		       c_reset(stdout), next);
		if (v->fix_chain != first) {	/* the TU's own include came first */
			char *via = leak_chain_text(v, v->fix_chain);
			printf("  the chain: %s\n", via);
			free(via);
		}
		free(fix);
		free(next);
	} else {
		printf("line to fix: none of the chain's files belongs to the project (see --project)\n");
	}
	free(match);
	free(lines);
	free(text);
	printf("\n%zu distinct chain%s:\n", v->nchains, v->nchains == 1 ? "" : "s");
	struct table *tab = table_new();
	table_column(tab, "lines", true);
	table_column(tab, "entered", true);
	table_column(tab, "chain", false);
	for (size_t c = 0; c < v->nchains; c++) {
		char *n = format_count(v->chains[c]->lines), *t = leak_chain_text(v, v->chains[c]);
		table_cell(tab, "%s", n);
		table_cell(tab, "%zu", v->chains[c]->entries);
		table_cell(tab, "%s", t);
		free(n);
		free(t);
	}
	table_print(tab, stdout);
	table_free(tab);
	printf("\n");
}

static void render_summary(const struct leak_view *views, size_t n)
{
	struct table *tab = table_new();
	const char *cols[] = { "TU", "pass", "first match", "lines", "line to fix", "chains" };
	for (size_t c = 0; c < 6; c++)
		table_column(tab, cols[c], c == 3 || c == 5);
	size_t leaking = 0;
	for (size_t i = 0; i < n; i++) {
		const struct leak_view *v = &views[i];
		table_cell(tab, "%s", v->src->tu);
		table_cell(tab, "%s", v->name);
		if (!v->nchains) {
			table_cell(tab, "-");
			table_cell(tab, "-");
			table_cell(tab, "-");
			table_cell(tab, "0");
			continue;
		}
		leaking++;
		const struct chain *first = v->chains[0];
		char *match = leak_link_name(v, first, first->n - 1), *lines = format_count(first->lines);
		char *fix = v->fix >= 0 ? leak_fix_text(v) : xstrdup("(outside the project)");
		table_cell(tab, "%s", match);
		table_cell(tab, "%s", lines);
		table_cell(tab, "%s", fix);
		table_cell(tab, "%zu", v->nchains);
		free(match);
		free(lines);
		free(fix);
	}
	table_print(tab, stdout);
	table_free(tab);
	printf("%zu of %zu passes let a match in; 'buildwall leak TARGET' prints the chains\n", leaking, n);
}

/* --all: one row a pass; else each pass's chains. */
static void render_table(const struct leak_rule *o, bool all, const struct leak_view *views, size_t n)
{
	if (all) {
		render_summary(views, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		render_view(o, &views[i]);
}

static json_t *json_chain(const struct leak_view *v, const struct chain *ch)
{
	json_t *links = json_array();
	for (size_t i = 0; i < ch->n; i++) {
		const struct pp_file *f = &leak_view_section(v)->files[ch->files[i]];
		char *name = leak_link_name(v, ch, i);
		json_array_append_new(links, json_build("{s:s, s:s, s:o, s:b, s:b}", "file", name, "marker_name", f->name,
			"included_at_line", i ? json_integer((json_int_t)ch->include_lines[i]) : json_null(),
			"system", f->system, "project", header_in_project(v->ctx, f->name, f->system)));
		free(name);
	}
	return json_build("{s:o, s:I, s:I}", "links", links, "lines", (json_int_t)ch->lines, "entries",
			 (json_int_t)ch->entries);
}

static json_t *json_view(const struct leak_rule *o, const struct leak_view *v)
{
	json_t *chains = json_array();
	for (size_t c = 0; c < v->nchains; c++)
		json_array_append_new(chains, json_chain(v, v->chains[c]));
	json_t *fix = json_null(), *match = json_null();
	if (v->nchains) {
		const struct chain *first = v->chains[0];
		const struct pp_file *mf = &leak_view_section(v)->files[first->files[first->n - 1]];
		char *name = leak_link_name(v, first, first->n - 1);
		match = json_build("{s:s, s:s}", "file", name, "group",
				  o->groups.v[header_classify(&o->groups, v->ctx, mf->name, mf->system)].name);
		free(name);
		if (v->fix >= 0) {
			char *file = leak_link_name(v, v->fix_chain, (size_t)v->fix);
			fix = json_build("{s:s, s:I}", "file", file, "line",
					 (json_int_t)v->fix_chain->include_lines[v->fix + 1]);
			free(file);
		}
	}
	char *tu = pp_section_tu(v->src, v->section, v->ctx);
	json_t *o_view = json_build("{s:s, s:o, s:o, s:o, s:o}", "pass", v->name, "tu", tu ? json_string(tu) : json_null(),
				   "first_match", match, "fix", fix, "chains", chains);
	free(tu);
	return o_view;
}

static void render_json(const struct leak_rule *o, const char *dir, const struct pp_sources *ss,
			const struct leak_view *views, size_t n)
{
	json_t *doc = json_document("leak", ss->from_files ? NULL : dir, ss->failures);
	json_object_set_new(doc, "pattern", o->pattern ? json_string(o->pattern) : json_null());
	json_t *rows = json_array();
	for (size_t s = 0, v = 0; s < ss->n; s++) {
		json_t *passes = json_array();
		for (; v < n && views[v].src == &ss->v[s]; v++)
			json_array_append_new(passes, json_view(o, &views[v]));
		json_array_append_new(rows, json_build("{s:s, s:s, s:o}", ss->from_files ? "file" : "target", ss->v[s].tu,
						       "status", ss->v[s].failed ? "failed" : "ok", "passes", passes));
	}
	json_object_set_new(doc, "tus", rows);
	json_print(doc);
}

int cmd_leak(int argc, char **argv)
{
	struct leak_rule o = { 0 };
	bool all = false;
	struct pp_request req = { .cmd = "leak", .dir = ".", .jobs = cpu_count(), .hooks = leak_hooks, .ctx = &o };
	bool json = false;
	const struct opt opts[] = {
		OPT_DIR(&req.dir),
		OPT_FLAG(0, "all", &all, "every compile step, one row per TU and pass"),
		OPT_STRING(0, "pattern", &o.pattern, "REGEX", "the file to look for: POSIX ERE on its absolute path"),
		OPT_PROJECT(&o.project),
		OPT_PREPROCESS(&req),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("leak", argc, argv, opts, usage);
	req.all = all;
	req.project = o.project;
	if (o.pattern) {
		char *err = NULL;
		if (!regex_compile(&o.re, o.pattern, REG_NOSUB, &err))
			usage_error("leak", "--pattern '%s': %s", o.pattern, err);
	}
	header_groups_init(&o.groups);
	struct pp_sources ss;
	collect_sources(&req, argv + first, (size_t)(argc - first), &ss);
	size_t n = pp_sources_passes(&ss);
	struct leak_view *views = xcalloc(n, sizeof(*views));
	n = 0;
	for (size_t s = 0; s < ss.n; s++)
		for (size_t k = 0; ss.v[s].scanned && k < ss.v[s].scan.nsections; k++)
			leak_view_init(&views[n++], &ss.v[s], k);
	if (json)
		render_json(&o, req.dir, &ss, views, n);
	else
		render_table(&o, all, views, n);
	int status = failures_status(ss.failures, "TU", " to preprocess");
	for (size_t i = 0; i < n; i++)
		leak_view_free(&views[i]);
	free(views);
	for (size_t s = 0; s < ss.n; s++)
		leak_scan_free(ss.v[s].data);
	pp_sources_free(&ss);
	header_groups_free(&o.groups);
	free(o.project);
	if (o.pattern)
		regfree(&o.re);
	return status;
}
