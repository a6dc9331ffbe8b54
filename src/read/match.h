/* Pull a number out of a build's output: aiter and friends print their own
 * timing ("finish build [module_x], cost 11.1s") wrapped in colour codes. */
#ifndef BUILDWALL_MATCH_H
#define BUILDWALL_MATCH_H

#include <stdbool.h>
#include <regex.h>

/* regcomp (POSIX ERE, plus flags); false, with *err set to regerror's words
 * (owned by the caller). */
bool regex_compile(regex_t *re, const char *pattern, int flags, char **err);
/* Remove ANSI escape sequences (colour codes) in place. */
void strip_ansi(char *s);
/* Stream `path` line by line (colour codes removed) and return the number
 * in the first capture group of the last matching line (the whole match
 * when the regex has no group), or NaN. */
double match_last_number(const regex_t *re, const char *path);

#endif
