/* A fingerprint of a directory tree (path, type, size, mtime of every
 * entry, and the contents of ninja's logs, .ninja_log and .ninja_deps), to
 * check that the build directory is as it was. Rewriting the outputs is
 * what keeps the tree untouched; this check is the safety net that says
 * so, or says what a compiler (or anything else) wrote anyway. */
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
void snapshot_free(struct snapshot *s);
/* The safety net for a command that probes dir: fingerprint it now,
 * before the first process (ninja included) could touch it, and again at
 * exit, by any path; a difference is an error (exit 4) naming what
 * changed. Call once, before the tmpdir is first used. */
void snapshot_guard(const char *dir);
/* Check now (as at exit) and stop guarding: for a command about to write
 * where the user asked, which may be inside the tree. */
void snapshot_guard_release(void);

#endif
