#define _GNU_SOURCE
#include "headers.h"
#include "match.h"

#include <stdlib.h>
#include <string.h>

/* The default groups. Matched on path components, against the path below
 * the project root for the project's files (so a checkout under ~/torch/
 * is not torch) and the absolute path otherwise. The heavy groups come
 * before the project (a vendored pybind11 is still pybind11); the
 * runtimes after it (a project's own cuda/ directory is the project's). */
static const struct {
	const char *name, *title, *regex;
	bool heavy, before_project;
} defaults[] = {
	{ "torch", "torch/ATen/c10", "(^|/)(torch|ATen|c10)/", true, true },
	{ "pybind11", "pybind11", "(^|/)pybind11/", true, true },
	{ "python", "Python", "(^|/)Python\\.h$|(^|/)include/python[0-9][^/]*/", true, true },
	{ "stdlib", "C++ standard library", "(^|/)c\\+\\+/([0-9][^/]*|v1)/", false, false },
	{ "gpu", "HIP/CUDA runtime",
	  "(^|/)(hip|hipcub|rocprim|rocrand|rocm[^/]*|cuda[^/]*|cub|thrust|cccl|crt|cuda_wrappers)/|"
	  "(^|/)(__clang_(cuda|hip)_[^/]*|cuda_[^/]*\\.h|cuda\\.h|hip_runtime[^/]*\\.h|sm_[0-9]+_[^/]*)$", false, false },
	{ "compiler", "compiler builtins", "(^|/)lib/(gcc|clang)/.*/include/|(^|/)lib/llvm-[^/]*/lib/clang/[^/]*/include/",
	  false, false },
};

static void add_group(struct header_groups *g, size_t at, const char *name, const char *title, const char *regex,
		      bool heavy)
{
	g->v = xrealloc(g->v, (g->n + 1) * sizeof(*g->v));
	memmove(&g->v[at + 1], &g->v[at], (g->n - at) * sizeof(*g->v));
	g->v[at] = (struct header_group){ .name = xstrdup(name), .title = xstrdup(title),
					  .regex = regex ? xstrdup(regex) : NULL, .heavy = heavy };
	g->n++;
	char *bad = NULL;
	if (regex && !regex_compile(&g->v[at].re, regex, REG_NOSUB, &bad))
		die(EXIT_BAD_INPUT, "internal: bad default regex %s: %s", regex, bad);
}

void header_groups_init(struct header_groups *g)
{
	*g = (struct header_groups){ 0 };
	size_t n = sizeof(defaults) / sizeof(defaults[0]);
	for (size_t i = 0; i < n; i++) {
		if (!defaults[i].before_project && (i == 0 || defaults[i - 1].before_project))
			add_group(g, g->n, "project", "project", NULL, false);
		add_group(g, g->n, defaults[i].name, defaults[i].title, defaults[i].regex, defaults[i].heavy);
	}
	add_group(g, g->n, "other", "other", NULL, false);
}

size_t header_group_project(const struct header_groups *g)
{
	for (size_t i = 0; i < g->n; i++)
		if (!g->v[i].regex && !strcmp(g->v[i].name, "project"))
			return i;
	return 0;	/* not reached: init adds it */
}

size_t header_group_other(const struct header_groups *g)
{
	return g->n - 1;
}

bool header_groups_add(struct header_groups *g, const char *spec, char **err)
{
	const char *eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1])
		return fail_with(err, xasprintf("--group wants NAME=REGEX: '%s'", spec));
	char *name = xstrndup(spec, (size_t)(eq - spec));
	regex_t re;
	char *bad = NULL;
	if (!regex_compile(&re, eq + 1, REG_NOSUB, &bad)) {
		char *why = xasprintf("--group %s: bad regex '%s': %s", name, eq + 1, bad);
		free(bad);
		free(name);
		return ok_unless(err, why);
	}
	for (size_t i = 0; i < g->n; i++) {
		if (strcmp(g->v[i].name, name))
			continue;
		if (!g->v[i].regex) {
			regfree(&re);
			char *why = xasprintf("--group %s: the %s group is not a pattern (see --project)", name, name);
			free(name);
			return ok_unless(err, why);
		}
		regfree(&g->v[i].re);
		free(g->v[i].regex);
		g->v[i].regex = xstrdup(eq + 1);
		g->v[i].re = re;
		free(name);
		return true;
	}
	regfree(&re);
	size_t at = 0;	/* after earlier additions, before the defaults */
	while (at < g->n && g->v[at].regex && strcmp(g->v[at].name, defaults[0].name))
		at++;
	add_group(g, at, name, name, eq + 1, false);
	free(name);
	return true;
}

void header_groups_free(struct header_groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		if (g->v[i].regex)
			regfree(&g->v[i].re);
		free(g->v[i].name);
		free(g->v[i].title);
		free(g->v[i].regex);
	}
	free(g->v);
	*g = (struct header_groups){ 0 };
}

char *header_git_work_tree(const char *dir)
{
	char *d = xstrdup(dir);
	for (;;) {
		char *git = xasprintf("%s/.git", d);
		bool found = file_exists(git);
		free(git);
		if (found)
			return d;
		char *slash = strrchr(d, '/');
		if (!slash || slash == d) {
			free(d);
			return NULL;
		}
		*slash = '\0';
	}
}

static bool is_pseudo(const char *name)
{
	return name[0] == '<' || name[0] == '(';	/* <built-in>, <command-line>, (no line marker) */
}

void header_context_init(struct header_context *ctx, const char *cwd, const char *tu, const char *project_dir,
			 const struct strvec *user_dirs, const struct strvec *system_dirs)
{
	*ctx = (struct header_context){ .cwd = xstrdup(cwd) };
	if (project_dir) {
		strvec_push_nodup(&ctx->project, path_normalize(cwd, project_dir));
	} else if (tu && !is_pseudo(tu)) {
		char *path = path_normalize(cwd, tu);
		*strrchr(path, '/') = '\0';
		char *top = header_git_work_tree(path[0] ? path : "/");
		if (top) {
			strvec_push_nodup(&ctx->project, top);
		} else {
			strvec_push(&ctx->project, path[0] ? path : "/");
			for (size_t i = 0; user_dirs && i < user_dirs->n; i++)
				if (!path_below(user_dirs->v[i], "/usr") && !strvec_contains(&ctx->project, user_dirs->v[i]))
					strvec_push(&ctx->project, user_dirs->v[i]);
		}
		free(path);
	}
	const struct strvec *lists[] = { user_dirs, system_dirs };
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; lists[l] && i < lists[l]->n; i++)
			strvec_push(&ctx->include_dirs, lists[l]->v[i]);
}

void header_context_free(struct header_context *ctx)
{
	free(ctx->cwd);
	strvec_clear(&ctx->project);
	strvec_clear(&ctx->include_dirs);
}

/* The path below the project root that holds it, or NULL. */
static const char *in_project(const struct header_context *ctx, const char *path)
{
	for (size_t i = 0; i < ctx->project.n; i++) {
		const char *rel = path_below(path, ctx->project.v[i]);
		if (rel)
			return rel;
	}
	return NULL;
}

bool header_in_project(const struct header_context *ctx, const char *name, bool system)
{
	if (system || is_pseudo(name))
		return false;
	char *path = path_normalize(ctx->cwd, name);
	bool in = in_project(ctx, path) != NULL;
	free(path);
	return in;
}

static bool matches(const struct header_group *grp, const char *path)
{
	return grp->regex && !regexec(&grp->re, path, 0, NULL, 0);
}

size_t header_classify(const struct header_groups *g, const struct header_context *ctx, const char *name, bool system)
{
	if (is_pseudo(name))
		return header_group_other(g);
	char *path = path_normalize(ctx->cwd, name);
	const char *rel = system ? NULL : in_project(ctx, path);
	const char *subject = rel ? rel : path;
	size_t project = header_group_project(g), found = header_group_other(g);
	for (size_t i = 0; i < g->n; i++) {
		if (i == project && rel) {
			found = i;
			break;
		}
		if (matches(&g->v[i], subject)) {
			found = i;
			break;
		}
	}
	free(path);
	return found;
}

char *header_display(const struct header_context *ctx, const char *name, bool system, bool is_tu)
{
	if (is_pseudo(name))
		return xstrdup(name);
	char *path = path_normalize(ctx->cwd, name), *shown = NULL;
	const char *rel = in_project(ctx, path);
	if (is_tu) {
		shown = xstrdup(rel ? rel : name);
		free(path);
		return shown;
	}
	const char *best = NULL;
	for (size_t i = 0; i < ctx->include_dirs.n; i++) {
		const char *below = path_below(path, ctx->include_dirs.v[i]);
		if (below && (!best || strlen(below) < strlen(best)))
			best = below;
	}
	if (!best && system) {
		/* Not from the command's dirs: a compiler's own. Spell it from
		 * the last include/, past a multiarch dir (x86_64-linux-gnu/)
		 * and libstdc++'s c++/12/. */
		const char *inc = NULL;
		for (const char *p = path; (p = strstr(p, "/include/")); p++)
			inc = p + strlen("/include/");
		const char *slash = inc ? strchr(inc, '/') : NULL;
		if (slash && memmem(inc, (size_t)(slash - inc), "-linux-", 7))
			inc = slash + 1;
		if (inc && has_prefix(inc, "c++/") && strchr(inc + 4, '/'))
			inc = strchr(inc + 4, '/') + 1;
		best = inc;
	}
	if (best)
		shown = system ? xasprintf("<%s>", best) : xstrdup(best);
	else
		shown = xstrdup(rel && !system ? rel : path);
	free(path);
	return shown;
}

static const struct pp_section *sort_section;	/* for qsort's comparison */

static int most_lines_first(const void *a, const void *b)
{
	const struct pp_file *x = &sort_section->files[*(const size_t *)a], *y = &sort_section->files[*(const size_t *)b];
	if (x->lines != y->lines)
		return x->lines < y->lines ? 1 : -1;
	return strcmp(x->name, y->name);
}

void header_summarize(const struct pp_section *sec, const struct header_groups *g, const struct header_context *ctx,
		      struct header_summary *s)
{
	*s = (struct header_summary){ .group_of = xcalloc(sec->nfiles, sizeof(size_t)),
				      .groups = xcalloc(g->n, sizeof(struct group_total)),
				      .by_lines = xcalloc(sec->nfiles, sizeof(size_t)) };
	for (size_t i = 0; i < sec->nfiles; i++) {
		const struct pp_file *f = &sec->files[i];
		size_t grp = header_classify(g, ctx, f->name, f->system);
		s->group_of[i] = grp;
		s->groups[grp].lines += f->lines;
		s->groups[grp].files++;
		s->by_lines[i] = i;
	}
	sort_section = sec;
	qsort(s->by_lines, sec->nfiles, sizeof(size_t), most_lines_first);
}

void header_summary_free(struct header_summary *s)
{
	free(s->group_of);
	free(s->groups);
	free(s->by_lines);
	*s = (struct header_summary){ 0 };
}

enum weight weigh(size_t lines, const struct weight_limits *w)
{
	return lines < w->lean ? WEIGHT_LEAN : lines > w->heavy ? WEIGHT_HEAVY : WEIGHT_MIDDLE;
}

const char *weight_name(enum weight w)
{
	return w == WEIGHT_LEAN ? "lean" : w == WEIGHT_HEAVY ? "heavy" : "middle";
}
