/* How busy the machine is right now, before buildwall times anything:
 * the CPUs' busy share over a quarter second, from /proc/stat. The
 * 1-minute load average trails by a minute, so it blames a run for the
 * command before it (a demo's previous step); this reads the present. */
#ifndef BUILDWALL_BUSY_H
#define BUILDWALL_BUSY_H

#include <stdbool.h>

/* The busy share (0 to 1) of all CPUs between two readings of
 * /proc/stat's aggregate "cpu" line: false when either is not one, or
 * no time passed between them. */
bool busy_share(const char *before, const char *after, double *share);
/* Warn when other processes keep more than a quarter of the CPUs (at
 * least one CPU's worth) busy: timings taken now will be inflated.
 * Called before buildwall starts children, so what it sees is others'. */
void warn_if_busy(void);

#endif
