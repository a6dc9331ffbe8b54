/* One recorded build read against ninja's graph (log's model): each
 * step's kind from what it compiles, the critical path (the longest chain
 * of the build's steps through the dependency graph, with their recorded
 * durations: the wall no job count can beat), and the recorded chain: from
 * the step that finished last, back through what each waited for — a
 * dependency (through phony edges) that finished as it started, or the
 * step whose end freed the job slot it took while every slot was busy. */
#ifndef BUILDWALL_RECORDED_H
#define BUILDWALL_RECORDED_H

#include "ninja.h"
#include "timeline.h"

struct recorded {
	size_t *critical, ncritical;	/* timeline steps, first to last */
	double critical_s;
	size_t *chain, nchain;		/* timeline steps, the last step first */
	const char **waited;		/* per chain entry: "dependency", "slot" or NULL */
};

/* Fill r, and set tl's step kinds from the graph (tl belongs to log). */
void recorded_analyze(const struct ninja_build *b, struct ninja_log *log, struct timeline *tl, struct recorded *r);
void recorded_free(struct recorded *r);

#endif
