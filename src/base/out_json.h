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
/* Significant digits of a number in a printed document (json_print). */
#define BUILDWALL_JSON_DIGITS 10

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
/* Write doc (compact) to path through a temp file renamed into place, so
 * a failure leaves no partial file; dies naming the path (exit 2 for a
 * path that cannot be opened, 4 for a failed write). */
void json_write_file(json_t *doc, const char *path);

#endif
