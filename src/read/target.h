/* The one rule for naming a target, shared by every command: an output
 * path exactly as ninja knows it, else its basename, else a glob (* ? [])
 * matched against the path or the basename. */
#ifndef BUILDWALL_TARGET_H
#define BUILDWALL_TARGET_H

#include <stdbool.h>
#include <stddef.h>

/* Mark in `selected` every candidate a pattern names. Dies with exit 2 and
 * one line when a pattern matches nothing, or when a plain name matches
 * several basenames (listing them). */
void target_select(char *const *patterns, size_t npatterns,
		   char *const *candidates, size_t ncandidates, bool *selected);
/* Index of the single candidate `pattern` names, -1 for none, -2 when
 * ambiguous; no messages. */
long target_match_one(const char *pattern, char *const *candidates, size_t n);

#endif
