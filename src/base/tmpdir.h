/* buildwall's private temporary directory: every file a probe writes goes
 * here, and the whole tree is removed when buildwall exits, by any path. */
#ifndef BUILDWALL_TMPDIR_H
#define BUILDWALL_TMPDIR_H

/* Created on first use under $TMPDIR (or /tmp when it is unset), mode
 * 0700, with a lock file its run holds. A TMPDIR that is not a directory,
 * or has no room, is buildwall's fault to report (exit 4), not the build's.
 * Temp dirs of runs that were killed before they could clean up (their
 * lock is free) are removed first, with a note. */
const char *tmpdir_path(void);
/* Exit 4 naming TMPDIR when it has (next to) no room left: after a child
 * failed or printed nothing, this tells a full disk from a real failure. */
void tmpdir_check_room(void);
/* A fresh subdirectory "<tmp>/<name>"; the caller frees the string. */
char *tmpdir_subdir(const char *name);
/* Remove a directory tree, links not followed (the guardian's too). */
void remove_tree(const char *path);
/* Remove the tree now (also registered with atexit). */
void tmpdir_remove(void);

#endif
