/* A cheap fingerprint of a directory tree (path, type, size, mtime of every
 * entry), to check after probing that the build directory is as it was.
 * Rewriting the outputs is what keeps the tree untouched; this check is
 * the safety net that says so, or says what a compiler wrote anyway. */
#ifndef BUILDWALL_SNAPSHOT_H
#define BUILDWALL_SNAPSHOT_H

#include <stddef.h>

#include "util.h"

struct snapshot_entry;

struct snapshot {
	struct snapshot_entry *entries;	/* sorted by path */
	size_t n, alloc;
};

void snapshot_take(const char *dir, struct snapshot *s);
/* Append "path (new|removed|changed)" for each difference, at most `max`;
 * returns how many differences there are in all. */
size_t snapshot_diff(const struct snapshot *before, const struct snapshot *after, struct strvec *out, size_t max);
/* The safety net: fingerprint dir again, warn (naming entries) if it
 * differs from `before`, and free `before`. */
void snapshot_check(const char *dir, struct snapshot *before);
void snapshot_free(struct snapshot *s);

#endif
