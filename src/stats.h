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
/* Sort ascending (no NaN among them). */
void sort_doubles(double *values, size_t n);

#endif
