#include "whatif.h"
#include "stats.h"
#include "timeline.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const edit_names[] = { "scale", "split", "fuse", "remove" };

void durations_from_log(const struct ninja_build *b, struct ninja_log *log, double *seconds)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct log_entry *e = ninja_log_find(log, b->edges[i].outputs.v[0]);
		seconds[i] = e ? (e->end_ms - e->start_ms) / 1000.0 : NAN;
	}
}

bool durations_from_dir(const char *dir, const struct ninja_build *b, double *seconds, struct ninja_log *keep,
			char **err)
{
	for (size_t i = 0; i < b->n; i++)
		seconds[i] = NAN;
	char *path = xasprintf("%s/.ninja_log", dir);
	struct ninja_log log;
	bool have = ninja_log_read_latest(path, &log, err);
	free(path);
	if (!have)
		return false;
	durations_from_log(b, &log, seconds);
	if (keep)
		*keep = log;
	else
		ninja_log_free(&log);
	return true;
}

/* The last complete builds, as a ring of per-edge starts and ends. */
struct recent {
	const struct ninja_build *b;
	const bool *needed;
	size_t max, n, next;
	double *start, *end;	/* max rows of b->n */
	double *walls;
};

static void keep_if_complete(struct ninja_log *build, bool rewritten, void *ctx)
{
	struct recent *r = ctx;
	if (rewritten || !build->n)
		return;
	const struct ninja_build *b = r->b;
	double *start = r->start + r->next * b->n, *end = r->end + r->next * b->n;
	for (size_t i = 0; i < b->n; i++) {
		const struct log_entry *e = ninja_log_find(build, b->edges[i].outputs.v[0]);
		start[i] = e ? e->start_ms / 1000.0 : NAN;
		end[i] = e ? e->end_ms / 1000.0 : NAN;
		if (r->needed[i] && !e)
			return;	/* a partial rebuild: not a baseline */
	}
	uint32_t first = build->entries[0].start_ms, last = build->entries[0].end_ms;
	for (size_t i = 0; i < build->n; i++) {
		first = build->entries[i].start_ms < first ? build->entries[i].start_ms : first;
		last = build->entries[i].end_ms > last ? build->entries[i].end_ms : last;
	}
	r->walls[r->next] = (last - first) / 1000.0;
	r->next = (r->next + 1) % r->max;
	r->n += r->n < r->max;
}

size_t recent_builds_read(const char *dir, const struct ninja_build *b, const bool *needed, size_t max_builds,
			  struct recent_builds *rb, char **err)
{
	struct recent r = { .b = b, .needed = needed, .max = max_builds ? max_builds : 1 };
	size_t cells = r.max * (b->n ? b->n : 1);
	r.start = xcalloc(cells, sizeof(double));
	r.end = xcalloc(cells, sizeof(double));
	r.walls = xcalloc(r.max, sizeof(double));
	char *path = xasprintf("%s/.ninja_log", dir);
	*err = NULL;
	ninja_log_each(path, true, keep_if_complete, &r, err);
	free(path);
	*rb = (struct recent_builds){ .n = *err ? 0 : r.n, .edges = b->n, .start = r.start, .end = r.end, .walls = r.walls };
	return rb->n;
}

void recent_builds_durations(const struct recent_builds *rb, const struct load_curve *curve, double *median,
			     double *lo, double *hi)
{
	size_t n = rb->edges;
	double *rows = xcalloc((rb->n ? rb->n : 1) * (n ? n : 1), sizeof(double));
	for (size_t j = 0; j < rb->n; j++) {
		const double *start = rb->start + j * n, *end = rb->end + j * n;
		double *row = rows + j * n;
		if (curve)
			load_curve_isolate(curve, start, end, n, row);
		else
			for (size_t i = 0; i < n; i++)
				row[i] = end[i] - start[i];
	}
	double *column = xcalloc(rb->n ? rb->n : 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		for (size_t j = 0; j < rb->n; j++)
			if (!isnan(rows[j * n + i]))
				column[k++] = rows[j * n + i];
		struct summary s = summarize(column, k);
		median[i] = k ? s.median : NAN;
		if (lo)
			lo[i] = k ? s.min : NAN;
		if (hi)
			hi[i] = k ? s.max : NAN;
	}
	free(column);
	free(rows);
}

double recent_builds_wall(const struct recent_builds *rb)
{
	return rb->n ? median_of(rb->walls, rb->n) : NAN;
}

void recent_builds_free(struct recent_builds *rb)
{
	free(rb->start);
	free(rb->end);
	free(rb->walls);
	*rb = (struct recent_builds){ 0 };
}

static void model_add(struct model *m, double duration, bool free_node, const size_t *deps, size_t ndeps)
{
	m->nodes = grow_array(m->nodes, m->n, sizeof(*m->nodes));
	m->deps = grow_array(m->deps, m->n, sizeof(*m->deps));
	m->deps[m->n] = xcalloc(ndeps, sizeof(size_t));
	if (ndeps)
		memcpy(m->deps[m->n], deps, ndeps * sizeof(size_t));
	m->nodes[m->n] = (struct graph_node){ duration, free_node, m->deps[m->n], ndeps, 0, 0, NULL, 0 };
	m->n++;
}

static void model_set_deps(struct model *m, size_t node, const size_t *deps, size_t ndeps)
{
	size_t *copy = xcalloc(ndeps, sizeof(size_t));
	if (ndeps)
		memcpy(copy, deps, ndeps * sizeof(size_t));
	free(m->deps[node]);
	m->deps[node] = copy;
	m->nodes[node].deps = copy;
	m->nodes[node].ndeps = ndeps;
}

void model_from_build(struct model *m, const struct ninja_build *b, const double *seconds)
{
	*m = (struct model){ 0 };
	for (size_t i = 0; i < b->n; i++) {
		const struct ninja_edge *e = &b->edges[i];
		model_add(m, isnan(seconds[i]) ? 0 : seconds[i], ninja_edge_is_phony(e), e->deps, e->ndeps);
	}
}

void model_set_memory(struct model *m, const struct step_memory *mem, size_t n)
{
	for (size_t i = 0; i < n && i < m->n; i++) {
		m->nodes[i].peak_kb = mem[i].peak_kb > 0 ? mem[i].peak_kb : 0;
		m->nodes[i].shape = mem[i].has_shape ? mem[i].shape : NULL;
	}
}

void model_free(struct model *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->deps[i]);
	free(m->deps);
	free(m->nodes);
	*m = (struct model){ 0 };
}

/* T's pieces take its inputs; T itself becomes the free point its
 * consumers wait on. */
static void split(struct model *m, size_t t, size_t parts, double overhead)
{
	size_t *pieces = xcalloc(parts, sizeof(size_t));
	double each = m->nodes[t].duration / (double)parts + overhead;
	for (size_t p = 0; p < parts; p++) {
		pieces[p] = m->n;
		model_add(m, each, false, m->deps[t], m->nodes[t].ndeps);
		m->nodes[m->n - 1].peak_kb = m->nodes[t].peak_kb;
		m->nodes[m->n - 1].shape = m->nodes[t].shape;
	}
	model_set_deps(m, t, pieces, parts);
	m->nodes[t].duration = 0;
	m->nodes[t].free = true;
	free(pieces);
}

/* The first step does all the work, needing every input of the group from
 * outside it; the others wait for it. */
static void fuse(struct model *m, const size_t *members, size_t n)
{
	size_t *deps = NULL, nd = 0;
	double sum = 0, peak = 0;
	for (size_t i = 0; i < n; i++) {
		sum += m->nodes[members[i]].duration;
		/* Unknown for one member: unknown for the fused step. */
		peak = i && (!peak || !m->nodes[members[i]].peak_kb) ? 0 : fmax(peak, m->nodes[members[i]].peak_kb);
		for (size_t d = 0; d < m->nodes[members[i]].ndeps; d++) {
			size_t dep = m->deps[members[i]][d];
			bool member = false;
			for (size_t j = 0; j < n; j++)
				member |= members[j] == dep;
			if (!member) {
				deps = grow_array(deps, nd, sizeof(size_t));
				deps[nd++] = dep;
			}
		}
	}
	model_set_deps(m, members[0], deps, nd);
	m->nodes[members[0]].duration = sum;
	m->nodes[members[0]].peak_kb = peak;
	m->nodes[members[0]].shape = NULL;
	for (size_t i = 1; i < n; i++) {
		model_set_deps(m, members[i], &members[0], 1);
		m->nodes[members[i]].duration = 0;
		m->nodes[members[i]].free = true;
	}
	free(deps);
}

bool model_apply(struct model *m, const struct edit *ed, double overhead, char **err)
{
	if (!ed->nsteps || (ed->kind == EDIT_FUSE && ed->nsteps < 2))
		return fail_with(err, xasprintf("--%s needs %s", edit_names[ed->kind], ed->kind == EDIT_FUSE ? "two steps or more" : "a step"));
	for (size_t i = 0; i < ed->nsteps; i++) {
		if (ed->steps[i] >= m->n)
			return fail_with(err, xasprintf("--%s names no step of the graph", edit_names[ed->kind]));
		for (size_t j = 0; j < i; j++)
			if (ed->steps[i] == ed->steps[j])
				return fail_with(err, xasprintf("--%s names a step twice", edit_names[ed->kind]));
	}
	size_t t = ed->steps[0];
	switch (ed->kind) {
	case EDIT_SCALE:
		if (!(ed->value >= 0) || isinf(ed->value))
			return fail_with(err, xasprintf("--scale wants a factor >= 0, not %g", ed->value));
		m->nodes[t].duration *= ed->value;
		break;
	case EDIT_REMOVE:
		m->nodes[t].duration = 0;
		break;
	case EDIT_SPLIT:
		if (!(ed->value >= 2 && ed->value <= 1000))
			return fail_with(err, xasprintf("--split wants 2 to 1000 pieces, not %g", ed->value));
		split(m, t, (size_t)ed->value, overhead);
		break;
	case EDIT_FUSE:
		fuse(m, ed->steps, ed->nsteps);
		break;
	}
	return true;
}

/* Node i waits for `node` too. */
static void model_add_dep(struct model *m, size_t i, size_t node)
{
	size_t n = m->nodes[i].ndeps;
	size_t *deps = xcalloc(n + 1, sizeof(size_t));
	memcpy(deps, m->deps[i], n * sizeof(size_t));
	deps[n] = node;
	model_set_deps(m, i, deps, n + 1);
	free(deps);
}

size_t model_add_beside(struct model *m, size_t beside, double seconds)
{
	size_t node = m->n;
	model_add(m, seconds, false, m->deps[beside], m->nodes[beside].ndeps);
	for (size_t i = 0; i < node; i++) {
		bool waits = false;
		for (size_t d = 0; d < m->nodes[i].ndeps; d++)
			waits |= m->deps[i][d] == beside;
		if (waits)
			model_add_dep(m, i, node);
	}
	return node;
}

size_t model_add_before(struct model *m, const size_t *steps, size_t n, double seconds)
{
	size_t node = m->n;
	model_add(m, seconds, false, n ? m->deps[steps[0]] : NULL, n ? m->nodes[steps[0]].ndeps : 0);
	for (size_t k = 0; k < n; k++)
		model_add_dep(m, steps[k], node);
	return node;
}

bool model_predict(const struct model *m, const struct sched_options *o, struct prediction *p)
{
	struct schedule sch;
	bool ok = graph_schedule(m->nodes, m->n, o, &sch);
	p->wall = sch.makespan;
	p->gate = GRAPH_NONE;
	if (ok && sch.last != GRAPH_NONE)
		for (size_t k = 0; k < m->nodes[sch.last].ndeps; k++) {
			size_t d = m->nodes[sch.last].deps[k];
			if (!m->nodes[d].free && (p->gate == GRAPH_NONE || sch.end[d] > sch.end[p->gate]))
				p->gate = d;
		}
	if (ok && p->gate == GRAPH_NONE && sch.last != GRAPH_NONE && !m->nodes[sch.last].free)
		p->gate = sch.last;
	p->peak_kb = 0;
	p->peak_unknown = 0;
	if (ok)
		schedule_peak(m->nodes, m->n, &sch, &p->peak_kb, &p->peak_unknown);
	schedule_free(&sch);
	double here = 0, there = 0;
	for (size_t i = 0; i < m->n; i++)
		if (!m->nodes[i].free) {
			here += m->nodes[i].duration + (o->remote_slots > 0 ? 0 : m->nodes[i].remote);
			there += o->remote_slots > 0 ? m->nodes[i].remote : 0;
		}
	double slots = o->cores > 0 && o->cores < (double)o->jobs ? o->cores : (double)o->jobs;
	p->work = here / slots;
	p->binds = "total work / jobs";
	/* The cluster runs at most as many at once as ninja sends it. */
	double remote_slots = o->remote_slots < o->jobs ? o->remote_slots : o->jobs;
	if (o->remote_slots > 0 && there / remote_slots > p->work) {
		p->work = there / remote_slots;
		p->binds = "remote slots";
	}
	p->critical = graph_longest_path(m->nodes, m->n, NULL);
	if (p->critical >= p->work)
		p->binds = "critical path";
	return ok && p->critical >= 0;
}

void contention_calibrate(const struct ninja_build *b, struct ninja_log *log, const double *isolated,
			  const double *work, double cores, const char *source, struct contention *c)
{
	*c = (struct contention){ .cores = cores, .source = source, .least = INFINITY, .most = -INFINITY };
	struct timeline tl;
	timeline_build(log, &tl);
	double sxy = 0, sxy_wall = 0, sxx = 0, conc = 0;
	for (size_t s = 0; s < tl.n; s++) {
		const struct step *st = &tl.steps[s];
		long e = ninja_edge_of(b, step_line(&tl, st, 0).output);
		double d = step_duration(&tl, st), t = e >= 0 ? isolated[e] : NAN;
		if (e < 0 || isnan(t) || t <= 0 || d <= 0 || st->weighted <= 0)
			continue;
		double concurrency = d / st->weighted;
		double cpu = cores > 0 && concurrency > cores ? concurrency / cores : 1;
		double x = (cores > 0 && concurrency > cores ? cores : concurrency) - 1, y = d / (t * cpu) - 1;
		sxy_wall += x * y;
		if (work && !isnan(work[e]) && work[e] > 0 && y > work[e] - 1) {
			y = work[e] - 1;
			c->bounded++;
		}
		sxy += x * y;
		sxx += x * x;
		conc += concurrency;
		c->samples++;
		if (x >= 0.5) {
			c->least = fmin(c->least, y / x);
			c->most = fmax(c->most, y / x);
		}
	}
	timeline_free(&tl);
	if (c->samples)
		c->mean_concurrency = conc / (double)c->samples;
	if (sxx > 1e-9 && sxy > 0)
		c->share = sxy / sxx;
	if (sxx > 1e-9 && sxy_wall > 0)
		c->wall_share = sxy_wall / sxx;
	if (c->least > c->most)
		c->least = c->most = c->share;
}

char *contention_text(const struct contention *c)
{
	if (!c->samples)
		return xstrdup("none applied (no step of the recorded build has an isolated time to compare)");
	char *spread = c->most - c->least > 0.005 ? xasprintf(", the steps from %+.1f%% to %+.1f%%", 100 * c->least,
							       100 * c->most) : xstrdup("");
	/* Said where it moved the share by half a point or more. */
	char *bound = c->wall_share - c->share >= 0.005
		? xasprintf("; bounded by their CPU time: %zu step%s grew more than their work (the walls alone "
			    "said %+.1f%%; the rest was waiting for a CPU, other load on the machine)", c->bounded,
			    c->bounded == 1 ? "'s wall" : "s' walls", 100 * c->wall_share)
		: xstrdup("");
	char *s = xasprintf("%+.1f%% per job running beside it on its own core, %.0f cores shared beyond that; calibrated "
			    "from %s (%zu steps at a mean concurrency of %.2f against their isolated times%s)%s",
			    100 * c->share, c->cores, c->source, c->samples, c->mean_concurrency, spread, bound);
	free(spread);
	free(bound);
	return s;
}
