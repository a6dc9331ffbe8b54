#include "steps.h"

#include "cmdline.h"
#include "target.h"
#include "tmpdir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct slow {
	double seconds;
	size_t edge;
};

static int slower_first(const void *a, const void *b)
{
	const struct slow *x = a, *y = b;
	if (x->seconds != y->seconds)
		return x->seconds < y->seconds ? 1 : -1;
	return (x->edge > y->edge) - (x->edge < y->edge);
}

size_t steps_keep_slowest(const struct ninja_build *b, const double *seconds, size_t k, bool *selected, size_t *order)
{
	size_t n = 0, missing = 0;
	struct slow *v = xcalloc(b->n + 1, sizeof(*v));
	for (size_t i = 0; i < b->n; i++)
		if (selected[i]) {
			missing += isnan(seconds[i]);
			v[n++] = (struct slow){ isnan(seconds[i]) ? -1 : seconds[i], i };
		}
	qsort(v, n, sizeof(*v), slower_first);
	memset(selected, 0, b->n * sizeof(bool));
	for (size_t i = 0; i < n && i < k; i++) {
		selected[v[i].edge] = true;
		if (order)
			order[i] = v[i].edge;
	}
	free(v);
	return missing;
}

void steps_select(const char *cmd, const struct ninja_build *b, char **patterns, size_t npatterns, bool *selected)
{
	char **names = xcalloc(b->n, sizeof(char *));
	for (size_t i = 0; i < b->n; i++)
		names[i] = b->edges[i].outputs.v[0];
	if (npatterns) {
		target_select(patterns, npatterns, names, b->n, selected);
		for (size_t i = 0; i < b->n; i++)
			if (selected[i] && !ninja_edge_is_compile(&b->edges[i]))
				die(EXIT_BAD_INPUT, "%s is not a compile step (rule %s): %s re-runs object files",
				    names[i], b->edges[i].rule, cmd);
	} else {
		for (size_t i = 0; i < b->n; i++)
			selected[i] = ninja_edge_is_compile(&b->edges[i]);
	}
	free(names);
	for (size_t i = 0; i < b->n; i++)
		if (selected[i])
			return;
	die(EXIT_BAD_INPUT, "%s: no compile steps (object files) in this build", b->dir);
}

void steps_check_built(const char *dir, const struct ninja_edge *e)
{
	for (size_t i = 0; i < e->inputs.n; i++) {
		const char *in = e->inputs.v[i];
		char *path = path_in(dir, in);
		bool ok = file_exists(path);
		free(path);
		if (!ok)
			die(EXIT_BAD_INPUT, "%s: the tree is not built: %s (input of %s) is missing; run 'ninja -C %s' first",
			    dir, in, e->outputs.v[0], dir);
	}
}

void steps_prepare(const char *dir, const struct ninja_edge *e, const char *subdir, struct compile_command *cmd,
		   struct strvec *stripped)
{
	char *err = NULL;
	driver_parse(e->command, dir, cmd, &err);
	if (!err) {
		char *out = tmpdir_subdir(subdir);
		err = NULL;
		driver_redirect_outputs(cmd, out, &err);
		free(out);
	}
	if (err)
		die(EXIT_BAD_INPUT, "%s: cannot re-run this step safely: %s", e->outputs.v[0], err);
	for (size_t i = 0; i < cmd->launchers.n; i++)
		if (!strvec_contains(stripped, base_name(cmd->launchers.v[i])))
			strvec_push(stripped, base_name(cmd->launchers.v[i]));
}

bool steps_replace_source(const struct ninja_edge *e, struct compile_command *cmd, const char *source)
{
	const char *own = e->inputs.n ? e->inputs.v[0] : NULL;
	bool found = false;
	for (size_t i = 0; own && i < cmd->argv.n; i++)
		found |= !strcmp(cmd->argv.v[i], own);
	if (!found)
		return false;
	struct strvec from = { 0 }, to = { 0 };
	strvec_push(&from, own);
	strvec_push(&to, source);
	driver_substitute(cmd, &from, &to);
	strvec_clear(&from);
	strvec_clear(&to);
	return true;
}

void steps_note_stripped(const struct strvec *stripped)
{
	/* Once a launcher a run: advise strips it for pp and for its probes. */
	static struct strvec noted;
	struct strvec fresh = { 0 };
	for (size_t i = 0; i < stripped->n; i++)
		if (!strvec_contains(&noted, stripped->v[i])) {
			strvec_push(&noted, stripped->v[i]);
			strvec_push(&fresh, stripped->v[i]);
		}
	if (!fresh.n)
		return;
	char *names = cmdline_join(fresh.v, fresh.n);
	note("stripped %s from the commands: re-timing measures the compiler, not the launcher", names);
	free(names);
	strvec_clear(&fresh);
}
