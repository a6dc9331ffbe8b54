/* The load curve measured on this machine: one compile (a probe TU with a
 * TU's own command) run alone, then as many copies of it at once as the
 * build runs heavy compiles (linear between), each copy with its own outputs in the temp dir. What comes
 * out is a load_curve; the build directory is only read. */
#ifndef BUILDWALL_LOAD_PROBE_H
#define BUILDWALL_LOAD_PROBE_H

#include "driver.h"
#include "load_curve.h"

/* cmds: ncmds copies of the same compile, outputs apart (the caller's).
 * Each level (1 alone, ncmds at once) runs rounds until it
 * has at least `repeats` walls, the levels' rounds interleaved; with
 * `settle`, a level whose walls (two at least) agree (walls_agree) stops
 * sooner. A failed compile is reported (the tail of its
 * output) and ends the calibration with the levels measured so far; it
 * counts in *failures. An interrupt exits 130. */
void load_probe_measure(const char *dir, const struct compile_command *cmds, size_t ncmds, long repeats, bool settle,
			double timeout, struct load_curve *c, size_t *failures);

#endif
