#define _GNU_SOURCE
#include "build_record.h"
#include "driver.h"
#include "headers.h"
#include "proc.h"
#include "timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- where the builds ran ---- */

char *record_first_line(char *const *argv, const char *cwd, const char *pattern)
{
	char *git_env[] = { "GIT_OPTIONAL_LOCKS=0", NULL };	/* git status must not rewrite the index */
	char *text = proc_capture(argv, cwd, git_env, 30);
	if (!text)
		return NULL;
	char *line = text, *found = NULL;
	while (*line && !found) {
		size_t len = strcspn(line, "\n");
		if (!pattern || memmem(line, len, pattern, strlen(pattern)))
			found = xstrndup(line, len);
		line += len + (line[len] == '\n');
	}
	free(text);
	return found;
}

static char *cpu_model(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	char *model = NULL;
	while (f && !model && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (has_prefix(line, "model name") && colon) {
			colon += 1 + strspn(colon + 1, " \t");
			model = xstrndup(colon, strcspn(colon, "\n"));
		}
	}
	if (f)
		fclose(f);
	return model ? model : xstrdup("unknown");
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* From every output and its rule, in manifest order. */
static void classify(struct build_outputs *o, const char *dir, const struct strvec *outputs, const struct strvec *rules)
{
	*o = (struct build_outputs){ 0 };
	const char *linked = NULL;
	for (size_t i = 0; i < outputs->n; i++) {
		if (!strcmp(rules->v[i], "phony"))
			continue;
		const char *out = outputs->v[i];
		/* A linked output by its name and its rule's ("link", CMake's
		 * CXX_SHARED_LIBRARY_LINKER__t): CMake's extensionless helpers
		 * (help, edit_cache) run CUSTOM_COMMAND. */
		if (has_suffix(out, ".o") || has_suffix(out, ".obj"))
			strvec_push(&o->compiles, out);
		else if (step_kind_of(out, strlen(out)) == KIND_LINK && strcasestr(rules->v[i], "link"))
			linked = out;
	}
	if (o->compiles.n)
		qsort(o->compiles.v, o->compiles.n, sizeof(char *), compare_strings);
	if (linked) {
		o->module = xstrdup(base_name(linked));
		char *dot = strchr(o->module, '.');
		if (dot && dot != o->module)
			*dot = '\0';
	} else {
		char *abs = realpath(dir, NULL);
		o->module = xstrdup(base_name(abs ? abs : dir));
		free(abs);
	}
}

void build_outputs_load(struct build_outputs *o, const char *dir)
{
	struct strvec outputs = { 0 }, rules = { 0 };
	ninja_outputs(dir, &outputs, &rules);
	classify(o, dir, &outputs, &rules);
	strvec_clear(&outputs);
	strvec_clear(&rules);
}

void build_outputs_of(struct build_outputs *o, const struct ninja_build *b)
{
	struct strvec outputs = { 0 }, rules = { 0 };
	for (size_t i = 0; i < b->n; i++)
		for (size_t k = 0; k < b->edges[i].outputs.n; k++) {
			strvec_push(&outputs, b->edges[i].outputs.v[k]);
			strvec_push(&rules, b->edges[i].rule ? b->edges[i].rule : "");
		}
	classify(o, b->dir, &outputs, &rules);
	strvec_clear(&outputs);
	strvec_clear(&rules);
}

void build_outputs_free(struct build_outputs *o)
{
	strvec_clear(&o->compiles);
	free(o->module);
	*o = (struct build_outputs){ 0 };
}

void build_compilers(const char *dir, const struct ninja_build *b, struct strvec *programs)
{
	struct strvec rules = { 0 };
	for (size_t i = 0; i < b->n; i++) {
		if (!ninja_edge_is_compile(&b->edges[i]) || !b->edges[i].command)
			continue;
		const char *rule = b->edges[i].rule ? b->edges[i].rule : "";
		if (strvec_contains(&rules, rule))
			continue;
		strvec_push(&rules, rule);
		struct compile_command cmd = { 0 };
		char *err = NULL;
		driver_parse(b->edges[i].command, dir, &cmd, &err);
		if (!err && cmd.argv.n && !strvec_contains(programs, cmd.argv.v[0]))
			strvec_push(programs, cmd.argv.v[0]);
		free(err);
		compile_command_clear(&cmd);
	}
	strvec_clear(&rules);
}

/* "nvcc release 13.0, V13.0.88; c++ (Debian 12.2.0-14) 12.2.0": each
 * compiler the compile steps run, once. */
static char *compiler_versions(const char *dir, const struct ninja_build *b)
{
	struct strvec programs = { 0 }, versions = { 0 };
	build_compilers(dir, b, &programs);
	for (size_t i = 0; i < programs.n; i++) {
		char *argv[] = { programs.v[i], "--version", NULL };
		bool nvcc = driver_identify(programs.v[i]) == COMPILER_NVCC;
		char *line = record_first_line(argv, dir, nvcc ? "release" : NULL);
		if (line)
			strvec_push_nodup(&versions, xasprintf("%s: %s", base_name(programs.v[i]), line));
		free(line);
	}
	char *joined = versions.n ? strvec_join(&versions, "; ") : NULL;
	strvec_clear(&programs);
	strvec_clear(&versions);
	return joined;
}

/* The sources' directory: that of the first compile step whose source is
 * in a git work tree (generated sources in the build dir often are not),
 * else of the first compile step's source. */
static char *sources_dir(const char *dir, const struct ninja_build *b)
{
	char *first = NULL;
	for (size_t i = 0; i < b->n; i++) {
		if (!ninja_edge_is_compile(&b->edges[i]) || !b->edges[i].inputs.n)
			continue;
		char *path = path_normalize(dir, b->edges[i].inputs.v[0]);
		char *slash = strrchr(path, '/');
		if (slash && slash != path)
			*slash = '\0';
		char *top = header_git_work_tree(path);
		if (top) {
			free(top);
			free(first);
			return path;
		}
		if (first)
			free(path);
		else
			first = path;
	}
	return first;
}

void record_context_init(struct record_context *c, const char *dir, const struct ninja_build *b, const char *module,
			 bool compilers)
{
	*c = (struct record_context){ .cpus = cpu_count(), .model = cpu_model(), .module = xstrdup(module) };
	if (!dir)
		return;
	c->build_dir = realpath(dir, NULL);
	if (!b)
		return;
	c->compilers = compilers ? compiler_versions(dir, b) : NULL;
	char *src = sources_dir(dir, b);
	if (src && is_directory(src)) {
		c->source_dir = xstrdup(src);
		char *head[] = { "git", "rev-parse", "HEAD", NULL };
		c->commit = record_first_line(head, src, NULL);
		char *status[] = { "git", "status", "--porcelain", "--untracked-files=no", NULL };
		char *changed = c->commit ? record_first_line(status, src, NULL) : NULL;
		c->dirty = changed != NULL;
		free(changed);
	}
	free(src);
}

void record_context_free(struct record_context *c)
{
	free(c->module);
	free(c->commit);
	free(c->model);
	free(c->compilers);
	free(c->build_dir);
	free(c->source_dir);
	strvec_clear(&c->labels);
	*c = (struct record_context){ 0 };
}

/* ---- the builds ---- */

/* A step's part of its build's identity: added, so the steps' order does
 * not matter (a log document lists them heaviest first). */
static void step_identity(struct identity_hash *build, const char *output, size_t output_len, const char *hash,
			  size_t hash_len, double start, double end)
{
	struct identity_hash h;
	identity_init(&h);
	identity_add(&h, output, output_len);
	identity_add(&h, hash, hash_len);
	identity_add_number(&h, start);
	identity_add_number(&h, end);
	identity_merge(build, &h);
}

static void add_step(struct build_record *r, const char *target, const char *kind, double seconds)
{
	r->steps = grow_array(r->steps, r->nsteps, sizeof(*r->steps));
	r->steps[r->nsteps++] = (struct record_step){ xstrdup(target), kind, seconds };
}

bool build_outputs_compiles(const struct build_outputs *o, const char *output)
{
	return bsearch(&output, o->compiles.v, o->compiles.n, sizeof(char *), compare_strings) != NULL;
}

bool build_outputs_all_seen(const struct build_outputs *o, size_t seen)
{
	return o->compiles.n && seen >= o->compiles.n;
}

void build_record_from_view(struct build_record *r, const struct log_view *v, const struct build_outputs *o,
			    const char *module)
{
	*r = (struct build_record){ .source = ".ninja_log", .recorded_at = time(NULL), .critical = NAN };
	const struct timeline *tl = &v->tl;
	struct identity_hash h;
	identity_init(&h);
	identity_add(&h, module, strlen(module));
	size_t compiles_seen = 0;
	for (size_t i = 0; i < tl->n; i++) {
		const struct step *s = &tl->steps[i];
		struct log_name name = step_line(tl, s, 0);
		char *target = xstrndup(name.output, name.output_len);
		step_identity(&h, name.output, name.output_len, name.hash, name.hash_len, step_start(tl, s), step_end(tl, s));
		compiles_seen += build_outputs_compiles(o, target);
		add_step(r, target, step_kind_names[s->kind], step_duration(tl, s));
		free(target);
	}
	r->identity = identity_hex(&h);
	r->wall = tl->wall;
	r->jobs = tl->slots;
	r->built_at = ninja_log_when(&v->build);
	r->complete = build_outputs_all_seen(o, compiles_seen);
	if (v->have_graph && v->rec.ncritical) {
		struct strvec path = { 0 };
		for (size_t i = 0; i < v->rec.ncritical; i++)
			strvec_push(&path, r->steps[v->rec.critical[i]].target);
		r->critical_path = strvec_join(&path, " > ");
		r->critical = v->rec.critical_s;
		strvec_clear(&path);
	}
}

static double number(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static char *from_log_document(json_t *doc, const char *module, struct build_record *r)
{
	json_t *steps = json_object_get(doc, "steps");
	if (!json_is_array(steps))
		return xstrdup("a log document without steps[] (log --json of one build)");
	*r = (struct build_record){ .source = "log document", .recorded_at = time(NULL), .critical = NAN };
	size_t n = json_array_size(steps);
	struct identity_hash h;
	identity_init(&h);
	identity_add(&h, module, strlen(module));
	for (size_t k = 0; k < n; k++) {
		json_t *s = json_array_get(steps, k);
		const char *output = json_string_value(json_object_get(s, "output"));
		const char *hash = json_string_value(json_object_get(s, "hash"));
		const char *kind = json_string_value(json_object_get(s, "kind"));
		double start = number(s, "start_s"), end = number(s, "end_s");
		if (!output || !hash || isnan(start) || isnan(end))
			return xasprintf("steps[%zu]: needs output, hash, start_s and end_s", k);
		if (!(start >= 0 && end >= start && end < RECORD_MAX_SECONDS))
			return xasprintf("steps[%zu]: times %g to %g s are not a step's", k, start, end);
		step_identity(&h, output, strlen(output), hash, strlen(hash), start, end);
		const char *known = "other";
		for (int i = 0; i < NKINDS; i++)
			if (kind && !strcmp(kind, step_kind_names[i]))
				known = step_kind_names[i];
		add_step(r, output, known, end - start);
	}
	r->identity = identity_hex(&h);
	r->wall = number(doc, "wall_s");
	double jobs = number(doc, "max_running");
	r->jobs = jobs >= 0 && jobs <= 1e6 ? (long)jobs : 0;
	r->critical = number(doc, "critical_path_s");
	json_t *path = json_object_get(doc, "critical_path");
	if (json_is_array(path) && json_array_size(path)) {
		struct strvec names = { 0 };
		for (size_t i = 0; i < json_array_size(path); i++) {
			const char *o = json_string_value(json_object_get(json_array_get(path, i), "output"));
			strvec_push(&names, o ? o : "?");
		}
		r->critical_path = strvec_join(&names, " > ");
		strvec_clear(&names);
	}
	/* Whether every compile ran is the graph's to say; a document has none. */
	r->complete = true;
	return r->wall >= 0 && r->wall < RECORD_MAX_SECONDS ? NULL : xstrdup("a log document without a wall_s of its own");
}

static void add_pass(struct build_record *r, const char *target, const char *pass, double seconds)
{
	r->passes = grow_array(r->passes, r->npasses, sizeof(*r->passes));
	r->passes[r->npasses++] = (struct record_pass){ xstrdup(target), xstrdup(pass), seconds };
}

static bool is_time(double s)
{
	return s >= 0 && s < RECORD_MAX_SECONDS;
}

/* An advise document's baseline: the median wall of the recorded builds it
 * started from, each TU's isolated seconds, lines and pass seconds. */
static char *from_advise_document(json_t *doc, const char *module, struct build_record *r)
{
	*r = (struct build_record){ .source = "advise document", .recorded_at = time(NULL), .critical = NAN,
				    .complete = true };
	r->wall = number(json_object_get(doc, "baseline"), "recorded_wall_s");
	if (!(r->wall > 0 && r->wall < RECORD_MAX_SECONDS))
		return xstrdup("an advise document without the recorded wall it started from (baseline.recorded_wall_s)");
	double jobs = number(doc, "jobs");
	r->jobs = jobs >= 1 && jobs <= 1e6 ? (long)jobs : 0;
	json_t *tus = json_object_get(doc, "tus");
	if (!json_array_size(tus))
		return xstrdup("an advise document without tus[]");
	struct identity_hash h;
	identity_init(&h);
	identity_add(&h, module, strlen(module));
	identity_add(&h, "advise", 6);
	identity_add_number(&h, r->wall);
	size_t i, k, g;
	json_t *tu, *pl, *grp, *ps;
	json_array_foreach(tus, i, tu) {
		const char *target = json_string_value(json_object_get(tu, "target"));
		const char *kind = json_string_value(json_object_get(tu, "kind"));
		double seconds = number(tu, "baseline_s");
		if (!target || !is_time(seconds))
			return xasprintf("tus[%zu]: needs a target and its baseline_s", i);
		struct identity_hash part;
		identity_init(&part);
		identity_add(&part, target, strlen(target));
		identity_add_number(&part, seconds);
		identity_merge(&h, &part);
		add_step(r, target, kind && !strcmp(kind, "kernel TU") ? step_kind_names[KIND_KERNEL_TU]
								       : step_kind_names[KIND_HOST_TU], seconds);
		json_array_foreach(json_object_get(tu, "lines"), k, pl) {
			const char *pass = json_string_value(json_object_get(pl, "pass"));
			json_array_foreach(json_object_get(pl, "groups"), g, grp) {
				const char *group = json_string_value(json_object_get(grp, "group"));
				double lines = number(grp, "lines");
				if (pass && group && lines >= 0 && lines < 1e12)
					build_record_add_lines(r, target, pass, group, (size_t)lines);
			}
		}
		json_array_foreach(json_object_get(tu, "passes"), k, ps) {
			const char *pass = json_string_value(json_object_get(ps, "pass"));
			const char *arch = json_string_value(json_object_get(ps, "arch"));
			double s = number(ps, "seconds");
			if (!pass || !is_time(s))
				continue;
			char *name = arch ? xasprintf("%s %s", pass, arch) : xstrdup(pass);
			add_pass(r, target, name, s);
			free(name);
		}
	}
	r->identity = identity_hex(&h);
	return NULL;
}

bool build_records_from_document(json_t *doc, const char *module, struct build_record **out, size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	const char *command = json_string_value(json_object_get(doc, "command"));
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema || strcmp(schema, "buildwall/1"))
		return fail_with(err, xstrdup("not a buildwall/1 document"));
	if (command && (!strcmp(command, "log") || !strcmp(command, "advise"))) {
		*out = xcalloc(1, sizeof(**out));
		char *why = !strcmp(command, "log") ? from_log_document(doc, module, *out)
						    : from_advise_document(doc, module, *out);
		if (why) {
			build_record_free(*out);
			free(*out);
			*out = NULL;
			return ok_unless(err, why);
		}
		*n = 1;
		return true;
	}
	if (command && !strcmp(command, "wall")) {
		/* Each trial is a clean build with its wall and nothing else. */
		json_t *trials = json_object_get(doc, "trials");
		const char *line = json_string_value(json_object_get(doc, "build_command"));
		size_t count = json_array_size(trials);
		if (!count)
			return fail_with(err, xstrdup("a wall document without trials[]"));
		*out = xcalloc(count, sizeof(**out));
		for (size_t i = 0; i < count; i++) {
			json_t *t = json_array_get(trials, i);
			struct build_record *r = &(*out)[(*n)++];
			*r = (struct build_record){ .source = "wall document", .recorded_at = time(NULL), .critical = NAN,
						    .wall = number(t, "wall_s"), .complete = true };
			json_t *jobs = json_object_get(doc, "jobs");
			json_int_t j = json_is_integer(jobs) ? json_integer_value(jobs) : 0;
			r->jobs = j > 0 && j <= 1000000 ? (long)j : 0;
			double control = number(t, "control_s"), copies = number(json_object_get(doc, "control"), "copies");
			const char *by = json_string_value(json_object_get(json_object_get(doc, "control"), "compiler"));
			if (control > 0 && control < RECORD_MAX_SECONDS && by) {	/* named as control_name names it */
				r->control = control;
				r->control_by = copies >= 1 && copies <= 1e6 ? xasprintf("%s, %.0f at once", by, copies)
									     : xstrdup(by);
			}
			if (!(r->wall > 0 && r->wall < RECORD_MAX_SECONDS)) {
				char *why = xasprintf("trials[%zu]: no wall_s of a build", i);
				for (size_t k = 0; k < *n; k++)
					build_record_free(&(*out)[k]);
				free(*out);
				*out = NULL;
				*n = 0;
				return ok_unless(err, why);
			}
			struct identity_hash h;
			identity_init(&h);
			identity_add(&h, module, strlen(module));
			identity_add(&h, line ? line : "", line ? strlen(line) : 0);
			identity_add_number(&h, number(t, "trial"));
			identity_add_number(&h, r->wall);
			identity_add_number(&h, number(t, "cpu_s"));
			r->identity = identity_hex(&h);
		}
		return true;
	}
	return fail_with(err, xasprintf("a '%s' document: record takes log, wall and advise documents", command ? command : "?"));
}

bool build_records_from_file(const char *path, const char *module, struct build_record **out, size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	if (!doc)
		return fail_with(err, jerr.line > 0 ? xasprintf("%s:%d: %s", path, jerr.line, jerr.text)
						    : xasprintf("%s: %s", path, jerr.text));
	char *why = NULL;
	build_records_from_document(doc, module, out, n, &why);
	json_decref(doc);
	if (!why)
		return true;
	char *located = xasprintf("%s:1: %s", path, why);
	free(why);
	return fail_with(err, located);
}

void build_record_add_lines(struct build_record *r, const char *target, const char *pass, const char *group,
			    size_t lines)
{
	r->lines = grow_array(r->lines, r->nlines, sizeof(*r->lines));
	r->lines[r->nlines++] = (struct record_lines){ xstrdup(target), xstrdup(pass), xstrdup(group), lines };
}

void build_record_free(struct build_record *r)
{
	for (size_t i = 0; i < r->nsteps; i++)
		free(r->steps[i].target);
	for (size_t i = 0; i < r->nlines; i++) {
		free(r->lines[i].target);
		free(r->lines[i].pass);
		free(r->lines[i].group);
	}
	for (size_t i = 0; i < r->npasses; i++) {
		free(r->passes[i].target);
		free(r->passes[i].pass);
	}
	free(r->steps);
	free(r->lines);
	free(r->passes);
	free(r->identity);
	free(r->critical_path);
	free(r->control_by);
	*r = (struct build_record){ 0 };
}
