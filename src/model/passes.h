/* The pass breakdown of one TU: its timed jobs grouped into the host pass,
 * one device pass per arch and the rest (bundling), the four phases of
 * each pass, and the verdict: is the TU host-pass or device-pass dominant? */
#ifndef BUILDWALL_PASSES_H
#define BUILDWALL_PASSES_H

#include "jobs.h"
#include "timereport.h"

/* One job's measurement. Phases are NaN where nothing split the job. */
struct job_time {
	double wall, cpu;	/* seconds, of plain runs; cpu NaN when the driver timed the job (nvcc) */
	double instrumented;	/* the wall of its instrumented runs (phases are scaled from them); NaN: none */
	long maxrss_kb;		/* -1: not measured */
	double phase[NPHASES];
	bool backend_combined;	/* gcc: optimizer + codegen in phase[PHASE_CODEGEN] */
	struct named_seconds heaviest[TIMEREPORT_HEAVIEST];
	size_t nheaviest;
};

struct pass {
	enum pass_kind kind;
	const char *arch;	/* device passes: the arch (borrowed from a job) */
	double seconds;		/* sum of its jobs' walls */
	long peak_kb;		/* the most any of its jobs held (they run one after
				 * another); -1: not measured */
	double phase[NPHASES];	/* sums over its jobs; NaN when no job was split */
	double other;		/* seconds not in any phase: process start, links, … */
	bool backend_combined;
	struct named_seconds heaviest[TIMEREPORT_HEAVIEST];	/* borrowed names */
	size_t nheaviest;
	size_t njobs;
};

enum verdict_kind { VERDICT_HOST, VERDICT_DEVICE, VERDICT_MIXED };
/* A pass holding at least this share of the job time decides the verdict. */
#define VERDICT_MAJORITY 0.5

struct thresholds {
	double front_end_s;	/* host front end above this: host-pass dominant (5 s) */
	double codegen_share;	/* codegen share of a device pass above this: device-pass dominant (0.7) */
};

/* The verdict answers relatively: the pass that holds most of the TU's job
 * time and the phase that holds most of that pass. The playbook's
 * absolute marks (front end > 5 s, codegen > 70 % of a device pass, from a
 * 128-core ROCm machine) are kept as marks beside it, not as the verdict. */
struct verdict {
	enum verdict_kind kind;	/* host or device: the side (the host pass, or the device passes
				 * together) that holds half the job time or more; else mixed */
	int phase;		/* the heaviest phase of that pass, or -1 */
	double phase_share;	/* of that pass's seconds */
	bool host_crossed, device_crossed;	/* the marks */
	double host_front_end;		/* s; NaN without a split host pass */
	double device_codegen_share;	/* the largest over device passes; NaN without one */
	const struct pass *device_pass;	/* the device pass with that share */
	const struct pass *heaviest;	/* the pass with the most time (of the winning side) */
	double heaviest_share;		/* that side's share of the job time: the host pass, or every device pass */
};

struct breakdown {
	struct pass *passes;	/* host first, then devices in job order, then other */
	size_t n;
	double jobs_sum;
	struct verdict verdict;
};

const char *verdict_name(enum verdict_kind v);	/* "host", "device", "mixed" */
/* Group jobs (parallel arrays jobs->v[i], times[i]) into passes and judge. */
void breakdown_build(const struct job_list *jobs, const struct job_time *times, const struct thresholds *t,
		     struct breakdown *b);
void breakdown_free(struct breakdown *b);

#endif
