/* The pass probe: each TU's compile split into the jobs its driver runs
 * (-###, nvcc --dryrun), every job timed (plain runs for walls, CPU and
 * RSS; an instrumented twin for the phases, scaled to the plain wall), and
 * the breakdown into passes and phases with its verdict. Used by passes on
 * a tree's TUs and by advise on its probe TUs (one-line sources compiled
 * with a TU's exact command). Runs in the temp dir; the build dir is only
 * read.
 *
 * Ownership: a pass_probe owns its TUs and everything in them; `dir` and
 * `build` are the caller's. */
#ifndef BUILDWALL_PASS_PROBE_H
#define BUILDWALL_PASS_PROBE_H

#include "driver.h"
#include "kernel_facts.h"
#include "jobs.h"
#include "ninja.h"
#include "passes.h"
#include "proc.h"
#include "settle_budget.h"
#include "stats.h"
#include "timereport.h"

/* One job's repeated measurements; summarized into a job_time. Walls,
 * CPU and RSS are of plain runs; an instrumented run (-ftime-report,
 * nvcc's traces) gives the phases, scaled to the plain wall. */
struct job_runs {
	double *walls, *cpus;
	double *instrumented;	/* the instrumented run's wall; NaN where there was none */
	double *phases[NPHASES];
	long maxrss_kb;
	size_t n;
	struct time_group report;	/* the last run's report, for heaviest passes */
	bool has_report;
};

struct pass_tu {
	char *name;		/* the target it compiles, or what a probe TU is */
	size_t edge;		/* the caller's (passes: the edge it re-runs) */
	struct compile_command cmd;
	struct job_list jobs;
	struct job_runs *runs;
	struct job_time *times;
	double *walls, *cpus;
	size_t nwalls;
	long maxrss_kb;
	long peak_kb;		/* its whole runs' process tree's peak (proc.h); 0: none */
	const char *peak_by;	/* how (static) */
	struct summary wall, cpu;
	bool failed;
	char *failure;
	bool walls_only;	/* no instrumented runs: pass walls, no phases */
	bool host_only;		/* its host pass alone, the device passes never run:
				 * clang and hipcc with --cuda-host-only; nvcc's host
				 * jobs re-run one after another, the stub cicc would
				 * write for the host compile left empty */
	long repeats;		/* its runs, fewer than the probe's; 0: the probe's */
	long fallback_for;	/* >= 0: a stand-in, run only when that TU's probe
				 * fails; skipped (and said so) when it succeeds */
	double expect_s;	/* how long a run is expected to take: the pool
				 * starts the longest first (0: in order) */
	bool may_fail;		/* failing is an outcome (a candidate the compiler
				 * refuses): failure keeps its first error line,
				 * nothing is printed or counted */
	bool leads;		/* one whole run, no jobs, started before any other
				 * TU's (the load curve's copies among the probes) */
	bool whole;		/* its whole compile alone, every repeat, no jobs
				 * listed (nvcc --threads lists them as a shell
				 * script, not one command a line) */
	bool skipped;
	bool unsettled;		/* its first two walls disagreed and the settle
				 * budget declined a third round */
	const char *timed_by;	/* who timed the jobs */
	struct breakdown bd;
	/* Where its probe is (the pool runs several TUs' probes at once): the
	 * stage, the repeat and job under way, and whether the instrumented
	 * twin of a plain run is next (that plain run is kept meanwhile). */
	enum { STAGE_WHOLE, STAGE_JOBS, STAGE_NVCC, STAGE_DONE } stage;
	long round, run_round;	/* rounds done; the round of the run under way */
	size_t job;
	bool second, running;
	size_t extras;		/* its extra rounds under way (walls-only probes) */
	double round_wall, round_cpu;	/* the round of jobs under way, so far */
	struct proc plain;
	double *nvcc_walls;
	struct strvec argv, env;	/* the run under way */
	char *log;
	/* The playbook's first evidence, from the TU preprocessed as pp does:
	 * the host-only frameworks its device passes parse ("torch/ATen/c10"),
	 * and the front-end seconds of those passes. */
	struct strvec device_frameworks;
	double device_framework_front_end;
	struct strvec host_frameworks;	/* "torch/ATen/c10 (300,512 of its 376,239 lines)" */
	/* What the device compilers report per kernel (pass_probe_find_kernels). */
	struct kernel_facts kernels;
	bool kernels_probed;
};

/* One process the pool ran: whose, from when to when (monotonic). */
struct run_span {
	long task;	/* a TU's index, or past ntus: an extra round's */
	double start, end;
};

struct pass_probe {
	const char *dir;		/* where the commands run */
	const struct ninja_build *build;	/* for pass_probe_find_frameworks; NULL without */
	long repeats, parallel;		/* >= 1 */
	/* NULL: every repeat runs. Else repeats is a most: a TU whose first
	 * two walls agree (walls_agree) stops at two, and one whose two do
	 * not takes a third round only where the budget allows it. */
	struct settle_budget *settle;
	double timeout;			/* per run; 0: none */
	struct thresholds th;
	struct pass_tu *tus;
	size_t ntus, cap;
	size_t failures;
	struct run_span *spans;		/* every process run, for pass_probe_running */
	size_t nspans, spans_cap;
};


/* Add a TU to probe; takes cmd (outputs already redirected) over. */
struct pass_tu *pass_probe_add(struct pass_probe *ps, const char *name, size_t edge, struct compile_command *cmd);
/* TU i is not run: its probe is over before it starts, said as skipped. */
void pass_probe_skip(struct pass_probe *ps, size_t i);
/* One whole run of each TU (they count as its first whole run). */
void pass_probe_time_whole(struct pass_probe *ps);
/* List each TU's jobs, time them and build its breakdown. Failures are
 * reported (the tail of the output) and counted, not fatal. */
void pass_probe_run(struct pass_probe *ps);
/* Preprocess the probed targets (names are outputs of ps->build) as pp
 * does and note the host-only frameworks each pass parses. */
void pass_probe_find_frameworks(struct pass_probe *ps);
/* Compile each probed TU with a device pass once more, asking its device
 * compiler for each kernel's resources: nvcc with -Xptxas -v (every arch
 * in one run), clang and hipcc once per device arch with
 * -Rpass-analysis=kernel-resource-usage and --offload-device-only. A run
 * that fails is reported and leaves the TU without facts. `only` (per TU;
 * NULL: every TU) limits it to some. */
void pass_probe_find_kernels(struct pass_probe *ps, const bool *only);
/* The rounds t's probe runs at most: its own repeats where fewer than
 * the probe's. */
long pass_tu_most_repeats(const struct pass_probe *ps, const struct pass_tu *t);
/* What a round of t's probe takes, in runs of its whole compile: one for
 * a whole or walls-only probe or a lead copy; three where its jobs are
 * timed (the whole compile, its jobs, their instrumented twin). */
double pass_tu_round_runs(const struct pass_tu *t);
/* The processes that ran at once during TU i's (first) run, itself
 * included, on average over that run; 0 when it did not run. */
double pass_probe_running(const struct pass_probe *ps, size_t i);
/* The seconds of t's host pass, or of all its device passes together. */
double pass_tu_side(const struct pass_tu *t, enum pass_kind side);
/* The seconds of t's host pass less nvcc's cudafe++ (its own front end,
 * which a host TU compiled by the host compiler does not run): what the
 * host compiler spends. */
double pass_tu_host_compiler(const struct pass_tu *t);
void pass_tu_free(struct pass_tu *t);
void pass_probe_free(struct pass_probe *ps);

#endif
