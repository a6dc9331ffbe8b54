/* A file written whole or not at all: written to a temp file beside its
 * path and renamed over it at the end, so a failure (a full disk, a
 * fatal error, an interrupt) leaves no partial file behind. */
#ifndef BUILDWALL_OUTFILE_H
#define BUILDWALL_OUTFILE_H

#include <stdio.h>

struct outfile {
	const char *path;	/* the caller's */
	char *tmp;
	FILE *f;
};

/* Open the temp file; dies naming path (exit 2: a path that cannot be
 * opened is the user's to fix). While it is open, an exit removes it. */
FILE *outfile_open(struct outfile *o, const char *path);
/* Close and rename into place; dies naming path on a failed write (exit 4). */
void outfile_commit(struct outfile *o);

#endif
