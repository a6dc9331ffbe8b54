/* The build graph as a model to predict from and to edit: each step's
 * duration (from .ninja_log or a measurement), the what-if edits sim and
 * advise apply (scale, split, fuse, remove a step), and the prediction the
 * one scheduler (graph.c) gives for a job count: the wall and its two
 * lower bounds, the critical path and total work / jobs. */
#ifndef BUILDWALL_WHATIF_H
#define BUILDWALL_WHATIF_H

#include "graph.h"
#include "ninja.h"
#include "ninja_log.h"

/* Each edge's duration in the log's build (NaN where the log has none;
 * a multi-output edge by its first output). */
void durations_from_log(const struct ninja_build *b, struct ninja_log *log, double *seconds);
/* The same from the latest build in dir's .ninja_log, seconds NaN where it
 * has none. Returns whether the log was read; then with `keep` the log is
 * the caller's, else it is freed. *err: why it could not be read (owned;
 * NULL for a log that is simply not there). */
bool durations_from_dir(const char *dir, const struct ninja_build *b, double *seconds, struct ninja_log *keep,
			char **err);
/* The last `max_builds` builds of dir's .ninja_log that ran every edge
 * marked in `needed` (one recorded build on a shared machine varies by
 * +-10 %): per build and edge its start and end, seconds (NaN: not in that
 * build), and each build's wall.
 *
 * Ownership: recent_builds_read fills rb, which recent_builds_free frees. */
struct recent_builds {
	size_t n, edges;	/* builds; edges of the graph (a row each) */
	double *start, *end;	/* n rows of `edges` */
	double *walls;
};
/* Returns how many builds that was (0: none, or the log unreadable:
 * *err says why, owned). */
size_t recent_builds_read(const char *dir, const struct ninja_build *b, const bool *needed, size_t max_builds,
			  struct recent_builds *rb, char **err);
/* Each edge's median over the builds of its duration: as recorded, or
 * with `curve` its isolated time (the load it ran beside taken out); lo
 * and hi (each may be NULL) the least and most. NaN where no build has it. */
void recent_builds_durations(const struct recent_builds *rb, const struct load_curve *curve, double *median,
			     double *lo, double *hi);
/* The median of the builds' walls; NaN for none. */
double recent_builds_wall(const struct recent_builds *rb);
void recent_builds_free(struct recent_builds *rb);

/* A graph we can edit: nodes with owned dependency lists. */
struct model {
	struct graph_node *nodes;
	size_t **deps;
	size_t n;
};

/* One node per edge, with its duration (NaN counts as 0) and ninja's deps. */
void model_from_build(struct model *m, const struct ninja_build *b, const double *seconds);
/* Each edge's node its memory (n entries, borrowed: they outlive the
 * model), before any edit: a split's pieces keep it, a fused step holds
 * the most of its members' peaks throughout, a step added later has none. */
void model_set_memory(struct model *m, const struct step_memory *mem, size_t n);
void model_free(struct model *m);

enum edit_kind { EDIT_SCALE, EDIT_SPLIT, EDIT_FUSE, EDIT_REMOVE };
extern const char *const edit_names[];	/* "scale", "split", "fuse", "remove" */

struct edit {
	enum edit_kind kind;
	const size_t *steps;	/* the nodes it names; fuse: two or more */
	size_t nsteps;
	double value;		/* scale: the factor; split: the piece count */
};

/* Apply one edit. A split's pieces each take t/K plus `overhead` (what one
 * more TU costs). False, with *err set to what is wrong (owned). */
bool model_apply(struct model *m, const struct edit *ed, double overhead, char **err);

/* A new step of `seconds` beside step `beside`: it needs what `beside`
 * needs, and whatever waits for `beside` waits for it too (a TU added to
 * the same link). Returns its node. */
size_t model_add_beside(struct model *m, size_t beside, double seconds);
/* A new step of `seconds` that `steps` each wait for (a precompiled header
 * the TUs include): it needs what the first of them needs. Returns its
 * node. */
size_t model_add_before(struct model *m, const size_t *steps, size_t n, double seconds);

struct prediction {
	double wall;		/* the scheduled makespan */
	double critical;	/* the longest chain of dependencies */
	double work;		/* total work / the slots that run it: the local
				 * work on the jobs (or cores), the remote work on
				 * the remote slots, whichever is more */
	const char *binds;	/* "critical path", "total work / jobs" or "remote slots" */
	size_t gate;		/* what sets the wall: the step the last one waited
				 * for longest (its dep that ends last), else the
				 * last step itself; GRAPH_NONE: none */
	/* The build's peak memory: the most the steps running at one moment
	 * of the schedule hold together, each its peak from start to end
	 * (an upper bound where a step's peak is brief); 0 where no step's
	 * peak is known. peak_unknown: the steps that ran without a known
	 * peak (counted as none). */
	double peak_kb;
	size_t peak_unknown;
};

/* The wall for o's jobs, policy, cores and contention. False on a cycle,
 * or when an interrupt arrived (proc_interrupted()). */
bool model_predict(const struct model *m, const struct sched_options *o, struct prediction *p);

/* How much a compile slows when others run beside it, calibrated from a
 * recorded build against isolated times of the same steps: a step that
 * ran at mean concurrency c (its duration / its weighted time) took
 * d = t * max(1, c / cores) * (1 + share * (min(c, cores) - 1)); share is
 * the least-squares fit over every step with both times.
 * Where each step's CPU time beside the others over its CPU time alone is
 * known (`work`), a step's slowdown counts no more than that: the compiles
 * beside it made it do more work (shared caches, memory, a core's sibling
 * thread), while wall time past it was spent waiting for a CPU that the
 * build's own jobs, one per core, did not take: other load on the machine,
 * which a build at another time does not meet. */
struct contention {
	double share;		/* per other job running on its own core */
	double cores;		/* the cores it assumes (the measuring machine's) */
	size_t samples;		/* steps it was fitted on; 0: nothing to fit, share 0 */
	double mean_concurrency;	/* of those steps, in the recorded build */
	const char *source;	/* what the recorded build was, for the report (static) */
	double wall_share;	/* the fit on wall time alone (= share where nothing was bounded) */
	size_t bounded;		/* steps whose wall slowdown their CPU time did not explain */
	double least, most;	/* the steps' own shares, where one ran beside another */
};
/* One line saying what was applied and what it was derived from. */
char *contention_text(const struct contention *c);
/* work: per edge, its CPU time in the recorded build over its CPU time
 * alone (NAN: unknown); NULL where the build's CPU times are not known. */
void contention_calibrate(const struct ninja_build *b, struct ninja_log *log, const double *isolated,
			  const double *work, double cores, const char *source, struct contention *c);

#endif
