#include "target.h"
#include "util.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

static const char *strip_dot_slash(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

long target_match_one(const char *pattern, char *const *candidates, size_t n)
{
	pattern = strip_dot_slash(pattern);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(strip_dot_slash(candidates[i]), pattern))
			return (long)i;
	long found = -1;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(base_name(candidates[i]), pattern))
			continue;
		if (found >= 0)
			return -2;
		found = (long)i;
	}
	return found;
}

void target_select(char *const *patterns, size_t npatterns,
		   char *const *candidates, size_t ncandidates, bool *selected)
{
	for (size_t p = 0; p < npatterns; p++) {
		const char *pat = strip_dot_slash(patterns[p]);
		if (is_glob(pat)) {
			size_t hits = 0;
			for (size_t i = 0; i < ncandidates; i++) {
				const char *c = strip_dot_slash(candidates[i]);
				if (!fnmatch(pat, c, 0) || !fnmatch(pat, base_name(c), 0)) {
					selected[i] = true;
					hits++;
				}
			}
			if (!hits)
				die(EXIT_BAD_INPUT, "no target matches '%s'", patterns[p]);
			continue;
		}
		long i = target_match_one(pat, candidates, ncandidates);
		if (i >= 0) {
			selected[i] = true;
			continue;
		}
		if (i == -1)
			die(EXIT_BAD_INPUT, "unknown target '%s' (name an output as ninja knows it, its basename, or a glob)",
			    patterns[p]);
		struct strvec same = { 0 };
		for (size_t k = 0; k < ncandidates; k++)
			if (!strcmp(base_name(candidates[k]), pat))
				strvec_push(&same, candidates[k]);
		char *list = xstrdup("");
		for (size_t k = 0; k < same.n; k++) {
			char *next = xasprintf("%s%s%s", list, k ? ", " : "", same.v[k]);
			free(list);
			list = next;
		}
		fprintf(stderr, "buildwall: ambiguous target '%s': matches %s; name the full path\n", patterns[p], list);
		exit(EXIT_BAD_INPUT);
	}
}
