/* A module's history as history and report show it: per module and
 * machine, the last clean builds (oldest first), their walls summarized,
 * the steps whose median duration moved most between the first builds
 * shown and the last, and the builds fenced as outliers among those of
 * the same commit and labels (stats.h: fence_outliers; 3 builds at
 * least: what check would leave out); and its --json document
 * (docs/json.md).
 *
 * Ownership: a history_view owns everything in it; history_view_free. */
#ifndef BUILDWALL_HISTORY_VIEW_H
#define BUILDWALL_HISTORY_VIEW_H

#include "history_db.h"
#include "stats.h"

#include <jansson.h>

#define HISTORY_POINT_BUILDS 3	/* the builds each end of the trend is a median of */
#define HISTORY_MOVED 5

struct moved {
	const char *target;
	double from, to;
};

struct series_view {
	struct history_series *series;
	struct history_build *builds;
	size_t n;
	bool *fenced;		/* per build */
	double *times_median;	/* per build: its wall over its group's median */
	size_t nfenced;
	struct summary wall;
	struct history_step *first, *last;
	size_t nfirst, nlast;
	struct moved *moved;
	size_t nmoved;
};

struct history_view {
	struct history_series *series;
	struct series_view *views;
	size_t n;
};

/* module NULL: every module. label "K=V" or NULL; since Unix seconds (0:
 * all); last: builds per series. False, with *err set to what is wrong (owned). */
bool history_view_load(struct history_view *v, struct history_db *h, const char *module, const char *label,
			int64_t since, long last, char **err);
/* {db, series[]}: history's --json fields. */
json_t *history_view_document(const struct history_view *v, const char *db_path);
void history_view_free(struct history_view *v);

#endif
