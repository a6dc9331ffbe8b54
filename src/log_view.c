#include "log_view.h"
#include "heap.h"
#include "radix.h"
#include "json_stream.h"
#include "ninja.h"
#include "out_json.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *log_view_load(struct log_view *v, const char *dir, const char *path, long back)
{
	*v = (struct log_view){ .dir = dir, .path = path, .back = back };
	char *err;
	if (!ninja_log_read_build(path, back, &v->build, &v->nbuilds, &err)) {
		if (err)
			return err;
		if (!file_exists(path))
			return xasprintf("%s: no such file%s", path, dir ? " (has the tree been built with ninja?)" : "");
		if (!v->nbuilds)
			return xasprintf("%s: no builds recorded yet", path);
		return xasprintf("%s: --build %ld goes back past the oldest of its %ld build%s", path, back, v->nbuilds,
				 v->nbuilds == 1 ? "" : "s");
	}
	timeline_build(&v->build, &v->tl);
	if (dir) {
		struct ninja_build b;
		ninja_load(dir, &b);
		recorded_analyze(&b, &v->build, &v->tl, &v->rec);
		ninja_build_free(&b);
		v->have_graph = true;
	}
	return NULL;
}

/* Most weighted time first; ties in log order, so the order is the same
 * whichever way it was chosen. */
static bool heavier(const struct step *x, const struct step *y)
{
	return x->weighted > y->weighted || (x->weighted == y->weighted && x < y);
}

static int cmp_weighted(const void *a, const void *b)
{
	const struct step *x = *(const struct step *const *)a, *y = *(const struct step *const *)b;
	return heavier(x, y) ? -1 : heavier(y, x) ? 1 : 0;
}

const struct step **log_view_by_weight(const struct timeline *tl, size_t k)
{
	size_t n = tl->n, keep = k && k < n ? k : n;
	const struct step **order = xcalloc(keep ? keep : 1, sizeof(*order));
	if (keep == n) {
		/* heaviest first: ascending keys of (max - weight), log order within */
		struct radix_item *v = xmalloc((n ? n : 1) * sizeof(*v));
		for (size_t i = 0; i < n; i++)
			v[i] = (struct radix_item){ UINT64_MAX - radix_key_of(tl->steps[i].weighted), (uint32_t)i };
		radix_sort(v, n);
		for (size_t i = 0; i < n; i++)
			order[i] = &tl->steps[v[i].index];
		free(v);
		return order;
	} else {
		/* The k heaviest by a bounded selection: a min-heap of k, the
		 * lightest (the latest of equals) on top, replaced by any step
		 * heavier than it. */
		struct heap h = { 0 };
		for (size_t i = 0; i < n; i++) {
			const struct step *s = &tl->steps[i];
			if (h.n < keep) {
				heap_push(&h, s->weighted, n - 1 - i);
			} else if (heavier(s, &tl->steps[n - 1 - h.v[0].value])) {
				heap_pop(&h);
				heap_push(&h, s->weighted, n - 1 - i);
			}
		}
		for (size_t i = 0; i < keep; i++)
			order[i] = &tl->steps[n - 1 - h.v[i].value];
		heap_free(&h);
	}
	qsort(order, keep, sizeof(*order), cmp_weighted);
	return order;
}

static void write_step(struct json_stream *s, const struct step *st)
{
	json_stream_object(s);
	JSON_STRING_MEMBER(s, "output", st->first->output);
	JSON_KEY(s, "outputs");
	json_stream_array(s);
	for (size_t o = 0; o < st->noutputs; o++)
		json_stream_string(s, st->first[o].output);
	json_stream_end_array(s);
	JSON_STRING_MEMBER(s, "hash", st->first->hash);
	JSON_STRING_MEMBER(s, "kind", step_kind_names[st->kind]);
	JSON_SECONDS_MEMBER(s, "start_s", st->start);
	JSON_SECONDS_MEMBER(s, "end_s", st->end);
	JSON_SECONDS_MEMBER(s, "duration_s", st->end - st->start);
	JSON_SECONDS_MEMBER(s, "weighted_s", st->weighted);
	JSON_INT_MEMBER(s, "slot", st->slot);
}

void log_view_write(const struct log_view *v, struct json_stream *s)
{
	const struct timeline *tl = &v->tl;
	json_stream_envelope(s, "log", v->dir, 0);
	JSON_STRING_MEMBER(s, "log", v->path);
	JSON_KEY(s, "build");
	json_stream_object(s);
	const char *keys[] = { "back", "builds_in_file", "first_line", "lines", "log_version" };
	long long values[] = { v->back, v->nbuilds, v->build.first_line, (long long)v->build.n, v->build.version };
	for (int i = 0; i < 5; i++) {
		json_stream_key(s, keys[i]);
		json_stream_int(s, values[i]);
	}
	json_stream_end_object(s);
	JSON_SECONDS_MEMBER(s, "wall_s", tl->wall);
	JSON_SECONDS_MEMBER(s, "busy_s", tl->busy);
	JSON_KEY(s, "parallelism");
	json_stream_milli(s, tl->wall > 0 ? tl->busy / tl->wall : 0);
	JSON_INT_MEMBER(s, "max_running", tl->slots);
	JSON_KEY(s, "parallelism_profile");
	json_stream_array(s);
	for (int b = 0; b < TIMELINE_BUCKETS; b++)
		json_stream_milli(s, tl->profile[b]);
	json_stream_end_array(s);
	JSON_KEY(s, "by_kind");
	json_stream_object(s);
	for (int k = 0; k < NKINDS; k++) {
		json_stream_key(s, step_kind_names[k]);
		json_stream_object(s);
		JSON_INT_MEMBER(s, "steps", (long long)tl->count_by_kind[k]);
		JSON_SECONDS_MEMBER(s, "seconds", tl->by_kind[k]);
		JSON_SECONDS_MEMBER(s, "weighted_s", tl->weighted_by_kind[k]);
		json_stream_end_object(s);
	}
	json_stream_end_object(s);
	JSON_KEY(s, "steps");
	json_stream_array(s);
	const struct step **order = log_view_by_weight(tl, 0);
	for (size_t i = 0; i < tl->n; i++) {
		/* In weight order the steps and their names are all over memory:
		 * ask for a later one's while this one is written. */
		if (i + 16 < tl->n) {
			__builtin_prefetch(order[i + 16]);
			__builtin_prefetch(order[i + 8]->first->output);
		}
		write_step(s, order[i]);
		json_stream_end_object(s);
	}
	free(order);
	json_stream_end_array(s);
	if (v->have_graph) {
		JSON_KEY(s, "critical_path");
		json_stream_array(s);
		for (size_t i = 0; i < v->rec.ncritical; i++) {
			write_step(s, &tl->steps[v->rec.critical[i]]);
			json_stream_end_object(s);
		}
		json_stream_end_array(s);
		JSON_SECONDS_MEMBER(s, "critical_path_s", v->rec.critical_s);
		JSON_KEY(s, "recorded_chain");
		json_stream_array(s);
		for (size_t i = v->rec.nchain; i-- > 0;) {
			write_step(s, &tl->steps[v->rec.chain[i]]);
			/* What this step waited for: the entry before it. */
			JSON_STRING_MEMBER(s, "waited_for", v->rec.waited[i]);
			json_stream_end_object(s);
		}
		json_stream_end_array(s);
	} else {
		JSON_KEY(s, "critical_path");
		json_stream_null(s);
		JSON_STRING_MEMBER(s, "note", "the critical path needs the build dir (-C)");
	}
	json_stream_end_object(s);
}

/* The same document as a tree, for report: written, then read back, so
 * that one function says what the document holds. */
static void write_document(struct json_stream *s, const void *v)
{
	log_view_write(v, s);
}

json_t *log_view_document(const struct log_view *v)
{
	size_t size;
	char *text = json_stream_to_memory(write_document, v, false, &size);
	json_error_t jerr;
	json_t *doc = json_loadb(text, size, 0, &jerr);
	if (!doc)
		die(EXIT_INTERNAL, "internal error: the log document does not read back: %s", jerr.text);
	free(text);
	return doc;
}

/* A Chrome trace: a track per job slot, each step an X event. */
void log_view_write_trace(const struct log_view *v, struct json_stream *s)
{
	const struct timeline *tl = &v->tl;
	json_stream_object(s);
	JSON_KEY(s, "traceEvents");
	json_stream_array(s);
	json_stream_object(s);
	JSON_STRING_MEMBER(s, "name", "process_name");
	JSON_STRING_MEMBER(s, "ph", "M");
	JSON_INT_MEMBER(s, "pid", 1);
	JSON_KEY(s, "args");
	json_stream_object(s);
	JSON_STRING_MEMBER(s, "name", "ninja build");
	json_stream_end_object(s);
	json_stream_end_object(s);
	for (int slot = 0; slot < tl->slots; slot++) {
		char name[32];
		snprintf(name, sizeof(name), "slot %d", slot);
		json_stream_object(s);
		JSON_STRING_MEMBER(s, "name", "thread_name");
		JSON_STRING_MEMBER(s, "ph", "M");
		JSON_INT_MEMBER(s, "pid", 1);
		JSON_INT_MEMBER(s, "tid", slot);
		JSON_KEY(s, "args");
		json_stream_object(s);
		JSON_STRING_MEMBER(s, "name", name);
		json_stream_end_object(s);
		json_stream_end_object(s);
	}
	for (size_t i = 0; i < tl->n; i++) {
		const struct step *st = &tl->steps[i];
		json_stream_object(s);
		JSON_STRING_MEMBER(s, "name", st->first->output);
		JSON_STRING_MEMBER(s, "cat", step_kind_names[st->kind]);
		JSON_STRING_MEMBER(s, "ph", "X");
		JSON_INT_MEMBER(s, "ts", (long long)st->first->start_ms * 1000);
		JSON_INT_MEMBER(s, "dur", (long long)(st->first->end_ms - st->first->start_ms) * 1000);
		JSON_INT_MEMBER(s, "pid", 1);
		JSON_INT_MEMBER(s, "tid", st->slot);
		JSON_KEY(s, "args");
		json_stream_object(s);
		JSON_SECONDS_MEMBER(s, "duration_s", st->end - st->start);
		JSON_SECONDS_MEMBER(s, "weighted_s", st->weighted);
		JSON_INT_MEMBER(s, "outputs", (long long)st->noutputs);
		json_stream_end_object(s);
		json_stream_end_object(s);
	}
	json_stream_end_array(s);
	JSON_STRING_MEMBER(s, "displayTimeUnit", "ms");
	json_stream_end_object(s);
}

void log_view_free(struct log_view *v)
{
	timeline_free(&v->tl);
	ninja_log_free(&v->build);
	recorded_free(&v->rec);
}
