#define _GNU_SOURCE
#include "survey.h"
#include "build_record.h"
#include "headers.h"
#include "identity.h"
#include "log_view.h"
#include "ninja.h"
#include "out_json.h"
#include "source_facts.h"
#include "strmap.h"
#include "arena.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- where the modules are ---- */

void survey_default_roots(struct strvec *roots)
{
	const char *aiter = getenv("AITER_JIT_DIR");
	char *candidates[3] = { 0 };
	candidates[0] = aiter && *aiter ? xasprintf("%s/build", aiter) : xstrdup("aiter/jit/build");
	const char *torch = getenv("TORCH_EXTENSIONS_DIR"), *home = getenv("HOME");
	if (torch && *torch)
		candidates[1] = xstrdup(torch);
	else if (home && *home)
		candidates[1] = xasprintf("%s/.cache/torch_extensions", home);
	for (size_t i = 0; i < 2; i++) {
		if (candidates[i] && is_directory(candidates[i]))
			strvec_push(roots, candidates[i]);
		free(candidates[i]);
	}
}

static void add_place(struct survey_places *p, const char *dir, char *skipped)
{
	p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
	p->v[p->n++] = (struct survey_place){ xstrdup(dir), skipped };
}

/* Is dir a build dir (found), one half of one (found, with the reason in
 * *skipped), or neither? */
static bool build_dir_at(const char *dir, char **skipped)
{
	char *manifest = path_in(dir, "build.ninja"), *log = path_in(dir, ".ninja_log");
	struct stat ms, ls;
	bool has_manifest = !lstat(manifest, &ms), has_log = !lstat(log, &ls);
	*skipped = NULL;
	if (has_manifest && !has_log)
		*skipped = xstrdup("never built: a build.ninja and no .ninja_log");
	else if (has_log && !has_manifest)
		*skipped = xstrdup("a .ninja_log and no build.ninja: not a build dir any more");
	free(manifest);
	free(log);
	return has_manifest || has_log;
}

/* The build dirs at or below dir (depth levels left); how many found. */
static size_t walk(const char *dir, int depth, struct survey_places *p)
{
	char *skipped;
	if (build_dir_at(dir, &skipped)) {
		add_place(p, dir, skipped);
		return 1;
	}
	DIR *d = depth > 0 ? opendir(dir) : NULL;
	if (!d)
		return 0;
	struct strvec subdirs = { 0 };
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "CMakeFiles") || !strcmp(de->d_name, ".git"))
			continue;
		strvec_pushf(&subdirs, "%s%s%s", dir, has_suffix(dir, "/") ? "" : "/", de->d_name);
	}
	closedir(d);
	strvec_sort(&subdirs);	/* the same order on every file system */
	size_t found = 0;
	for (size_t i = 0; i < subdirs.n; i++)
		found += walk(subdirs.v[i], depth - 1, p);
	strvec_clear(&subdirs);
	return found;
}

static void find_under(const char *root, struct survey_places *p)
{
	if (!is_directory(root)) {
		add_place(p, root, xasprintf("%s", errno == ENOENT || !file_exists(root) ? "no such directory" :
						   "not a directory"));
		return;
	}
	DIR *d = opendir(root);
	if (!d) {
		add_place(p, root, xasprintf("cannot read it: %s", strerror(errno)));
		return;
	}
	closedir(d);
	if (!walk(root, SURVEY_DEPTH, p))
		add_place(p, root, xasprintf("not a build dir: no build.ninja or .ninja_log in it or up to %d levels below",
					     SURVEY_DEPTH));
}

/* The dirs a ninja is running in now (ninja -C changes into it): real
 * paths, from /proc. */
static void running_ninjas(struct strvec *dirs, struct strvec *pids)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		char *comm_path = xasprintf("/proc/%s/comm", de->d_name);
		char *comm = read_text_file(comm_path);
		free(comm_path);
		if (comm && (!strcmp(comm, "ninja\n") || !strcmp(comm, "samu\n"))) {
			char *cwd_link = xasprintf("/proc/%s/cwd", de->d_name);
			char cwd[PATH_MAX];
			ssize_t n = readlink(cwd_link, cwd, sizeof(cwd) - 1);
			if (n > 0) {
				cwd[n] = '\0';
				strvec_push(dirs, cwd);
				strvec_push(pids, de->d_name);
			}
			free(cwd_link);
		}
		free(comm);
	}
	if (d)
		closedir(d);
}

static void mark_mid_build(struct survey_places *p)
{
	struct strvec dirs = { 0 }, pids = { 0 };
	running_ninjas(&dirs, &pids);
	for (size_t i = 0; i < p->n && dirs.n; i++) {
		char real[PATH_MAX];
		if (p->v[i].skipped || !realpath(p->v[i].dir, real))
			continue;
		for (size_t k = 0; k < dirs.n; k++)
			if (!strcmp(dirs.v[k], real)) {
				p->v[i].skipped = xasprintf("mid-build: ninja (pid %s) is building it now", pids.v[k]);
				break;
			}
	}
	strvec_clear(&dirs);
	strvec_clear(&pids);
}

static bool is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

void survey_find(const struct strvec *roots, struct survey_places *places)
{
	*places = (struct survey_places){ 0 };
	for (size_t i = 0; i < roots->n; i++) {
		const char *root = roots->v[i];
		glob_t g;
		if (!is_pattern(root)) {
			find_under(root, places);
		} else if (glob(root, GLOB_ONLYDIR, NULL, &g) == 0) {
			for (size_t k = 0; k < g.gl_pathc; k++)
				if (is_directory(g.gl_pathv[k]))
					find_under(g.gl_pathv[k], places);
			globfree(&g);
		} else {
			add_place(places, root, xstrdup("the pattern matches nothing"));
		}
	}
	/* A dir named twice (two roots, or a root and its glob) is read once. */
	for (size_t i = 0; i < places->n; i++)
		for (size_t k = i + 1; k < places->n; k++)
			if (!strcmp(places->v[i].dir, places->v[k].dir)) {
				free(places->v[k].dir);
				free(places->v[k].skipped);
				places->v[k--] = places->v[--places->n];
			}
	mark_mid_build(places);
}

void survey_places_free(struct survey_places *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].dir);
		free(p->v[i].skipped);
	}
	free(p->v);
	*p = (struct survey_places){ 0 };
}

/* ---- one module ---- */

/* Which build of a log to read: the latest that ran every compile (a
 * clean build), else the latest. Told from the names alone as the log is
 * scanned once, the chosen build kept (at most it and the one being
 * scanned in memory), so only that build is read against the graph (a
 * log of many rebuilds costs a scan, not an analysis per build). */
struct choice {
	const struct build_outputs *outputs;
	long n, chosen;		/* counted from the oldest */
	bool chosen_clean;
	struct ninja_log kept;	/* the chosen build, its names held */
};

static void weigh_build(struct ninja_log *build, bool rewritten, void *ctx)
{
	struct choice *c = ctx;
	if (rewritten)
		return;
	size_t seen = 0;
	for (size_t i = 0; i < build->n; i++)	/* an edge's first output, as its step is named */
		seen += !build->entries[i].joins && build_outputs_compiles(c->outputs, build->names[i].output);
	bool clean = build_outputs_all_seen(c->outputs, seen);
	if (clean || !c->chosen_clean) {
		c->chosen = c->n;
		c->chosen_clean = clean;
		ninja_log_free(&c->kept);
		ninja_log_take(&c->kept, build);
	}
	c->n++;
}

/* That build as a record, with its critical path. */
struct latest {
	struct build_record rec;
	json_t *critical;	/* [{target, seconds}], first to last */
	size_t setter;		/* index into critical */
};

static void read_latest(struct latest *l, const struct log_view *v, const struct build_outputs *outputs)
{
	build_record_from_view(&l->rec, v, outputs, outputs->module);
	l->critical = json_array();
	l->setter = 0;
	double most = -1;
	for (size_t i = 0; i < v->rec.ncritical; i++) {
		const struct record_step *s = &l->rec.steps[v->rec.critical[i]];
		json_array_append_new(l->critical, json_build("{s:o, s:o}", "target", json_name(s->target), "seconds",
							      json_seconds(s->seconds)));
		if (s->seconds > most) {
			most = s->seconds;
			l->setter = i;
		}
	}
}

static const char *const role_names[] = { "kernel", "dispatcher", "binding", "link", "other" };
enum role { ROLE_KERNEL, ROLE_DISPATCHER, ROLE_BINDING, ROLE_LINK, ROLE_OTHER, NROLES };

/* A compile's role from its source's text; from its extension when the
 * source cannot be read (*from says which). hash: of the text (owned), or
 * NULL. */
static enum role source_role(const char *path, const struct ninja_edge *e, char **hash, const char **from)
{
	char *text = read_text_file(path);
	*hash = NULL;
	*from = "extension";
	if (!text)
		return step_kind_of_edge(e) == KIND_KERNEL_TU ? ROLE_KERNEL : ROLE_DISPATCHER;
	size_t len = strlen(text);
	struct identity_hash h;
	identity_init(&h);
	identity_add(&h, text, len);
	*hash = identity_hex(&h);
	struct source_facts f = { 0 };
	source_facts_scan(text, len, &f);
	free(text);
	*from = "source";
	if (f.binds_module)
		return ROLE_BINDING;
	return f.defines_kernel || f.launches_kernel ? ROLE_KERNEL : ROLE_DISPATCHER;
}

static double step_seconds(const struct strmap *at, const struct build_record *r, const char *target)
{
	size_t k = strmap_get(at, target, strlen(target));
	return k == STRMAP_NONE ? NAN : r->steps[k].seconds;
}

/* A name on a source line: tab, newline and backslash escaped. */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\t')
			fputs("\\t", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '\\')
			fputs("\\\\", out);
		else
			putc(*s, out);
	}
}

/* Each compile's source line to out; the seconds and steps per role into
 * roles. Returns how many compiles. */
static size_t read_sources(const struct ninja_build *b, const struct build_record *r, json_t *roles, FILE *out)
{
	struct strmap at = { 0 };
	for (size_t i = 0; i < r->nsteps; i++)
		strmap_put(&at, r->steps[i].target, strlen(r->steps[i].target), i);
	double seconds[NROLES] = { 0 };
	size_t steps[NROLES] = { 0 }, from_extension = 0, compiles = 0;
	bool *is_compile_step = xcalloc(r->nsteps + 1, sizeof(bool));
	for (size_t i = 0; i < b->n; i++) {
		const struct ninja_edge *e = &b->edges[i];
		if (!ninja_edge_is_compile(e) || !e->inputs.n)
			continue;
		compiles++;
		char *path = path_normalize(b->dir, e->inputs.v[0]), *hash;
		const char *from;
		enum role role = source_role(path, e, &hash, &from);
		from_extension += !strcmp(from, "extension");
		double sec = step_seconds(&at, r, e->outputs.v[0]);
		size_t k = strmap_get(&at, e->outputs.v[0], strlen(e->outputs.v[0]));
		if (k != STRMAP_NONE) {
			is_compile_step[k] = true;
			seconds[role] += sec;
			steps[role]++;
		}
		fprintf(out, "%s\t%.3f\t", hash ? hash : "-", isnan(sec) ? 0.0 : sec);
		put_escaped(out, path);
		putc('\n', out);
		free(hash);
		free(path);
	}
	for (size_t i = 0; i < r->nsteps; i++) {
		if (is_compile_step[i])
			continue;
		enum role role = !strcmp(r->steps[i].kind, step_kind_names[KIND_LINK]) ? ROLE_LINK : ROLE_OTHER;
		seconds[role] += r->steps[i].seconds;
		steps[role]++;
	}
	for (int k = 0; k < NROLES; k++)
		json_object_set_new(roles, role_names[k], json_build("{s:I, s:o}", "steps", (json_int_t)steps[k], "seconds",
								     json_seconds(seconds[k])));
	json_object_set_new(roles, "from_extension", json_integer((json_int_t)from_extension));
	free(is_compile_step);
	strmap_free(&at);
	return compiles;
}

/* The lines of the heavy groups (torch, pybind11, Python) its TUs parse,
 * host and device passes apart. */
static json_t *framework_lines(const char *dir, const struct ninja_build *b, struct build_record *r,
			       record_lines_fn *pp_lines)
{
	pp_lines("survey", dir, b, r);
	struct header_groups g;
	header_groups_init(&g);
	size_t host = 0, device = 0;
	struct strvec passes = { 0 };
	for (size_t i = 0; i < r->nlines; i++) {
		const struct record_lines *l = &r->lines[i];
		bool heavy = false;
		for (size_t k = 0; k < g.n && !heavy; k++)
			heavy = g.v[k].heavy && !strcmp(g.v[k].title, l->group);
		if (!heavy)
			continue;
		*(has_prefix(l->pass, "device") ? &device : &host) += l->lines;
		char *pass = xasprintf("%s\n%s", l->target, l->pass);
		if (!strvec_contains(&passes, pass))
			strvec_push(&passes, pass);
		free(pass);
	}
	header_groups_free(&g);
	json_t *o = json_build("{s:I, s:I, s:I}", "host", (json_int_t)host, "device", (json_int_t)device, "passes",
			       (json_int_t)passes.n);
	strvec_clear(&passes);
	return o;
}

void survey_read_module(const char *dir, bool cache, record_lines_fn *pp_lines, FILE *out)
{
	ninja_check_dir(dir);
	char *log = path_in(dir, ".ninja_log");
	struct ninja_build b;
	if (pp_lines)
		ninja_load(dir, &b);	/* the commands, to preprocess with */
	else
		ninja_load_graph(dir, cache, &b);
	struct build_outputs outputs;
	build_outputs_of(&outputs, &b);
	struct choice c = { .outputs = &outputs };
	char *err = NULL;
	if (!ninja_log_each(log, true, weigh_build, &c, &err) && !err)
		err = xasprintf("%s: no such file (has the tree been built with ninja?)", log);
	if (!err && !c.n)
		err = xasprintf("%s: no build in it", log);
	if (err) {
		ninja_log_free(&c.kept);
		die(EXIT_BAD_INPUT, "%s", err);
	}
	struct log_view v;
	log_view_take(&v, &b, log, &c.kept, c.n - 1 - c.chosen);
	long builds = c.n;
	struct latest l;
	read_latest(&l, &v, &outputs);
	log_view_free(&v);
	ninja_log_free(&c.kept);
	/* The sources go to a temp file first: the document comes first. */
	FILE *lines = tmpfile();
	if (!lines)
		die(EXIT_INTERNAL, "survey: cannot make a temporary file: %s", strerror(errno));
	json_t *roles = json_object();
	size_t compiles = read_sources(&b, &l.rec, roles, lines);
	json_t *setter = json_array_size(l.critical) ? json_incref(json_array_get(l.critical, l.setter)) : json_null();
	json_t *doc = json_build("{s:o, s:o, s:o, s:I, s:b, s:o, s:o, s:o, s:o, s:I, s:I, s:o}", "dir", json_name(dir),
		"module", json_name(outputs.module), "skipped", json_null(), "builds", (json_int_t)builds, "clean",
		l.rec.complete, "wall_s", json_seconds(l.rec.wall), "critical_path_s", json_seconds(l.rec.critical),
		"critical_path", l.critical, "setter", setter, "steps", (json_int_t)l.rec.nsteps, "compiles",
		(json_int_t)compiles, "roles", roles);
	json_object_set_new(doc, "framework_lines", pp_lines ? framework_lines(dir, &b, &l.rec, pp_lines) : json_null());
	if (json_dumpf(doc, out, JSON_COMPACT) || putc('\n', out) == EOF)
		die(EXIT_INTERNAL, "survey: cannot write the module's document: %s", strerror(errno));
	rewind(lines);
	char buf[1 << 16];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), lines)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			die(EXIT_INTERNAL, "survey: cannot write the module's sources: %s", strerror(errno));
	fclose(lines);
	json_decref(doc);
	build_record_free(&l.rec);
	build_outputs_free(&outputs);
	ninja_build_free(&b);
	free(log);
}

/* ---- across modules ---- */

/* A source as the modules compile it: in which, and for how long. */
struct survey_source {
	const char *path;
	json_t **modules;
	double *seconds;
	size_t n;
};

static void add_source(struct survey *s, json_t *module, const char *key, size_t key_len, const char *path,
		       double seconds)
{
	size_t k = strmap_get(s->source_at, key, key_len);
	if (k == STRMAP_NONE) {
		k = s->nsources;
		s->sources = xrealloc(s->sources, (k + 1) * sizeof(*s->sources));
		s->sources[s->nsources++] = (struct survey_source){ .path = arena_copy(s->names, path, strlen(path)) };
		strmap_put(s->source_at, arena_copy(s->names, key, key_len), key_len, k);
	}
	struct survey_source *src = &s->sources[k];
	if (src->n && src->modules[src->n - 1] == module) {
		src->seconds[src->n - 1] += seconds;	/* compiled twice in one module */
		return;
	}
	src->modules = xrealloc(src->modules, (src->n + 1) * sizeof(*src->modules));
	src->seconds = xrealloc(src->seconds, (src->n + 1) * sizeof(double));
	src->modules[src->n] = module;
	src->seconds[src->n++] = seconds;
}

/* "path" back from its escaped spelling, in place. */
static void unescape(char *s)
{
	char *w = s;
	for (; *s; s++) {
		if (*s == '\\' && s[1]) {
			s++;
			*w++ = *s == 't' ? '\t' : *s == 'n' ? '\n' : *s;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

void survey_add_doc(struct survey *s, json_t *doc)
{
	s->modules = xrealloc(s->modules, (s->n + 1) * sizeof(*s->modules));
	s->modules[s->n++] = doc;
}

bool survey_add(struct survey *s, const char *path, const char *dir, char **err)
{
	if (!s->source_at) {
		s->source_at = xcalloc(1, sizeof(*s->source_at));
		s->names = xcalloc(1, sizeof(*s->names));
	}
	FILE *f = fopen(path, "r");
	if (!f)
		return fail_with(err, xasprintf("%s: %s", path, strerror(errno)));
	char *line = NULL, *why = NULL;
	size_t cap = 0;
	ssize_t len = getline(&line, &cap, f);
	json_t *doc = len > 0 ? json_loadb(line, (size_t)len, 0, NULL) : NULL;
	if (!json_is_object(doc) || !json_is_object(json_object_get(doc, "roles"))) {
		json_decref(doc);
		free(line);
		fclose(f);
		return fail_with(err, xasprintf("%s:1: not a module's document", path));
	}
	json_object_set_new(doc, "dir", json_name(dir));
	/* Every line read before any is added: a file wrong at its last line
	 * adds nothing. */
	struct strvec keys = { 0 }, names = { 0 };
	double *seconds = NULL;
	for (long n = 2; !why && (len = getline(&line, &cap, f)) > 0; n++) {
		line[len - 1] = line[len - 1] == '\n' ? '\0' : line[len - 1];
		char *tab1 = strchr(line, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
		double sec;
		if (!tab2) {
			why = xasprintf("%s:%ld: not a source line (HASH, SECONDS, PATH)", path, n);
			break;
		}
		*tab1 = *tab2 = '\0';
		if (!parse_double(tab1 + 1, &sec) || sec < 0) {
			why = xasprintf("%s:%ld: '%s' is not a number of seconds", path, n, tab1 + 1);
			break;
		}
		char *name = tab2 + 1;
		unescape(name);
		/* By content; a source that could not be read, by its path. */
		if (strcmp(line, "-"))
			strvec_push(&keys, line);
		else
			strvec_pushf(&keys, "/%s", name);
		strvec_push(&names, name);
		seconds = xrealloc(seconds, names.n * sizeof(double));
		seconds[names.n - 1] = sec;
	}
	free(line);
	fclose(f);
	for (size_t i = 0; !why && i < keys.n; i++)
		add_source(s, doc, keys.v[i], strlen(keys.v[i]), names.v[i], seconds[i]);
	strvec_clear(&keys);
	strvec_clear(&names);
	free(seconds);
	if (why) {
		json_decref(doc);
		return ok_unless(err, why);
	}
	survey_add_doc(s, doc);
	return true;
}

static double wall_of(json_t *m)
{
	json_t *w = json_object_get(m, "wall_s");
	return json_is_number(w) ? json_number_value(w) : -1;
}

static int by_wall(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	bool xs = !json_is_null(json_object_get(x, "skipped")), ys = !json_is_null(json_object_get(y, "skipped"));
	if (xs != ys)
		return xs - ys;
	double wx = wall_of(x), wy = wall_of(y);
	if (wx != wy)
		return wx < wy ? 1 : -1;
	return strcmp(json_string_value(json_object_get(x, "dir")), json_string_value(json_object_get(y, "dir")));
}

static int by_repeated(const void *a, const void *b)
{
	const struct survey_shared *x = a, *y = b;
	double rx = x->total_s - x->once_s, ry = y->total_s - y->once_s;
	if (rx != ry)
		return rx < ry ? 1 : -1;
	return strcmp(x->path, y->path);
}

/* A module's place in the survey's order, found by its document. */
struct place {
	const json_t *doc;
	size_t at;
};

static int by_doc(const void *a, const void *b)
{
	const json_t *x = ((const struct place *)a)->doc, *y = ((const struct place *)b)->doc;
	return x < y ? -1 : x > y;
}

/* A shared source's modules in the survey's order (heaviest first), as
 * they were read in whatever order the children ended. */
static void order_modules(struct survey_shared *sh, const struct place *places, size_t n)
{
	struct place *at = xcalloc(sh->nmodules, sizeof(*at));
	for (size_t i = 0; i < sh->nmodules; i++) {
		struct place key = { .doc = sh->modules[i] };
		at[i] = (struct place){ .doc = sh->modules[i], .at = ((struct place *)bsearch(&key, places, n, sizeof(*places),
											     by_doc))->at * sh->nmodules + i };
	}
	for (size_t i = 1; i < sh->nmodules; i++)	/* a few modules each: insertion */
		for (size_t k = i; k > 0 && at[k - 1].at > at[k].at; k--) {
			struct place t = at[k];
			at[k] = at[k - 1];
			at[k - 1] = t;
		}
	json_t **modules = xcalloc(sh->nmodules, sizeof(*modules));
	double *seconds = xcalloc(sh->nmodules, sizeof(*seconds));
	for (size_t i = 0; i < sh->nmodules; i++) {
		size_t from = at[i].at % sh->nmodules;
		modules[i] = sh->modules[from];
		seconds[i] = sh->seconds[from];
	}
	free(sh->modules);
	free(sh->seconds);
	sh->modules = modules;
	sh->seconds = seconds;
	free(at);
}

/* The sources in more than one module become the shared ones. */
static void find_shared(struct survey *s)
{
	struct place *places = xcalloc(s->n + 1, sizeof(*places));
	for (size_t i = 0; i < s->n; i++)
		places[i] = (struct place){ s->modules[i], i };
	qsort(places, s->n, sizeof(*places), by_doc);
	for (size_t k = 0; k < s->nsources; k++) {
		struct survey_source *src = &s->sources[k];
		if (src->n < 2) {
			free(src->modules);
			free(src->seconds);
			continue;
		}
		s->shared = xrealloc(s->shared, (s->nshared + 1) * sizeof(*s->shared));
		struct survey_shared *sh = &s->shared[s->nshared++];
		*sh = (struct survey_shared){ .path = src->path, .nmodules = src->n, .modules = src->modules,
					      .seconds = src->seconds };
		for (size_t i = 0; i < src->n; i++) {
			sh->total_s += src->seconds[i];
			if (src->seconds[i] > sh->once_s)
				sh->once_s = src->seconds[i];
		}
		order_modules(sh, places, s->n);
	}
	free(places);
	free(s->sources);
	s->sources = NULL;
	s->nsources = 0;
	if (s->source_at)
		strmap_free(s->source_at);
	if (s->nshared)
		qsort(s->shared, s->nshared, sizeof(*s->shared), by_repeated);
}

void survey_finish(struct survey *s)
{
	if (s->n)
		qsort(s->modules, s->n, sizeof(*s->modules), by_wall);
	while (s->nread < s->n && json_is_null(json_object_get(s->modules[s->nread], "skipped")))
		s->nread++;
	for (size_t m = 0; m < s->nread; m++) {
		json_t *fw = json_object_get(s->modules[m], "framework_lines");
		if (!json_is_object(fw))
			continue;
		s->have_lines = true;
		size_t host = (size_t)json_integer_value(json_object_get(fw, "host"));
		size_t device = (size_t)json_integer_value(json_object_get(fw, "device"));
		s->framework_host += host;
		s->framework_device += device;
		s->framework_passes += (size_t)json_integer_value(json_object_get(fw, "passes"));
		s->framework_modules += host + device > 0;
	}
	find_shared(s);
}

void survey_document(const struct survey *s, json_t *doc)
{
	json_t *modules = json_array(), *shared = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append(modules, s->modules[i]);
	double repeated = 0;
	for (size_t k = 0; k < s->nshared; k++) {
		const struct survey_shared *sh = &s->shared[k];
		json_t *in = json_array();
		for (size_t i = 0; i < sh->nmodules; i++) {
			json_t *m = sh->modules[i];
			json_array_append_new(in, json_build("{s:O, s:O, s:o}", "module", json_object_get(m, "module"), "dir",
							     json_object_get(m, "dir"), "seconds", json_seconds(sh->seconds[i])));
		}
		json_array_append_new(shared, json_build("{s:o, s:I, s:o, s:o, s:o, s:o}", "path", json_name(sh->path),
			"modules", (json_int_t)sh->nmodules, "total_s", json_seconds(sh->total_s), "once_s",
			json_seconds(sh->once_s), "repeated_s", json_seconds(sh->total_s - sh->once_s), "in", in));
		repeated += sh->total_s - sh->once_s;
	}
	json_object_set_new(doc, "modules_found", json_integer((json_int_t)s->n));
	json_object_set_new(doc, "modules_read", json_integer((json_int_t)s->nread));
	json_object_set_new(doc, "modules", modules);
	json_object_set_new(doc, "shared_sources", shared);
	json_object_set_new(doc, "shared_repeated_s", json_seconds(repeated));
	json_object_set_new(doc, "framework_lines", s->have_lines ? json_build("{s:I, s:I, s:I, s:I}", "host",
		(json_int_t)s->framework_host, "device", (json_int_t)s->framework_device, "passes",
		(json_int_t)s->framework_passes, "modules", (json_int_t)s->framework_modules) : json_null());
}

void survey_free(struct survey *s)
{
	for (size_t i = 0; i < s->n; i++)
		json_decref(s->modules[i]);
	free(s->modules);
	for (size_t k = 0; k < s->nshared; k++) {
		free(s->shared[k].modules);
		free(s->shared[k].seconds);
	}
	free(s->shared);
	for (size_t k = 0; k < s->nsources; k++) {
		free(s->sources[k].modules);
		free(s->sources[k].seconds);
	}
	free(s->sources);
	if (s->source_at)
		strmap_free(s->source_at);
	free(s->source_at);
	if (s->names)
		arena_free(s->names);
	free(s->names);
	*s = (struct survey){ 0 };
}
