/* buildwall pp: where a TU's preprocessed lines come from. Each TU is
 * preprocessed exactly as it compiles (host pass, and device passes per
 * arch with --device or --all), its line markers are scanned as they
 * stream, and the lines are summed per file and per header group, with the
 * playbook's calibration (a lean TU is under 150K lines; over 400K a
 * framework has leaked in). */
#include "cli.h"
#include "headers.h"
#include "options.h"
#include "out_json.h"
#include "out_table.h"
#include "preprocess.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall pp [-C BUILD_DIR] (TARGET... | --all | FILE.ii... | -) [--device]\n"
	"                    [--group NAME=REGEX]... [--project DIR] [--top N]\n"
	"                    [--lean LINES] [--heavy LINES] [--parallel P] [--timeout S] [--json]\n"
	"\n"
	"Preprocess each TU exactly as its command compiles it (its flags plus -E, output\n"
	"in a private temp dir): the host pass (clang/hipcc --cuda-host-only; nvcc's host\n"
	"preprocessing job from --dryrun; gcc as it is) and, with --device, every device\n"
	"pass per arch (--cuda-device-only --offload-arch=X; nvcc's per-arch job). Or read\n"
	"preprocessed output: FILE.ii, or - for stdin (a HIP -E file with offload bundles\n"
	"is read bundle by bundle).\n"
	"\n"
	"Counts, from the line markers: the total is every line of the -E output; a file's\n"
	"own lines are the lines emitted while it is on top of the include stack. Files\n"
	"are grouped by path: torch/ATen/c10, pybind11, Python (heavy: host-only\n"
	"frameworks), C++ standard library, HIP/CUDA runtime, compiler builtins, the\n"
	"project's own headers (the TU's git work tree, or --project), other.\n"
	"Calibration: under --lean lines (150K) a TU is lean, over --heavy (400K) heavy.\n"
	"\n";

struct pp_options {
	struct header_groups groups;
	struct weight_limits limits;
	char *project;
	long top;
	bool all;
};

/* One pass of one TU, summed. */
struct pass_view {
	const struct pp_source *src;
	size_t section;
	char *name;
	bool device;
	struct header_context ctx;
	struct header_summary sum;
};

static void view_init(struct pass_view *v, const struct pp_options *o, const struct pp_source *src, size_t section)
{
	v->src = src;
	v->section = section;
	v->name = pp_section_name(src, section, &v->device);
	pp_section_context(src, section, o->project, &v->ctx);
	header_summarize(&src->scan.sections[section], &o->groups, &v->ctx, &v->sum);
}

static void view_free(struct pass_view *v)
{
	free(v->name);
	header_context_free(&v->ctx);
	header_summary_free(&v->sum);
}

static const struct pp_section *view_section(const struct pass_view *v)
{
	return &v->src->scan.sections[v->section];
}

/* "torch/ATen/c10, pybind11": the heavy groups with files in this pass. */
static char *heavy_groups(const struct pp_options *o, const struct pass_view *v)
{
	struct strvec names = { 0 };
	for (size_t g = 0; g < o->groups.n; g++)
		if (o->groups.v[g].heavy && v->sum.groups[g].files)
			strvec_push(&names, o->groups.v[g].title);
	char *out = strvec_join(&names, ", ");
	strvec_clear(&names);
	return out;
}

/* The pass's TU as shown. */
static char *tu_display(const struct pass_view *v)
{
	char *tu = pp_section_tu(v->src, v->section, &v->ctx);
	return tu ? tu : xstrdup("no file named");
}

static char *verdict_text(const struct pp_options *o, size_t lines)
{
	char *lean = format_count(o->limits.lean), *heavy = format_count(o->limits.heavy), *text;
	switch (weigh(lines, &o->limits)) {
	case WEIGHT_LEAN: text = xasprintf("lean: under %s lines", lean); break;
	case WEIGHT_HEAVY: text = xasprintf("heavy: over %s lines, a framework has leaked in", heavy); break;
	default: text = xasprintf("between the lean (%s) and heavy (%s) marks", lean, heavy); break;
	}
	free(lean);
	free(heavy);
	return text;
}

static double share(size_t part, size_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void render_groups(const struct pp_options *o, const struct pass_view *v)
{
	const struct pp_section *sec = view_section(v);
	struct table *tab = table_new();
	table_column(tab, "group", false);
	table_column(tab, "lines", true);
	table_column(tab, "share", true);
	table_column(tab, "files", true);
	table_column(tab, "", false);
	for (size_t g = 0; g < o->groups.n; g++) {
		const struct group_total *t = &v->sum.groups[g];
		if (!t->files)
			continue;
		char *lines = format_count(t->lines);
		table_cell(tab, "%s", o->groups.v[g].title);
		table_cell(tab, "%s", lines);
		table_cell(tab, "%.1f%%", share(t->lines, sec->lines));
		table_cell(tab, "%zu", t->files);
		table_cell(tab, "%s", o->groups.v[g].heavy ? (v->device ? "heavy, host-only" : "heavy") : "");
		free(lines);
	}
	char *marks = format_count(sec->markers);
	table_cell(tab, "(line markers)");
	table_cell(tab, "%s", marks);
	table_cell(tab, "%.1f%%", share(sec->markers, sec->lines));
	table_cell(tab, "%s", "");
	table_cell(tab, "%s", "");
	free(marks);
	table_print(tab, stdout);
	table_free(tab);
}

static void render_top_files(const struct pp_options *o, const struct pass_view *v)
{
	const struct pp_section *sec = view_section(v);
	struct table *tab = table_new();
	table_column(tab, "lines", true);
	table_column(tab, "share", true);
	table_column(tab, "entered", true);
	table_column(tab, "group", false);
	table_column(tab, "file", false);
	for (size_t i = 0; i < sec->nfiles && i < (size_t)o->top; i++) {
		const struct pp_file *f = &sec->files[v->sum.by_lines[i]];
		char *lines = format_count(f->lines);
		char *name = header_display(&v->ctx, f->name, f->system, v->sum.by_lines[i] == sec->main_file);
		table_cell(tab, "%s", lines);
		table_cell(tab, "%.1f%%", share(f->lines, sec->lines));
		table_cell(tab, "%zu", f->entries);
		table_cell(tab, "%s", o->groups.v[v->sum.group_of[v->sum.by_lines[i]]].name);
		table_cell(tab, "%s", name);
		free(lines);
		free(name);
	}
	table_print(tab, stdout);
	table_free(tab);
}

/* The notes a pass earns: heavy groups present, and markers that did not
 * add up. */
static void render_notes(const struct pp_options *o, const struct pass_view *v)
{
	const struct pp_section *sec = view_section(v);
	struct strvec heavy = { 0 };
	for (size_t g = 0; g < o->groups.n; g++) {
		const struct group_total *t = &v->sum.groups[g];
		if (!o->groups.v[g].heavy || !t->files)
			continue;
		char *lines = format_count(t->lines);
		strvec_pushf(&heavy, "%s (%s lines in %zu files)", o->groups.v[g].title, lines, t->files);
		free(lines);
	}
	if (heavy.n) {
		char *list = strvec_join(&heavy, ", ");
		if (v->device)
			printf("note: this device pass parses host-only headers: %s; the device compiler reads them for "
			       "nothing: split the host glue (tensors, bindings) out of this TU\n", list);
		else
			printf("note: heavy host-only headers are parsed here: %s\n", list);
		printf("note: 'buildwall leak %s%s' shows the include chains that bring them in\n", v->src->tu,
		       v->device ? " --device" : "");
		free(list);
		strvec_clear(&heavy);
	}
	if (sec->renamed_returns)
		printf("note: %zu line markers returned to a file other than its includer; counted by the markers' names\n",
		       sec->renamed_returns);
	if (sec->open_at_end)
		printf("note: %zu files were still open when the output ended: it looks cut off\n", sec->open_at_end);
}

static void render_pass(const struct pp_options *o, const struct pass_view *v)
{
	const struct pp_section *sec = view_section(v);
	char *total = format_count(sec->lines), *tu = tu_display(v), *verdict = verdict_text(o, sec->lines);
	char *files = format_count(sec->nfiles);
	printf("%s%s%s%s%s%s (%s): %s%s lines%s in %s files\n", c_bold(stdout), v->src->tu, c_reset(stdout),
	       pp_pass_named(v->src, v->section) ? ", " : "", pp_pass_named(v->src, v->section) ? v->name : "",
	       pp_pass_named(v->src, v->section) ? " pass" : "", tu, c_bold(stdout), total, c_reset(stdout), files);
	free(files);
	printf("verdict: %s%s%s\n\n", c_bold(stdout), verdict, c_reset(stdout));
	render_groups(o, v);
	printf("\n");
	render_top_files(o, v);
	render_notes(o, v);
	printf("\n");
	free(total);
	free(tu);
	free(verdict);
}

/* The device archs of all views, in order of first appearance. */
static void device_passes(const struct pass_view *views, size_t n, struct strvec *names)
{
	for (size_t i = 0; i < n; i++)
		if (views[i].device && !strvec_contains(names, views[i].name))
			strvec_push(names, views[i].name);
}

/* The host-only heavy groups a TU's device passes parse: their titles, or
 * their names (for JSON). */
static void device_heavy(const struct pp_options *o, const struct pass_view *views, size_t n, bool names,
			 struct strvec *out)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t g = 0; views[i].device && g < o->groups.n; g++) {
			const char *label = names ? o->groups.v[g].name : o->groups.v[g].title;
			if (o->groups.v[g].heavy && views[i].sum.groups[g].files && !strvec_contains(out, label))
				strvec_push(out, label);
		}
	}
}

/* The sources [*first, return) are the passes of one TU. */
static size_t next_tu(const struct pp_sources *ss, size_t first)
{
	size_t s = first + 1;
	while (s < ss->n && !strcmp(ss->v[s].tu, ss->v[first].tu))
		s++;
	return s;
}

static bool tu_failed(const struct pp_sources *ss, size_t first, size_t end)
{
	for (size_t s = first; s < end; s++)
		if (ss->v[s].failed)
			return true;
	return false;
}

/* --all: a row per TU. Views are in source order. */
static void render_summary(const struct pp_options *o, const struct pp_sources *ss, const struct pass_view *views,
			   size_t n)
{
	struct strvec devices = { 0 };
	device_passes(views, n, &devices);
	struct table *tab = table_new();
	table_column(tab, "TU", false);
	table_column(tab, "host lines", true);
	table_column(tab, "verdict", false);
	table_column(tab, "heavy (host)", false);
	for (size_t d = 0; d < devices.n; d++) {
		char *title = xasprintf("%s lines", devices.v[d]);
		table_column(tab, title, true);
		free(title);
	}
	table_column(tab, "device pass parses", false);
	size_t marked = 0, v = 0;
	for (size_t s = 0, end; s < ss->n; s = end) {
		end = next_tu(ss, s);
		size_t first = v;
		bool failed = tu_failed(ss, s, end);
		while (v < n && views[v].src < ss->v + end)
			v++;
		const struct pass_view *host = NULL;
		for (size_t i = first; i < v && !host; i++)
			if (!views[i].device)
				host = &views[i];
		table_cell(tab, "%s", ss->v[s].tu);
		if (host) {
			char *lines = format_count(view_section(host)->lines), *heavy = heavy_groups(o, host);
			table_cell(tab, "%s", lines);
			table_cell(tab, "%s", weight_name(weigh(view_section(host)->lines, &o->limits)));
			table_cell(tab, "%s", heavy);
			free(lines);
			free(heavy);
		} else {
			table_cell(tab, "%s", failed ? "FAILED" : "-");
			table_cell(tab, "-");
			table_cell(tab, "-");
		}
		for (size_t d = 0; d < devices.n; d++) {
			const struct pass_view *dv = NULL;
			for (size_t i = first; i < v; i++)
				if (views[i].device && !strcmp(views[i].name, devices.v[d]))
					dv = &views[i];
			char *lines = dv ? format_count(view_section(dv)->lines) : xstrdup(failed ? "FAILED" : "-");
			table_cell(tab, "%s", lines);
			free(lines);
		}
		struct strvec titles = { 0 };
		device_heavy(o, views + first, v - first, false, &titles);
		char *list = strvec_join(&titles, ", ");
		table_cell(tab, "%s%s", list, titles.n ? "  <- host-only" : "");
		marked += titles.n > 0;
		free(list);
		strvec_clear(&titles);
	}
	table_print(tab, stdout);
	table_free(tab);
	strvec_clear(&devices);
	char *lean = format_count(o->limits.lean), *heavy = format_count(o->limits.heavy);
	printf("verdict (host pass): lean under %s lines, heavy over %s\n", lean, heavy);
	free(lean);
	free(heavy);
	if (marked)
		printf("%s%zu TU%s parse a host-only framework in a device pass%s: the device compiler reads it for nothing; "
		       "split the host glue (tensors, bindings) out of the kernel TU\n", c_bold(stdout), marked,
		       marked == 1 ? "" : "s", c_reset(stdout));
}

/* --all: one row a pass; else each pass's groups, files and notes. */
static void render_table(const struct pp_options *o, const struct pp_sources *ss, const struct pass_view *views,
			 size_t n)
{
	if (o->all) {
		render_summary(o, ss, views, n);
		return;
	}
	for (size_t i = 0; i < n; i++)
		render_pass(o, &views[i]);
}

static json_t *json_pass(const struct pp_options *o, const struct pass_view *v)
{
	const struct pp_section *sec = view_section(v);
	char *tu = pp_section_tu(v->src, v->section, &v->ctx);
	json_t *groups = json_array(), *heavy = json_array(), *files = json_array(), *project = json_array();
	for (size_t g = 0; g < o->groups.n; g++) {
		const struct group_total *t = &v->sum.groups[g];
		if (!t->files)
			continue;
		json_array_append_new(groups, json_build("{s:s, s:I, s:I, s:b}", "name", o->groups.v[g].name,
							"lines", (json_int_t)t->lines, "files", (json_int_t)t->files,
							"heavy", o->groups.v[g].heavy));
		if (o->groups.v[g].heavy)
			json_array_append_new(heavy, json_string(o->groups.v[g].name));
	}
	for (size_t i = 0; i < sec->nfiles && i < (size_t)o->top; i++) {
		size_t k = v->sum.by_lines[i];
		const struct pp_file *f = &sec->files[k];
		char *name = header_display(&v->ctx, f->name, f->system, k == sec->main_file);
		json_array_append_new(files, json_build("{s:s, s:s, s:s, s:I, s:I, s:b}", "file", name, "marker_name",
						       f->name, "group", o->groups.v[v->sum.group_of[k]].name,
						       "lines", (json_int_t)f->lines, "entries", (json_int_t)f->entries,
						       "system", f->system));
		free(name);
	}
	for (size_t i = 0; i < v->ctx.project.n; i++)
		json_array_append_new(project, json_string(v->ctx.project.v[i]));
	json_t *o_pass = json_build("{s:s, s:b, s:o, s:I, s:I, s:I, s:I, s:s, s:o, s:o, s:o, s:o, s:I, s:I}",
		"pass", v->name, "device", v->device, "tu", tu ? json_string(tu) : json_null(), "total_lines", (json_int_t)sec->lines,
		"code_lines", (json_int_t)sec->code_lines, "marker_lines", (json_int_t)sec->markers,
		"files", (json_int_t)sec->nfiles, "weight", weight_name(weigh(sec->lines, &o->limits)),
		"heavy_groups", heavy, "groups", groups, "top_files", files, "project", project,
		"renamed_returns", (json_int_t)sec->renamed_returns, "open_at_end", (json_int_t)sec->open_at_end);
	json_object_set_new(o_pass, "max_include_depth", json_integer((json_int_t)sec->max_depth));
	free(tu);
	return o_pass;
}

static void render_json(const struct pp_options *o, const char *dir, const struct pp_sources *ss,
			const struct pass_view *views, size_t n)
{
	json_t *doc = json_document("pp", ss->from_files ? NULL : dir, ss->failures);
	json_object_set_new(doc, "thresholds", json_build("{s:I, s:I}", "lean_lines", (json_int_t)o->limits.lean,
							 "heavy_lines", (json_int_t)o->limits.heavy));
	json_t *groups = json_array();
	for (size_t g = 0; g < o->groups.n; g++)
		json_array_append_new(groups, json_build("{s:s, s:s, s:o, s:b}", "name", o->groups.v[g].name, "title",
							o->groups.v[g].title, "regex", o->groups.v[g].regex ?
							json_string(o->groups.v[g].regex) : json_null(),
							"heavy", o->groups.v[g].heavy));
	json_object_set_new(doc, "groups", groups);
	json_t *tus = json_array();
	size_t v = 0;
	for (size_t s = 0, end; s < ss->n; s = end) {
		end = next_tu(ss, s);
		bool failed = tu_failed(ss, s, end);
		json_t *passes = json_array();
		struct strvec names = { 0 };
		size_t first = v;
		for (; v < n && views[v].src < ss->v + end; v++)
			json_array_append_new(passes, json_pass(o, &views[v]));
		device_heavy(o, views + first, v - first, true, &names);
		json_t *dev = json_array();
		for (size_t i = 0; i < names.n; i++)
			json_array_append_new(dev, json_string(names.v[i]));
		strvec_clear(&names);
		json_array_append_new(tus, json_build("{s:s, s:s, s:s, s:o, s:o}", ss->from_files ? "file" : "target",
			ss->v[s].tu, "status", failed ? "failed" : "ok", "source", ss->from_files ? "file" : "preprocessed",
			"passes", passes, "device_parses_host_only", dev));
	}
	json_object_set_new(doc, "tus", tus);
	json_print(doc);
}

static bool add_group(void *groups, const char *spec, char **err)
{
	return header_groups_add(groups, spec, err);
}

int cmd_pp(int argc, char **argv)
{
	struct pp_options o = { .limits = { PLAYBOOK_LEAN_LINES, PLAYBOOK_HEAVY_LINES }, .top = 10 };
	struct pp_request req = { .cmd = "pp", .dir = ".", .jobs = cpu_count() };
	bool json = false;
	header_groups_init(&o.groups);
	const struct opt opts[] = {
		OPT_DIR(&req.dir),
		OPT_FLAG(0, "all", &o.all, "every compile step: one row per TU with host and device lines,\n"
			"marking TUs whose device pass parses a host-only framework"),
		OPT_CALL(0, "group", &o.groups, "NAME=REGEX", "add a group (tried first), or replace a default group's regex\n"
			"(POSIX ERE on the path; repeatable)", add_group),
		OPT_PROJECT(&o.project),
		OPT_TOP(&o.top, 0, "files to list per pass (default 10)"),
		OPT_COUNT(0, "lean", &o.limits.lean, "LINES", "lean below this many lines (default 150K)"),
		OPT_COUNT(0, "heavy", &o.limits.heavy, "LINES", "heavy above this many lines (default 400K)"),
		OPT_PREPROCESS(&req),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("pp", argc, argv, opts, usage);
	req.all = o.all;
	req.project = o.project;
	if (o.limits.lean > o.limits.heavy)
		usage_error("pp", "--lean (%zu) is above --heavy (%zu)", o.limits.lean, o.limits.heavy);
	req.device |= req.all;
	struct pp_sources ss;
	collect_sources(&req, argv + first, (size_t)(argc - first), &ss);
	size_t n = pp_sources_passes(&ss);
	struct pass_view *views = xcalloc(n, sizeof(*views));
	n = 0;
	for (size_t s = 0; s < ss.n; s++)
		for (size_t k = 0; ss.v[s].scanned && k < ss.v[s].scan.nsections; k++)
			view_init(&views[n++], &o, &ss.v[s], k);
	if (json)
		render_json(&o, req.dir, &ss, views, n);
	else
		render_table(&o, &ss, views, n);
	int status = failures_status(ss.failures, "TU", " to preprocess");
	for (size_t i = 0; i < n; i++)
		view_free(&views[i]);
	free(views);
	pp_sources_free(&ss);
	header_groups_free(&o.groups);
	free(o.project);
	return status;
}
