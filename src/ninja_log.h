/* .ninja_log: what the last build really took, step by step. */
#ifndef BUILDWALL_NINJA_LOG_H
#define BUILDWALL_NINJA_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "arena.h"

struct log_entry {
	long start_ms, end_ms;	/* since the start of that ninja run */
	char *output;		/* in the log's arena */
	char *hash;		/* command hash, hex; in the log's arena */
};

/* One build (one ninja run) of a log. */
struct ninja_log {
	int version;
	struct log_entry *entries;	/* in completion order */
	size_t n;
	long first_line;		/* where its lines start in the file */
	const struct log_entry **by_output;	/* sorted by output, built on first find */
	struct arena strings;		/* the entries' outputs and hashes */
};

/* Which lines are one build: ninja appends one line per finished step, in
 * completion order, with times that restart at 0 every run. So end times
 * never fall within a run: a build is a maximal stretch of lines whose end
 * times do not fall, and the latest build is the longest such tail.
 * When the log grows too redundant, ninja recompacts it at the start of a
 * run: it rewrites one line per output, in hash order, then appends the
 * run. The rewritten lines fall apart into short stretches; a stretch
 * whose earliest step starts more than LOG_RUN_START_MS into its clock
 * cannot be the start of a run (ninja starts its first jobs at once), so it
 * is reported as rewritten and not counted as a build. (A rewritten line of
 * a step that did start at 0 still looks like a one-step build; the latest
 * build, after the rewritten lines, is never affected.) */
#define LOG_RUN_START_MS 1000

/* Stream a .ninja_log (v4 to v7: the same columns), calling `visit` for
 * every stretch, oldest first. `build` is valid during the call only,
 * unless the visitor takes its entries (moves them and the strings out and
 * sets entries to NULL, n to 0 and strings to empty). Only the current stretch is in memory. Returns NULL, or
 * "NAME:LINE: what" (owned by the caller) for malformed content; the
 * visitor has then seen only the stretches before it. An empty file is a
 * log with no builds yet. */
typedef void (*ninja_log_visit)(struct ninja_log *build, bool rewritten, void *ctx);
char *ninja_log_scan(FILE *f, const char *name, ninja_log_visit visit, void *ctx);
/* The same for a file: false when it does not exist (*err NULL) or cannot
 * be read (*err set). */
bool ninja_log_each(const char *path, ninja_log_visit visit, void *ctx, char **err);
/* The build `back` builds before the latest (0: the latest); *nbuilds
 * (when not NULL) gets the number of builds in the file. False when the
 * file does not exist, is malformed (*err set) or has fewer builds; `log`
 * is then empty. */
bool ninja_log_read_build(const char *path, long back, struct ninja_log *log, long *nbuilds, char **err);
/* The latest build; true for an existing log with no builds too (n 0). */
bool ninja_log_read_latest(const char *path, struct ninja_log *log, char **err);
/* Append an entry (its strings copied into the log's arena). */
void ninja_log_add(struct ninja_log *log, long start_ms, long end_ms, const char *output, const char *hash);
/* The entry for an output (its last line when it appears twice), or NULL. */
const struct log_entry *ninja_log_find(struct ninja_log *log, const char *output);
void ninja_log_free(struct ninja_log *log);

#endif
