/* A build whose compiles go to a cluster (distcc, icecream): which steps
 * go, and each one's part here (setting up, waiting excluded) against its
 * part there (the remote host's hold), measured from the build's distcc
 * log, for sim, log, wall and advise to schedule and report. */
#ifndef BUILDWALL_CLUSTER_H
#define BUILDWALL_CLUSTER_H

#include "distcc_log.h"
#include "ninja.h"
#include "timeline.h"

#include <stdbool.h>
#include <stddef.h>

/* --remote N[:SPEED]: a cluster's slots, its hosts SPEED times as fast as
 * the recorded ones (sim, advise). */
struct remote_option {
	long slots;		/* 0: not given */
	double speed;
};

/* What sending a compile to the cluster costs beyond compiling it, per
 * compile and per preprocessed byte (probe/net_probe.h measures it). */
struct net_cost {
	double fixed_s;		/* per compile: the empty probe's hold less its compile here */
	double per_byte_s;	/* per preprocessed byte (0 when the large probe cost no more) */
	size_t probe_bytes;	/* the large probe's size */
	long repeats;		/* runs of each probe, there and here */
};

/* "distcc" or "icecc" when a command (ninja's, run in dir; NULL: none)
 * runs behind one of them, the launchers that send compiles away; NULL
 * otherwise. Static. */
const char *cluster_launcher(const char *command, const char *dir);

/* Whether distcc would send e's compile: only a source it knows how to
 * preprocess and ship (its filename.c: C, C++, Objective-C and their
 * preprocessed forms); any other, a .cu above all, it compiles here
 * ("no visible input file"). An edge with no inputs listed: sent. */
bool cluster_sends(const struct ninja_edge *e);

struct cluster_split {
	double *here, *there;	/* per edge, seconds; there 0: all here */
	size_t remote;		/* steps with a remote part */
	size_t measured;	/* of them, split by the distcc log */
	size_t probed;		/* of them, split by their preprocessing timed here */
	size_t kept_here;	/* compiles the log shows ran here (fell back, or not sent) */
	double waited_s;	/* waits for a slot the log took out of the steps' durations */
	size_t networked;	/* sent compiles given the network's cost */
	double network_s;	/* that cost, summed */
	const char *launcher;	/* the launcher the steps go through; NULL: none seen */
};

/* Split each edge's duration (seconds, NaN: none) for a cluster whose
 * hosts run `speed` times as fast as the recorded holds. With a distcc
 * log (may be NULL): a compile it sent away is there for its remote hold
 * / speed, here for the rest of its duration less its waits; one it kept
 * here stays here. Without: every compile behind a cluster launcher (every
 * compile, if none is) that distcc sends (cluster_sends) is there, for its
 * duration less its local part (per edge, seconds of preprocessing timed
 * here: local_probe; NULL or NaN: none) / speed, here for that part; one
 * it would not send stays here. In a build recorded here (no compile
 * behind a launcher), `network` (per edge, seconds: net_probe; NULL or
 * NaN: none) adds what sending a compile costs to its hold there; a
 * build recorded through the cluster has it in its durations already.
 *
 * Ownership: cluster_split fills cs, which cluster_split_free frees. */
void cluster_split(const struct ninja_build *b, const double *seconds, const struct distcc_log *log,
		   const double *local, const double *network, double speed, struct cluster_split *cs);
/* Which edges a cluster split without a log sends (see cluster_split):
 * the ones worth timing the local part of. Owned by the caller. */
bool *cluster_sent(const struct ninja_build *b);
void cluster_split_free(struct cluster_split *cs);

/* One recorded build against its distcc log: per step where it ran, and
 * over the build what ran there and here, and which bound held it.
 *
 * Ownership: cluster_report_build fills r (its per-step arrays), which
 * cluster_report_free frees; the jobs stay the log's. */
struct cluster_report {
	struct distcc_summary sum;		/* the log's jobs */
	const struct distcc_job **job;	/* per timeline step: its compile, or NULL */
	double *here;			/* per step: seconds here (its duration less hold and waits) */
	size_t sent, kept_here;		/* steps the log shows sent away, kept here */
	double there_s, here_s, wait_s;	/* over the build's compiles in the log */
	double local_s;			/* every other step (links, generators) */
	int most_sent;			/* most sent compiles running at once */
	int remote_slots;		/* what the hosts offered */
	const char *bound;		/* "remote slots", "ninja jobs", "dependencies" */
	char *bound_why;		/* one line on it (owned) */
};
void cluster_report_build(const struct timeline *tl, const struct distcc_log *log, struct cluster_report *r);
void cluster_report_free(struct cluster_report *r);

#endif
