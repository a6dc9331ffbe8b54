/* The part of a compile a distcc client does here before it sends the
 * compile away: distcc's default mode runs the preprocessor locally and
 * ships its output, so that part is the compile's own -E run, timed here
 * with its flags (launchers stripped, the output in buildwall's temp dir).
 * sim and advise use it to split a build's compiles into here and there
 * when no distcc log of the build says. */
#ifndef BUILDWALL_LOCAL_PROBE_H
#define BUILDWALL_LOCAL_PROBE_H

#include "ninja.h"

#include <stdbool.h>
#include <stddef.h>

/* Ownership: local_probe_run fills lp, which local_probe_free frees. */
struct local_probe {
	double *seconds;	/* per edge: its -E run's wall; NaN: not probed, or it failed */
	double *bytes;		/* per edge: what that run wrote, which distcc sends; NaN alike */
	size_t probed, failed;
	long at_once;		/* how many ran at once */
};

/* Time the preprocessing of each edge of b with which[e] set, at_once at
 * a time, in dir (its build dir); a run that fails (its compiler's output
 * reported) or outlasts timeout_s (0: none) is counted and left NaN. */
void local_probe_run(const struct ninja_build *b, const char *dir, const bool *which, long at_once, double timeout_s,
		     struct local_probe *lp);
void local_probe_free(struct local_probe *lp);

#endif
