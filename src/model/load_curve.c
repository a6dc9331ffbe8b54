#include "load_curve.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double load_curve_at(const struct load_curve *c, double running)
{
	if (running <= 1)
		return 1;
	bool shared = c->cores > 0 && running > c->cores;
	double k = shared ? c->cores : running, s = 1;
	if (c->n >= 2) {
		size_t i = 1;
		while (i < c->n - 1 && c->jobs[i] < k)
			i++;
		/* Between levels i-1 and i, or past the last on its slope. */
		double slope = (c->slowdown[i] - c->slowdown[i - 1]) / (c->jobs[i] - c->jobs[i - 1]);
		s = k <= c->jobs[i] ? c->slowdown[i - 1] + slope * (k - c->jobs[i - 1])
				    : c->slowdown[i] + slope * (k - c->jobs[i]);
	}
	if (s < 1)
		s = 1;
	return shared ? s * running / c->cores : s;
}

static void put_level(struct load_curve *c, double jobs, double slowdown, double lo, double hi, size_t samples)
{
	size_t i = c->n;
	while (i > 0 && c->jobs[i - 1] > jobs) {
		c->jobs[i] = c->jobs[i - 1];
		c->slowdown[i] = c->slowdown[i - 1];
		c->lo[i] = c->lo[i - 1];
		c->hi[i] = c->hi[i - 1];
		c->samples[i] = c->samples[i - 1];
		i--;
	}
	c->jobs[i] = jobs;
	c->slowdown[i] = slowdown;
	c->lo[i] = lo;
	c->hi[i] = hi;
	c->samples[i] = samples;
	c->n++;
}

void load_curve_linear(struct load_curve *c, double share, double cores)
{
	*c = (struct load_curve){ .cores = cores > 0 ? cores : 0 };
	double top = cores >= 2 ? cores : 2, s = share > 0 ? share : 0;
	for (double k = 1; k < top && c->n < LOAD_CURVE_LEVELS - 1; k *= 2)
		put_level(c, k, 1 + s * (k - 1), 1 + s * (k - 1), 1 + s * (k - 1), 0);
	put_level(c, top, 1 + s * (top - 1), 1 + s * (top - 1), 1 + s * (top - 1), 0);
}

bool load_curve_add_level(struct load_curve *c, double jobs, const double *alone, size_t nalone,
			  const double *together, size_t ntogether)
{
	struct summary a = summarize(alone, nalone), t = summarize(together, ntogether);
	if (!a.n || !t.n || a.median <= 0 || a.min <= 0 || c->n == LOAD_CURVE_LEVELS)
		return false;
	for (size_t i = 0; i < c->n; i++)
		if (c->jobs[i] == jobs)
			return false;
	if (jobs <= 1)
		put_level(c, 1, 1, 1, 1, a.n);
	else
		put_level(c, jobs, t.median / a.median, t.min / a.max, t.max / a.min, t.n);
	return true;
}

bool load_curve_from_two(struct load_curve *c, double low, const double *at_low, size_t nlow, double high,
			 const double *at_high, size_t nhigh)
{
	struct summary l = summarize(at_low, nlow), h = summarize(at_high, nhigh);
	*c = (struct load_curve){ 0 };
	if (!l.n || !h.n || low < 2 || high <= low || l.min <= 0)
		return false;
	double slope = (h.median - l.median) / (high - low), back;
	if (slope < 0)
		slope = 0;
	back = slope * (low - 1);
	/* Alone at the low level's median, least and most, carried back alike. */
	double alone = l.median - back, fast = l.min - back, slow = l.max - back;
	if (fast <= 0)
		return false;
	put_level(c, 1, 1, 1, 1, 0);
	put_level(c, low, l.median / alone, l.min / slow, l.max / fast, l.n);
	put_level(c, high, h.median / alone, h.min / slow, h.max / fast, h.n);
	return true;
}

bool load_curve_end(const struct load_curve *c, bool steep, struct load_curve *end)
{
	*end = *c;
	bool spread = false;
	for (size_t i = 0; i < c->n; i++) {
		double s = steep ? c->hi[i] : c->lo[i];
		end->slowdown[i] = s > 1 ? s : 1;
		spread |= end->slowdown[i] != c->slowdown[i];
	}
	return spread;
}

struct event {
	double t;
	size_t step;
	bool end;
};

static int by_time(const void *x, const void *y)
{
	const struct event *a = x, *b = y;
	if (a->t != b->t)
		return (a->t > b->t) - (a->t < b->t);
	return (a->end < b->end) - (a->end > b->end);	/* ends first: they leave before the next starts */
}

void load_curve_isolate(const struct load_curve *c, const double *start, const double *end, size_t n,
			double *isolated)
{
	struct event *ev = xcalloc(2 * n + 1, sizeof(*ev));
	double *at_start = xcalloc(n + 1, sizeof(double));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		isolated[i] = NAN;
		if (isnan(start[i]) || isnan(end[i]) || end[i] < start[i])
			continue;
		ev[m++] = (struct event){ start[i], i, false };
		ev[m++] = (struct event){ end[i], i, true };
	}
	qsort(ev, m, sizeof(*ev), by_time);
	/* progress(t): the isolated seconds a step running from 0 to t would
	 * have done; a step's isolated time is progress(end) - progress(start). */
	double progress = 0, last = m ? ev[0].t : 0;
	size_t running = 0;
	for (size_t e = 0; e < m; e++) {
		if (running)
			progress += (ev[e].t - last) / load_curve_at(c, (double)running);
		last = ev[e].t;
		if (ev[e].end) {
			isolated[ev[e].step] = progress - at_start[ev[e].step];
			running--;
		} else {
			at_start[ev[e].step] = progress;
			running++;
		}
	}
	free(at_start);
	free(ev);
}

char *load_curve_text(const struct load_curve *c)
{
	struct strvec parts = { 0 };
	for (size_t i = 0; i < c->n; i++) {
		bool spread = c->hi[i] - c->lo[i] >= 0.005;
		strvec_push_nodup(&parts, spread ? xasprintf("%g job%s %.2f (%.2f-%.2f)", c->jobs[i], c->jobs[i] == 1 ? "" : "s",
							     c->slowdown[i], c->lo[i], c->hi[i])
						 : xasprintf("%g job%s %.2f", c->jobs[i], c->jobs[i] == 1 ? "" : "s",
							     c->slowdown[i]));
	}
	if (c->cores > 0)
		strvec_push_nodup(&parts, xasprintf("past %g jobs the %g cores are shared", c->cores, c->cores));
	char *text = parts.n ? strvec_join(&parts, ", ") : xstrdup("none");
	strvec_clear(&parts);
	return text;
}
