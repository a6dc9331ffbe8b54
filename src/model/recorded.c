#include "recorded.h"
#include "util.h"
#include "whatif.h"

#include <math.h>
#include <stdlib.h>

/* The steps of the build that produce each edge's first output. */
static long *steps_of_edges(const struct ninja_build *b, const struct timeline *tl)
{
	long *step_of = xcalloc(b->n, sizeof(long));
	for (size_t i = 0; i < b->n; i++)
		step_of[i] = -1;
	for (size_t s = 0; s < tl->n; s++)
		for (size_t o = 0; o < tl->steps[s].noutputs; o++) {
			long e = ninja_edge_of(b, step_line(tl, &tl->steps[s], o).output);
			if (e >= 0)
				step_of[e] = (long)s;
		}
	return step_of;
}

/* The rebuilt dependency (looking through phony edges) that finished last
 * before `edge` started, or -1. */
static long last_dep(const struct ninja_build *b, const long *step_of, const struct timeline *tl, size_t edge,
		     double start, size_t *seen, size_t visit)
{
	long best = -1;
	const struct ninja_edge *e = &b->edges[edge];
	for (size_t k = 0; k < e->ndeps; k++) {
		size_t d = e->deps[k];
		if (seen[d] == visit)
			continue;
		seen[d] = visit;	/* stamps, so no clearing between visits */
		long cand = step_of[d];
		if (cand < 0 && ninja_edge_is_phony(&b->edges[d]))
			cand = last_dep(b, step_of, tl, d, start, seen, visit);
		if (cand >= 0 && step_end(tl, &tl->steps[cand]) <= start + 1e-9 &&
		    (best < 0 || step_end(tl, &tl->steps[cand]) > step_end(tl, &tl->steps[best])))
			best = cand;
	}
	return best;
}

/* The step whose end freed a slot at `start`: ninja starts the next ready
 * step the moment one finishes (same ms, or the next). Steps are in end
 * order. */
static long slot_freed_by(const struct timeline *tl, double start, size_t self)
{
	size_t lo = 0, hi = tl->n;	/* first step ending after start */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (step_end(tl, &tl->steps[mid]) <= start + 1e-9)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && lo - 1 == self)
		lo--;
	return lo > 0 && step_end(tl, &tl->steps[lo - 1]) >= start - 0.01 && lo - 1 != self ? (long)(lo - 1) : -1;
}

void recorded_analyze(const struct ninja_build *b, struct ninja_log *log, struct timeline *tl, struct recorded *r)
{
	*r = (struct recorded){ 0 };
	long *step_of = steps_of_edges(b, tl);
	/* With the graph, a step's kind comes from what it compiles. */
	for (size_t i = 0; i < b->n; i++)
		if (step_of[i] >= 0)
			tl->steps[step_of[i]].kind = step_kind_of_edge(&b->edges[i]);
	timeline_count_kinds(tl);

	/* The longest chain through the graph, with this build's durations
	 * (steps not rebuilt take none). */
	double *seconds = xcalloc(b->n, sizeof(double));
	durations_from_log(b, log, seconds);
	struct graph_node *nodes = xcalloc(b->n, sizeof(*nodes));
	for (size_t i = 0; i < b->n; i++)
		nodes[i] = (struct graph_node){ step_of[i] >= 0 && !isnan(seconds[i]) ? seconds[i] : 0,
						ninja_edge_is_phony(&b->edges[i]), b->edges[i].deps, b->edges[i].ndeps, 0, 0, NULL, 0 };
	free(seconds);
	size_t *path = xcalloc(b->n, sizeof(size_t));
	size_t len = graph_longest_chain(nodes, b->n, path);
	r->critical = xcalloc(len, sizeof(size_t));
	for (size_t i = 0; i < len; i++)
		if (step_of[path[i]] >= 0) {
			r->critical[r->ncritical++] = (size_t)step_of[path[i]];
			r->critical_s += nodes[path[i]].duration;
		}
	free(path);
	free(nodes);

	/* The recorded chain: a dependency that ended as the step started, else
	 * the step whose end freed the slot. */
	size_t *seen = xcalloc(b->n, sizeof(size_t));
	r->chain = xcalloc(tl->n, sizeof(size_t));
	r->waited = xcalloc(tl->n, sizeof(char *));
	long cur = tl->n ? (long)tl->n - 1 : -1;	/* the last line ends last */
	while (cur >= 0 && r->nchain < tl->n) {
		size_t k = r->nchain++;
		r->chain[k] = (size_t)cur;
		double start = step_start(tl, &tl->steps[cur]);
		long edge = ninja_edge_of(b, step_line(tl, &tl->steps[cur], 0).output), dep = -1;
		if (edge >= 0)
			dep = last_dep(b, step_of, tl, (size_t)edge, start, seen, k + 1);
		long slot = slot_freed_by(tl, start, (size_t)cur);
		/* A slot wait only when every slot was busy until then. */
		if (slot >= 0 && tl->steps[slot].running_at_end < (uint32_t)tl->slots)
			slot = -1;
		if (dep >= 0 && step_end(tl, &tl->steps[dep]) >= start - 0.01) {
			r->waited[k] = "dependency";
			cur = dep;
		} else if (slot >= 0) {
			r->waited[k] = "slot";
			cur = slot;
		} else {
			cur = -1;	/* it started with the build */
		}
	}
	free(seen);
	free(step_of);
}

void recorded_free(struct recorded *r)
{
	free(r->critical);
	free(r->chain);
	free(r->waited);
	*r = (struct recorded){ 0 };
}

