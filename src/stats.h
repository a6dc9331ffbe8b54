/* Summaries of repeated measurements: we report medians and spread, never
 * a single run. */
#ifndef BUILDWALL_STATS_H
#define BUILDWALL_STATS_H

#include <stddef.h>

struct summary {
	size_t n;
	double min, median, max, mean;
	double spread;	/* (max - min) / median: 0.1 means trials differ by 10 % */
};

/* NaN values (missing measurements) are skipped; n counts the rest. */
struct summary summarize(const double *values, size_t n);
double median_of(const double *values, size_t n);
/* Sort ascending (no NaN among them). */
void sort_doubles(double *values, size_t n);

#endif
