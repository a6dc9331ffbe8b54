#include "graph.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* A binary min-heap of node indices: the lowest (earliest in the
 * manifest) ready node starts first. */
struct heap {
	size_t *v, n;
};

static void heap_push(struct heap *h, size_t x)
{
	size_t i = h->n++;
	while (i && h->v[(i - 1) / 2] > x) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static size_t heap_pop(struct heap *h)
{
	size_t top = h->v[0], x = h->v[--h->n], i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1] < h->v[c])
			c++;
		if (h->v[c] >= x)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
	return top;
}

struct sim {
	const struct graph_node *nodes;
	size_t n;
	size_t *pending;	/* unfinished deps per node */
	size_t **users;		/* reverse edges */
	size_t *nusers;
	struct heap ready;
	struct schedule *s;
	size_t done;
};

static void finish(struct sim *m, size_t node, double t)
{
	m->s->end[node] = t;
	m->done++;
	for (size_t k = 0; k < m->nusers[node]; k++) {
		size_t u = m->users[node][k];
		if (--m->pending[u] == 0)
			heap_push(&m->ready, u);
	}
}

/* The dependency of `node` that finished last, or GRAPH_NONE. */
static size_t latest_dep(const struct sim *m, size_t node, double *when)
{
	size_t best = GRAPH_NONE;
	*when = 0;
	for (size_t k = 0; k < m->nodes[node].ndeps; k++) {
		size_t d = m->nodes[node].deps[k];
		if (best == GRAPH_NONE || m->s->end[d] > *when) {
			best = d;
			*when = m->s->end[d];
		}
	}
	return best;
}

bool graph_schedule(const struct graph_node *nodes, size_t n, int jobs, struct schedule *s)
{
	struct sim m = { .nodes = nodes, .n = n, .s = s };
	if (jobs < 1)
		jobs = 1;
	s->start = xcalloc(n, sizeof(double));
	s->end = xcalloc(n, sizeof(double));
	s->via = xcalloc(n, sizeof(size_t));
	s->makespan = 0;
	s->last = GRAPH_NONE;
	m.pending = xcalloc(n, sizeof(size_t));
	m.users = xcalloc(n, sizeof(size_t *));
	m.nusers = xcalloc(n, sizeof(size_t));
	m.ready.v = xcalloc(n, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		m.pending[i] = nodes[i].ndeps;
		for (size_t k = 0; k < nodes[i].ndeps; k++) {
			size_t d = nodes[i].deps[k];
			m.users[d] = xrealloc(m.users[d], (m.nusers[d] + 1) * sizeof(size_t));
			m.users[d][m.nusers[d]++] = i;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!m.pending[i])
			heap_push(&m.ready, i);

	size_t *running = xcalloc((size_t)jobs, sizeof(size_t));
	size_t nrunning = 0;
	double t = 0;
	size_t freed_by = GRAPH_NONE;	/* the node whose end opened a slot at t */
	bool acyclic = true;
	while (m.done < n && acyclic) {
		/* Start everything ready that fits, in manifest order. */
		while (m.ready.n) {
			size_t node = m.ready.v[0];
			if (!nodes[node].free && nrunning == (size_t)jobs)
				break;
			heap_pop(&m.ready);
			double ready_at;
			size_t dep = latest_dep(&m, node, &ready_at);
			s->start[node] = t;
			s->via[node] = (dep != GRAPH_NONE && ready_at >= t) ? dep : freed_by;
			if (dep == GRAPH_NONE && t == 0)
				s->via[node] = GRAPH_NONE;
			if (nodes[node].free)
				finish(&m, node, t);
			else
				running[nrunning++] = node;
		}
		if (!nrunning) {
			acyclic = m.done == n;	/* nothing runs, nothing is ready */
			continue;
		}
		/* Advance to the next completion; finish every node ending then. */
		size_t first = 0;
		for (size_t k = 1; k < nrunning; k++)
			if (s->start[running[k]] + nodes[running[k]].duration <
			    s->start[running[first]] + nodes[running[first]].duration)
				first = k;
		t = s->start[running[first]] + nodes[running[first]].duration;
		for (size_t k = 0; k < nrunning;) {
			size_t node = running[k];
			if (s->start[node] + nodes[node].duration <= t) {
				running[k] = running[--nrunning];
				freed_by = node;
				finish(&m, node, t);
			} else {
				k++;
			}
		}
	}
	free(running);
	for (size_t i = 0; i < n; i++) {
		if (s->last == GRAPH_NONE || s->end[i] > s->makespan ||
		    (s->end[i] == s->makespan && !nodes[i].free && nodes[s->last].free)) {
			s->makespan = s->end[i];
			s->last = i;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(m.users[i]);
	free(m.users);
	free(m.nusers);
	free(m.pending);
	free(m.ready.v);
	return acyclic;
}

size_t graph_critical_chain(const struct schedule *s, size_t n, size_t *chain)
{
	size_t len = 0;
	for (size_t node = s->last; node != GRAPH_NONE && len < n; node = s->via[node])
		chain[len++] = node;
	for (size_t i = 0; i < len / 2; i++) {
		size_t tmp = chain[i];
		chain[i] = chain[len - 1 - i];
		chain[len - 1 - i] = tmp;
	}
	return len;
}

void schedule_free(struct schedule *s)
{
	free(s->start);
	free(s->end);
	free(s->via);
	memset(s, 0, sizeof(*s));
}
