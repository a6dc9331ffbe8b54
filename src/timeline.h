/* One recorded build as a timeline: its steps (a multi-output edge is one
 * step: its lines share the command hash and the times), what kind each
 * is, its weighted time, the job slot it ran in, and how many steps ran at
 * once over the build. */
#ifndef BUILDWALL_TIMELINE_H
#define BUILDWALL_TIMELINE_H

#include "ninja_log.h"

enum step_kind { KIND_KERNEL_TU, KIND_HOST_TU, KIND_COMPILE, KIND_LINK, KIND_OTHER, NKINDS };
/* "kernel TU", "host TU", "compile", "link", "other". */
extern const char *const step_kind_names[NKINDS];
/* From the log alone, by the output's name: an object is a compile (what
 * it compiles is not in its name: aiter and torch call every object
 * X.cuda.o), libraries and extensionless files are links. */
enum step_kind step_kind_of(const char *output);
/* From what the step is, as ninja describes it: a compile's kind from its
 * source (.cu, .hip, or -x cu/hip: a kernel TU; .cpp, .cc, .c: a host TU),
 * "compile" where nothing says more; links and the rest as above. */
struct ninja_edge;
enum step_kind step_kind_of_edge(const struct ninja_edge *e);

struct step {
	const struct log_entry *first;	/* its first line; the outputs follow */
	size_t noutputs;
	double start, end;		/* seconds since the run began */
	double weighted;		/* its duration split among the steps running with it */
	int slot;			/* the job slot it ran in, from 0 */
	int running_at_end;		/* steps running just before it ended, itself included */
	enum step_kind kind;
};

#define TIMELINE_BUCKETS 20

struct timeline {
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

/* Build the timeline of one build; the log must outlive it. */
void timeline_build(const struct ninja_log *build, struct timeline *t);
/* Re-count the per-kind totals after kinds were set from the graph. */
void timeline_count_kinds(struct timeline *t);
void timeline_free(struct timeline *t);

#endif
