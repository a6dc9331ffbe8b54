/* Machine output: one JSON document per run, the same envelope for every
 * command (docs/json.md). Built with jansson, printed once at the end. */
#ifndef BUILDWALL_OUT_JSON_H
#define BUILDWALL_OUT_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

/* Bumped only for incompatible changes; new fields keep the version. */
#define BUILDWALL_SCHEMA "buildwall/1"
#define BUILDWALL_SCHEMA_VERSION 1

/* The envelope every command's document shares: schema, version,
 * buildwall_version, command, build_dir (NULL: null), failures and
 * warnings[] (every warning this run printed, filled by json_print). */
json_t *json_document(const char *command, const char *build_dir, size_t failures);
/* json_pack that cannot fail silently: a bad format or a NULL value is an
 * internal error (exit 4), not a missing field. */
json_t *json_build(const char *fmt, ...);
/* Seconds rounded to the millisecond; NaN becomes null. */
json_t *json_seconds(double s);
/* A name from the command line or the file system (a TU, a path), which
 * need not be UTF-8: U+FFFD where it is not (jansson refuses it); NULL
 * becomes null. */
json_t *json_name(const char *s);
/* {min, median, max, spread} of repeated measurements in seconds. */
json_t *json_summary(struct summary s);
void json_print(json_t *doc);
struct contention;
/* {share, cores, samples, mean_concurrency}: the contention a prediction applied. */
json_t *json_contention(const struct contention *c);
struct tu;
/* Where a TU's runs went through distcc (measure.h): {sent, kept_here,
 * cluster_failed, retried_elsewhere, host}. */
json_t *json_cluster_runs(const struct tu *t);
/* Write doc (compact) to path through a temp file renamed into place, so
 * a failure leaves no partial file; dies naming the path (exit 2 for a
 * path that cannot be opened, 4 for a failed write). */
void json_write_file(json_t *doc, const char *path);
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

#endif
