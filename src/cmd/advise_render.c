/* advise's renderers: the table advise prints and the document advise
 * --json and report draw, from a walk's evidence and advice. */
#define _GNU_SOURCE
#include "advise_render.h"
#include "walk.h"
#include "rule.h"
#include "headers.h"
#include "json_facts.h"
#include "out_json.h"
#include "out_table.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const spent_names[NSPENT] = { "baseline", "preprocess", "tables", "load_curve", "probes", "model" };

/* ---- rendering ---- */

static const char *const policy_words[] = { "manifest order", "longest path first" };

static int by_wall_alone(const void *a, const void *b)
{
	const struct fix *x = *(const struct fix *const *)a, *y = *(const struct fix *const *)b;
	return (x->alone.wall > y->alone.wall) - (x->alone.wall < y->alone.wall);
}

/* Applicable fixes, lowest predicted wall alone first; n set. */
static const struct fix **ranked(const struct advice *a, size_t *n)
{
	const struct fix **v = xcalloc(NFIXES, sizeof(*v));
	*n = 0;
	for (int id = 0; id < NFIXES; id++)
		if (a->fixes[id].applies)
			v[(*n)++] = &a->fixes[id];
	qsort(v, *n, sizeof(*v), by_wall_alone);
	return v;
}

static double percent(double now, double base)
{
	return base > 0 ? 100 * (now - base) / base : 0;
}

static const char *tu_name(const struct advise *ad, size_t tu)
{
	return ad->tus[tu].f.name;
}

static char *savings_text(const struct fix *f)
{
	if (!f->ntus)
		return xstrdup("-");
	double lo = f->saving[0], hi = f->saving[0];
	for (size_t k = 1; k < f->ntus; k++) {
		lo = f->saving[k] < lo ? f->saving[k] : lo;
		hi = f->saving[k] > hi ? f->saving[k] : hi;
	}
	return hi - lo < 0.005 ? xasprintf("%.2f s", lo) : xasprintf("%.2f-%.2f s", lo, hi);
}

static char *tus_text(const struct advise *ad, const struct fix *f)
{
	if (!f->ntus)
		return xstrdup("(the build)");
	return f->ntus == 1 ? xstrdup(tu_name(ad, f->tus[0]))
			    : xasprintf("%s +%zu", tu_name(ad, f->tus[0]), f->ntus - 1);
}

/* With -r 1 no probe ran twice: the savings have no spread, and whether
 * a step stands out of the noise cannot be told. */
static bool probes_repeated(const struct advise *ad)
{
	return ad->repeats >= 2;
}

/* A saved document's section, carried over as it was measured (advise
 * --from). */
static json_t *saved_part(const struct advise *ad, const char *key)
{
	json_t *v = json_object_get(ad->saved, key);
	return v ? json_deep_copy(v) : json_null();
}

/* The worst kernel a saved document names for a TU, or NULL. */
static json_t *saved_worst_kernel(const struct advise *ad, const char *target)
{
	json_t *k;
	size_t i;
	json_array_foreach(ad->saved ? json_object_get(ad->saved, "kernel_work") : NULL, i, k) {
		const char *name = json_string_value(json_object_get(k, "target"));
		if (name && !strcmp(name, target))
			return json_object_get(k, "worst_kernel");
	}
	return NULL;
}

/* The build's predicted peak at its -j against the memory there is:
 * said before anything else where it does not fit. */
static void print_memory(const struct advise *ad)
{
	const struct advice *a = &ad->advice;
	if (!(a->baseline.peak_kb > 0))
		return;
	char *peak = format_kib((long)a->baseline.peak_kb);
	printf("memory: predicted peak at -j %ld %s (%zu of its steps' peaks measured", ad->jobs, peak, ad->npeaks);
	if (a->baseline.peak_unknown)
		printf(", %zu counted as none", a->baseline.peak_unknown);
	printf(")");
	if (ad->memory.rows) {
		char *usable = format_kib((long)ad->memory.usable_kb);
		bool fits = a->baseline.peak_kb <= ad->memory.usable_kb;
		printf(" against %s usable (%s less %.0f %%)%s", usable, ad->memory_from, MEMORY_MARGIN * 100,
		       fits ? ": it fits" : "");
		if (!fits)
			printf(": %sDOES NOT FIT%s, see jobs below", c_bold(stdout), c_reset(stdout));
		free(usable);
	}
	printf("\n");
	free(peak);
}

void advise_render_table(const struct advise *ad)
{
	const struct advice *a = &ad->advice;
	printf("%sadvise%s: %zu compile step%s in %s; baseline from %s", c_bold(stdout), c_reset(stdout), ad->ntus,
	       ad->ntus == 1 ? "" : "s", ad->dir, ad->base.source);
	if (!isnan(ad->base.recorded_wall))
		printf(" (recorded wall %.2f s)", ad->base.recorded_wall);
	if (ad->cluster.launcher) {
		struct cluster_runs c = cluster_runs(ad);
		printf("\nthrough %s: %zu of %zu runs sent to the cluster, %zu kept here%s", ad->cluster.launcher, c.sent,
		       c.sent + c.kept_here, c.kept_here, c.fell_back ? " (a host failed them)" : "");
	}
	printf("\npredicted wall at -j %ld (%s: %s): %s%.2f s%s, %.2f-%.2f; the %s binds\n", ad->jobs,
	       policy_words[ad->policy], ad->policy_why, c_bold(stdout), a->baseline.wall, c_reset(stdout),
	       a->baseline_range.lo, a->baseline_range.hi, a->baseline.binds);
	print_memory(ad);
	char *curve = load_curve_text(&ad->load.curve);
	if (!ad->load.curve.n && ad->load.curve.cores <= 0)	/* the source says why there is none */
		printf("load curve (slowdown by jobs at once): %s\n\n", ad->load.source);
	else
		printf("load curve (slowdown by jobs at once): %s; from %s\n\n", curve, ad->load.source);
	free(curve);

	size_t n;
	const struct fix **v = ranked(a, &n);
	if (!n)
		printf("no fix applies (what was checked is below)\n");
	struct table *tab = table_new();
	table_column(tab, "fix", false);
	table_column(tab, "TUs", false);
	table_column(tab, "saving per TU", true);
	table_column(tab, "wall with it alone", true);
	for (size_t i = 0; i < n; i++) {
		char *tus = tus_text(ad, v[i]), *sav = savings_text(v[i]);
		table_cell(tab, "%s", v[i]->name);
		table_cell(tab, "%s", tus);
		table_cell(tab, "%s", sav);
		table_cell(tab, "%.2f s, %.2f-%.2f (%+.0f%%)", v[i]->alone.wall, v[i]->alone_range.lo, v[i]->alone_range.hi,
			   percent(v[i]->alone.wall, a->baseline.wall));
		free(tus);
		free(sav);
	}
	if (n)
		table_print(tab, stdout);
	table_free(tab);
	for (size_t i = 0; i < n; i++) {
		printf("\n%s%s%s: %s\n  evidence: %s\n  measured: %s\n", c_bold(stdout), v[i]->name, c_reset(stdout),
		       v[i]->title, v[i]->evidence, v[i]->measured_by);
		if (v[i]->ntus > 1) {
			printf("  TUs:");
			for (size_t k = 0; k < v[i]->ntus; k++)
				printf("%s %s (%.2f s)", k ? "," : "", tu_name(ad, v[i]->tus[k]), v[i]->saving[k]);
			printf("\n");
		}
	}
	free(v);

	printf("\n%splan%s (predicted; each step on top of the ones before):\n", c_bold(stdout), c_reset(stdout));
	tab = table_new();
	table_column(tab, "step", true);
	table_column(tab, "fix", false);
	table_column(tab, "predicted wall", true);
	table_column(tab, "range", true);
	table_column(tab, "vs baseline", true);
	table_column(tab, "beyond noise", false);
	table_column(tab, "binds", false);
	table_cell(tab, "0");
	table_cell(tab, "baseline");
	table_cell(tab, "%.2f s", a->baseline.wall);
	table_cell(tab, "%.2f-%.2f", a->baseline_range.lo, a->baseline_range.hi);
	table_cell(tab, "-");
	table_cell(tab, "-");
	table_cell(tab, "%s", a->baseline.binds);
	for (size_t s = 0; s < a->nplan; s++) {
		table_cell(tab, "%zu", s + 1);
		table_cell(tab, "%s", a->fixes[a->plan[s].id].name);
		table_cell(tab, "%.2f s", a->plan[s].after.wall);
		table_cell(tab, "%.2f-%.2f", a->plan[s].range.lo, a->plan[s].range.hi);
		table_cell(tab, "%+.0f%%", percent(a->plan[s].after.wall, a->baseline.wall));
		table_cell(tab, "%s", !probes_repeated(ad) ? "unknown: -r 1"
				      : a->plan[s].distinct ? "yes" : "no: overlaps the step before");
		table_cell(tab, "%s", a->plan[s].after.binds);
	}
	table_print(tab, stdout);
	table_free(tab);
	if (!probes_repeated(ad))
		printf("each probe ran once (-r 1): its savings' spread is unknown, and so is whether a step is beyond "
		       "noise; -r 3 measures them\n");
	printf("ranges: the baseline builds' least and most wall (%.2fx-%.2fx their median", ad->base.builds_lo, ad->base.builds_hi);
	if (ad->base.spread_lo < ad->base.builds_lo || ad->base.spread_hi > ad->base.builds_hi)
		printf(", widened to %.2fx-%.2fx: the most a probe repeated in this run moved", ad->base.spread_lo, ad->base.spread_hi);
	printf(") with the probes' least and most savings (a proven edit's: its walls' ends and what its untimed TUs "
	       "carry)%s; they hold for this sitting: between sittings a "
	       "machine may move every step alike (see a step's ratio to the baseline)\n",
	       ad->load.spread ? ", each with the load curve at its flattest and steepest" : "");
	for (size_t s = 0; s < a->nplan; s++)
		if (a->fixes[a->plan[s].id].measured)
			printf("step %zu (%s) is proven: its edit was made on a copy of the sources, compiled and timed\n", s + 1,
			       a->fixes[a->plan[s].id].name);
	for (size_t k = 0; k < ad->npatches; k++) {
		const struct advise_patch *p = &ad->patches[k];
		if (p->step)
			printf("%spatch for step %zu (%s): %s (git apply, or patch -p1, in the project's root)\n",
			       k ? "" : "\n", p->step, fix_rules[p->id]->name, p->path);
		else
			printf("%spatch for %s, not in the plan at -j %ld (it lowers no wall there): %s (git apply, or "
			       "patch -p1, in the project's root)\n", k ? "" : "\n", fix_rules[p->id]->name, ad->jobs, p->path);
	}
	printf("at the end, the critical path (%.2f s):", a->final_critical);
	for (size_t i = 0; i < a->nfinal; i++)
		printf("%s %s", i ? " ->" : "", a->final_names[i]);
	printf("\n");
	for (size_t i = 0; i < ad->ntus; i++) {
		if (!ad->tus[i].f.codegen_bound)
			continue;
		printf("kernel work: %s: machine code generation is %.0f%% of its %s pass; no build-side fix "
		       "(unrolling, register pressure)\n", ad->tus[i].f.name, 100 * ad->tus[i].f.codegen_share,
		       ad->tus[i].f.codegen_pass);
		const struct kernel_fact *k = worst_kernel(ad, &ad->tus[i]);
		json_t *saved = saved_worst_kernel(ad, ad->tus[i].f.name);
		if (k) {
			char *facts = kernel_fact_summary(k);
			printf("  worst kernel %s (%s): %s\n", k->name, k->arch, facts);
			free(facts);
		} else if (json_is_object(saved)) {
			printf("  worst kernel %s (%s): %s\n", json_string_value(json_object_get(saved, "name")),
			       json_string_value(json_object_get(saved, "arch")),
			       json_string_value(json_object_get(saved, "summary")));
		}
	}
	printf("\nchecked, does not apply:\n");
	for (int id = 0; id < NFIXES; id++)
		if (!a->fixes[id].applies)
			printf("  %s: %s\n", a->fixes[id].name, a->fixes[id].not_applicable);
	double total = 0;
	for (int k = 0; k < NSPENT; k++)
		total += ad->spent[k];
	if (ad->saved) {
		printf("\nre-planned from %s in %.2f s, compiling nothing (its measurements took %.1f s)\n", ad->from,
		       total, json_number_value(json_object_get(json_object_get(ad->saved, "spent_s"), "total")));
		return;
	}
	struct strvec skipped = { 0 };
	for (size_t i = 0; i < ad->probes.pass.ntus; i++)
		if (ad->probes.pass.tus[i].skipped)
			strvec_push(&skipped, ad->probes.pass.tus[i].name);
	if (skipped.n) {
		char *names = strvec_join(&skipped, ", ");
		printf("\nprobes not run (a proven edit's walls time what they would, or they stand in for a probe that "
		       "ran): %s\n", names);
		free(names);
	}
	strvec_clear(&skipped);
	printf("\nadvise took %.1f s:", total);
	for (int k = 0; k < NSPENT; k++)
		printf("%s %s %.1f s", k ? "," : "", spent_names[k], ad->spent[k]);
	printf("\n");
}

/* The steps' peaks and the job counts against the limit (docs/json.md). */
static json_t *json_memory(const struct advise *ad)
{
	const struct memory_plan *mp = &ad->memory;
	json_t *best = json_memory_row(mp, mp->best), *faster = json_memory_row(mp, mp->faster);
	return json_pack("{s:I, s:I, s:o, s:s?, s:o, s:f, s:o, s:o}", "steps_with_peak", (json_int_t)ad->npeaks,
		"measured_for_it", (json_int_t)ad->memory_peaks_measured,
		"limit_kib", ad->memory_kb > 0 ? json_integer((json_int_t)ad->memory_kb) : json_null(), "limit_from", ad->memory_from,
		"usable_kib", mp->rows ? json_integer((json_int_t)mp->usable_kb) : json_null(), "margin", MEMORY_MARGIN,
		"fastest_that_fits", best, "faster", faster);
}

static json_t *json_prediction(const struct prediction *p, const struct range *r)
{
	return json_build("{s:o, s:[o, o], s:o, s:o, s:s, s:o}", "wall_s", json_seconds(p->wall), "range_s",
			  json_seconds(r->lo), json_seconds(r->hi), "critical_path_s", json_seconds(p->critical),
			  "work_bound_s", json_seconds(p->work), "binds", p->binds,
			  "peak_kib", p->peak_kb > 0 ? json_integer((json_int_t)p->peak_kb) : json_null());
}

static json_t *json_load_curve(const struct advise *ad)
{
	json_t *levels = json_array();
	for (size_t i = 0; i < ad->load.curve.n; i++)
		json_array_append_new(levels, json_build("{s:f, s:f, s:[f, f], s:I}", "jobs", ad->load.curve.jobs[i], "slowdown",
			round(ad->load.curve.slowdown[i] * 1000) / 1000, "range", round(ad->load.curve.lo[i] * 1000) / 1000,
			round(ad->load.curve.hi[i] * 1000) / 1000, "walls", (json_int_t)ad->load.curve.samples[i]));
	return json_build("{s:o, s:f, s:s}", "levels", levels, "cores", ad->load.curve.cores, "measured_by",
			  ad->load.source ? ad->load.source : "");
}

static json_t *json_probe(const struct advise *ad, long i)
{
	const struct pass_tu *p = &ad->probes.pass.tus[i];
	bool ran = !p->failed && !p->skipped;
	double missing = NAN;
	return json_build("{s:s, s:s, s:o, s:I, s:[o, o], s:o, s:o}", "probe", p->name, "status",
			  p->failed ? "failed" : p->skipped ? "skipped" : "ok",
			  "wall_s", json_seconds(ran ? p->wall.median : missing), "runs", (json_int_t)(ran ? p->wall.n : 0),
			  "wall_range_s", json_seconds(ran ? p->wall.min : missing), json_seconds(ran ? p->wall.max : missing),
			  "host_s", json_seconds(ran ? pass_tu_side(p, PASS_HOST) : missing),
			  "device_s", json_seconds(ran ? pass_tu_side(p, PASS_DEVICE) : missing));
}

/* Per TU: its baseline, each preprocessed pass's lines by header group,
 * the leak, and its passes when a probe split it. */
static json_t *json_tu(const struct advise *ad, const struct advise_tu *t)
{
	json_t *lines = json_array();
	for (size_t k = 0; k < t->nlines; k++) {
		const struct pass_lines *pl = &t->lines[k];
		json_t *groups = json_array();
		for (size_t g = 0; g < pl->groups.n; g++)
			json_array_append_new(groups, json_build("{s:s, s:I}", "group", pl->groups.v[g], "lines",
								 (json_int_t)pl->group_lines[g]));
		json_array_append_new(lines, json_build("{s:s, s:I, s:o}", "pass", pl->pass, "lines", (json_int_t)pl->lines,
							"groups", groups));
	}
	const struct pass_tu *p = probed(ad, t->probe_tu);
	json_t *passes = json_null();
	if (p) {
		passes = json_array();
		for (size_t i = 0; i < p->bd.n; i++)
			json_array_append_new(passes, json_pass_breakdown(&p->bd.passes[i]));
	}
	json_t *narrow = json_null();
	if (t->umbrella) {
		json_t *headers = json_array();
		for (size_t h = 0; h < t->narrow.headers.n; h++)
			json_array_append_new(headers, json_string(t->narrow.headers.v[h]));
		narrow = json_build("{s:o, s:o, s:o, s:o}", "at", t->narrow_at ? json_string(t->narrow_at) : json_null(),
				    "headers", headers, "change", t->narrow.change ? json_string(t->narrow.change) : json_null(),
				    "why_not", t->narrow.why_not ? json_string(t->narrow.why_not) : json_null());
	}
	return json_build("{s:s, s:s, s:b, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "target", t->f.name, "kind",
		t->f.kernel ? "kernel TU" : "host TU", "device_passes", t->f.device_passes, "binding", t->f.binding,
		"tensor_only", t->f.tensor_only, "baseline_s", json_seconds(ad->base.seconds[t->f.edge]),
		"frameworks", t->f.frameworks ? json_string(t->f.frameworks) : json_null(),
		"leak_chain", t->f.leak_chain ? json_string(t->f.leak_chain) : json_null(),
		"leak_fix", t->f.leak_fix ? json_string(t->f.leak_fix) : json_null(), "lines", lines,
		"passes", passes, "cluster", ad->cluster.launcher && ad->base.m.tu_of[t->f.edge] >= 0
		? json_cluster_runs(&ad->base.m.tus[ad->base.m.tu_of[t->f.edge]]) : json_null(), "narrow", narrow);
}

/* What a rule's own probes measured (rule.h), or null: it has none. */
static json_t *rule_probes(const struct advise *ad, int id)
{
	const struct rule_walk *w = fix_rules[id]->walk;
	return w && w->document && ad->evidence[id] ? w->document(ad->evidence[id], ad) : json_null();
}

json_t *advise_render_json(const struct advise *ad)
{
	const struct advice *a = &ad->advice;
	json_t *doc = json_document("advise", ad->dir, ad->failures);
	json_object_set_new(doc, "jobs", json_integer(ad->jobs));
	json_object_set_new(doc, "remote", !ad->cluster.remote.slots ? json_null()
		: json_build("{s:I, s:f, s:o, s:o}", "slots", (json_int_t)ad->cluster.remote.slots, "speed", ad->cluster.remote.speed,
			     "distcc_log", ad->cluster.distcc_path ? json_string(ad->cluster.distcc_path) : json_null(), "network",
			     !ad->cluster.network ? json_null()
			     : json_build("{s:f, s:f, s:I, s:I}", "fixed_s", ad->cluster.net.fixed_s, "per_mib_s",
					  ad->cluster.net.per_byte_s * 1048576, "probe_bytes", (json_int_t)ad->cluster.net.probe_bytes,
					  "repeats", (json_int_t)ad->cluster.net.repeats)));
	json_object_set_new(doc, "policy", json_string(ad->policy == POLICY_CRITICAL ? "critical" : "manifest"));
	struct cluster_runs c = cluster_runs(ad);
	json_object_set_new(doc, "baseline", json_build("{s:s, s:o, s:o, s:o, s:o, s:o}", "durations", ad->base.source,
		"recorded_wall_s", json_seconds(ad->base.recorded_wall), "predicted", json_prediction(&a->baseline, &a->baseline_range),
		"contention", ad->saved ? json_deep_copy(json_object_get(json_object_get(ad->saved, "baseline"), "contention"))
		: ad->base.measured && !ad->cluster.launcher ? json_contention(&ad->base.m.contention) : json_null(),
		"load_curve", json_load_curve(ad), "cluster", !ad->cluster.launcher ? json_null()
		: json_build("{s:s, s:I, s:I, s:I}", "launcher", ad->cluster.launcher, "sent", (json_int_t)c.sent, "kept_here",
			     (json_int_t)c.kept_here, "cluster_failed", (json_int_t)c.fell_back)));
	json_t *fixes = json_array(), *checked = json_array();
	size_t n;
	const struct fix **v = ranked(a, &n);
	for (size_t i = 0; i < n; i++) {
		json_t *tus = json_array();
		for (size_t k = 0; k < v[i]->ntus; k++)
			json_array_append_new(tus, json_build("{s:s, s:o, s:b}", "target", tu_name(ad, v[i]->tus[k]),
							      "saving_s", json_seconds(v[i]->saving[k]), "proven",
							      v[i]->proven && v[i]->proven[k]));
		json_array_append_new(fixes, json_build("{s:s, s:s, s:o, s:o, s:s, s:s, s:o, s:o}", "fix", v[i]->name,
			"title", v[i]->title, "tus", tus, "added_s", json_seconds(v[i]->added),
			"evidence", v[i]->evidence, "measured_by", v[i]->measured_by,
			"predicted", json_prediction(&v[i]->alone, &v[i]->alone_range), "probes", rule_probes(ad, v[i]->id)));
		json_object_set_new(json_array_get(fixes, json_array_size(fixes) - 1), "proven", json_boolean(v[i]->measured));
	}
	free(v);
	for (int id = 0; id < NFIXES; id++)
		if (!a->fixes[id].applies)
			json_array_append_new(checked, json_build("{s:s, s:s, s:o}", "fix", a->fixes[id].name, "checked",
								  a->fixes[id].not_applicable, "probes", rule_probes(ad, id)));
	json_object_set_new(doc, "fixes", fixes);
	json_object_set_new(doc, "not_applicable", checked);
	json_t *plan = json_array();
	for (size_t s = 0; s < a->nplan; s++) {
		json_t *patches = json_array();
		for (size_t k = 0; k < ad->npatches; k++)
			if (ad->patches[k].step == s + 1)
				json_array_append_new(patches, json_string(ad->patches[k].path));
		json_array_append_new(plan, json_build("{s:i, s:s, s:o, s:o, s:b, s:o}", "step", (int)s + 1, "fix",
						       a->fixes[a->plan[s].id].name, "predicted",
						       json_prediction(&a->plan[s].after, &a->plan[s].range), "beyond_noise",
						       !probes_repeated(ad) ? json_null() : json_boolean(a->plan[s].distinct),
						       "proven", a->fixes[a->plan[s].id].measured, "patches", patches));
	}
	json_object_set_new(doc, "plan", plan);
	json_t *patches = json_array();
	for (size_t k = 0; k < ad->npatches; k++)
		json_array_append_new(patches, json_build("{s:s, s:o, s:s}", "fix", fix_rules[ad->patches[k].id]->name, "step",
							  ad->patches[k].step ? json_integer((json_int_t)ad->patches[k].step)
									      : json_null(),
							  "path", ad->patches[k].path));
	json_object_set_new(doc, "patches", patches);
	json_t *chain = json_array(), *kernel = json_array(), *probes = json_array();
	for (size_t i = 0; i < a->nfinal; i++)
		json_array_append_new(chain, json_string(a->final_names[i]));
	json_object_set_new(doc, "final", json_build("{s:o, s:o}", "critical_path", chain, "critical_path_s",
						     json_seconds(a->final_critical)));
	for (size_t i = 0; i < ad->ntus; i++)
		if (ad->tus[i].f.codegen_bound) {
			const struct kernel_fact *k = worst_kernel(ad, &ad->tus[i]);
			json_t *saved = saved_worst_kernel(ad, ad->tus[i].f.name);
			json_t *worst = saved ? json_deep_copy(saved) : json_null();
			if (k) {
				char *facts = kernel_fact_summary(k);
				worst = json_build("{s:s, s:s, s:I, s:o, s:s}", "name", k->name, "arch", k->arch, "spills",
						   (json_int_t)kernel_fact_spills(k), "code_bytes",
						   k->code_bytes >= 0 ? json_integer(k->code_bytes) : json_null(), "summary", facts);
				free(facts);
			}
			json_array_append_new(kernel, json_build("{s:s, s:s, s:f, s:o}", "target", ad->tus[i].f.name, "pass",
								 ad->tus[i].f.codegen_pass, "codegen_share",
								 round(ad->tus[i].f.codegen_share * 1000) / 1000, "worst_kernel", worst));
		}
	json_object_set_new(doc, "kernel_work", kernel);
	for (size_t i = 0; i < ad->probes.pass.ntus; i++)
		if (!ad->probes.pass.tus[i].leads)	/* the load curve's copies: its levels say them */
			json_array_append_new(probes, json_probe(ad, (long)i));
	json_t *tus = json_array();
	for (size_t i = 0; !ad->saved && i < ad->ntus; i++)
		json_array_append_new(tus, json_tu(ad, &ad->tus[i]));
	if (ad->saved) {	/* measured in the sitting the document saved */
		json_decref(probes);
		json_decref(tus);
		probes = saved_part(ad, "probes");
		tus = saved_part(ad, "tus");
	}
	json_object_set_new(doc, "probes", probes);
	json_object_set_new(doc, "tus", tus);
	json_object_set_new(doc, "line_marks", json_build("{s:I, s:I}", "lean", (json_int_t)PLAYBOOK_LEAN_LINES,
							   "heavy", (json_int_t)PLAYBOOK_HEAVY_LINES));
	json_t *curve = json_array();
	for (size_t j = 0; j < ad->ncurve; j++)
		json_array_append_new(curve, json_build("{s:I, s:o, s:o, s:o, s:s, s:o}", "jobs", (json_int_t)j + 1,
			"wall_s", json_seconds(ad->curve[j].wall), "critical_path_s", json_seconds(ad->curve[j].critical),
			"work_bound_s", json_seconds(ad->curve[j].work), "binds", ad->curve[j].binds,
			"peak_kib", ad->curve[j].peak_kb > 0 ? json_integer((json_int_t)ad->curve[j].peak_kb) : json_null()));
	json_object_set_new(doc, "jobs_curve", curve);
	json_object_set_new(doc, "memory", json_memory(ad));
	json_object_set_new(doc, "measured", json_string(ad->base.source));
	json_object_set_new(doc, "from", ad->from ? json_string(ad->from) : json_null());
	json_t *spent_s = json_object();
	double total = 0;
	for (int k = 0; k < NSPENT; k++) {
		json_object_set_new(spent_s, spent_names[k], json_seconds(ad->spent[k]));
		total += ad->spent[k];
	}
	json_object_set_new(spent_s, "total", json_seconds(total));
	json_object_set_new(doc, "spent_s", spent_s);
	json_object_set_new(doc, "spread", json_build("{s:[f, f], s:[f, f], s:[f, f]}", "builds",
		round(ad->base.builds_lo * 1000) / 1000, round(ad->base.builds_hi * 1000) / 1000, "machine",
		round(ad->base.machine_lo * 1000) / 1000, round(ad->base.machine_hi * 1000) / 1000, "ranges",
		round(ad->base.spread_lo * 1000) / 1000, round(ad->base.spread_hi * 1000) / 1000));
	json_object_set_new(doc, "model_input", advise_input_json(ad));
	return doc;
}

