#include "out_json.h"
#include "json_stream.h"
#include "outfile.h"
#include "util.h"
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
	if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(BUILDWALL_JSON_DIGITS)) < 0)
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

