#include "advice.h"
#include "rule_kit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Which end of a range a prediction is for: the median, or the least
 * (baseline at its least, savings at their most) or the most wall; or the
 * savings' ends alone (the baseline's spread is the machine's, common to
 * every step: it does not tell two steps apart). */
enum bound { BOUND_MEDIAN, BOUND_LEAST, BOUND_MOST, BOUND_SAVINGS_MOST, BOUND_SAVINGS_LEAST };

static double factor(double f)
{
	return f > 0 ? f : 1;
}

/* Baseline seconds that `parts` take out of t, at `bound`'s end (the
 * header cost's spread; the table's probes share it). */
static double part_seconds_at(const struct tu_facts *t, int parts, enum bound bound)
{
	double f = bound == BOUND_LEAST || bound == BOUND_SAVINGS_MOST ? factor(t->cost_hi)
		 : bound == BOUND_MOST || bound == BOUND_SAVINGS_LEAST ? factor(t->cost_lo) : 1;
	return rule_part_seconds(t, parts) * f;
}

void tu_facts_cap_scale(struct tu_facts *t, double seconds)
{
	const struct header_cost *c = t->cost;
	double headers = c ? c->host + c->base_host + c->device + c->base_device : 0;
	if (headers > 0 && seconds > 0 && t->scale * headers > seconds)
		t->scale = seconds / headers;
}

/* A TU gets no cheaper than an empty one with its command. */
static double floor_of(const struct tu_facts *t, double d)
{
	double empty = t->cost ? t->scale * (t->cost->base_host + t->cost->base_device) : 0;
	return empty < d ? empty : d;
}

/* The load curve a prediction schedules with: the measured one, or one
 * end of its spread (the durations isolated by that end with it). */
enum curve_end { CURVE_MEDIAN = -1, CURVE_FLAT = 0, CURVE_STEEP = 1 };

/* A fix's own or measured savings at `bound`'s end: their most where the
 * wall is at its least. */
static double own_factor(const struct fix *f, enum bound bound)
{
	return bound == BOUND_LEAST || bound == BOUND_SAVINGS_MOST ? factor(f->own_hi)
	     : bound == BOUND_MOST || bound == BOUND_SAVINGS_LEAST ? factor(f->own_lo) : 1;
}

/* The savings of its own a chosen rule (parts 0) gives t, at `bound`'s
 * end, unless a part it is excluded by is taken out of t beside it. */
static double own_seconds_at(const struct advice_input *in, const struct advice *a, const bool *chosen, size_t tu,
			     int parts, enum bound bound)
{
	double s = 0;
	for (int id = 0; id < NFIXES; id++) {
		const struct fix *f = &a->fixes[id];
		if (!chosen[id] || in->rules[id]->parts || (parts & in->rules[id]->excluded_by))
			continue;
		double k = own_factor(f, bound);
		for (size_t i = 0; i < f->ntus; i++)
			if (f->tus[i] == tu)
				s += f->saving[i] * k;
	}
	return s;
}

/* What chosen fixes whose savings were measured take out of t, at
 * `bound`'s end; *covered: the parts they take (no probe counts them). */
static double measured_seconds_at(const struct advice_input *in, const struct advice *a, const bool *chosen,
				  size_t tu, enum bound bound, int *covered)
{
	double s = 0;
	*covered = 0;
	for (int id = 0; id < NFIXES; id++) {
		const struct fix *f = &a->fixes[id];
		if (!chosen[id] || !f->proven)
			continue;
		double k = own_factor(f, bound);
		for (size_t i = 0; i < f->ntus; i++)
			if (f->tus[i] == tu && f->proven[i]) {
				s += f->saving[i] * k;
				*covered |= in->rules[id]->parts;
			}
	}
	return s;
}

/* The model with the chosen fixes applied, at `bound`'s end of the
 * baseline's and the savings' spread, scheduled with `curve`; `added`
 * (NULL: not wanted) names the steps the fixes add. */
static void model_with(const struct advice_input *in, const struct advice *a, const bool *chosen, enum bound bound,
		       enum curve_end curve, struct model *m, struct sched_options *o, const char **added)
{
	size_t n = in->build->n;
	double spread = bound == BOUND_LEAST ? factor(in->spread_lo) : bound == BOUND_MOST ? factor(in->spread_hi) : 1;
	const double *base = curve == CURVE_MEDIAN ? in->seconds : in->curve_ends[curve].seconds;
	double *seconds = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		seconds[i] = base[i] * spread;
	int *parts = xcalloc(in->ntus, sizeof(int));
	for (int id = 0; id < NFIXES; id++)
		for (size_t k = 0; chosen[id] && k < a->fixes[id].ntus; k++)
			parts[a->fixes[id].tus[k]] |= in->rules[id]->parts;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		double d = isnan(seconds[t->edge]) ? 0 : seconds[t->edge];
		int covered;
		double measured = measured_seconds_at(in, a, chosen, i, bound, &covered);
		double saved = part_seconds_at(t, parts[i] & ~covered, bound) + measured +
			       own_seconds_at(in, a, chosen, i, parts[i], bound);
		double cut = d - spread * saved, least = floor_of(t, d);
		seconds[t->edge] = cut > least ? cut : least;
	}
	*o = in->sched;
	if (curve != CURVE_MEDIAN)
		o->curve = &in->curve_ends[curve].curve;
	const char *names[FIX_ADDED_MAX];
	struct fix_edit e = { .in = in, .chosen = chosen, .parts = parts, .spread = spread, .seconds = seconds, .m = m, .o = o,
			      .added = added ? added : names };
	for (int id = 0; id < NFIXES; id++)
		if (chosen[id] && in->rules[id]->edit_seconds) {
			e.f = &a->fixes[id];
			in->rules[id]->edit_seconds(&e);
		}
	model_from_build(m, in->build, seconds);
	if (in->step_memory)
		model_set_memory(m, in->step_memory, in->build->n);
	for (int id = 0; id < NFIXES; id++)
		if (chosen[id] && in->rules[id]->edit_graph) {
			e.f = &a->fixes[id];
			in->rules[id]->edit_graph(&e);
		}
	free(parts);
	free(seconds);
}

static struct prediction predict_at(const struct advice_input *in, const struct advice *a, const bool *chosen,
				    enum bound bound, enum curve_end curve)
{
	struct model m;
	struct sched_options o;
	struct prediction p = { 0 };
	model_with(in, a, chosen, bound, curve, &m, &o, NULL);
	if (!model_predict(&m, &o, &p))
		p.wall = NAN;	/* a cycle or an interrupt: the caller checks */
	model_free(&m);
	return p;
}

static struct prediction predict_with(const struct advice_input *in, const struct advice *a, const bool *chosen)
{
	return predict_at(in, a, chosen, BOUND_MEDIAN, CURVE_MEDIAN);
}

/* The baseline's and the savings' spread, and the load curve's: a fix
 * that changes how many heavy jobs run at once moves the wall by how much
 * they slow each other, which the curve's spread bounds (the baseline
 * itself, isolated and scheduled by one curve, comes back the same). */
static struct range range_with(const struct advice_input *in, const struct advice *a, const bool *chosen)
{
	struct range r = { predict_at(in, a, chosen, BOUND_LEAST, CURVE_MEDIAN).wall,
			   predict_at(in, a, chosen, BOUND_MOST, CURVE_MEDIAN).wall };
	for (enum curve_end end = CURVE_FLAT; in->curve_ends && end <= CURVE_STEEP; end++) {
		double lo = predict_at(in, a, chosen, BOUND_LEAST, end).wall,
		       hi = predict_at(in, a, chosen, BOUND_MOST, end).wall;
		r.lo = lo < r.lo ? lo : r.lo;
		r.hi = hi > r.hi ? hi : r.hi;
	}
	return r;
}

static struct range savings_range(const struct advice_input *in, const struct advice *a, const bool *chosen)
{
	return (struct range){ predict_at(in, a, chosen, BOUND_SAVINGS_MOST, CURVE_MEDIAN).wall,
			       predict_at(in, a, chosen, BOUND_SAVINGS_LEAST, CURVE_MEDIAN).wall };
}

void advice_build(const struct advice_input *in, struct advice *a)
{
	*a = (struct advice){ 0 };
	bool none[NFIXES] = { false };
	for (int id = 0; id < NFIXES; id++) {
		const struct fix_rule *rule = in->rules[id];
		a->fixes[id] = (struct fix){ .id = (enum fix_id)id, .name = rule->name, .title = rule->title };
		rule->apply(in, in->evidence ? in->evidence[id] : NULL, &a->fixes[id]);
	}
	a->baseline = predict_with(in, a, none);
	a->baseline_range = range_with(in, a, none);
	for (int id = 0; id < NFIXES; id++) {
		struct fix *f = &a->fixes[id];
		f->applies = !f->not_applicable;
		if (!f->applies)
			continue;
		bool only[NFIXES] = { false };
		only[id] = true;
		f->alone = predict_with(in, a, only);
		f->alone_range = range_with(in, a, only);
	}
	for (int id = 0; id < NFIXES; id++)
		if (a->fixes[id].applies && in->rules[id]->conclude)
			in->rules[id]->conclude(in, a, &a->fixes[id]);

	/* The plan: each step the fix that lowers the predicted wall most,
	 * while one still lowers it (by more than 0.5 %). */
	bool chosen[NFIXES] = { false };
	struct prediction now = a->baseline;
	struct range noise = savings_range(in, a, chosen);	/* the step before's, savings' spread only */
	a->plan = xcalloc(NFIXES, sizeof(*a->plan));
	for (;;) {
		int best = -1;
		struct prediction best_p = now;
		for (int id = 0; id < NFIXES; id++) {
			if (!a->fixes[id].applies || chosen[id])
				continue;
			chosen[id] = true;
			struct prediction p = predict_with(in, a, chosen);
			chosen[id] = false;
			/* Two fixes that leave the same wall (the same step sets
			 * it) tie to the last bit only by rounding: the one
			 * that leaves less work wins, so that the order does not
			 * turn on digits no measurement has. */
			double tie = 1e-9 * now.wall;
			if (p.wall < now.wall - 0.005 * now.wall &&
			    (best < 0 || p.wall < best_p.wall - tie ||
			     (p.wall <= best_p.wall + tie && p.work < best_p.work - tie))) {
				best = id;
				best_p = p;
			}
		}
		if (best < 0)
			break;
		chosen[best] = true;
		struct range after = savings_range(in, a, chosen);
		a->plan[a->nplan++] = (struct plan_step){ (enum fix_id)best, best_p, range_with(in, a, chosen),
							  after.hi < noise.lo };
		noise = after;
		now = best_p;
	}

	/* What sets the wall at the end: the critical path after the plan,
	 * a TU a fix adds named by what it is. */
	struct model m;
	struct sched_options o;
	const char *added[FIX_ADDED_MAX];
	model_with(in, a, chosen, BOUND_MEDIAN, CURVE_MEDIAN, &m, &o, added);
	size_t *chain = xcalloc(m.n, sizeof(size_t));
	size_t len = graph_longest_chain(m.nodes, m.n, chain);
	a->final_chain = xcalloc(len ? len : 1, sizeof(size_t));
	a->final_names = xcalloc(len ? len : 1, sizeof(char *));
	for (size_t i = 0; i < len; i++) {
		if (m.nodes[chain[i]].free)
			continue;
		a->final_chain[a->nfinal] = chain[i];
		a->final_names[a->nfinal++] = chain[i] < in->build->n ? in->build->edges[chain[i]].outputs.v[0]
								      : added[chain[i] - in->build->n];
	}
	a->final_critical = graph_longest_path(m.nodes, m.n, NULL);
	free(chain);
	model_free(&m);
}

void advice_free(struct advice *a)
{
	for (int id = 0; id < NFIXES; id++) {
		struct fix *f = &a->fixes[id];
		free(f->tus);
		free(f->saving);
		free(f->proven);
		free(f->evidence);
		free(f->measured_by);
		free(f->not_applicable);
	}
	free(a->plan);
	free(a->final_chain);
	free(a->final_names);
	*a = (struct advice){ 0 };
}
