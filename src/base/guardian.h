/* The guardian: a small process that outlives buildwall by a moment, so
 * that nothing buildwall started survives it, even a SIGKILL of buildwall
 * itself. It holds one end of a socket to buildwall; buildwall tells it
 * each child's process group as it starts and ends. When the socket closes
 * without buildwall saying it cleaned up (a SIGKILL, a crash), the
 * guardian kills every group still listed (nvcc's cicc and ptxas with
 * them: PR_SET_PDEATHSIG would reach only the direct child) and removes
 * the private temp dir. It ignores the terminal's signals: Ctrl-C is
 * buildwall's to handle. */
#ifndef BUILDWALL_GUARDIAN_H
#define BUILDWALL_GUARDIAN_H

#include <sys/types.h>

/* Start the guardian for the temp dir `tmp` (once; later calls do
 * nothing). Without a guardian (fork failed) buildwall still runs, and the
 * next run removes what a killed one left. */
void guardian_start(const char *tmp);
/* A child's process group started / was reaped. */
void guardian_watch(pid_t pgid);
void guardian_unwatch(pid_t pgid);
/* buildwall cleaned up itself: the guardian may go. */
void guardian_release(void);

#endif
