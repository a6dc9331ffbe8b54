/* advise's measurements saved in its --json document (`model_input`) and
 * read back by advise --from: everything the advice model takes (the
 * graph, each step's isolated duration, the load curve and its ends, each
 * TU's facts, the header probes' costs, the fused probe, the cluster's
 * shares) at full precision, so that a plan for another job count or
 * policy is the same arithmetic on the same numbers, with nothing
 * compiled. The document's other measured parts (probes, the TUs' lines
 * and passes, the kernels) are carried over as they are (advise_render.c). */
#define _GNU_SOURCE
#include "walk.h"
#include "rule.h"
#include "out_json.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Bumped when a field the model needs changes; an older document is
 * refused, not half read. */
#define ADVISE_INPUT_FORMAT 1

/* ---- writing ---- */

/* The document holds a number to BUILDWALL_JSON_DIGITS significant
 * digits (json_print): the model runs on each input as the document holds
 * it, so that --from on the document gives back its plan to the last
 * digit, not one whose ties and rounding moved by the digits the text
 * dropped. */
void advise_held(double *x)
{
	char text[64];
	if (!isfinite(*x))
		return;
	snprintf(text, sizeof(text), "%.*g", BUILDWALL_JSON_DIGITS, *x);
	*x = strtod(text, NULL);
}

static void held_all(double *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		advise_held(&v[i]);
}

static void held_curve(struct load_curve *c)
{
	held_all(c->jobs, c->n);
	held_all(c->slowdown, c->n);
	held_all(c->lo, c->n);
	held_all(c->hi, c->n);
	advise_held(&c->cores);
}

void advise_hold_inputs(struct advise *ad)
{
	size_t n = ad->build.n;
	held_all(ad->base.seconds, n);
	held_curve(&ad->load.curve);
	for (int k = 0; k < 2; k++) {
		held_curve(&ad->load.ends[k].curve);
		held_all(ad->load.end_seconds[k], n);
	}
	double *spread[] = { &ad->base.builds_lo, &ad->base.builds_hi, &ad->base.machine_lo, &ad->base.machine_hi, &ad->base.spread_lo,
			     &ad->base.spread_hi, &ad->base.recorded_wall, &ad->probes.fused.glue, &ad->probes.fused.probe, &ad->probes.fused.headers,
			     &ad->cluster.remote.speed, &ad->cluster.net.fixed_s, &ad->cluster.net.per_byte_s };
	for (size_t k = 0; k < sizeof(spread) / sizeof(spread[0]); k++)
		advise_held(spread[k]);
	for (size_t g = 0; g < ad->probes.ngroups; g++) {
		struct header_cost *c = &ad->probes.groups[g].cost;
		advise_held(&c->host);
		advise_held(&c->device);
		advise_held(&c->base_host);
		advise_held(&c->base_device);
	}
	for (size_t i = 0; i < ad->ntus; i++) {
		struct tu_facts *f = &ad->tus[i].f;
		double *v[] = { &f->scale, &f->cost_lo, &f->cost_hi, &f->glue, &f->table_saving, &f->codegen_share };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			advise_held(v[k]);
	}
	if (ad->cluster.remote.slots) {
		held_all(ad->cluster.share, n);
		held_all(ad->cluster.network, n);
	}
}

/* A number at full precision; null for NaN (JSON has none). */
bool saved_number(const json_t *v, double *x)
{
	if (json_is_null(v)) {
		*x = NAN;
		return true;
	}
	*x = json_number_value(v);
	return json_is_number(v) && *x >= 0 && *x < 1e9;
}

bool saved_triple(const json_t *v, double *a, double *b, double *c)
{
	return json_is_array(v) && json_array_size(v) == 3 && saved_number(json_array_get(v, 0), a) &&
	       saved_number(json_array_get(v, 1), b) && saved_number(json_array_get(v, 2), c);
}

char *saved_text(const json_t *v)
{
	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

json_t *saved_triple_json(double a, double b, double c)
{
	return json_pack("[o, o, o]", advise_json_number(a), advise_json_number(b), advise_json_number(c));
}

json_t *saved_text_json(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *advise_json_number(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *numbers(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, advise_json_number(v[i]));
	return a;
}


/* The steps' memory (peaks, shapes) and the limit the jobs were held to;
 * null where no peak was measured. */
static json_t *memory_json(const struct advise *ad)
{
	if (!ad->step_memory || !ad->npeaks)
		return json_null();
	json_t *peaks = json_array(), *shapes = json_array();
	for (size_t i = 0; i < ad->build.n; i++) {
		const struct step_memory *m = &ad->step_memory[i];
		json_array_append_new(peaks, m->peak_kb > 0 ? json_integer((json_int_t)m->peak_kb) : json_null());
		json_t *shape = m->has_shape ? json_array() : json_null();
		for (int k = 0; m->has_shape && k < GRAPH_SHAPE_BINS; k++)
			json_array_append_new(shape, json_real(m->shape[k]));
		json_array_append_new(shapes, shape);
	}
	return json_pack("{s:o, s:o, s:o, s:s?, s:I}", "peak_kib", peaks, "shape", shapes, "limit_kib",
			 ad->memory_kb > 0 ? json_integer((json_int_t)ad->memory_kb) : json_null(), "limit_from",
			 ad->memory_from, "measured_for_it", (json_int_t)ad->memory_peaks_measured);
}

static json_t *curve_json(const struct load_curve *c)
{
	json_t *samples = json_array();
	for (size_t i = 0; i < c->n; i++)
		json_array_append_new(samples, json_integer((json_int_t)c->samples[i]));
	return json_build("{s:o, s:o, s:o, s:o, s:o, s:o}", "jobs", numbers(c->jobs, c->n), "slowdown",
			 numbers(c->slowdown, c->n), "lo", numbers(c->lo, c->n), "hi", numbers(c->hi, c->n), "samples",
			 samples, "cores", advise_json_number(c->cores));
}

static json_t *cost_json(const struct probe_group *g)
{
	if (!g->measured)
		return json_null();
	const struct header_cost *c = &g->cost;
	return json_build("{s:s, s:s, s:o, s:o, s:o, s:o}", "headers", c->headers, "command_of", c->command_of, "host",
			 advise_json_number(c->host), "device", advise_json_number(c->device), "base_host", advise_json_number(c->base_host), "base_device",
			 advise_json_number(c->base_device));
}

/* A TU's cost pointer as the index of the probe group that owns it. */
static json_t *group_index(const struct advise *ad, const struct header_cost *c)
{
	for (size_t g = 0; c && g < ad->probes.ngroups; g++)
		if (&ad->probes.groups[g].cost == c)
			return json_integer((json_int_t)g);
	return json_null();
}

static json_t *tu_json(const struct advise *ad, const struct tu_facts *f)
{
	json_t *t = json_build("{s:I, s:o, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b}", "edge", (json_int_t)f->edge,
			      "scale", advise_json_number(f->scale), "kernel", f->kernel, "device_passes", f->device_passes, "binding",
			      f->binding, "tensor_only", f->tensor_only, "generated", f->generated, "host_framework",
			      f->host_framework, "device_framework", f->device_framework, "includes_framework",
			      f->includes_framework, "probed", f->probed, "codegen_bound", f->codegen_bound);
	json_object_set_new(t, "frameworks", saved_text_json(f->frameworks));
	json_object_set_new(t, "leak_chain", saved_text_json(f->leak_chain));
	json_object_set_new(t, "leak_fix", saved_text_json(f->leak_fix));
	json_object_set_new(t, "host_lines", json_integer((json_int_t)f->host_lines));
	json_object_set_new(t, "framework_lines", json_integer((json_int_t)f->framework_lines));
	json_object_set_new(t, "cost", group_index(ad, f->cost));
	json_object_set_new(t, "cost_lo", advise_json_number(f->cost_lo));
	json_object_set_new(t, "cost_hi", advise_json_number(f->cost_hi));
	json_object_set_new(t, "glue", advise_json_number(f->glue));
	json_object_set_new(t, "table_entries", json_integer((json_int_t)f->table_entries));
	json_object_set_new(t, "table_saving", advise_json_number(f->table_saving));
	json_object_set_new(t, "narrow", group_index(ad, f->narrow));
	json_object_set_new(t, "narrow_at", saved_text_json(f->narrow_at));
	json_object_set_new(t, "narrow_change", saved_text_json(f->narrow_change));
	json_object_set_new(t, "narrow_why_not", saved_text_json(f->narrow_why_not));
	json_object_set_new(t, "codegen_share", advise_json_number(f->codegen_share));
	json_object_set_new(t, "codegen_pass", saved_text_json(f->codegen_pass));
	return t;
}

static json_t *remote_json(const struct advise *ad)
{
	if (!ad->cluster.remote.slots)
		return json_null();
	size_t n = ad->build.n;
	return json_build("{s:I, s:o, s:o, s:o, s:I, s:o, s:o}", "slots", (json_int_t)ad->cluster.remote.slots, "speed",
			 advise_json_number(ad->cluster.remote.speed), "share", numbers(ad->cluster.share, n), "from", saved_text_json(ad->cluster.distcc_path),
			 "local_probed", (json_int_t)ad->cluster.local_probed, "network",
			 ad->cluster.network ? numbers(ad->cluster.network, n) : json_null(), "net",
			 !ad->cluster.network ? json_null()
				      : json_build("{s:o, s:o, s:I, s:I}", "fixed_s", advise_json_number(ad->cluster.net.fixed_s), "per_byte_s",
						  advise_json_number(ad->cluster.net.per_byte_s), "probe_bytes", (json_int_t)ad->cluster.net.probe_bytes,
						  "repeats", (json_int_t)ad->cluster.net.repeats));
}

json_t *advise_input_json(const struct advise *ad)
{
	const struct ninja_build *b = &ad->build;
	json_t *graph = json_array();
	for (size_t i = 0; i < b->n; i++) {
		json_t *deps = json_array();
		for (size_t k = 0; k < b->edges[i].ndeps; k++)
			json_array_append_new(deps, json_integer((json_int_t)b->edges[i].deps[k]));
		json_array_append_new(graph, json_build("{s:s, s:b, s:o}", "output", b->edges[i].outputs.v[0], "phony",
						       ninja_edge_is_phony(&b->edges[i]), "deps", deps));
	}
	json_t *ends = json_null();
	if (ad->load.spread) {
		ends = json_array();
		for (int k = 0; k < 2; k++)
			json_array_append_new(ends, json_build("{s:o, s:o}", "curve", curve_json(&ad->load.ends[k].curve),
							      "seconds", numbers(ad->load.end_seconds[k], b->n)));
	}
	json_t *costs = json_array(), *tus = json_array();
	for (size_t g = 0; g < ad->probes.ngroups; g++)
		json_array_append_new(costs, cost_json(&ad->probes.groups[g]));
	for (size_t i = 0; i < ad->ntus; i++)
		json_array_append_new(tus, tu_json(ad, &ad->tus[i].f));
	const struct fused_cost *f = &ad->probes.fused;
	json_t *in = json_build("{s:i, s:I, s:I, s:s, s:s, s:s, s:o, s:o}", "format", ADVISE_INPUT_FORMAT, "cpus",
			       (json_int_t)ad->cpus, "repeats", (json_int_t)ad->repeats, "policy_why", ad->policy_why,
			       "baseline_source", ad->base.source, "load_source", ad->load.source ? ad->load.source : "",
			       "launcher", saved_text_json(ad->cluster.launcher), "build_launcher", saved_text_json(ad->cluster.build_launcher));
	json_object_set_new(in, "recorded_wall_s", advise_json_number(ad->base.recorded_wall));
	json_object_set_new(in, "spread", json_build("{s:[o, o], s:[o, o], s:[o, o]}", "builds", advise_json_number(ad->base.builds_lo),
						    advise_json_number(ad->base.builds_hi), "machine", advise_json_number(ad->base.machine_lo),
						    advise_json_number(ad->base.machine_hi), "ranges", advise_json_number(ad->base.spread_lo),
						    advise_json_number(ad->base.spread_hi)));
	json_object_set_new(in, "graph", graph);
	json_object_set_new(in, "seconds", numbers(ad->base.seconds, b->n));
	json_object_set_new(in, "memory", memory_json(ad));
	json_object_set_new(in, "load_curve", curve_json(&ad->load.curve));
	json_object_set_new(in, "curve_ends", ends);
	json_object_set_new(in, "header_costs", costs);
	json_object_set_new(in, "tus", tus);
	json_object_set_new(in, "fused", !ad->probes.fused_measured ? json_null()
		: json_build("{s:o, s:o, s:o, s:I, s:I, s:b, s:b, s:s}", "glue", advise_json_number(f->glue), "probe", advise_json_number(f->probe),
			    "headers", advise_json_number(f->headers), "included", (json_int_t)f->included, "instances",
			    (json_int_t)f->instances, "apart", f->apart, "namespaced", f->namespaced, "command_of", f->command_of));
	json_object_set_new(in, "fused_narrow", ad->probes.fused_narrow_group >= 0 && ad->probes.groups[ad->probes.fused_narrow_group].measured
		? json_integer((json_int_t)ad->probes.fused_narrow_group) : json_null());
	json_object_set_new(in, "remote", remote_json(ad));
	json_t *rules = json_object();
	for (int id = 0; id < NFIXES; id++)
		if (ad->evidence[id])
			json_object_set_new(rules, fix_rules[id]->name, fix_rules[id]->walk->save(ad->evidence[id]));
	json_object_set_new(in, "rules", rules);
	return in;
}

/* ---- reading ---- */

/* Past this a "duration" is a broken document, not a compile (a year). */
#define SAVED_MAX_SECONDS (365.0 * 24 * 3600)
/* As -j takes (OPT_BUILD_JOBS): the jobs curve runs up to twice the CPUs. */
#define MAX_JOBS 4096

/* Where a reading stands: the file, and the first thing wrong with it. */
struct reader {
	const char *path;
	char *err;		/* owned; NULL while all is well */
};

static bool wrong(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool wrong(struct reader *r, const char *fmt, ...)
{
	if (r->err)
		return false;
	va_list ap;
	va_start(ap, fmt);
	char *what = NULL;
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	r->err = xasprintf("%s: model_input.%s", r->path, what ? what : "unreadable");
	free(what);
	return false;
}

/* A number in [lo, hi], or NaN where null is allowed. */
static double num(struct reader *r, json_t *v, const char *where, double lo, double hi, bool null_ok)
{
	if (json_is_null(v) && null_ok)
		return NAN;
	if (!json_is_number(v)) {
		wrong(r, "%s: not a number", where);
		return NAN;
	}
	double x = json_number_value(v);
	if (!(x >= lo && x <= hi)) {
		wrong(r, "%s: %g is out of range (%g to %g)", where, x, lo, hi);
		return NAN;
	}
	return x;
}

static double num_at(struct reader *r, json_t *o, const char *key, double lo, double hi, bool null_ok)
{
	return num(r, json_object_get(o, key), key, lo, hi, null_ok);
}

static size_t count_at(struct reader *r, json_t *o, const char *key, size_t max)
{
	double x = num_at(r, o, key, 0, (double)max, false);
	return isnan(x) || x != floor(x) ? (wrong(r, "%s: not a count", key), 0) : (size_t)x;
}

static bool flag_at(struct reader *r, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	if (!json_is_boolean(v))
		return wrong(r, "%s: not true or false", key);
	return json_is_true(v);
}

/* An owned copy of a string, or NULL for null (where allowed). */
static char *text_at(struct reader *r, json_t *o, const char *key, bool null_ok)
{
	json_t *v = json_object_get(o, key);
	if (json_is_null(v) && null_ok)
		return NULL;
	if (!json_is_string(v)) {
		wrong(r, "%s: not a string", key);
		return NULL;
	}
	return xstrdup(json_string_value(v));
}

/* An array of exactly n numbers (seconds, shares), NaN for null. */
static double *numbers_at(struct reader *r, json_t *o, const char *key, size_t n, double hi)
{
	json_t *a = json_object_get(o, key);
	double *v = xcalloc(n ? n : 1, sizeof(double));
	if (!json_is_array(a) || json_array_size(a) != n) {
		wrong(r, "%s: not an array of %zu numbers", key, n);
		return v;
	}
	for (size_t i = 0; i < n && !r->err; i++) {
		char where[64];
		snprintf(where, sizeof(where), "%s[%zu]", key, i);
		v[i] = num(r, json_array_get(a, i), where, 0, hi, true);
	}
	return v;
}

/* The steps' memory as saved (a document made before it has none). */
static void memory_from(struct reader *r, json_t *o, struct advise *ad)
{
	if (!o || json_is_null(o))
		return;
	size_t n = ad->build.n;
	json_t *peaks = json_object_get(o, "peak_kib"), *shapes = json_object_get(o, "shape");
	if (!json_is_array(peaks) || json_array_size(peaks) != n || !json_is_array(shapes) || json_array_size(shapes) != n) {
		wrong(r, "memory: not a peak and a shape for each of the %zu steps", n);
		return;
	}
	ad->step_memory = xcalloc(n ? n : 1, sizeof(*ad->step_memory));
	for (size_t i = 0; i < n && !r->err; i++) {
		struct step_memory *m = &ad->step_memory[i];
		double kb = num(r, json_array_get(peaks, i), "memory.peak_kib", 0, 1e12, true);
		m->peak_kb = isnan(kb) ? 0 : kb;
		json_t *shape = json_array_get(shapes, i);
		if (json_is_null(shape))
			continue;
		if (!json_is_array(shape) || json_array_size(shape) != GRAPH_SHAPE_BINS) {
			wrong(r, "memory.shape[%zu]: not %d shares of the peak", i, GRAPH_SHAPE_BINS);
			return;
		}
		for (size_t k = 0; k < GRAPH_SHAPE_BINS; k++)
			m->shape[k] = (float)num(r, json_array_get(shape, k), "memory.shape", 0, 1, false);
		m->has_shape = true;
	}
	for (size_t i = 0; i < n; i++)
		ad->npeaks += ad->step_memory[i].peak_kb > 0;
	double limit = num(r, json_object_get(o, "limit_kib"), "memory.limit_kib", 0, 1e12, true);
	ad->memory_kb = isnan(limit) ? 0 : limit;
	ad->memory_from = json_string_value(json_object_get(o, "limit_from"));
	double measured = num(r, json_object_get(o, "measured_for_it"), "memory.measured_for_it", 0, 1e9, false);
	ad->memory_peaks_measured = isnan(measured) ? 0 : (size_t)measured;
}

static void curve_from(struct reader *r, json_t *o, struct load_curve *c)
{
	*c = (struct load_curve){ 0 };
	json_t *jobs = json_object_get(o, "jobs");
	size_t n = json_array_size(jobs);
	if (!json_is_object(o) || !json_is_array(jobs) || n > LOAD_CURVE_LEVELS) {
		wrong(r, "load_curve: not a curve of at most %d levels", LOAD_CURVE_LEVELS);
		return;
	}
	static const char *const keys[] = { "jobs", "slowdown", "lo", "hi" };
	double *dst[] = { c->jobs, c->slowdown, c->lo, c->hi };
	for (size_t k = 0; k < 4; k++) {
		double *v = numbers_at(r, o, keys[k], n, 1e6);
		for (size_t i = 0; i < n; i++)
			dst[k][i] = isnan(v[i]) ? (wrong(r, "load_curve.%s[%zu]: null", keys[k], i), 1) : v[i];
		free(v);
	}
	json_t *samples = json_object_get(o, "samples");
	for (size_t i = 0; i < n; i++) {
		double s = num(r, json_array_get(samples, i), "load_curve.samples", 0, 1e6, false);
		c->samples[i] = isnan(s) ? 0 : (size_t)s;
	}
	for (size_t i = 1; i < n; i++)
		if (!(c->jobs[i] > c->jobs[i - 1]))
			wrong(r, "load_curve.jobs: not ascending");
	c->cores = num_at(r, o, "cores", 0, 1e6, false);
	c->n = r->err ? 0 : n;
}

static void graph_from(struct reader *r, json_t *graph, struct ninja_build *b)
{
	size_t n = json_array_size(graph);
	if (!json_is_array(graph) || !n) {
		wrong(r, "graph: not an array of the build's steps");
		return;
	}
	b->edges = xcalloc(n, sizeof(*b->edges));
	for (size_t i = 0; i < n && !r->err; i++) {
		json_t *e = json_array_get(graph, i), *deps = json_object_get(e, "deps");
		struct ninja_edge *edge = &b->edges[b->n++];
		char *output = text_at(r, e, "output", false);
		strvec_push(&edge->outputs, output ? output : "");
		free(output);
		if (flag_at(r, e, "phony"))
			edge->rule = xstrdup("phony");
		if (!json_is_array(deps)) {
			wrong(r, "graph[%zu].deps: not an array", i);
			break;
		}
		edge->deps = xcalloc(json_array_size(deps) + 1, sizeof(size_t));
		for (size_t k = 0; k < json_array_size(deps); k++) {
			json_t *d = json_array_get(deps, k);
			if (!json_is_integer(d) || json_integer_value(d) < 0 || (size_t)json_integer_value(d) >= n ||
			    (size_t)json_integer_value(d) == i) {
				wrong(r, "graph[%zu].deps[%zu]: not another step's index", i, k);
				break;
			}
			edge->deps[edge->ndeps++] = (size_t)json_integer_value(d);
		}
	}
}

/* A probe group's index (for a TU's cost or narrow headers), or -1. */
static long group_at(struct reader *r, json_t *o, const char *key, const struct advise *ad)
{
	json_t *v = json_object_get(o, key);
	if (json_is_null(v))
		return -1;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (size_t)json_integer_value(v) >= ad->probes.ngroups ||
	    !ad->probes.groups[json_integer_value(v)].measured) {
		wrong(r, "%s: not a measured header cost's index", key);
		return -1;
	}
	return (long)json_integer_value(v);
}

static void costs_from(struct reader *r, json_t *costs, struct advise *ad)
{
	if (!json_is_array(costs)) {
		wrong(r, "header_costs: not an array");
		return;
	}
	ad->probes.groups = xcalloc(json_array_size(costs) + 1, sizeof(*ad->probes.groups));
	for (size_t g = 0; g < json_array_size(costs) && !r->err; g++) {
		json_t *c = json_array_get(costs, g);
		struct probe_group *pg = &ad->probes.groups[ad->probes.ngroups++];
		pg->headers_tu = pg->empty_tu = -1;
		if (json_is_null(c))
			continue;
		pg->measured = true;
		pg->cost = (struct header_cost){ .headers = text_at(r, c, "headers", false),
						 .command_of = text_at(r, c, "command_of", false),
						 .host = num_at(r, c, "host", 0, SAVED_MAX_SECONDS, false),
						 .device = num_at(r, c, "device", 0, SAVED_MAX_SECONDS, false),
						 .base_host = num_at(r, c, "base_host", 0, SAVED_MAX_SECONDS, false),
						 .base_device = num_at(r, c, "base_device", 0, SAVED_MAX_SECONDS, false) };
	}
}

static void tu_from(struct reader *r, json_t *o, struct advise *ad, struct advise_tu *t)
{
	struct tu_facts *f = &t->f;
	*t = (struct advise_tu){ .group = -1, .probe_tu = -1, .table_tu = -1, .flat_tu = -1, .narrow_group = -1 };
	f->edge = count_at(r, o, "edge", ad->build.n ? ad->build.n - 1 : 0);
	f->name = ad->build.n ? ad->build.edges[f->edge].outputs.v[0] : "";
	f->scale = num_at(r, o, "scale", 0, 1e6, false);
	f->kernel = flag_at(r, o, "kernel");
	f->device_passes = flag_at(r, o, "device_passes");
	f->binding = flag_at(r, o, "binding");
	f->tensor_only = flag_at(r, o, "tensor_only");
	f->generated = flag_at(r, o, "generated");
	f->host_framework = flag_at(r, o, "host_framework");
	f->device_framework = flag_at(r, o, "device_framework");
	f->includes_framework = flag_at(r, o, "includes_framework");
	f->probed = flag_at(r, o, "probed");
	f->codegen_bound = flag_at(r, o, "codegen_bound");
	f->frameworks = text_at(r, o, "frameworks", true);
	f->leak_chain = text_at(r, o, "leak_chain", true);
	f->leak_fix = text_at(r, o, "leak_fix", true);
	f->host_lines = count_at(r, o, "host_lines", SIZE_MAX / 2);
	f->framework_lines = count_at(r, o, "framework_lines", SIZE_MAX / 2);
	t->group = group_at(r, o, "cost", ad);
	f->cost = t->group >= 0 ? &ad->probes.groups[t->group].cost : NULL;
	f->cost_lo = num_at(r, o, "cost_lo", 0, 1e6, true);
	f->cost_hi = num_at(r, o, "cost_hi", 0, 1e6, true);
	f->glue = num_at(r, o, "glue", 0, SAVED_MAX_SECONDS, true);
	f->table_entries = count_at(r, o, "table_entries", SIZE_MAX / 2);
	f->table_saving = num_at(r, o, "table_saving", -SAVED_MAX_SECONDS, SAVED_MAX_SECONDS, true);
	t->narrow_group = group_at(r, o, "narrow", ad);
	f->narrow = t->narrow_group >= 0 ? &ad->probes.groups[t->narrow_group].cost : NULL;
	/* The narrowing owns the strings the facts borrow (as in the walk). */
	t->narrow_at = text_at(r, o, "narrow_at", true);
	t->narrow.change = text_at(r, o, "narrow_change", true);
	t->narrow.why_not = text_at(r, o, "narrow_why_not", true);
	t->umbrella = t->narrow_at || t->narrow.change || t->narrow.why_not;
	f->narrow_at = t->narrow_at;
	f->narrow_change = t->narrow.change;
	f->narrow_why_not = t->narrow.why_not;
	f->codegen_share = num_at(r, o, "codegen_share", 0, 1, true);
	f->codegen_pass = text_at(r, o, "codegen_pass", true);
}

static void fused_from(struct reader *r, json_t *o, struct advise *ad)
{
	if (json_is_null(o) || !o)
		return;
	char *donor = text_at(r, o, "command_of", false);
	ad->probes.fused = (struct fused_cost){ .glue = num_at(r, o, "glue", 0, SAVED_MAX_SECONDS, false),
					 .probe = num_at(r, o, "probe", 0, SAVED_MAX_SECONDS, false),
					 .headers = num_at(r, o, "headers", 0, SAVED_MAX_SECONDS, false),
					 .included = count_at(r, o, "included", 1u << 20),
					 .instances = count_at(r, o, "instances", 1u << 20), .apart = flag_at(r, o, "apart"),
					 /* absent before it was measured: as they are, then */
					 .namespaced = json_is_true(json_object_get(o, "namespaced")) };
	/* command_of is borrowed: the TU's name, as the walk has it. */
	for (size_t i = 0; donor && i < ad->ntus; i++)
		if (!strcmp(ad->tus[i].f.name, donor))
			ad->probes.fused.command_of = ad->tus[i].f.name;
	if (!r->err && !ad->probes.fused.command_of)
		wrong(r, "fused.command_of: %s is not one of its TUs", donor);
	if (!r->err && !ad->probes.fused.instances)
		wrong(r, "fused.instances: none");
	free(donor);
	ad->probes.fused_measured = !r->err;
}

static void remote_from(struct reader *r, json_t *o, struct advise *ad)
{
	if (json_is_null(o) || !o)
		return;
	size_t n = ad->build.n;
	ad->cluster.remote = (struct remote_option){ .slots = (long)count_at(r, o, "slots", 1u << 20),
					     .speed = num_at(r, o, "speed", 1e-3, 1e3, false) };
	ad->cluster.share = numbers_at(r, o, "share", n, 1);
	for (size_t i = 0; i < n; i++)
		ad->cluster.share[i] = isnan(ad->cluster.share[i]) ? 0 : ad->cluster.share[i];
	ad->cluster.distcc_path = json_string_value(json_object_get(o, "from"));	/* borrowed from the document */
	ad->cluster.local_probed = count_at(r, o, "local_probed", SIZE_MAX / 2);
	json_t *net = json_object_get(o, "net");
	if (!json_is_null(json_object_get(o, "network")) && json_is_object(net)) {
		ad->cluster.network = numbers_at(r, o, "network", n, SAVED_MAX_SECONDS);
		ad->cluster.net = (struct net_cost){ .fixed_s = num_at(r, net, "fixed_s", 0, SAVED_MAX_SECONDS, false),
					     .per_byte_s = num_at(r, net, "per_byte_s", 0, SAVED_MAX_SECONDS, false),
					     .probe_bytes = count_at(r, net, "probe_bytes", SIZE_MAX / 2),
					     .repeats = (long)count_at(r, net, "repeats", 1u << 20) };
	}
}

/* The saved measurements into ad (the parts the model and the table
 * take); false with r->err set on the first thing wrong. */
static bool input_from(struct reader *r, json_t *doc, struct advise *ad)
{
	json_t *in = json_object_get(doc, "model_input");
	const char *command = json_string_value(json_object_get(doc, "command"));
	if (!command || strcmp(command, "advise")) {
		r->err = xasprintf("%s:1: not an 'advise --json' document: command is %s", r->path,
				   command ? command : "missing");
		return false;
	}
	if (!json_is_object(in)) {
		free(r->err);
		r->err = xasprintf("%s:1: an advise document without its saved measurements (model_input): made by an "
				   "older buildwall; run advise --json again", r->path);
		return false;
	}
	json_t *format = json_object_get(in, "format");
	if (!json_is_integer(format) || json_integer_value(format) != ADVISE_INPUT_FORMAT) {
		r->err = xasprintf("%s:1: model_input format %s; this buildwall reads format %d: run advise --json again",
				   r->path, json_is_integer(format) ? "of another buildwall" : "missing", ADVISE_INPUT_FORMAT);
		return false;
	}
	ad->cpus = (long)count_at(r, in, "cpus", MAX_JOBS);
	ad->repeats = (long)count_at(r, in, "repeats", 1000);
	ad->policy_why = text_at(r, in, "policy_why", false);
	ad->base.source = text_at(r, in, "baseline_source", false);
	ad->load.source = text_at(r, in, "load_source", false);
	ad->cluster.launcher = json_string_value(json_object_get(in, "launcher"));
	ad->cluster.build_launcher = json_string_value(json_object_get(in, "build_launcher"));
	ad->base.recorded_wall = num_at(r, in, "recorded_wall_s", 0, SAVED_MAX_SECONDS, true);
	json_t *spread = json_object_get(in, "spread");
	double *pairs[3][2] = { { &ad->base.builds_lo, &ad->base.builds_hi }, { &ad->base.machine_lo, &ad->base.machine_hi },
				{ &ad->base.spread_lo, &ad->base.spread_hi } };
	static const char *const spreads[] = { "builds", "machine", "ranges" };
	for (int k = 0; k < 3; k++)
		for (int e = 0; e < 2; e++)
			*pairs[k][e] = num(r, json_array_get(json_object_get(spread, spreads[k]), (size_t)e), "spread", 0, 1e3,
					   false);
	graph_from(r, json_object_get(in, "graph"), &ad->build);
	size_t n = ad->build.n;
	if (r->err)
		return false;
	ad->base.seconds = numbers_at(r, in, "seconds", n, SAVED_MAX_SECONDS);
	memory_from(r, json_object_get(in, "memory"), ad);
	curve_from(r, json_object_get(in, "load_curve"), &ad->load.curve);
	json_t *ends = json_object_get(in, "curve_ends");
	if (!json_is_null(ends)) {
		if (!json_is_array(ends) || json_array_size(ends) != 2)
			return wrong(r, "curve_ends: not its flat and steep ends");
		for (size_t k = 0; k < 2; k++) {
			json_t *end = json_array_get(ends, k);
			curve_from(r, json_object_get(end, "curve"), &ad->load.ends[k].curve);
			ad->load.end_seconds[k] = numbers_at(r, end, "seconds", n, SAVED_MAX_SECONDS);
			ad->load.ends[k].seconds = ad->load.end_seconds[k];
		}
		ad->load.spread = true;
	}
	costs_from(r, json_object_get(in, "header_costs"), ad);
	json_t *tus = json_object_get(in, "tus");
	if (!json_is_array(tus))
		return wrong(r, "tus: not an array");
	ad->tus = xcalloc(json_array_size(tus) + 1, sizeof(*ad->tus));
	for (size_t i = 0; i < json_array_size(tus) && !r->err; i++)
		tu_from(r, json_array_get(tus, i), ad, &ad->tus[ad->ntus++]);
	fused_from(r, json_object_get(in, "fused"), ad);
	json_t *fused_narrow = json_object_get(in, "fused_narrow");
	ad->probes.fused_narrow_group = fused_narrow ? group_at(r, in, "fused_narrow", ad) : -1;
	remote_from(r, json_object_get(in, "remote"), ad);
	/* A rule's own evidence; a document made before the rule has none. */
	json_t *rules = json_object_get(in, "rules");
	for (int id = 0; id < NFIXES && !r->err; id++) {
		json_t *saved = json_object_get(rules, fix_rules[id]->name);
		char *err = NULL;
		if (fix_rules[id]->walk && saved && !fix_rules[id]->walk->load(saved, ad, &ad->evidence[id], &err)) {
			wrong(r, "rules.%s: %s", fix_rules[id]->name, err);
			free(err);
		}
	}
	return !r->err;
}

bool advise_saved_parse(const char *text, size_t len, const char *path, struct advise **out, char **err)
{
	*out = NULL;
	json_error_t jerr;
	json_t *doc = json_loadb(text, len, 0, &jerr);
	if (!doc) {
		*err = xasprintf("%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
		return false;
	}
	struct reader r = { .path = path };
	struct advise *ad = xcalloc(1, sizeof(*ad));
	ad->probes.fused_tu = ad->probes.fused_apart_tu = ad->probes.fused_one_tu = ad->probes.fused_narrow_group = -1;
	ad->saved = doc;
	ad->from = path;
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema || strcmp(schema, BUILDWALL_SCHEMA))
		r.err = xasprintf("%s:1: not a buildwall document: schema is not " BUILDWALL_SCHEMA, path);
	else
		input_from(&r, doc, ad);
	const char *dir = json_string_value(json_object_get(doc, "build_dir"));
	ad->dir = dir ? dir : path;
	ad->jobs = (long)json_integer_value(json_object_get(doc, "jobs"));
	const char *policy = json_string_value(json_object_get(doc, "policy"));
	ad->policy = policy && !strcmp(policy, "critical") ? POLICY_CRITICAL : POLICY_MANIFEST;
	if (!r.err && (ad->jobs <= 0 || ad->jobs > MAX_JOBS || ad->cpus <= 0))
		r.err = xasprintf("%s: jobs: not a job count (1 to %d), or cpus none", path, MAX_JOBS);
	if (r.err) {
		*err = r.err;
		advise_free(ad);
		return false;
	}
	*out = ad;
	return true;
}

struct advise *advise_from(const struct advise_options *o)
{
	char *text = read_text_file(o->from);
	if (!text)
		die(EXIT_BAD_INPUT, "%s: %s", o->from, strerror(errno));
	struct advise *ad;
	char *err = NULL;
	bool ok = advise_saved_parse(text, strlen(text), o->from, &ad, &err);
	free(text);
	if (!ok)
		die(EXIT_BAD_INPUT, "%s", err);
	double start = monotonic_seconds();
	if (o->jobs)
		ad->jobs = o->jobs;
	if (o->policy.given) {
		ad->policy = o->policy.policy;
		free(ad->policy_why);
		ad->policy_why = xstrdup("--policy");
	}
	/* Another cluster: each compile's share there is the document's, its
	 * slots and speed the ones asked. */
	if (o->remote.slots) {
		if (!ad->cluster.share)
			die(EXIT_BAD_INPUT, "%s: its measurements hold no cluster (made without --remote): run advise "
			    "--remote N --json once to measure each compile's share there", o->from);
		ad->cluster.remote = o->remote;
	}
	/* Another box's memory: the document's peaks against it. */
	if (o->memory_kb > 0) {
		if (!ad->npeaks)
			die(EXIT_BAD_INPUT, "%s: its measurements hold no step's peak memory: run advise --memory SIZE --json "
			    "once to measure each TU's", o->from);
		ad->memory_kb = o->memory_kb;
		ad->memory_from = "--memory";
	}
	advise_model(ad);
	proc_exit_if_interrupted();
	ad->spent[SPENT_MODEL] = monotonic_seconds() - start;
	return ad;
}
