/* A build timed in trials (wall) whose compiles go to a cluster: each
 * trial runs with distcc's client log in buildwall's temp dir, read after
 * it (what was sent, kept here, failed by the cluster, the hosts' holds,
 * the waits), and the last trial's build (.ninja_log) set against its log.
 *
 * Ownership: cluster_trials_start fills ct, cluster_trials_free frees it
 * (the launcher name stays the caller's). */
#ifndef BUILDWALL_CLUSTER_TRIALS_H
#define BUILDWALL_CLUSTER_TRIALS_H

#include "cluster.h"
#include "distcc_log.h"
#include "log_view.h"

#include <stdbool.h>
#include <stddef.h>

struct cluster_trials {
	const char *launcher;		/* NULL: the build sends nothing away */
	size_t n;
	char *dir;			/* our temp dir for the logs */
	struct distcc_summary *sum;	/* per trial */
	bool *have;			/* per trial: its log read */
	struct cluster_report last;	/* the last trial's build against its log (-C) */
	bool have_last;
	struct distcc_log last_log;
	struct log_view view;
};

/* n trials of a build behind launcher (NULL: none; every call is then a
 * no-op). */
void cluster_trials_start(struct cluster_trials *ct, size_t n, const char *launcher);
/* Before trial k (from 0): distcc's log for it, in the environment its
 * build inherits (DISTCC_VERBOSE, DISTCC_LOG: ours, never the user's). */
void cluster_trial_before(const struct cluster_trials *ct, size_t k);
/* After trial k: its log read (a warning when it cannot be). */
void cluster_trial_after(struct cluster_trials *ct, size_t k);
/* After the last trial: with dir (-C), its build in .ninja_log against
 * its log; the log copied to keep (NULL: not kept). */
void cluster_trials_finish(struct cluster_trials *ct, const char *dir, const char *keep);
void cluster_trials_free(struct cluster_trials *ct);

#endif
