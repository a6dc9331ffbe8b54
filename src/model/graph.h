/* The build as a DAG of steps with durations, and ninja's way of running
 * it: list scheduling on a fixed number of job slots. */
#ifndef BUILDWALL_GRAPH_H
#define BUILDWALL_GRAPH_H

#include "load_curve.h"
#include "ninja.h"

#include <stdbool.h>
#include <stddef.h>

#define GRAPH_NONE ((size_t)-1)

struct graph_node {
	double duration;	/* seconds: finite and >= 0, checked where they are read */
	bool free;		/* phony: done the moment it is ready, no slot */
	const size_t *deps;	/* nodes that must finish first */
	size_t ndeps;
	double remote;		/* seconds on a remote slot after `duration` here
				 * (a compile sent to a cluster); 0: all local */
	double peak_kb;		/* the most memory it holds at once (its process
				 * tree's); 0: unknown */
	const float *shape;	/* GRAPH_SHAPE_BINS shares of peak_kb, one for each
				 * equal part of its run (borrowed); NULL: its peak
				 * held from its start to its end */
	double cores;		/* the cores it keeps busy on average (nvcc --threads,
				 * hipcc -parallel-jobs: its work over its wall): it
				 * loads the machine as that many jobs, in one job
				 * slot; 0 or 1: one */
};

#define GRAPH_SHAPE_BINS 16

/* A step's memory as measured: its peak (0: unknown) and, where the
 * samples caught it, how its run held it (shares of the peak). */
struct step_memory {
	double peak_kb;
	float shape[GRAPH_SHAPE_BINS];
	bool has_shape;
};
/* Keep a measurement of a step's memory where its peak is the larger:
 * shape NULL for none. */
void step_memory_of(struct step_memory *s, double peak_kb, const float *shape);

struct schedule {
	double *start, *end;
	double makespan;
	size_t last;		/* the node that finishes last */
};


struct sched_options {
	int jobs;		/* slots, as ninja -j */
	enum sched_policy policy;
	double cores;		/* > 0: more running jobs than cores share them
				 * (each runs at cores/running speed); 0: no limit */
	double contention;	/* each other job running on its own core slows a
				 * job by this share (memory, caches): speed / (1 + c (n - 1)) */
	const struct load_curve *curve;	/* measured instead: speed 1 / slowdown(n);
					 * NULL: the two above */
	int remote_slots;	/* a cluster's slots for the nodes' remote parts: a
				 * node holds its job slot while it waits for one,
				 * first come first served; the load above counts
				 * only the jobs working here */
};

/* Simulate the build. Returns false when the graph has a cycle, or when
 * an interrupt arrived (proc_interrupted() tells which). */
bool graph_schedule(const struct graph_node *nodes, size_t n, const struct sched_options *o, struct schedule *s);
/* The longest path by durations (the critical-path lower bound of any
 * schedule). With `tail` (n entries): each node's longest path from its
 * start to the end of the build. Returns -1 on a cycle. */
double graph_longest_path(const struct graph_node *nodes, size_t n, double *tail);
/* The nodes of that longest path, first to last, into chain (n entries);
 * returns its length, 0 on a cycle. */
size_t graph_longest_chain(const struct graph_node *nodes, size_t n, size_t *chain);
/* The most memory the nodes running at one moment of schedule s hold
 * together (each its shape of peak_kb stretched over its run, else its
 * peak from its start to its end; one ending as another starts does not
 * overlap it) into *peak_kb, and how many nodes that ran had no known
 * peak into *unknown. */
void schedule_peak(const struct graph_node *nodes, size_t n, const struct schedule *s, double *peak_kb, size_t *unknown);
void schedule_free(struct schedule *s);

#endif
