/* How much slower a compile runs when others run beside it, as a curve of
 * the number of jobs running at once: measured on the machine (the same
 * probe TU run 1, 2, 4, … at once) or a linear share per job fitted on a
 * recorded build. The scheduler (graph.c) applies it moment by moment: a
 * step's progress rate is 1 / slowdown(jobs running now), so a fix that
 * takes heavy steps out of the build also speeds the ones left. The same
 * curve turns a recorded build's durations back into isolated times
 * (load_curve_isolate), which is what every prediction starts from.
 *
 * Plain values: a curve owns no memory. */
#ifndef BUILDWALL_LOAD_CURVE_H
#define BUILDWALL_LOAD_CURVE_H

#include <stdbool.h>
#include <stddef.h>

#define LOAD_CURVE_LEVELS 16

struct load_curve {
	size_t n;				/* levels; 0: no curve (every slowdown 1) */
	double jobs[LOAD_CURVE_LEVELS];		/* jobs at once, ascending; jobs[0] = 1 */
	double slowdown[LOAD_CURVE_LEVELS];	/* median wall there / median wall alone */
	double lo[LOAD_CURVE_LEVELS], hi[LOAD_CURVE_LEVELS];	/* the spread of that ratio */
	size_t samples[LOAD_CURVE_LEVELS];	/* walls behind each level */
	double cores;				/* > 0: jobs beyond these share them */
};

/* The slowdown with `running` jobs at once: 1 for one job or fewer;
 * linear between measured levels; past the last one its per-job slope
 * from the level before; past `cores` the cores are shared besides
 * (slowdown at cores times running / cores). Never below 1. */
double load_curve_at(const struct load_curve *c, double running);

/* The curve of a linear share per other job on its own core:
 * slowdown(k) = 1 + share (min(k, cores) - 1), times k / cores past the
 * cores (the model contention_calibrate fits), sampled at 1, 2, 4, … up to
 * `cores` and at `cores` itself. */
void load_curve_linear(struct load_curve *c, double share, double cores);

/* A level from its walls: `alone` (walls of the probe run by itself) and
 * `together` (walls of the copies run `jobs` at once), NaN skipped. The
 * slowdown is the ratio of medians; lo and hi the ratios of the extremes
 * to the other side's median. Levels are kept sorted by jobs. Returns
 * false when a side has no wall or the curve is full. */
bool load_curve_add_level(struct load_curve *c, double jobs, const double *alone, size_t nalone,
			  const double *together, size_t ntogether);

/* A curve from two levels run at once, `low` (2 or more) and `high`
 * copies, none alone: alone is where the line through their medians meets
 * one job (the slope never below 0: a compile does not speed up with more
 * beside it), its least and most the low level's carried back alike; the
 * alone level has no walls of its own (samples 0). False when a side has
 * no wall. */
bool load_curve_from_two(struct load_curve *c, double low, const double *at_low, size_t nlow, double high,
			 const double *at_high, size_t nhigh);

/* The curve at one end of its spread: each level's slowdown its least
 * (steep false) or its most (steep true), never below 1. False when no
 * level has a spread (the end is the curve itself). */
bool load_curve_end(const struct load_curve *c, bool steep, struct load_curve *end);

/* Isolated durations from a recorded schedule: step i ran from start[i] to
 * end[i] (seconds; NaN: not in this build) beside whatever else ran then;
 * its isolated time is the integral over its run of 1 / slowdown(jobs
 * running). The exact inverse of the scheduler: those durations
 * scheduled the same way give back the same start and end. */
void load_curve_isolate(const struct load_curve *c, const double *start, const double *end, size_t n,
			double *isolated);

/* "1 job 1.00, 2 jobs 1.12 (1.08-1.15), 4 jobs 1.31 …" (owned). */
char *load_curve_text(const struct load_curve *c);

#endif
