#define _GNU_SOURCE
#include "match.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool regex_compile(regex_t *re, const char *pattern, int flags, char **err)
{
	int rc = regcomp(re, pattern, REG_EXTENDED | flags);
	if (!rc)
		return true;
	char msg[256];
	regerror(rc, re, msg, sizeof(msg));
	return fail_with(err, xstrdup(msg));
}

void strip_ansi(char *s)
{
	char *out = s;
	for (char *p = s; *p;) {
		if (*p != '\033') {
			*out++ = *p++;
			continue;
		}
		p++;
		if (*p == '[') {	/* CSI: parameters, then one final byte */
			p++;
			while (*p && !(*p >= 0x40 && *p <= 0x7e))
				p++;
		}
		if (*p)
			p++;
	}
	*out = '\0';
}

double match_last_number(const regex_t *re, const char *path)
{
	FILE *f = fopen(path, "r");
	double found = NAN;
	if (!f)
		return found;
	char *line = NULL;
	size_t cap = 0;
	regmatch_t m[2];
	while (getline(&line, &cap, f) >= 0) {
		strip_ansi(line);
		if (regexec(re, line, 2, m, 0))
			continue;
		regmatch_t g = re->re_nsub >= 1 && m[1].rm_so >= 0 ? m[1] : m[0];
		char *text = xstrndup(line + g.rm_so, (size_t)(g.rm_eo - g.rm_so));
		char *num = text + strcspn(text, "0123456789+-.");
		char *end;
		double v = strtod(num, &end);
		if (end != num && isfinite(v))	/* "+inf" is not a measurement */
			found = v;
		free(text);
	}
	free(line);
	fclose(f);
	return found;
}
