/* One build of a .ninja_log as log shows it: its timeline and, with the
 * build dir, the critical path and the recorded chain through ninja's
 * graph; and its --json document. log and report share it.
 *
 * Ownership: a log_view owns what it read; dir and path are the caller's
 * and must outlive it. */
#ifndef BUILDWALL_LOG_VIEW_H
#define BUILDWALL_LOG_VIEW_H

#include "cluster.h"
#include "ninja_log.h"
#include "recorded.h"
#include "timeline.h"

#include <jansson.h>
#include <stdbool.h>

struct log_view {
	const char *dir;	/* NULL: a log file alone (no graph) */
	const char *path;
	long back;		/* builds before the latest */
	long nbuilds;
	struct ninja_log build;
	struct timeline tl;
	struct recorded rec;
	bool have_graph;
	/* With the graph: its compiles, and those behind a launcher that sends
	 * them to a cluster (distcc, icecc: the last one seen) */
	size_t compiles, sent_by_launcher;
	const char *launcher;
	size_t names_block;	/* steps whose names --json reads at once (tests make it small) */
	const struct cluster_report *cluster;	/* the build against its distcc log (the caller's); NULL: none */
};

/* Read build `back` of the log at path (and dir's graph, when dir is not
 * NULL). False, with *err set to what is wrong with the input (owned by the caller). */
bool log_view_load(struct log_view *v, const char *dir, const char *path, long back, char **err);
/* The same against a graph the caller loaded (and keeps). */
bool log_view_load_graph(struct log_view *v, const struct ninja_build *b, const char *path, long back, char **err);
/* Every build of the log at path, oldest first, handed to each(v, ctx)
 * with its timeline (and, when b is not NULL, read against that graph, the
 * caller's): the file is read once, one build in memory at a time; v is
 * freed after each call, and its `back` counts from the oldest (the file's
 * build count is unknown until the end: *nbuilds, when not NULL). False, with *err set to what is wrong
 * with the input (owned by the caller), as log_view_load says it. */
bool log_view_each(const struct ninja_build *b, const char *path, void (*each)(struct log_view *v, void *ctx),
		    void *ctx, long *nbuilds, char **err);
/* A build a ninja_log_scan visitor holds, with its names, taken into v
 * (ninja_log_take) with its timeline, and read against b when not NULL;
 * back as the caller counts it. */
void log_view_take(struct log_view *v, const struct ninja_build *b, const char *path, struct ninja_log *build,
		   long back);
/* The indexes of the k steps with the most weighted time (k 0: all),
 * heaviest first, equals in log order (owned by the caller; k of them, or
 * all). */
uint32_t *log_view_by_weight(const struct timeline *tl, size_t k);
struct json_stream;
/* log's --json document (docs/json.md), written as it is made. */
void log_view_write(const struct log_view *v, struct json_stream *s);
/* The same document as a tree (report draws it). */
json_t *log_view_document(const struct log_view *v);
/* log --trace: a Chrome trace, a track per job slot. */
void log_view_write_trace(const struct log_view *v, struct json_stream *s);
void log_view_free(struct log_view *v);

#endif
