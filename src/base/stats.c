#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void sort_doubles(double *values, size_t n)
{
	qsort(values, n, sizeof(double), cmp_double);
}

struct summary summarize(const double *values, size_t n)
{
	struct summary s = { 0 };
	double *v = xcalloc(n, sizeof(double));
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(values[i])) {
			v[s.n++] = values[i];
			sum += values[i];
		}
	if (!s.n) {
		free(v);
		s.min = s.median = s.max = s.mean = s.spread = NAN;
		return s;
	}
	qsort(v, s.n, sizeof(double), cmp_double);
	s.min = v[0];
	s.max = v[s.n - 1];
	s.median = s.n % 2 ? v[s.n / 2] : (v[s.n / 2 - 1] + v[s.n / 2]) / 2;
	s.mean = sum / s.n;
	s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
	free(v);
	return s;
}

double median_of(const double *values, size_t n)
{
	return summarize(values, n).median;
}

bool walls_agree(const double *walls, size_t n)
{
	struct summary s = summarize(walls, n);
	return s.n >= 2 && s.median > 0 && s.spread <= WALLS_AGREE;
}

double fence_limit(const double *walls, size_t n, double floor)
{
	if (n < 3)
		return INFINITY;
	double *logs = xcalloc(n, sizeof(double)), *dev = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		logs[i] = log(walls[i]);
	double mid = median_of(logs, n);
	for (size_t i = 0; i < n; i++)
		dev[i] = fabs(logs[i] - mid);
	/* 1.4826: the MAD of a normal sample over its sigma. */
	double limit = FENCE_MADS * 1.4826 * median_of(dev, n);
	if (limit < log1p(floor))
		limit = log1p(floor);
	free(logs);
	free(dev);
	return mid + limit;
}

size_t fence_outliers(const double *walls, size_t n, double floor, bool *fenced)
{
	double limit = fence_limit(walls, n, floor);
	size_t count = 0;
	for (size_t i = 0; i < n; i++)
		count += fenced[i] = log(walls[i]) > limit;
	return count;
}
