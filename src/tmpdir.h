/* buildwall's private temporary directory: every file a probe writes goes
 * here, and the whole tree is removed when buildwall exits, by any path. */
#ifndef BUILDWALL_TMPDIR_H
#define BUILDWALL_TMPDIR_H

/* Created on first use under $TMPDIR (or /tmp), mode 0700. */
const char *tmpdir_path(void);
/* A fresh subdirectory "<tmp>/<name>"; the caller frees the string. */
char *tmpdir_subdir(const char *name);
/* Remove the tree now (also registered with atexit). */
void tmpdir_remove(void);

#endif
