/* The shapes in which several commands' documents show the same
 * measurements (docs/json.md): contention, a TU's cluster runs, a pass's
 * breakdown and phases, a kernel's resources. Built on out_json.h. */
#ifndef BUILDWALL_JSON_FACTS_H
#define BUILDWALL_JSON_FACTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct contention;
/* {share, cores, samples, mean_concurrency}: the contention a prediction applied. */
json_t *json_contention(const struct contention *c);
struct tu;
/* Where a TU's runs went through distcc (measure.h): {sent, kept_here,
 * cluster_failed, retried_elsewhere, host}. */
json_t *json_cluster_runs(const struct tu *t);
/* A pass of a TU's breakdown (passes.h): {pass, arch, seconds, jobs,
 * phases {front_end, ir_generation, optimizer, codegen}, other_s,
 * optimizer_in_codegen, heaviest [{name, seconds}]}. */
struct pass;
struct named_seconds;
json_t *json_pass_breakdown(const struct pass *p);
json_t *json_phases(const double *phase, bool combined);
json_t *json_heaviest(const struct named_seconds *h, size_t n);
/* A kernel as the device compiler reports it (docs/json.md, passes'
 * kernels[]): a figure not reported is null. */
struct kernel_fact;
json_t *json_kernel(const struct kernel_fact *k);
/* One row of a memory plan (memory_plan.h): {jobs, wall_s, peak_kib};
 * NULL row: null. */
struct memory_plan;
json_t *json_memory_row(const struct memory_plan *mp, long row);

#endif
