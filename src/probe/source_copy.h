/* A private copy of a project's sources, to compile an edit of them
 * without touching the user's: the files the TUs read under the project's
 * root copied into the temp dir, a TU's command rewritten to read the
 * copy, and the originals checked at the end against what was copied
 * (byte for byte, and their times), so that no probe changed them.
 *
 * Ownership: a source_copy owns its strings and its tree in the temp dir
 * (removed by source_copy_free). */
#ifndef BUILDWALL_SOURCE_COPY_H
#define BUILDWALL_SOURCE_COPY_H

#include "util.h"

#include <stdbool.h>
#include <time.h>

struct source_copy {
	char *root;		/* the project's root: absolute, links resolved */
	char *dir;		/* the copy, in the private temp dir */
	struct strvec files;	/* copied, relative to root */
	struct timespec *mtimes;	/* each original's when it was copied */
};

/* The deepest directory that holds every one of `paths` (as seen from
 * `cwd`, links resolved; those that do not exist left out), or NULL when
 * there is none below "/". Owned. */
char *source_copy_common_root(const struct strvec *paths, const char *cwd);
/* Copy `paths` (as seen from `cwd`) that lie under root into a fresh
 * temp subdir `name`; the rest are left out. False with *err when root
 * is not a directory or a file cannot be read or written. */
bool source_copy_make(const char *root, const struct strvec *paths, const char *cwd, const char *name,
		      struct source_copy *sc, char **err);
/* A copy of sc's files as they were copied, into another subdir: one
 * per edit, so that edits compile side by side. */
bool source_copy_clone(const struct source_copy *sc, const char *name, struct source_copy *out, char **err);
/* argv (a compile run in `cwd`) made to read the copy: a source or
 * -include file that was copied is the copy's, and each include
 * directory under root (-I, -iquote, -isystem, -idirafter) has its
 * copy searched before it, where the copy has one. */
void source_copy_command(const struct source_copy *sc, const char *cwd, struct strvec *argv);
/* The copy's `file` (relative to root) with line `line` replaced by
 * `with` (NULL: removed); false with *err when it was not copied or has
 * no such line. */
bool source_copy_edit(const struct source_copy *sc, const char *file, unsigned long line, const char *with,
		      char **err);
/* Whether every original is as it was copied: false with *err naming
 * the first file that changed. */
bool source_copy_unchanged(const struct source_copy *sc, char **err);
/* The copy removed and sc's memory freed. */
void source_copy_free(struct source_copy *sc);

#endif
