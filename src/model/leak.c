/* The leak finder: see leak.h. */
#include "leak.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* What one source's scan needs to decide matches, and its views after:
 * a header context per section, made when its TU is known. */
struct leak_scan {
	struct chain_finder finder;
	const struct leak_rule *o;
	const struct pp_source *src;
	struct header_context **ctx;	/* per section; NULL until needed */
	size_t nctx;
};

static const struct header_context *leak_section_context(struct leak_scan *ls, size_t section)
{
	if (section >= ls->nctx) {
		ls->ctx = xrealloc(ls->ctx, (section + 1) * sizeof(*ls->ctx));
		memset(ls->ctx + ls->nctx, 0, (section + 1 - ls->nctx) * sizeof(*ls->ctx));
		ls->nctx = section + 1;
	}
	if (!ls->ctx[section]) {
		ls->ctx[section] = xmalloc(sizeof(struct header_context));
		pp_section_context(ls->src, section, ls->o->project, ls->ctx[section]);
	}
	return ls->ctx[section];
}

static bool leak_matches(void *ctx, const struct markers *m, size_t file)
{
	struct leak_scan *ls = ctx;
	const struct pp_file *f = &m->cur->files[file];
	const struct header_context *hc = leak_section_context(ls, (size_t)(m->cur - m->sections));
	if (!ls->o->pattern)
		return ls->o->groups.v[header_classify(&ls->o->groups, hc, f->name, f->system)].heavy;
	char *path = path_normalize(hc->cwd, f->name);
	bool hit = !regexec(&ls->o->re, path, 0, NULL, 0);
	free(path);
	return hit;
}

struct pp_hooks leak_hooks(void *ctx, struct pp_source *src)
{
	struct leak_scan *ls = xcalloc(1, sizeof(*ls));
	ls->o = ctx;
	ls->src = src;
	ls->finder.matches = leak_matches;
	ls->finder.ctx = ls;
	src->data = ls;
	return chain_hooks(&ls->finder);
}

void leak_scan_free(void *scan)
{
	struct leak_scan *ls = scan;
	if (!ls)
		return;
	chain_finder_free(&ls->finder);
	for (size_t i = 0; i < ls->nctx; i++) {
		if (ls->ctx[i])
			header_context_free(ls->ctx[i]);
		free(ls->ctx[i]);
	}
	free(ls->ctx);
	free(ls);
}

const struct pp_section *leak_view_section(const struct leak_view *v)
{
	return &v->src->scan.sections[v->section];
}

char *leak_link_name(const struct leak_view *v, const struct chain *ch, size_t i)
{
	const struct pp_file *f = &leak_view_section(v)->files[ch->files[i]];
	return header_display(v->ctx, f->name, f->system, i == 0);
}

/* "a.cpp -> b.h -> <torch/extension.h>" */
char *leak_chain_text(const struct leak_view *v, const struct chain *ch)
{
	struct strvec names = { 0 };
	for (size_t i = 0; i < ch->n; i++)
		strvec_push_nodup(&names, leak_link_name(v, ch, i));
	char *text = strvec_join(&names, " -> ");
	strvec_clear(&names);
	return text;
}

/* The link nearest above ch's match that is a project file, -1: none. */
static long nearest_project_link(const struct leak_view *v, const struct chain *ch)
{
	for (size_t i = ch->n - 1; i-- > 0;) {
		const struct pp_file *f = &leak_view_section(v)->files[ch->files[i]];
		if (header_in_project(v->ctx, f->name, f->system))
			return (long)i;
	}
	return -1;
}

void leak_view_init(struct leak_view *v, const struct pp_source *src, size_t section)
{
	bool device;
	struct leak_scan *ls = src->data;
	*v = (struct leak_view){ .src = src, .section = section, .name = pp_section_name(src, section, &device),
				 .ctx = leak_section_context(ls, section), .fix = -1 };
	v->chains = xcalloc(ls->finder.n, sizeof(*v->chains));
	for (size_t c = 0; c < ls->finder.n; c++)
		if (ls->finder.chains[c].section == section)
			v->chains[v->nchains++] = &ls->finder.chains[c];
	if (!v->nchains)
		return;
	/* The nearest project file above the match: its #include is the fix;
	 * a project header's before the TU's own. */
	v->fix_chain = v->chains[0];
	v->fix = nearest_project_link(v, v->chains[0]);
	for (size_t c = 0; c < v->nchains && v->fix < 1; c++) {
		long link = nearest_project_link(v, v->chains[c]);
		if (link >= 1 || (link == 0 && v->fix < 0)) {
			v->fix_chain = v->chains[c];
			v->fix = link;
		}
	}
}

void leak_view_free(struct leak_view *v)
{
	free(v->name);
	free(v->chains);
}

char *leak_rule_text(const struct leak_rule *o)
{
	if (o->pattern)
		return xasprintf("--pattern %s", o->pattern);
	struct strvec titles = { 0 };
	for (size_t g = 0; g < o->groups.n; g++)
		if (o->groups.v[g].heavy)
			strvec_push(&titles, o->groups.v[g].title);
	char *list = strvec_join(&titles, ", ");
	char *text = xasprintf("a heavy header (%s)", list);
	free(list);
	strvec_clear(&titles);
	return text;
}

/* "opus/tensor_args.h:13" */
char *leak_fix_text(const struct leak_view *v)
{
	const struct chain *ch = v->fix_chain;
	char *name = leak_link_name(v, ch, (size_t)v->fix);
	char *text = xasprintf("%s:%lu", name, ch->include_lines[v->fix + 1]);
	free(name);
	return text;
}
