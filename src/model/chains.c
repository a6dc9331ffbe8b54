#include "chains.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static bool file_matches(struct chain_finder *f, const struct markers *m, size_t file)
{
	if (f->cached_for != m->cur) {	/* a new section: new file indexes */
		f->cached_for = m->cur;
		f->nverdicts = 0;
	}
	if (file >= f->nverdicts) {
		size_t n = m->cur->nfiles > file ? m->cur->nfiles : file + 1;
		f->verdicts = xrealloc(f->verdicts, n);
		memset(f->verdicts + f->nverdicts, -1, n - f->nverdicts);
		f->nverdicts = n;
	}
	if (f->verdicts[file] < 0)
		f->verdicts[file] = f->matches(f->ctx, m, file);
	return f->verdicts[file];
}

static size_t find_or_add(struct chain_finder *f, const struct markers *m)
{
	size_t section = (size_t)(m->cur - m->sections);
	for (size_t c = 0; c < f->n; c++) {
		const struct chain *ch = &f->chains[c];
		if (ch->section != section || ch->n != m->depth)
			continue;
		size_t i = 0;
		while (i < ch->n && ch->files[i] == m->stack[i].file)
			i++;
		if (i == ch->n)
			return c;
	}
	f->chains = xrealloc(f->chains, (f->n + 1) * sizeof(*f->chains));
	struct chain *ch = &f->chains[f->n];
	*ch = (struct chain){ .section = section, .n = m->depth, .files = xcalloc(m->depth, sizeof(size_t)),
			      .include_lines = xcalloc(m->depth, sizeof(unsigned long)) };
	for (size_t i = 0; i < m->depth; i++) {
		ch->files[i] = m->stack[i].file;
		ch->include_lines[i] = m->stack[i].include_line;
	}
	return f->n++;
}

static void on_enter(void *ctx, const struct markers *m)
{
	struct chain_finder *f = ctx;
	if (f->open_depth || !file_matches(f, m, m->stack[m->depth - 1].file))
		return;
	f->open_depth = m->depth;
	f->open_chain = find_or_add(f, m);
	f->chains[f->open_chain].entries++;
}

static void on_leave(void *ctx, const struct markers *m)
{
	struct chain_finder *f = ctx;
	if (f->open_depth != m->depth)
		return;
	f->chains[f->open_chain].lines += m->cur->code_lines - m->stack[m->depth - 1].code_at_enter;
	f->open_depth = 0;
}

struct pp_hooks chain_hooks(struct chain_finder *f)
{
	return (struct pp_hooks){ on_enter, on_leave, f };
}

void chain_finder_free(struct chain_finder *f)
{
	for (size_t c = 0; c < f->n; c++) {
		free(f->chains[c].files);
		free(f->chains[c].include_lines);
	}
	free(f->chains);
	free(f->verdicts);
	f->chains = NULL;
	f->verdicts = NULL;
	f->n = f->nverdicts = 0;
}
