#include "out_json.h"
#include "json_stream.h"
#include "kernel_facts.h"
#include "measure.h"
#include "outfile.h"
#include "passes.h"
#include "util.h"
#include "whatif.h"
#include "version.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

json_t *json_build(const char *fmt, ...)
{
	va_list ap;
	json_error_t err;
	va_start(ap, fmt);
	json_t *v = json_vpack_ex(&err, 0, fmt, ap);
	va_end(ap);
	if (!v)
		die(EXIT_INTERNAL, "internal error: cannot build JSON (%s): %s", fmt, err.text);
	return v;
}

json_t *json_document(const char *command, const char *build_dir, size_t failures)
{
	return json_build("{s:s, s:i, s:s, s:s, s:o, s:I, s:[]}", "schema", BUILDWALL_SCHEMA, "version",
			  BUILDWALL_SCHEMA_VERSION, "buildwall_version", BUILDWALL_VERSION, "command", command,
			  "build_dir", build_dir ? json_string(build_dir) : json_null(), "failures", (json_int_t)failures,
			  "warnings");
}

json_t *json_seconds(double s)
{
	if (isnan(s))
		return json_null();
	return json_real(round(s * 1000) / 1000);
}

json_t *json_name(const char *s)
{
	if (!s)
		return json_null();
	char *repaired = utf8_repaired(s);
	json_t *v = json_string(repaired);
	free(repaired);
	return v;
}

json_t *json_summary(struct summary s)
{
	return json_build("{s:o, s:o, s:o, s:o}", "min", json_seconds(s.min), "median", json_seconds(s.median),
			 "max", json_seconds(s.max), "spread", json_real(round(s.spread * 1000) / 1000));
}

void json_print(json_t *doc)
{
	json_t *w = json_object_get(doc, "warnings");
	const struct strvec *seen = warnings_seen();
	for (size_t i = 0; w && i < seen->n; i++)
		json_array_append_new(w, json_string(seen->v[i]));
	if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0)
		stdout_write_failed(errno);	/* reported at exit, with the rest (main.c) */
	fputc('\n', stdout);
	json_decref(doc);	/* a failed write is reported at exit (main.c) */
}

void json_write_file(json_t *doc, const char *path)
{
	struct outfile o;
	FILE *f = outfile_open(&o, path);
	int failed = json_dumpf(doc, f, JSON_COMPACT), err = errno ? errno : EIO;
	json_decref(doc);
	if (failed)
		die(EXIT_INTERNAL, "%s: cannot write: %s", path, strerror(err));
	outfile_commit(&o);
}

json_t *json_contention(const struct contention *c)
{
	return json_build("{s:f, s:f, s:I, s:f, s:s}", "share", round(c->share * 1000) / 1000, "cores", c->cores,
			  "samples", (json_int_t)c->samples, "mean_concurrency", round(c->mean_concurrency * 100) / 100,
			  "source", c->samples ? c->source : "none");
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
