/* buildwall history: a module's recorded clean builds over time, per
 * machine, and the steps whose durations moved most between the first
 * builds shown and the last. Reads the history only. */
#define _GNU_SOURCE
#include "cli.h"
#include "history_view.h"
#include "options.h"
#include "out_json.h"
#include "out_table.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
	"usage: buildwall history [MODULE] [--since WHEN] [--last N] [--label K=V] [--db PATH] [--json]\n"
	"\n"
	"The recorded clean builds (buildwall record) of MODULE, or of every module, per\n"
	"machine (CPUs and model): the last N (default 20), oldest first, each with its commit,\n"
	"labels, wall, critical path, the most jobs at once and the control compile of its\n"
	"sitting (the machine's speed then: check divides by it); their least, median and most\n"
	"wall; and the steps whose durations moved most between the first builds shown and\n"
	"the last (the median of up to 3 builds at each end). A wall marked * is an outlier\n"
	"among the builds of its commit and labels (3 at least), as check fences it. --since:\n"
	"a date (2026-11-30) or an age (7d, 12h).\n"
	"\n";

static bool parse_since(void *value, const char *arg, char **err)
{
	int64_t *since = value;
	char unit = 0;
	double n;
	int y, m, d;
	char tail;
	if (sscanf(arg, "%d-%d-%d%c", &y, &m, &d, &tail) == 3 && m >= 1 && m <= 12 && d >= 1 && d <= 31) {
		struct tm tm = { .tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d, .tm_isdst = -1 };
		*since = (int64_t)mktime(&tm);
		return true;
	}
	if (sscanf(arg, "%lf%c%c", &n, &unit, &tail) == 2 && n >= 0 && (unit == 'd' || unit == 'h')) {
		*since = (int64_t)time(NULL) - (int64_t)(n * (unit == 'd' ? 86400 : 3600));
		return true;
	}
	return fail_with(err, xasprintf("--since takes a date (2026-11-30) or an age (7d, 12h), not '%s'", arg));
}

static char *when(int64_t t)
{
	char text[32];
	time_t tt = (time_t)t;
	struct tm tm;
	strftime(text, sizeof(text), "%Y-%m-%d %H:%M", localtime_r(&tt, &tm));
	return xstrdup(text);
}

static void print_series(const struct series_view *v)
{
	const struct history_series *s = v->series;
	printf("%s%s%s on %ld CPUs (%s): %zu build%s recorded, %zu clean shown\n", c_bold(stdout), s->module,
	       c_reset(stdout), s->cpus, s->model, s->builds, s->builds == 1 ? "" : "s", v->n);
	if (!v->n)
		return;
	printf("walls as each build recorded them (its .ninja_log, or the document recorded); builds that ran every "
	       "compile step only\n");
	struct table *t = table_new();
	table_column(t, "recorded", false);
	table_column(t, "commit", false);
	table_column(t, "labels", false);
	table_column(t, "wall s", true);
	table_column(t, "critical s", true);
	table_column(t, "steps", true);
	table_column(t, "jobs", true);
	table_column(t, "control s", true);
	for (size_t i = 0; i < v->n; i++) {
		const struct history_build *b = &v->builds[i];
		char *at = when(b->recorded_at);
		table_cell(t, "%s", at);
		if (b->commit)
			table_cell(t, "%.10s%s", b->commit, b->dirty ? "+" : "");
		else
			table_cell(t, "-");
		table_cell(t, "%s", b->labels ? b->labels : "");
		table_cell(t, "%.2f%s", b->wall, v->fenced[i] ? "*" : "");
		if (isnan(b->critical))
			table_cell(t, "-");
		else
			table_cell(t, "%.2f", b->critical);
		table_cell(t, "%ld", b->steps);
		table_cell(t, "%ld", b->jobs);
		if (b->control > 0)
			table_cell(t, "%.3f", b->control);
		else
			table_cell(t, "-");
		free(at);
	}
	table_print(t, stdout);
	table_free(t);
	bool dirty = false;
	for (size_t i = 0; i < v->n; i++)
		dirty |= v->builds[i].dirty;
	printf("wall: least %.2f s, median %.2f s, most %.2f s%s\n", v->wall.min, v->wall.median, v->wall.max,
	       dirty ? " (+: tracked files had changed since that commit)" : "");
	double least = INFINITY, most = 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->builds[i].control > 0) {
			least = fmin(least, v->builds[i].control);
			most = fmax(most, v->builds[i].control);
		}
	if (most > 0)
		printf("control: the machine's speed in each build's sitting (buildwall's control TU compiled with the "
		       "build's compiler): %.3f to %.3f s, %.0f %% apart\n", least, most, 100 * (most / least - 1));
	if (v->nfenced)
		printf("*: an outlier among the builds of its commit and labels (slower than their median by more "
		       "than %.1f median absolute deviations and %.0f %%: a cold cache, a busy machine); check leaves %s out\n", FENCE_MADS,
		       100 * FENCE_FLOOR, v->nfenced == 1 ? "it" : "them");
	if (!v->nmoved)
		return;
	printf("moved most from the first %s to the last:\n", v->n < 2 * HISTORY_POINT_BUILDS ? "builds" : "3 builds");
	t = table_new();
	table_column(t, "step", false);
	table_column(t, "from s", true);
	table_column(t, "to s", true);
	table_column(t, "change s", true);
	for (size_t i = 0; i < v->nmoved; i++) {
		table_cell(t, "%s", v->moved[i].target);
		table_cell(t, "%.2f", v->moved[i].from);
		table_cell(t, "%.2f", v->moved[i].to);
		table_cell(t, "%+.2f", v->moved[i].to - v->moved[i].from);
	}
	table_print(t, stdout);
	table_free(t);
}

static void render_json(const struct history_view *hv, const char *db_path)
{
	json_t *doc = json_document("history", NULL, 0);
	json_object_update_new(doc, history_view_document(hv, db_path));
	json_print(doc);
}

static void render_table(const struct history_view *hv, const char *db_path)
{
	if (!hv->n)
		printf("history: no builds recorded in %s yet (buildwall record -C DIR)\n", db_path);
	for (size_t i = 0; i < hv->n; i++) {
		if (i)
			putchar('\n');
		print_series(&hv->views[i]);
	}
}

int cmd_history(int argc, char **argv)
{
	const char *db_option = NULL, *label = NULL;
	int64_t since = 0;
	long last = 20;
	bool json = false;
	const struct opt opts[] = {
		OPT_CALL(0, "since", &since, "WHEN", "builds recorded since a date (2026-11-30) or an age (7d)", parse_since),
		OPT_INT(0, "last", &last, "N", "the last N clean builds of each module and machine (default 20)", 1, 1000000),
		OPT_STRING(0, "label", &label, "K=V", "only builds with this label"),
		OPT_DB(&db_option),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("history", argc, argv, opts, usage);
	if (argc - first > 1)
		usage_error("history", "one MODULE at most, not '%s' too", argv[first + 1]);
	if (label && !strchr(label, '='))
		usage_error("history", "--label takes KEY=VALUE, not '%s'", label);
	const char *module = first < argc ? argv[first] : NULL;
	char *db_path = history_db_path(db_option);
	struct history_db h;
	char *err = NULL;
	if (!history_db_open(&h, db_path, false, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	struct history_view hv;
	if (!history_view_load(&hv, &h, module, label, since, last, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	if (module && !hv.n)
		die(EXIT_BAD_INPUT, "%s: no builds of '%s' recorded", db_path, module);
	if (json)
		render_json(&hv, db_path);
	else
		render_table(&hv, db_path);
	history_view_free(&hv);
	history_db_close(&h);
	free(db_path);
	return EXIT_OK;
}
