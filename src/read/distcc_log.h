/* What distcc did with each compile, read from the log its client writes
 * with DISTCC_VERBOSE=1 and DISTCC_LOG=FILE: where each TU compiled (a
 * remote host, or locally after the cluster failed it), how long it waited
 * for a free remote slot, how long the remote host held it, and the hosts
 * and slots the cluster offered. distcc writes no timestamps, so times are
 * the ones it reports itself.
 *
 * Ownership: distcc_log_read fills a distcc_log that distcc_log_free frees;
 * its jobs and their strings belong to it. */
#ifndef BUILDWALL_DISTCC_LOG_H
#define BUILDWALL_DISTCC_LOG_H

#include "strmap.h"
#include "util.h"

#include <stdbool.h>
#include <stddef.h>

struct distcc_job {
	long pid;
	char *input, *output;	/* as the command names them ("compile from A to B") */
	char *host;		/* where it ran: "127.0.0.1:3632/1", or "localhost" */
	char *why_local;	/* why distcc did not try the cluster, in its words
				 * ("no visible input file": a source it does not know
				 * by its name, such as .cu); NULL: it tried */
	bool compile;		/* a compile (not a link distcc passed through) */
	bool remote;		/* compiled on a remote host */
	bool fell_back;		/* the cluster failed it, so it compiled locally */
	unsigned tries;		/* hosts it was sent to ("exec on"); 2+: a host failed it
				 * and distcc sent it to another */
	char *first_host;	/* the first of them */
	bool done, ok;		/* distcc finished it; and the compile succeeded */
	unsigned waits;		/* sleeps for a free slot ("nothing available") */
	double wait_s;		/* those sleeps */
	double remote_s;	/* the remote host's hold: connect, send (while the
				 * local preprocessor runs), compile, receive; NaN: local */
	double elapsed_s;	/* distcc's whole run; NaN: not logged */
};

struct distcc_host {
	char *name;		/* as DISTCC_HOSTS gives it, options cut: "127.0.0.1:3632" */
	int slots;		/* its "/LIMIT" (distcc's default: 4 remote, 2 localhost) */
	bool local;		/* localhost */
	size_t compiles;	/* remote compiles it completed */
};

struct distcc_log {
	struct distcc_job *jobs;	/* in the order distcc started them */
	size_t n;
	struct distcc_host *hosts;	/* every host any job was offered */
	size_t nhosts;
	/* distcc_log_find's index: each compile's output, and its base name,
	 * to its latest job; a base name two outputs share is ambiguous */
	struct strmap by_output, by_base;
	bool *base_ambiguous;	/* per job */
};

/* Read the client log at path. False, with *err set to what is wrong (owned):
 * "<path>: no distcc compile in it ..." for a log without one job. */
bool distcc_log_read(const char *path, struct distcc_log *log, char **err);
void distcc_log_free(struct distcc_log *log);

/* The job that wrote `output` (a path as ninja names it: equal, or the same
 * base name where only one job has it); NULL if none did. The latest job
 * wins where a log holds several builds. */
const struct distcc_job *distcc_log_find(const struct distcc_log *log, const char *output);

/* What the cluster did over the log's jobs. */
struct distcc_summary {
	size_t remote, fell_back, local;	/* compiles: remote, failed over to local, local by choice */
	size_t retried;				/* sent again to another host after one failed it */
	size_t failed;				/* compiles that did not succeed */
	double remote_s;			/* summed remote holds */
	double wait_s;				/* summed waits for a slot */
	size_t waited;				/* compiles that waited at all */
	int remote_slots;			/* the remote hosts' limits summed */
	size_t remote_hosts;
};
void distcc_summarize(const struct distcc_log *log, struct distcc_summary *s);

#endif
