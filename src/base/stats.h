/* Summaries of repeated measurements: we report medians and spread, never
 * a single run. */
#ifndef BUILDWALL_STATS_H
#define BUILDWALL_STATS_H

#include <stdbool.h>
#include <stddef.h>

struct summary {
	size_t n;
	double min, median, max, mean;
	double spread;	/* (max - min) / median: 0.1 means trials differ by 10 % */
};

/* NaN values (missing measurements) are skipped; n counts the rest. */
struct summary summarize(const double *values, size_t n);
double median_of(const double *values, size_t n);
/* Repeated walls agree when they lie within this share of their median:
 * another run adds little to a median or a spread the machine does not
 * move within a run (between sittings it moves more: see the ranges). */
#define WALLS_AGREE 0.03
/* n >= 2 walls, all within WALLS_AGREE of their median. */
bool walls_agree(const double *walls, size_t n);
/* Outliers among repeated walls of one thing (the cold build after a
 * checkout, a runner busy for a minute, a ccache miss): on log walls, a
 * wall slower than their median by more than FENCE_MADS median absolute
 * deviations (scaled to a normal's sigma) and more than `floor` (a share:
 * a wall within it of the median is never fenced, so two walls that agree
 * by chance do not fence an ordinary third). Slow ones only: what makes a
 * clean build an outlier (a cold cache, contention) slows it, and fencing
 * fast walls too let two slow builds that agreed by chance fence the
 * ordinary one, doubling check's false positives on a noisy machine
 * (bench/RESULTS.md). Fewer than 3 walls: none. fence_limit: the log wall
 * above which one is fenced (INFINITY under 3 walls); fence_outliers sets
 * fenced[i] and returns how many. FENCE_FLOOR is check's and history's,
 * chosen by bench/check_power.sh. */
#define FENCE_MADS 3.5
#define FENCE_FLOOR 0.10
double fence_limit(const double *walls, size_t n, double floor);
size_t fence_outliers(const double *walls, size_t n, double floor, bool *fenced);
/* Sort ascending (no NaN among them). */
void sort_doubles(double *values, size_t n);

#endif
