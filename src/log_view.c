#include "log_view.h"
#include "ninja.h"
#include "out_json.h"
#include "util.h"

#include <math.h>
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

static int cmp_weighted(const void *a, const void *b)
{
	const struct step *x = *(const struct step *const *)a, *y = *(const struct step *const *)b;
	return (x->weighted < y->weighted) - (x->weighted > y->weighted);
}

const struct step **log_view_by_weight(const struct timeline *tl)
{
	const struct step **order = xcalloc(tl->n ? tl->n : 1, sizeof(*order));
	for (size_t i = 0; i < tl->n; i++)
		order[i] = &tl->steps[i];
	qsort(order, tl->n, sizeof(*order), cmp_weighted);
	return order;
}

static json_t *json_step(const struct step *s)
{
	json_t *outputs = json_array();
	for (size_t o = 0; o < s->noutputs; o++)
		json_array_append_new(outputs, json_string(s->first[o].output));
	return json_build("{s:s, s:o, s:s, s:s, s:o, s:o, s:o, s:o, s:i}", "output", s->first->output, "outputs", outputs,
			 "hash", s->first->hash, "kind", step_kind_names[s->kind], "start_s", json_seconds(s->start),
			 "end_s", json_seconds(s->end), "duration_s", json_seconds(s->end - s->start),
			 "weighted_s", json_seconds(s->weighted), "slot", s->slot);
}

json_t *log_view_document(const struct log_view *v)
{
	const struct timeline *tl = &v->tl;
	json_t *doc = json_document("log", v->dir, 0);
	json_object_set_new(doc, "log", json_string(v->path));
	json_object_set_new(doc, "build", json_build("{s:I, s:I, s:I, s:I, s:I}", "back", (json_int_t)v->back,
		"builds_in_file", (json_int_t)v->nbuilds, "first_line", (json_int_t)v->build.first_line,
		"lines", (json_int_t)v->build.n, "log_version", (json_int_t)v->build.version));
	json_object_set_new(doc, "wall_s", json_seconds(tl->wall));
	json_object_set_new(doc, "busy_s", json_seconds(tl->busy));
	json_object_set_new(doc, "parallelism", json_real(tl->wall > 0 ? round(tl->busy / tl->wall * 1000) / 1000 : 0));
	json_object_set_new(doc, "max_running", json_integer(tl->slots));
	json_t *profile = json_array();
	for (int b = 0; b < TIMELINE_BUCKETS; b++)
		json_array_append_new(profile, json_real(round(tl->profile[b] * 1000) / 1000));
	json_object_set_new(doc, "parallelism_profile", profile);
	json_t *kinds = json_object();
	for (int k = 0; k < NKINDS; k++)
		json_object_set_new(kinds, step_kind_names[k], json_build("{s:I, s:o, s:o}", "steps",
			(json_int_t)tl->count_by_kind[k], "seconds", json_seconds(tl->by_kind[k]),
			"weighted_s", json_seconds(tl->weighted_by_kind[k])));
	json_object_set_new(doc, "by_kind", kinds);
	json_t *steps = json_array();
	const struct step **order = log_view_by_weight(tl);
	for (size_t i = 0; i < tl->n; i++)
		json_array_append_new(steps, json_step(order[i]));
	free(order);
	json_object_set_new(doc, "steps", steps);
	if (v->have_graph) {
		json_t *path = json_array(), *chain = json_array();
		for (size_t i = 0; i < v->rec.ncritical; i++)
			json_array_append_new(path, json_step(&tl->steps[v->rec.critical[i]]));
		for (size_t i = v->rec.nchain; i-- > 0;) {
			json_t *step = json_step(&tl->steps[v->rec.chain[i]]);
			/* What this step waited for: the entry before it. */
			json_object_set_new(step, "waited_for", v->rec.waited[i] ? json_string(v->rec.waited[i]) : json_null());
			json_array_append_new(chain, step);
		}
		json_object_set_new(doc, "critical_path", path);
		json_object_set_new(doc, "critical_path_s", json_seconds(v->rec.critical_s));
		json_object_set_new(doc, "recorded_chain", chain);
	} else {
		json_object_set_new(doc, "critical_path", json_null());
		json_object_set_new(doc, "note", json_string("the critical path needs the build dir (-C)"));
	}
	return doc;
}

void log_view_free(struct log_view *v)
{
	timeline_free(&v->tl);
	ninja_log_free(&v->build);
	recorded_free(&v->rec);
}
