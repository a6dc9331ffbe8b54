/* .ninja_log: what the last build really took, step by step.
 *
 * A build of a million steps is held as 16 bytes a line: times, where the
 * line is in the file, and what its name says (kind, same edge as the line
 * before). Names are held only when asked for (ninja_log_load_names, or a
 * scan with names); otherwise they are read again from the file, which the
 * log keeps open, so a recompaction that replaces the path does not change
 * what is read. */
#ifndef BUILDWALL_NINJA_LOG_H
#define BUILDWALL_NINJA_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "arena.h"

enum step_kind { KIND_KERNEL_TU, KIND_HOST_TU, KIND_COMPILE, KIND_LINK, KIND_OTHER, NKINDS };
/* "kernel TU", "host TU", "compile", "link", "other". */
extern const char *const step_kind_names[NKINDS];
/* From the output's name alone: an object is a compile (what it compiles
 * is not in its name: aiter and torch call every object X.cuda.o),
 * libraries and extensionless files are links. */
enum step_kind step_kind_of(const char *output, size_t len);

struct log_entry {
	uint32_t start_ms, end_ms;	/* since the start of that ninja run */
	uint64_t line : 56;		/* where its line starts in the file (0: added) */
	uint64_t kind : 4;		/* step_kind_of its output */
	uint64_t joins : 1;		/* same times and hash as the line before: one edge's outputs */
};

/* An entry's names (NUL-terminated; lengths for the writers of a million). */
struct log_name {
	const char *output, *hash;
	uint32_t output_len, hash_len;
};

/* One build (one ninja run) of a log. */
struct ninja_log {
	int version;
	struct log_entry *entries;	/* in completion order */
	struct log_name *names;		/* per entry, or NULL: not held (ninja_log_line) */
	size_t n;
	long first_line;		/* where its lines start in the file */
	int64_t newest_mtime;		/* the latest output mtime its lines carry, as ninja
					 * wrote it (0: none); ninja_log_when reads it */
	FILE *source;			/* the file the lines are in; NULL for added entries */
	bool owns_source;
	const struct log_entry **by_output;	/* sorted by output, built on first find */
	struct arena strings;		/* the names */
	struct log_reread *reread;	/* ninja_log_line's buffer, with a source */
};

/* When the build ran, as Unix seconds from its newest output mtime
 * (ninja 1.10 and later write nanoseconds, earlier ones seconds); 0 when
 * the log does not say. */
int64_t ninja_log_when(const struct ninja_log *log);

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
 * every stretch, oldest first, with its names when `names`. `build` is
 * valid during the call only, unless the visitor takes it (moves the
 * struct out and sets entries and names to NULL, n to 0 and strings to
 * empty). Only the current stretch is in memory. Returns NULL, or
 * "NAME:LINE: what" (owned by the caller) for malformed content; the
 * visitor has then seen only the stretches before it. An empty file is a
 * log with no builds yet. */
typedef void (*ninja_log_visit)(struct ninja_log *build, bool rewritten, void *ctx);
bool ninja_log_scan(FILE *f, const char *name, bool names, ninja_log_visit visit, void *ctx, char **err);
/* The same for a file: false when it does not exist (*err NULL) or cannot
 * be read (*err set). */
bool ninja_log_each(const char *path, bool names, ninja_log_visit visit, void *ctx, char **err);
/* The build `back` builds before the latest (0: the latest), without its
 * names; *nbuilds (when not NULL) gets the number of builds in the file.
 * False when the file does not exist, is malformed (*err set) or has fewer
 * builds; `log` is then empty. */
bool ninja_log_read_build(const char *path, long back, struct ninja_log *log, long *nbuilds, char **err);
/* The latest build with its names; true for an existing log with no
 * builds too (n 0). */
bool ninja_log_read_latest(const char *path, struct ninja_log *log, char **err);
/* Read every entry's names from the file (once; a no-op when held). Exits
 * 2 as ninja_log_line does. */
void ninja_log_load_names(struct ninja_log *log);
/* Entry i's names: held, or read again from the file (then valid until the
 * next call). Cheap in file order, one read of the file's neighbourhood
 * otherwise. Exits 2 when the line is no longer there as it was read. */
struct log_name ninja_log_line(const struct ninja_log *log, size_t i);
/* Append an entry (its strings copied into the log's arena). */
void ninja_log_add(struct ninja_log *log, long start_ms, long end_ms, const char *output, const char *hash);
/* The entry for an output (its last line when it appears twice), or NULL;
 * the names must be held. */
const struct log_entry *ninja_log_find(struct ninja_log *log, const char *output);
/* A build a ninja_log_scan visitor is handed, taken into *to (its entries,
 * names and strings; no file behind them), as the scan allows: build is
 * left empty. */
void ninja_log_take(struct ninja_log *to, struct ninja_log *build);
void ninja_log_free(struct ninja_log *log);

#endif
