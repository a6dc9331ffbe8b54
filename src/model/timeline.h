/* One recorded build as a timeline: its steps (a multi-output edge is one
 * step: its lines share the command hash and the times), what kind each
 * is, its weighted time, the job slot it ran in, and how many steps ran at
 * once over the build. 24 bytes a step: its times are its first line's. */
#ifndef BUILDWALL_TIMELINE_H
#define BUILDWALL_TIMELINE_H

#include "ninja_log.h"

/* From what the step is, as ninja describes it: a compile's kind from its
 * source (.cu, .hip, or -x cu/hip: a kernel TU; .cpp, .cc, .c: a host TU),
 * "compile" where nothing says more; links and the rest as step_kind_of. */
struct ninja_edge;
enum step_kind step_kind_of_edge(const struct ninja_edge *e);

struct step {
	double weighted;		/* its duration split among the steps running with it */
	uint32_t first;			/* its first line's entry; the outputs follow */
	uint32_t noutputs;
	uint32_t slot : 24;		/* the job slot it ran in, from 0 */
	uint32_t kind : 8;		/* enum step_kind */
	uint32_t running_at_end;	/* steps running just before it ended, itself included */
};

#define TIMELINE_BUCKETS 20

struct timeline {
	const struct ninja_log *log;	/* the build's lines */
	struct step *steps;	/* completion order, as logged */
	size_t n;
	double wall;		/* the last end */
	double busy;		/* sum of step durations */
	int slots;		/* the most steps that ran at once */
	double by_kind[NKINDS], weighted_by_kind[NKINDS];
	size_t count_by_kind[NKINDS];
	/* Mean number of running steps in each twentieth of the wall. */
	double profile[TIMELINE_BUCKETS];
};

static inline const struct log_entry *step_entry(const struct timeline *t, const struct step *s)
{
	return &t->log->entries[s->first];
}

/* Seconds since the run began. */
static inline double step_start(const struct timeline *t, const struct step *s)
{
	return step_entry(t, s)->start_ms / 1000.0;
}

static inline double step_end(const struct timeline *t, const struct step *s)
{
	return step_entry(t, s)->end_ms / 1000.0;
}

static inline double step_duration(const struct timeline *t, const struct step *s)
{
	return step_end(t, s) - step_start(t, s);
}

/* Output o's line: its names, held or read again (ninja_log_line). */
static inline struct log_name step_line(const struct timeline *t, const struct step *s, size_t o)
{
	return ninja_log_line(t->log, s->first + o);
}

/* Build the timeline of one build; the log must outlive it. */
void timeline_build(const struct ninja_log *build, struct timeline *t);
/* Re-count the per-kind totals after kinds were set from the graph. */
void timeline_count_kinds(struct timeline *t);
void timeline_free(struct timeline *t);

#endif
