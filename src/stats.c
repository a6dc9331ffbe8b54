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
