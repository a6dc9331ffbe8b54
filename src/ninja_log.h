/* .ninja_log: what the last build really took, step by step. */
#ifndef BUILDWALL_NINJA_LOG_H
#define BUILDWALL_NINJA_LOG_H

#include <stdbool.h>
#include <stddef.h>

struct log_entry {
	long start_ms, end_ms;	/* since the start of that ninja run */
	long long mtime;
	char *output;
	char *hash;		/* command hash, hex */
};

struct ninja_log {
	int version;
	struct log_entry *entries;	/* the latest build, in completion order */
	size_t n;
	const struct log_entry **by_output;	/* sorted by output, built on first find */
};

/* Read the latest build from a .ninja_log (v5, v6 or v7: same columns).
 * Returns false when the file does not exist; dies with "file:line: what"
 * (exit 2) on malformed content. The file is streamed: only the current
 * build's lines are kept in memory.
 *
 * Which lines are the latest build: ninja appends one line per finished
 * step, in completion order, with times that restart at 0 every run. So
 * end times never fall within a run, and the latest build is the longest
 * tail of the file whose end times do not fall. */
bool ninja_log_read_latest(const char *path, struct ninja_log *log);
/* The entry for an output (its last line when it appears twice), or NULL. */
const struct log_entry *ninja_log_find(struct ninja_log *log, const char *output);
void ninja_log_free(struct ninja_log *log);

#endif
