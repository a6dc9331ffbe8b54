#include "json_facts.h"
#include "memory_plan.h"
#include "kernel_facts.h"
#include "measure.h"
#include "out_json.h"
#include "passes.h"
#include "whatif.h"

#include <math.h>

json_t *json_contention(const struct contention *c)
{
	return json_build("{s:f, s:f, s:I, s:f, s:s, s:f, s:I, s:[f, f]}", "share", round(c->share * 1000) / 1000, "cores",
			  c->cores, "samples", (json_int_t)c->samples, "mean_concurrency",
			  round(c->mean_concurrency * 100) / 100, "source", c->samples ? c->source : "none", "wall_share",
			  round(c->wall_share * 1000) / 1000, "bounded", (json_int_t)c->bounded, "steps_share",
			  round(c->least * 1000) / 1000, round(c->most * 1000) / 1000);
}

json_t *json_cluster_runs(const struct tu *t)
{
	return json_build("{s:I, s:I, s:I, s:I, s:o}", "sent", (json_int_t)t->sent, "kept_here", (json_int_t)t->kept_here,
			  "cluster_failed", (json_int_t)t->fell_back, "retried_elsewhere", (json_int_t)t->retried, "host",
			  t->host ? json_string(t->host) : json_null());
}

json_t *json_phases(const double *phase, bool combined)
{
	json_t *o = json_object();
	for (int k = 0; k < NPHASES; k++)
		json_object_set_new(o, phase_keys[k], json_seconds(combined && k == PHASE_OPTIMIZER ? NAN : phase[k]));
	return o;
}

json_t *json_heaviest(const struct named_seconds *h, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_build("{s:s, s:o}", "name", h[i].name, "seconds", json_seconds(h[i].seconds)));
	return a;
}

json_t *json_pass_breakdown(const struct pass *p)
{
	return json_build("{s:s, s:o, s:o, s:I, s:o, s:o, s:b, s:o}", "pass", pass_kind_name(p->kind), "arch",
			  p->arch ? json_string(p->arch) : json_null(), "seconds", json_seconds(p->seconds), "jobs",
			  (json_int_t)p->njobs, "phases", json_phases(p->phase, p->backend_combined), "other_s",
			  json_seconds(p->other), "optimizer_in_codegen", p->backend_combined, "heaviest",
			  json_heaviest(p->heaviest, p->nheaviest));
}

static json_t *json_count(long v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

json_t *json_kernel(const struct kernel_fact *k)
{
	json_t *o = json_build("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}", "name", k->name,
		"arch", k->arch, "registers", json_count(k->registers), "vgprs", json_count(k->vgprs), "agprs",
		json_count(k->agprs), "sgprs", json_count(k->sgprs), "spill_stores_bytes", json_count(k->spill_stores),
		"spill_loads_bytes", json_count(k->spill_loads), "vgpr_spills", json_count(k->vgpr_spills), "sgpr_spills",
		json_count(k->sgpr_spills), "stack_bytes", json_count(k->stack_bytes), "shared_bytes",
		json_count(k->shared_bytes), "occupancy", json_count(k->occupancy), "spills",
		(json_int_t)kernel_fact_spills(k));
	json_object_set_new(o, "code_bytes", json_count(k->code_bytes));
	return o;
}

json_t *json_memory_row(const struct memory_plan *mp, long row)
{
	if (!mp->rows || row < 0)
		return json_null();
	const struct jobs_row *r = &mp->rows[row];
	return json_pack("{s:I, s:o, s:o}", "jobs", (json_int_t)r->jobs, "wall_s", json_seconds(r->p.wall), "peak_kib",
			 r->p.peak_kb > 0 ? json_integer((json_int_t)r->p.peak_kb) : json_null());
}
