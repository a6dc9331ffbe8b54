/* The control compile: one small C++ TU that buildwall carries, compiled
 * with a build's own compiler at -O1, a few times, in the private temp
 * dir, as many copies at once as the build runs compiles (a VM that lost
 * one of its CPUs to a neighbour slows a 2-job build more than one
 * compile). A shared runner or a busy VM moves a build's wall by 10-30 % from
 * one sitting to the next; the control, timed in the same sitting, moves
 * with it, so a wall over its control's seconds is the build's cost in
 * units of the machine's speed at that moment: check compares those when
 * both sides have them (bench/check_power.sh measures how closely the
 * control follows the machine).
 *
 * Ownership: a control owns its compiler string. */
#ifndef BUILDWALL_CONTROL_H
#define BUILDWALL_CONTROL_H

#include "ninja.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Timed runs per measure, after one untimed run that warms the caches. */
#define CONTROL_RUNS 3
/* Builds that ended within this many seconds of a control measured now
 * share its sitting; older ones get no control. */
#define CONTROL_SITTING_S 1800

/* Whether a build that ran at built_at (Unix seconds, 0: unknown) shares
 * the sitting of a control measured now. */
bool control_this_sitting(int64_t built_at);
/* The copies at once for a build that ran `jobs` compiles at once: as
 * many, the CPUs at most, one at least. */
size_t control_copies(long jobs);

struct control {
	char *compiler;		/* as the build names it: "g++", "/usr/local/cuda/bin/nvcc" */
	double seconds;		/* the median of the timed runs */
	double lo, hi;		/* their least and most */
	size_t runs;
	size_t copies;		/* compiled at once each run (a run's wall: their mean) */
};

/* The compiler of the build's first compile rule (launchers such as
 * ccache and distcc left out), or NULL when no compile step names one
 * (owned). */
char *control_compiler(const char *dir, const struct ninja_build *b);
/* Compile the control TU with `compiler`, `copies` at once (0: one),
 * `runs` rounds after a round that warms the caches; false with *err
 * ("the control compile with g++ failed: ...", owned) when one fails. */
bool control_measure(const char *compiler, size_t copies, size_t runs, struct control *c, char **err);
/* How a control's compiler and copies are recorded ("g++, 2 at once"):
 * controls compare only when these agree (owned). */
char *control_name(const struct control *c);
void control_clear(struct control *c);

/* Controls around a series of builds: measured before the first and after
 * each; a build's control is the mean of the two around it (a machine
 * that changed speed during a build counts half each side). wall's trials
 * and check --against-dir's pairs take them.
 *
 * Ownership: a series owns its compiler string; NULL once a measure fails
 * (said once, with `without`), and then no build of it has a control. */
struct control_series {
	char *compiler;		/* NULL: none */
	size_t copies;
	const char *without;	/* what the warning says follows: "the trials carry no control" */
	double before;		/* the last measure, s */
};

/* Measure the first control of a series whose compiler, copies and
 * without are set. */
void control_series_start(struct control_series *s);
/* After a build: measure again and return the build's control, or 0
 * when the series has none. */
double control_series_next(struct control_series *s);
/* "g++, 2 at once", or NULL without a compiler (owned). */
char *control_series_name(const struct control_series *s);
void control_series_clear(struct control_series *s);

#endif
