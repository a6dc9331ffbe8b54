#define _GNU_SOURCE
#include "history_view.h"
#include "out_json.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int by_movement(const void *a, const void *b)
{
	const struct moved *x = a, *y = b;
	double dx = fabs(x->to - x->from), dy = fabs(y->to - y->from);
	return (dx < dy) - (dx > dy);
}

/* The steps at each end and how far each moved, largest first. */
static char *compare_ends(struct history_db *h, struct series_view *v)
{
	size_t k = v->n < 2 * HISTORY_POINT_BUILDS ? v->n / 2 : HISTORY_POINT_BUILDS;
	if (!k)
		return NULL;
	int64_t *ids = xcalloc(2 * k, sizeof(int64_t));
	for (size_t i = 0; i < k; i++) {
		ids[i] = v->builds[i].id;
		ids[k + i] = v->builds[v->n - k + i].id;
	}
	char *err = NULL;
	history_db_steps(h, ids, k, &v->first, &v->nfirst, &err);
	if (!err)
		history_db_steps(h, ids + k, k, &v->last, &v->nlast, &err);
	free(ids);
	if (err)
		return err;
	/* Both lists are sorted by target: one merge. */
	v->moved = xcalloc(v->nfirst + v->nlast + 1, sizeof(*v->moved));
	size_t i = 0, j = 0;
	while (i < v->nfirst || j < v->nlast) {
		int c = i == v->nfirst ? 1 : j == v->nlast ? -1 : strcmp(v->first[i].target, v->last[j].target);
		struct moved m = { c <= 0 ? v->first[i].target : v->last[j].target, c <= 0 ? v->first[i].seconds : 0,
				   c >= 0 ? v->last[j].seconds : 0 };
		v->moved[v->nmoved++] = m;
		i += c <= 0;
		j += c >= 0;
	}
	qsort(v->moved, v->nmoved, sizeof(*v->moved), by_movement);
	if (v->nmoved > HISTORY_MOVED)
		v->nmoved = HISTORY_MOVED;
	return NULL;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Each group of builds with one commit and one set of labels fenced on
 * its own: a build is an outlier among its like, never against builds of
 * another commit. */
static void fence_groups(struct series_view *v)
{
	v->fenced = xcalloc(v->n + 1, sizeof(bool));
	v->times_median = xcalloc(v->n + 1, sizeof(double));
	bool *done = xcalloc(v->n + 1, sizeof(bool)), *flags = xcalloc(v->n + 1, sizeof(bool));
	size_t *members = xcalloc(v->n + 1, sizeof(size_t));
	double *walls = xcalloc(v->n + 1, sizeof(double));
	for (size_t i = 0; i < v->n; i++) {
		if (done[i])
			continue;
		size_t k = 0;
		for (size_t j = i; j < v->n; j++)
			if (!done[j] && same_text(v->builds[j].commit, v->builds[i].commit) &&
			    same_text(v->builds[j].labels, v->builds[i].labels)) {
				done[j] = true;
				members[k] = j;
				walls[k++] = v->builds[j].wall;
			}
		v->nfenced += fence_outliers(walls, k, FENCE_FLOOR, flags);
		double median = median_of(walls, k);
		for (size_t m = 0; m < k; m++) {
			v->fenced[members[m]] = flags[m];
			v->times_median[members[m]] = walls[m] / median;
		}
	}
	free(done);
	free(flags);
	free(members);
	free(walls);
}

static void series_free(struct series_view *v)
{
	free(v->fenced);
	free(v->times_median);
	history_builds_free(v->builds, v->n);
	history_steps_free(v->first, v->nfirst);
	history_steps_free(v->last, v->nlast);
	free(v->moved);
}

static json_t *series_json(const struct series_view *v)
{
	json_t *builds = json_array(), *moved = json_array();
	for (size_t i = 0; i < v->n; i++) {
		const struct history_build *b = &v->builds[i];
		json_array_append_new(builds, json_pack("{s:s, s:I, s:o, s:b, s:o, s:s, s:o, s:o, s:I, s:I, s:b, s:f, s:o, s:o}", "identity",
			b->identity, "recorded_at", (json_int_t)b->recorded_at, "commit",
			b->commit ? json_string(b->commit) : json_null(), "dirty", b->dirty, "labels",
			b->labels ? json_string(b->labels) : json_null(), "source", b->source, "wall_s", json_seconds(b->wall),
			"critical_path_s", json_seconds(b->critical), "steps", (json_int_t)b->steps, "jobs", (json_int_t)b->jobs,
			"fenced", v->fenced[i], "times_median", round(v->times_median[i] * 1000) / 1000,
			"control_s", b->control > 0 ? json_seconds(b->control) : json_null(),
			"control_by", b->control_by ? json_string(b->control_by) : json_null()));
	}
	for (size_t i = 0; i < v->nmoved; i++)
		json_array_append_new(moved, json_pack("{s:s, s:o, s:o, s:o}", "target", v->moved[i].target, "from_s",
			json_seconds(v->moved[i].from), "to_s", json_seconds(v->moved[i].to), "delta_s",
			json_seconds(v->moved[i].to - v->moved[i].from)));
	return json_pack("{s:s, s:{s:I, s:s}, s:I, s:o, s:o, s:o}", "module", v->series->module, "machine", "cpus",
			 (json_int_t)v->series->cpus, "model", v->series->model, "recorded", (json_int_t)v->series->builds,
			 "builds", builds, "wall_s", v->n ? json_summary(v->wall) : json_null(), "moved", moved);
}

bool history_view_load(struct history_view *v, struct history_db *h, const char *module, const char *label,
			int64_t since, long last, char **err)
{
	*v = (struct history_view){ 0 };
	char *why = NULL;
	if (!history_db_series(h, module, &v->series, &v->n, &why))
		return ok_unless(err, why);
	v->views = xcalloc(v->n ? v->n : 1, sizeof(*v->views));
	for (size_t i = 0; i < v->n; i++) {
		struct series_view *sv = &v->views[i];
		sv->series = &v->series[i];
		struct history_filter f = { .module = v->series[i].module, .cpus = v->series[i].cpus,
					    .model = v->series[i].model, .label = label, .since = since, .complete = true,
					    .limit = last };
		if (!history_db_builds(h, &f, &sv->builds, &sv->n, &why))
			return ok_unless(err, why);
		double *walls = xcalloc(sv->n ? sv->n : 1, sizeof(double));
		for (size_t k = 0; k < sv->n; k++)
			walls[k] = sv->builds[k].wall;
		sv->wall = summarize(walls, sv->n);
		free(walls);
		fence_groups(sv);
		if ((why = compare_ends(h, sv)))
			return ok_unless(err, why);
	}
	return true;
}

json_t *history_view_document(const struct history_view *v, const char *db_path)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(arr, series_json(&v->views[i]));
	return json_pack("{s:s, s:o}", "db", db_path, "series", arr);
}

void history_view_free(struct history_view *v)
{
	for (size_t i = 0; i < v->n; i++)
		series_free(&v->views[i]);
	free(v->views);
	history_series_free(v->series, v->n);
	*v = (struct history_view){ 0 };
}
