/* One timed build: a clean step (or none) and a build step, run as wall
 * and ab run them; the build step alone is measured. Shared by wall and
 * ab (whole builds). */
#ifndef BUILDWALL_TRIAL_H
#define BUILDWALL_TRIAL_H

#include "util.h"

#include <regex.h>
#include <stdbool.h>

struct build_spec {
	struct strvec clean;	/* empty: no clean step */
	struct strvec build;
	char *clean_line, *build_line;	/* as shown */
};

/* `ninja -C dir -t clean`, then `ninja -C dir [-jN]` (jobs 0: ninja's own). */
void build_spec_ninja(struct build_spec *s, const char *dir, long jobs);
/* A clean shell command (NULL: none) and a build argv run as given. */
void build_spec_argv(struct build_spec *s, const char *clean, char *const *argv, size_t n);
/* Both as shell commands (/bin/sh -c). */
void build_spec_shell(struct build_spec *s, const char *clean, const char *build);
void build_spec_free(struct build_spec *s);

struct trial_result {
	double wall, cpu;	/* seconds, of the build step */
	long maxrss_kb;		/* its largest process's */
	long peak_kb;		/* the whole build's: the most its processes held at once (proc.h) */
	const char *peak_by;	/* how (static) */
	double match;		/* the --match number, NaN without one */
};

/* Run one trial (what names it in messages: "trial 3", "B, run 2"). A
 * failing step is reported with its output's tail and exits 3; an
 * interrupt exits 130. `match` may be NULL. */
void trial_run(const struct build_spec *s, const char *what, const regex_t *match, double timeout,
	       struct trial_result *r);

#endif
