#include "graph.h"
#include "heap.h"
#include "proc.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct sim {
	const struct graph_node *nodes;
	size_t n;
	size_t *pending;	/* unfinished deps per node */
	size_t **users;		/* reverse edges */
	size_t *nusers;
	struct heap ready;	/* by policy key, then manifest order */
	const double *key;
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
			heap_push(&m->ready, m->key[u], u);
	}
}

static void build_users(struct sim *m)
{
	m->users = xcalloc(m->n, sizeof(size_t *));
	m->nusers = xcalloc(m->n, sizeof(size_t));
	for (size_t i = 0; i < m->n; i++)
		for (size_t k = 0; k < m->nodes[i].ndeps; k++) {
			size_t d = m->nodes[i].deps[k];
			m->users[d] = grow_array(m->users[d], m->nusers[d], sizeof(size_t));
			m->users[d][m->nusers[d]++] = i;
		}
}

static void free_users(struct sim *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->users[i]);
	free(m->users);
	free(m->nusers);
}

double graph_longest_path(const struct graph_node *nodes, size_t n, double *tail)
{
	/* Kahn's order on the reverse graph: a node's tail is known once
	 * every node that needs it is. */
	struct sim m = { .nodes = nodes, .n = n };
	build_users(&m);
	double *t = tail ? tail : xcalloc(n, sizeof(double));
	size_t *left = xcalloc(n, sizeof(size_t)), *queue = xcalloc(n, sizeof(size_t)), head = 0, len = 0;
	for (size_t i = 0; i < n; i++) {
		t[i] = 0;
		left[i] = m.nusers[i];
		if (!left[i])
			queue[len++] = i;
	}
	double longest = 0;
	while (head < len) {
		size_t v = queue[head++];
		double after = 0;
		for (size_t k = 0; k < m.nusers[v]; k++)
			if (t[m.users[v][k]] > after)
				after = t[m.users[v][k]];
		t[v] = (nodes[v].free ? 0 : nodes[v].duration + nodes[v].remote) + after;
		if (t[v] > longest)
			longest = t[v];
		for (size_t k = 0; k < nodes[v].ndeps; k++)
			if (--left[nodes[v].deps[k]] == 0)
				queue[len++] = nodes[v].deps[k];
	}
	bool acyclic = len == n;
	free(left);
	free(queue);
	if (!tail)
		free(t);
	free_users(&m);
	return acyclic ? longest : -1;
}

size_t graph_longest_chain(const struct graph_node *nodes, size_t n, size_t *chain)
{
	double *tail = xcalloc(n, sizeof(double));
	if (graph_longest_path(nodes, n, tail) < 0) {
		free(tail);
		return 0;
	}
	struct sim m = { .nodes = nodes, .n = n };
	build_users(&m);
	/* Start where the most remains, then follow the user that carries
	 * the rest of it. */
	size_t len = 0, cur = GRAPH_NONE;
	for (size_t i = 0; i < n; i++)
		if (cur == GRAPH_NONE || tail[i] > tail[cur])
			cur = i;
	while (cur != GRAPH_NONE && len < n) {
		chain[len++] = cur;
		size_t next = GRAPH_NONE;
		for (size_t k = 0; k < m.nusers[cur]; k++) {
			size_t u = m.users[cur][k];
			if (next == GRAPH_NONE || tail[u] > tail[next])
				next = u;
		}
		cur = next;
	}
	free_users(&m);
	free(tail);
	return len;
}

bool graph_schedule(const struct graph_node *nodes, size_t n, const struct sched_options *o, struct schedule *s)
{
	struct sim m = { .nodes = nodes, .n = n, .s = s };
	int jobs = o->jobs < 1 ? 1 : o->jobs;
	struct load_curve linear;
	load_curve_linear(&linear, o->contention, o->cores);
	const struct load_curve *curve = o->curve ? o->curve : &linear;
	s->start = xcalloc(n, sizeof(double));
	s->end = xcalloc(n, sizeof(double));
	s->makespan = 0;
	s->last = GRAPH_NONE;
	double *key = xcalloc(n, sizeof(double));
	if (o->policy == POLICY_CRITICAL && graph_longest_path(nodes, n, key) >= 0)
		for (size_t i = 0; i < n; i++)
			key[i] = -key[i];	/* longest remaining path first */
	else
		memset(key, 0, n * sizeof(double));	/* index order */
	m.key = key;
	m.pending = xcalloc(n, sizeof(size_t));
	build_users(&m);
	for (size_t i = 0; i < n; i++) {
		m.pending[i] = nodes[i].ndeps;
		if (!m.pending[i])
			heap_push(&m.ready, key[i], i);
	}

	size_t *running = xcalloc((size_t)jobs, sizeof(size_t));
	double *left = xcalloc(n, sizeof(double));	/* work still to do, at full speed */
	/* A node with a remote part: here first, then waiting for a remote
	 * slot (queued in arrival order), then there. */
	enum phase { HERE, QUEUED, THERE } *phase = xcalloc(n, sizeof(enum phase));
	size_t *queue = xcalloc(n, sizeof(size_t)), qhead = 0, qlen = 0;
	int remote_free = o->remote_slots;
	size_t nrunning = 0;
	double t = 0;
	bool acyclic = true;
	unsigned long rounds = 0;
	while (m.done < n && acyclic) {
		/* A huge graph takes a while: Ctrl-C must not wait for it. */
		if ((++rounds & 1023) == 0 && proc_interrupted())
			break;
		/* Start everything ready that fits, in policy order. */
		while (m.ready.n) {
			size_t node = m.ready.v[0].value;
			if (!nodes[node].free && nrunning == (size_t)jobs)
				break;
			heap_pop(&m.ready);
			s->start[node] = t;
			if (nodes[node].free) {
				finish(&m, node, t);
			} else {
				/* Without a cluster the remote part runs here too. */
				left[node] = (nodes[node].duration > 0 ? nodes[node].duration : 0) +
					     (o->remote_slots > 0 ? 0 : nodes[node].remote);
				phase[node] = HERE;
				running[nrunning++] = node;
			}
		}
		if (!nrunning) {
			acyclic = m.done == n;	/* nothing runs, nothing is ready */
			continue;
		}
		/* Jobs working here advance at the speed their number allows, a
		 * remote part at full speed, a queued one not at all; advance
		 * to the next end of a part. */
		double here = 0;
		for (size_t k = 0; k < nrunning; k++)
			if (phase[running[k]] == HERE)
				here += nodes[running[k]].cores > 1 ? nodes[running[k]].cores : 1;
		double speed = here > 0 ? 1 / load_curve_at(curve, here) : 1;
		double step = -1;
		for (size_t k = 0; k < nrunning; k++) {
			size_t node = running[k];
			double until = phase[node] == QUEUED ? -1 : phase[node] == HERE ? left[node] / speed : left[node];
			if (until >= 0 && (step < 0 || until < step))
				step = until;
		}
		t += step;
		for (size_t k = 0; k < nrunning;) {
			size_t node = running[k];
			if (phase[node] != QUEUED)
				left[node] -= phase[node] == HERE ? step * speed : step;
			bool part_done = phase[node] != QUEUED &&
					 left[node] <= 1e-9 * (1 + nodes[node].duration + nodes[node].remote);
			if (part_done && phase[node] == HERE && nodes[node].remote > 0 && o->remote_slots > 0) {
				left[node] = nodes[node].remote;
				phase[node] = QUEUED;
				queue[qlen++] = node;
				k++;
			} else if (part_done) {
				if (phase[node] == THERE)
					remote_free++;
				running[k] = running[--nrunning];
				finish(&m, node, t);
			} else {
				k++;
			}
		}
		for (; remote_free > 0 && qhead < qlen; remote_free--)
			phase[queue[qhead++]] = THERE;
	}
	free(phase);
	free(queue);
	free(running);
	free(left);
	free(key);
	for (size_t i = 0; i < n; i++) {
		if (s->last == GRAPH_NONE || s->end[i] > s->makespan ||
		    (s->end[i] == s->makespan && !nodes[i].free && nodes[s->last].free)) {
			s->makespan = s->end[i];
			s->last = i;
		}
	}
	free_users(&m);
	free(m.pending);
	heap_free(&m.ready);
	return acyclic;
}

void step_memory_of(struct step_memory *s, double peak_kb, const float *shape)
{
	if (!(peak_kb > s->peak_kb))
		return;
	s->peak_kb = peak_kb;
	s->has_shape = shape != NULL;
	if (shape)
		memcpy(s->shape, shape, sizeof(s->shape));
}

struct memory_event {
	double at, kb;	/* kb < 0: a node ends */
};

static int by_time_ends_first(const void *a, const void *b)
{
	const struct memory_event *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return (x->kb > 0) - (y->kb > 0);
}

void schedule_peak(const struct graph_node *nodes, size_t n, const struct schedule *s, double *peak_kb, size_t *unknown)
{
	struct memory_event *ev = xcalloc((GRAPH_SHAPE_BINS + 1) * n + 1, sizeof(*ev));
	size_t nev = 0;
	*unknown = 0;
	for (size_t i = 0; i < n; i++) {
		if (nodes[i].free || !(s->end[i] > s->start[i]))
			continue;
		double kb = nodes[i].peak_kb, start = s->start[i], d = s->end[i] - s->start[i];
		if (kb <= 0) {
			(*unknown)++;
			continue;
		}
		if (!nodes[i].shape) {
			ev[nev++] = (struct memory_event){ start, kb };
			ev[nev++] = (struct memory_event){ s->end[i], -kb };
			continue;
		}
		/* Each part of its run holds its share: a step up or down at
		 * each boundary (an end, below 0, sorts before a start). */
		double held = 0;
		for (int k = 0; k < GRAPH_SHAPE_BINS; k++) {
			double now = nodes[i].shape[k] * kb;
			if (now != held)
				ev[nev++] = (struct memory_event){ start + d * k / GRAPH_SHAPE_BINS, now - held };
			held = now;
		}
		ev[nev++] = (struct memory_event){ s->end[i], -held };
	}
	qsort(ev, nev, sizeof(*ev), by_time_ends_first);
	double held = 0, most = 0;
	for (size_t k = 0; k < nev; k++) {
		held += ev[k].kb;
		if (held > most)
			most = held;
	}
	*peak_kb = most;
	free(ev);
}

void schedule_free(struct schedule *s)
{
	free(s->start);
	free(s->end);
	memset(s, 0, sizeof(*s));
}
