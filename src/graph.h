/* The build as a DAG of steps with durations, and ninja's way of running
 * it: list scheduling on a fixed number of job slots. */
#ifndef BUILDWALL_GRAPH_H
#define BUILDWALL_GRAPH_H

#include <stdbool.h>
#include <stddef.h>

#define GRAPH_NONE ((size_t)-1)

struct graph_node {
	double duration;	/* seconds */
	bool free;		/* phony: done the moment it is ready, no slot */
	const size_t *deps;	/* nodes that must finish first */
	size_t ndeps;
};

struct schedule {
	double *start, *end;
	/* What a node waited for last: the dependency that finished at its
	 * start, or the node whose slot it took; GRAPH_NONE at time 0. */
	size_t *via;
	double makespan;
	size_t last;		/* the node that finishes last */
};

/* Simulate `jobs` slots; ready nodes start in index (manifest) order, as
 * ninja up to 1.11 does. Returns false when the graph has a cycle. */
bool graph_schedule(const struct graph_node *nodes, size_t n, int jobs, struct schedule *s);
/* The chain of nodes that set the makespan, first to last; returns its
 * length (chain must hold n entries). */
size_t graph_critical_chain(const struct schedule *s, size_t n, size_t *chain);
void schedule_free(struct schedule *s);

#endif
