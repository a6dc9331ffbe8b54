#define _GNU_SOURCE
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

/* Steps a block of names holds: the file is read once a block, and a
 * block costs ~110 bytes a line (8 reads and 14 MB for a million steps). */
#define NAMES_BLOCK 131072

static char *load_build(struct log_view *v, const char *dir, const char *path, long back)
{
	*v = (struct log_view){ .dir = dir, .path = path, .back = back, .names_block = NAMES_BLOCK };
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
	return NULL;
}

static void analyze(struct log_view *v, const struct ninja_build *b)
{
	ninja_log_load_names(&v->build);	/* every step is looked up in the graph */
	recorded_analyze(b, &v->build, &v->tl, &v->rec);
	v->have_graph = true;
	for (size_t i = 0; i < b->n; i++) {
		if (!ninja_edge_is_compile(&b->edges[i]))
			continue;
		v->compiles++;
		const char *l = cluster_launcher(b->edges[i].command, b->dir);
		if (l) {
			v->sent_by_launcher++;
			v->launcher = l;
		}
	}
}

bool log_view_load(struct log_view *v, const char *dir, const char *path, long back, char **err)
{
	char *why = load_build(v, dir, path, back);
	if (why || !dir)
		return ok_unless(err, why);
	struct ninja_build b;
	ninja_load(dir, &b);
	analyze(v, &b);
	ninja_build_free(&b);
	return true;
}

bool log_view_load_graph(struct log_view *v, const struct ninja_build *b, const char *path, long back, char **err)
{
	char *why = load_build(v, b->dir, path, back);
	if (!why)
		analyze(v, b);
	return ok_unless(err, why);
}

struct each_build {
	const struct ninja_build *b;
	const char *path;
	void (*each)(struct log_view *v, void *ctx);
	void *ctx;
	long n;
};

void log_view_take(struct log_view *v, const struct ninja_build *b, const char *path, struct ninja_log *build, long back)
{
	*v = (struct log_view){ .dir = b ? b->dir : NULL, .path = path, .back = back, .names_block = NAMES_BLOCK };
	ninja_log_take(&v->build, build);
	timeline_build(&v->build, &v->tl);
	if (b)
		analyze(v, b);
}

static void view_build(struct ninja_log *build, bool rewritten, void *ctx)
{
	struct each_build *e = ctx;
	if (rewritten)
		return;
	struct log_view v;
	log_view_take(&v, e->b, e->path, build, e->n++);
	e->each(&v, e->ctx);
	log_view_free(&v);
}

bool log_view_each(const struct ninja_build *b, const char *path, void (*each)(struct log_view *v, void *ctx),
		    void *ctx, long *nbuilds, char **err)
{
	struct each_build e = { b, path, each, ctx, 0 };
	char *why = NULL;
	if (!ninja_log_each(path, true, view_build, &e, &why) && !why)
		why = xasprintf("%s: no such file%s", path, b ? " (has the tree been built with ninja?)" : "");
	if (!why && !e.n)
		why = xasprintf("%s: no builds recorded yet", path);
	if (nbuilds)
		*nbuilds = e.n;
	return ok_unless(err, why);
}

/* Most weighted time first; ties in log order, so the order is the same
 * whichever way it was chosen. */
static bool heavier(const struct timeline *tl, uint32_t x, uint32_t y)
{
	double wx = tl->steps[x].weighted, wy = tl->steps[y].weighted;
	return wx > wy || (wx == wy && x < y);
}

static int cmp_weighted(const void *a, const void *b, void *tl)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return heavier(tl, x, y) ? -1 : heavier(tl, y, x) ? 1 : 0;
}

static int cmp_weighted_keys(const void *a, const void *b, void *tl)
{
	uint32_t x = (uint32_t)*(const uint64_t *)a, y = (uint32_t)*(const uint64_t *)b;
	return heavier(tl, x, y) ? -1 : heavier(tl, y, x) ? 1 : 0;
}

/* All steps: keys of (a 32-bit key of the weight, heaviest first) << 32 |
 * index, radix-sorted, then each run of equal keys (weights a float
 * cannot tell apart, or equal) put in exact order; 8 bytes a step. */
static uint32_t *all_by_weight(const struct timeline *tl)
{
	size_t n = tl->n;
	uint64_t *v = xmalloc((n ? n : 1) * sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = (uint64_t)(UINT32_MAX - radix_key32_of(tl->steps[i].weighted)) << 32 | i;
	radix_sort(v, n, 32);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j] >> 32 == v[i] >> 32)
			j++;
		bool ordered = true;	/* as for equal weights (the zero-length steps) */
		for (size_t k = i + 1; k < j && ordered; k++)
			ordered = !heavier(tl, (uint32_t)v[k], (uint32_t)v[k - 1]);
		if (!ordered)
			qsort_r(v + i, j - i, sizeof(*v), cmp_weighted_keys, (void *)tl);
		i = j;
	}
	uint32_t *order = xmalloc((n ? n : 1) * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)v[i];
	free(v);
	return order;
}

uint32_t *log_view_by_weight(const struct timeline *tl, size_t k)
{
	size_t n = tl->n, keep = k && k < n ? k : n;
	if (keep == n)
		return all_by_weight(tl);
	/* The k heaviest by a bounded selection: a min-heap of k, the
	 * lightest (the latest of equals) on top, replaced by any step
	 * heavier than it. */
	uint32_t *order = xcalloc(keep ? keep : 1, sizeof(*order));
	struct heap h = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (h.n < keep) {
			heap_push(&h, tl->steps[i].weighted, n - 1 - i);
		} else if (heavier(tl, (uint32_t)i, (uint32_t)(n - 1 - h.v[0].value))) {
			heap_pop(&h);
			heap_push(&h, tl->steps[i].weighted, n - 1 - i);
		}
	}
	for (size_t i = 0; i < keep; i++)
		order[i] = (uint32_t)(n - 1 - h.v[i].value);
	heap_free(&h);
	qsort_r(order, keep, sizeof(*order), cmp_weighted, (void *)tl);
	return order;
}

/* A step and its outputs' names, which `names` holds (noutputs of them). */
static void write_step(struct json_stream *s, const struct timeline *tl, const struct step *st,
		       const struct log_name *names)
{
	json_stream_object(s);
	JSON_KEY(s, "output");
	json_stream_stringn(s, names[0].output, names[0].output_len);
	JSON_KEY(s, "outputs");
	json_stream_array(s);
	for (size_t o = 0; o < st->noutputs; o++)
		json_stream_stringn(s, names[o].output, names[o].output_len);
	json_stream_end_array(s);
	JSON_KEY(s, "hash");
	json_stream_stringn(s, names[0].hash, names[0].hash_len);
	JSON_STRING_MEMBER(s, "kind", step_kind_names[st->kind]);
	JSON_SECONDS_MEMBER(s, "start_s", step_start(tl, st));
	JSON_SECONDS_MEMBER(s, "end_s", step_end(tl, st));
	JSON_SECONDS_MEMBER(s, "duration_s", step_duration(tl, st));
	JSON_SECONDS_MEMBER(s, "weighted_s", st->weighted);
	JSON_INT_MEMBER(s, "slot", st->slot);
}

/* The names of a block of steps. In weight order the steps are all over a
 * file of a million lines, and their names are not held: a block's lines
 * are read in file order (entries are in file order), which reads the file
 * once a block instead of seeking once a step. */

struct block_names {
	struct arena strings;
	struct log_name *names;	/* the block's output lines, step after step */
	size_t *at;		/* per step of the block: its first line in names */
};

static void block_names_read(struct block_names *b, const struct timeline *tl, const uint32_t *steps, size_t n)
{
	size_t lines = 0;
	b->at = xrealloc(b->at, (n ? n : 1) * sizeof(*b->at));
	for (size_t i = 0; i < n; i++) {
		b->at[i] = lines;
		lines += tl->steps[steps[i]].noutputs;
	}
	uint64_t *where = xmalloc((lines ? lines : 1) * sizeof(*where));	/* entry << 32 | place in names */
	for (size_t i = 0, k = 0; i < n; i++)
		for (size_t o = 0; o < tl->steps[steps[i]].noutputs; o++, k++)
			where[k] = (uint64_t)(tl->steps[steps[i]].first + o) << 32 | k;
	radix_sort(where, lines, 32);
	arena_free(&b->strings);
	b->names = xrealloc(b->names, (lines ? lines : 1) * sizeof(*b->names));
	for (size_t k = 0; k < lines; k++) {
		struct log_name l = ninja_log_line(tl->log, where[k] >> 32);
		b->names[(uint32_t)where[k]] = (struct log_name){ arena_copy(&b->strings, l.output, l.output_len),
								  arena_copy(&b->strings, l.hash, l.hash_len),
								  l.output_len, l.hash_len };
	}
	free(where);
}

static void block_names_free(struct block_names *b)
{
	arena_free(&b->strings);
	free(b->names);
	free(b->at);
}

/* Steps in weight order, their names held or read a block at a time. */
static void write_steps_by_weight(struct json_stream *s, const struct timeline *tl, size_t block)
{
	uint32_t *order = log_view_by_weight(tl, 0);
	const struct log_name *held = tl->log->names;
	struct block_names b = { 0 };
	for (size_t i = 0; i < tl->n; i += block) {
		size_t len = tl->n - i < block ? tl->n - i : block;
		if (!held)
			block_names_read(&b, tl, order + i, len);
		for (size_t j = 0; j < len; j++) {
			/* In weight order the steps, their lines and names are all
			 * over memory: ask for later ones while this one is written. */
			if (j + 16 < len) {
				__builtin_prefetch(&tl->steps[order[i + j + 16]]);
				__builtin_prefetch(step_entry(tl, &tl->steps[order[i + j + 8]]));
				if (!held)
					__builtin_prefetch(b.names[b.at[j + 8]].output);
			}
			const struct step *st = &tl->steps[order[i + j]];
			write_step(s, tl, st, held ? held + st->first : b.names + b.at[j]);
			json_stream_end_object(s);
		}
	}
	block_names_free(&b);
	free(order);
}

/* The build against its distcc log: totals, the bound, each compile in it. */
static void write_cluster(struct json_stream *s, const struct timeline *tl, const struct cluster_report *r)
{
	json_stream_object(s);
	JSON_INT_MEMBER(s, "sent", (long long)r->sent);
	JSON_INT_MEMBER(s, "kept_here", (long long)r->kept_here);
	JSON_INT_MEMBER(s, "fell_back", (long long)r->sum.fell_back);
	JSON_INT_MEMBER(s, "failed", (long long)r->sum.failed);
	JSON_SECONDS_MEMBER(s, "there_s", r->there_s);
	JSON_SECONDS_MEMBER(s, "here_s", r->here_s);
	JSON_SECONDS_MEMBER(s, "wait_s", r->wait_s);
	JSON_SECONDS_MEMBER(s, "other_steps_s", r->local_s);
	JSON_INT_MEMBER(s, "remote_hosts", (long long)r->sum.remote_hosts);
	JSON_INT_MEMBER(s, "remote_slots", r->remote_slots);
	JSON_INT_MEMBER(s, "most_sent_at_once", r->most_sent);
	JSON_STRING_MEMBER(s, "bound", r->bound);
	JSON_STRING_MEMBER(s, "bound_why", r->bound_why);
	JSON_KEY(s, "compiles");
	json_stream_array(s);
	for (size_t i = 0; i < tl->n; i++) {
		const struct distcc_job *j = r->job[i];
		if (!j)
			continue;
		const struct log_name name = step_line(tl, &tl->steps[i], 0);
		json_stream_object(s);
		JSON_KEY(s, "output");
		json_stream_stringn(s, name.output, name.output_len);
		JSON_STRING_MEMBER(s, "host", j->host ? j->host : "");
		JSON_KEY(s, "remote");
		json_stream_bool(s, j->remote);
		JSON_KEY(s, "fell_back");
		json_stream_bool(s, j->fell_back);
		JSON_KEY(s, "hold_s");
		if (j->remote && !isnan(j->remote_s))
			json_stream_seconds(s, j->remote_s);
		else
			json_stream_null(s);
		JSON_SECONDS_MEMBER(s, "wait_s", j->wait_s);
		JSON_SECONDS_MEMBER(s, "here_s", r->here[i]);
		json_stream_end_object(s);
	}
	json_stream_end_array(s);
	json_stream_end_object(s);
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
	write_steps_by_weight(s, tl, v->names_block);
	json_stream_end_array(s);
	if (v->have_graph) {
		JSON_KEY(s, "critical_path");
		json_stream_array(s);
		for (size_t i = 0; i < v->rec.ncritical; i++) {
			const struct step *st = &tl->steps[v->rec.critical[i]];
			write_step(s, tl, st, v->build.names + st->first);
			json_stream_end_object(s);
		}
		json_stream_end_array(s);
		JSON_SECONDS_MEMBER(s, "critical_path_s", v->rec.critical_s);
		JSON_KEY(s, "recorded_chain");
		json_stream_array(s);
		for (size_t i = v->rec.nchain; i-- > 0;) {
			const struct step *st = &tl->steps[v->rec.chain[i]];
			write_step(s, tl, st, v->build.names + st->first);
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
	if (v->have_graph) {
		JSON_KEY(s, "launcher");
		json_stream_object(s);
		JSON_KEY(s, "name");
		if (v->launcher)
			json_stream_string(s, v->launcher);
		else
			json_stream_null(s);
		JSON_INT_MEMBER(s, "compiles_behind_it", (long long)v->sent_by_launcher);
		JSON_INT_MEMBER(s, "compiles", (long long)v->compiles);
		json_stream_end_object(s);
	}
	JSON_KEY(s, "cluster");
	if (v->cluster)
		write_cluster(s, tl, v->cluster);
	else
		json_stream_null(s);
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
		const struct log_entry *e = step_entry(tl, st);
		struct log_name name = step_line(tl, st, 0);
		JSON_KEY(s, "name");
		json_stream_stringn(s, name.output, name.output_len);
		JSON_STRING_MEMBER(s, "cat", step_kind_names[st->kind]);
		JSON_STRING_MEMBER(s, "ph", "X");
		JSON_INT_MEMBER(s, "ts", (long long)e->start_ms * 1000);
		JSON_INT_MEMBER(s, "dur", (long long)(e->end_ms - e->start_ms) * 1000);
		JSON_INT_MEMBER(s, "pid", 1);
		JSON_INT_MEMBER(s, "tid", st->slot);
		JSON_KEY(s, "args");
		json_stream_object(s);
		JSON_SECONDS_MEMBER(s, "duration_s", step_duration(tl, st));
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
