#include "growth.h"
#include "headers.h"
#include "stats.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* A TU's growth in one pass: the heavy framework groups (torch, pybind11,
 * Python: what a fix removes; they drag in the standard library, which
 * grows more lines) that grew, in the groups' order, with their lines
 * summed; else the one group that grew most. */
struct pass_growth {
	struct strvec groups;
	size_t before, after;
	bool heavy;
};

static size_t lines_of(const struct record_lines *v, size_t n, const char *target, const char *pass, const char *group)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].target, target) && !strcmp(v[i].pass, pass) && !strcmp(v[i].group, group))
			return v[i].lines;
	return 0;
}

static void pass_growth(const char *target, const char *pass, const struct header_groups *groups,
			const struct record_lines *ref, size_t nref, const struct record_lines *cand, size_t ncand,
			struct pass_growth *out)
{
	*out = (struct pass_growth){ 0 };
	size_t best = 0;
	const char *best_group = NULL;
	for (size_t g = 0; g < groups->n; g++) {
		const char *title = groups->v[g].title;
		size_t before = lines_of(ref, nref, target, pass, title), after = lines_of(cand, ncand, target, pass, title);
		if (after <= before)
			continue;
		if (groups->v[g].heavy) {
			strvec_push(&out->groups, title);
			out->before += before;
			out->after += after;
			out->heavy = true;
		} else if (!out->heavy && after - before > best) {
			best = after - before;
			best_group = title;
		}
	}
	if (!out->heavy && best_group) {
		strvec_push(&out->groups, best_group);
		out->before = lines_of(ref, nref, target, pass, best_group);
		out->after = lines_of(cand, ncand, target, pass, best_group);
	}
}

void growth_lines(struct grown *g, const struct record_lines *ref, size_t nref, const struct record_lines *cand,
			size_t ncand)
{
	struct header_groups groups;
	header_groups_init(&groups);
	struct pass_growth best = { 0 };
	for (size_t i = 0; i < ncand; i++) {
		if (strcmp(cand[i].target, g->target) || (g->pass && !strcmp(g->pass, cand[i].pass)))
			continue;
		bool seen = false;	/* each pass once */
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(cand[j].target, g->target) && !strcmp(cand[j].pass, cand[i].pass);
		if (seen)
			continue;
		struct pass_growth pg;
		pass_growth(g->target, cand[i].pass, &groups, ref, nref, cand, ncand, &pg);
		/* The host pass wins within 5 %: a device pass that parses the
		 * framework again parses a few lines more of it (its arch macros). */
		double delta = (double)(pg.after - pg.before), best_delta = (double)(best.after - best.before);
		bool host = !strcmp(cand[i].pass, "host"), best_host = g->pass && !strcmp(g->pass, "host");
		bool larger = host ? delta >= 0.95 * best_delta : best_host ? delta > best_delta / 0.95 : delta > best_delta;
		if (pg.groups.n && (pg.heavy > best.heavy || (pg.heavy == best.heavy && larger))) {
			strvec_clear(&best.groups);
			best = pg;
			free(g->pass);
			g->pass = xstrdup(cand[i].pass);
		} else {
			strvec_clear(&pg.groups);
		}
	}
	if (best.groups.n) {
		g->group = strvec_join(&best.groups, ", ");
		g->ref_lines = best.before;
		g->cand_lines = best.after;
	} else {
		free(g->pass);
		g->pass = NULL;
	}
	strvec_clear(&best.groups);
	header_groups_free(&groups);
}

static int by_growth(const void *a, const void *b)
{
	const struct grown *x = a, *y = b;
	double dx = x->cand_s - x->ref_s, dy = y->cand_s - y->ref_s;
	return (dx < dy) - (dx > dy);
}

static int by_target(const void *a, const void *b)
{
	return strcmp(((const struct record_step *)a)->target, ((const struct record_step *)b)->target);
}

static int by_step_target(const void *a, const void *b)
{
	return strcmp(((const struct history_step *)a)->target, ((const struct history_step *)b)->target);
}

size_t growth_steps(struct history_step *ref, size_t nref, struct build_record *cand, size_t ncand, struct grown *out)
{
	if (!ncand)
		return 0;
	/* A build recorded from a wall document has no steps (NULL): qsort and
	 * bsearch are never handed one. */
	if (nref)
		qsort(ref, nref, sizeof(*ref), by_step_target);
	for (size_t b = 0; b < ncand; b++)
		if (cand[b].nsteps)
			qsort(cand[b].steps, cand[b].nsteps, sizeof(struct record_step), by_target);
	const struct build_record *newest = &cand[0];
	struct grown all[GROWTH_STEPS + 1] = { 0 };
	size_t nall = 0;
	double *values = xcalloc(ncand, sizeof(double));
	for (size_t s = 0; s < newest->nsteps; s++) {
		const struct record_step *step = &newest->steps[s];
		size_t nv = 0;
		for (size_t b = 0; b < ncand; b++) {
			const struct record_step *found = cand[b].nsteps ? bsearch(step, cand[b].steps, cand[b].nsteps,
										   sizeof(struct record_step), by_target)
									 : NULL;
			if (found)
				values[nv++] = found->seconds;
		}
		struct grown g = { .target = step->target, .cand_s = median_of(values, nv) };
		struct history_step key = { .target = step->target };
		const struct history_step *r = nref ? bsearch(&key, ref, nref, sizeof(*ref), by_step_target) : NULL;
		if (r)
			g.ref_s = r->seconds;
		if (!(g.cand_s - g.ref_s > 0))
			continue;
		/* The largest, largest first: g goes in after them, all
		 * sorted, the one past the end dropped. */
		all[nall] = g;
		qsort(all, nall + 1, sizeof(all[0]), by_growth);
		if (nall < GROWTH_STEPS)
			nall++;
	}
	free(values);
	for (size_t i = 0; i < nall; i++) {
		out[i] = all[i];
		out[i].target = xstrdup(all[i].target);
	}
	return nall;
}

void grown_clear(struct grown *g)
{
	free(g->target);
	free(g->pass);
	free(g->group);
	*g = (struct grown){ 0 };
}
