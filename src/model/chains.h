/* Include chains: from a TU down to the first file that matches a rule (a
 * heavy header), read off the include stack while the markers are
 * scanned. Entries below a match belong to it; chains with the same files
 * are one chain, with their lines summed. */
#ifndef BUILDWALL_CHAINS_H
#define BUILDWALL_CHAINS_H

#include "markers.h"

struct chain {
	size_t section;		/* index into the scan's sections */
	size_t *files;		/* the section's file indexes, the TU first, the match last */
	unsigned long *include_lines;	/* files[i]'s #include is on this line of files[i-1] */
	size_t n;
	size_t lines;		/* code lines emitted while the match was open, over all entries */
	size_t entries;
};

struct chain_finder {
	/* The rule: does this file of the section being scanned match? */
	bool (*matches)(void *ctx, const struct markers *m, size_t file);
	void *ctx;
	struct chain *chains;	/* in the order first seen */
	size_t n;
	/* private */
	const struct pp_section *cached_for;
	signed char *verdicts;	/* per file: -1 unknown, 0 no, 1 matches */
	size_t nverdicts;
	size_t open_depth, open_chain;
};

/* Hooks for markers_scan that fill f. */
struct pp_hooks chain_hooks(struct chain_finder *f);
void chain_finder_free(struct chain_finder *f);

#endif
