/* The load curve measured on this machine: one compile (a TU as the build
 * compiles it, or a probe TU with a TU's own command) run alone, then as
 * many copies of it at once as the build runs heavy compiles (linear
 * between), each copy with its own outputs in the temp dir; or one level
 * of copies at once (advise measures the other among its probes). What
 * comes out is a load_curve, or a level's walls; the build directory is
 * only read. */
#ifndef BUILDWALL_LOAD_PROBE_H
#define BUILDWALL_LOAD_PROBE_H

#include "driver.h"
#include "load_curve.h"
#include "settle_budget.h"

/* cmds: ncmds copies of the same compile, outputs apart (the caller's).
 * Each level (1 alone, ncmds at once) runs rounds until it
 * has at least `repeats` walls, the levels' rounds interleaved; with
 * `settle` (NULL: none), a level whose walls (two at least) agree
 * (walls_agree) stops sooner, and one whose first two do not takes
 * another round only where the settle budget allows it (a round takes
 * what the level's last one took). A failed compile is reported (the tail of its
 * output) and ends the calibration with the levels measured so far; it
 * counts in *failures. With `top`, the walls of the ncmds-at-once level
 * (owned, *ntop of them; NULL when none), for a caller that times that
 * compile so anyway. An interrupt exits 130. */
void load_probe_measure(const char *dir, const struct compile_command *cmds, size_t ncmds, long repeats,
			struct settle_budget *settle, double timeout, struct load_curve *c, size_t *failures, double **top,
			size_t *ntop);
/* One level: rounds of `copies` of cmds at once until it has at least
 * `repeats` walls (with `settle`, two or more that agree, or as many as
 * its budget allows). Returns the
 * walls (owned), *n of them, round after round, each round's in the
 * order of cmds (so cmds may be different compiles, each its own wall
 * in every round); a failed round ends it, counted in
 * *failures. `what` names it on the progress line and in a failure ("the
 * control compile"). An interrupt exits 130. */
double *load_probe_level(const char *what, const char *dir, const struct compile_command *cmds, size_t copies,
			 long repeats, struct settle_budget *settle, double timeout, size_t *n, size_t *failures);

#endif
