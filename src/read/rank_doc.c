#define _GNU_SOURCE
#include "rank_doc.h"
#include "out_json.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *check_tu(json_t *tu, size_t i, const char *name, struct rank_time *out)
{
	const char *target = json_string_value(json_object_get(tu, "target"));
	if (!target)
		return xasprintf("%s: tus[%zu]: no target", name, i);
	json_t *wall = json_object_get(tu, "wall_s");
	double s = NAN;
	if (wall && !json_is_null(wall)) {
		if (!json_is_number(wall))
			return xasprintf("%s: tus[%zu].wall_s (%s): not a number of seconds", name, i, target);
		s = json_number_value(wall);
		if (!isfinite(s) || s < 0 || s > RANK_DOC_MAX_SECONDS)
			return xasprintf("%s: tus[%zu].wall_s (%s): %g is not a duration (0 to %.0f s)", name, i, target,
					 s, RANK_DOC_MAX_SECONDS);
	}
	/* An older document has no peak: the memory model says unknown. */
	json_t *peak = json_object_get(tu, "peak_kib");
	double kb = 0;
	if (peak && !json_is_null(peak)) {
		kb = json_number_value(peak);
		if (!json_is_number(peak) || !isfinite(kb) || kb < 0 || kb > RANK_DOC_MAX_KIB)
			return xasprintf("%s: tus[%zu].peak_kib (%s): not a memory size in KiB (0 to %.0f)", name, i, target,
					 RANK_DOC_MAX_KIB);
	}
	*out = (struct rank_time){ xstrdup(target), s, kb, { 0 }, false };
	json_t *shape = json_object_get(tu, "peak_shape");
	if (shape && !json_is_null(shape)) {
		if (!json_is_array(shape) || json_array_size(shape) != RANK_DOC_SHAPE_BINS) {
			free(out->target);
			return xasprintf("%s: tus[%zu].peak_shape (%s): not %d shares of the peak", name, i, target,
					 RANK_DOC_SHAPE_BINS);
		}
		for (size_t k = 0; k < RANK_DOC_SHAPE_BINS; k++) {
			double v = json_number_value(json_array_get(shape, k));
			if (!json_is_number(json_array_get(shape, k)) || !(v >= 0 && v <= 1)) {
				free(out->target);
				return xasprintf("%s: tus[%zu].peak_shape[%zu] (%s): not a share of the peak (0 to 1)", name, i,
						 k, target);
			}
			out->shape[k] = (float)v;
		}
		out->has_shape = true;
	}
	return NULL;
}

bool rank_doc_parse(const char *text, size_t len, const char *name, struct rank_doc *doc, char **err)
{
	memset(doc, 0, sizeof(*doc));
	json_error_t jerr;
	json_t *root = json_loadb(text, len, 0, &jerr);
	if (!root)
		return fail_with(err, xasprintf("%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text));
	char *why = NULL;
	const char *schema = json_string_value(json_object_get(root, "schema"));
	const char *command = json_string_value(json_object_get(root, "command"));
	json_t *tus = json_object_get(root, "tus");
	if (!schema || strcmp(schema, BUILDWALL_SCHEMA))
		why = xasprintf("%s:1: not a 'buildwall rank --json' document: schema is not " BUILDWALL_SCHEMA, name);
	else if (!command || strcmp(command, "rank"))
		why = xasprintf("%s:1: not a 'buildwall rank --json' document: command is not rank", name);
	else if (!json_is_array(tus))
		why = xasprintf("%s:1: not a 'buildwall rank --json' document: no tus array", name);
	json_t *cont = json_object_get(json_object_get(root, "prediction"), "contention");
	double share = json_number_value(json_object_get(cont, "share")), cores = json_number_value(json_object_get(cont, "cores"));
	json_int_t samples = json_integer_value(json_object_get(cont, "samples"));
	/* samples 0: rank applied none (--contention none), nothing to check. */
	if (!why && cont && samples != 0 && (!isfinite(share) || share < 0 || share > 10 || !(cores >= 1) || samples < 0))
		why = xasprintf("%s: prediction.contention: not a calibration (share %g, cores %g)", name, share, cores);
	else if (cont && samples > 0) {
		doc->contention_share = share;
		doc->contention_cores = cores;
		doc->contention_samples = (size_t)samples;
		doc->contention_concurrency = json_number_value(json_object_get(cont, "mean_concurrency"));
	}
	size_t n = why ? 0 : json_array_size(tus);
	doc->tus = xcalloc(n, sizeof(*doc->tus));
	for (size_t i = 0; i < n && !why; i++)
		if (!(why = check_tu(json_array_get(tus, i), i, name, &doc->tus[i])))
			doc->n++;
	json_decref(root);
	if (why)
		rank_doc_free(doc);
	return ok_unless(err, why);
}

bool rank_doc_read(const char *path, struct rank_doc *doc, char **err)
{
	memset(doc, 0, sizeof(*doc));
	char *text = read_text_file(path);
	if (!text)
		return fail_with(err, xasprintf("%s: %s", path, strerror(errno)));
	char *why = NULL;
	rank_doc_parse(text, strlen(text), path, doc, &why);
	free(text);
	return ok_unless(err, why);
}

void rank_doc_free(struct rank_doc *doc)
{
	for (size_t i = 0; i < doc->n; i++)
		free(doc->tus[i].target);
	free(doc->tus);
	memset(doc, 0, sizeof(*doc));
}
