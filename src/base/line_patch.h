/* One line of a file replaced or removed: the edited text, and the same
 * edit as a unified diff that `git apply` and `patch -p1` take (three
 * lines of context, a/ and b/ paths, a missing final newline marked). The
 * edits advise proves on a copy of the sources are handed back this way.
 *
 * Ownership: every string returned is the caller's. */
#ifndef BUILDWALL_LINE_PATCH_H
#define BUILDWALL_LINE_PATCH_H

#include <stdbool.h>
#include <stddef.h>

/* text (len bytes) with its line `line` (from 1) replaced by `with` (one
 * line, no newline; NULL: the line removed): false with *err when the
 * text has no such line. */
bool line_edit(const char *text, size_t len, unsigned long line, const char *with, char **edited, char **err);
/* The same edit as a diff of `path` (relative to the project's root). */
bool line_patch(const char *text, size_t len, unsigned long line, const char *with, const char *path, char **patch,
		char **err);

#endif
