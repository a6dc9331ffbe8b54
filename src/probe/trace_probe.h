/* The trace probe: TUs compiled once more in the temp dir with the
 * compiler's time trace on, every pass traced. clang's driver traces only
 * its host job, so a clang or hipcc compile is split into the jobs its -###
 * lists and each compiler job (host and every device arch) is run with its
 * own -ftime-trace file; nvcc traces its device passes itself
 * (-fdevice-time-trace), its host compiler (gcc) only as a duration. gcc
 * writes no trace: its TUs are left to the caller (passes' phases).
 *
 * Ownership: the probe owns its TUs and their files' names; `dir` is the
 * caller's. */
#ifndef BUILDWALL_TRACE_PROBE_H
#define BUILDWALL_TRACE_PROBE_H
#include "driver.h"
#include "jobs.h"
#include "kernel_facts.h"

struct trace_file {
	char *path;
	char *pass;	/* "host", "device gfx90a"; NULL: the trace says (nvcc) */
};

struct trace_probe_tu {
	char *name;
	struct compile_command cmd;
	struct job_list jobs;	/* clang, hipcc: as -### lists them */
	size_t next;		/* the job to run next */
	bool running, failed;
	struct trace_file *files;
	size_t nfiles;
	double traced_s;	/* the traced compile's jobs, summed */
	char *log;
	/* --kernels: what the device compilers reported in the traced
	 * compile (no compile of its own): each device job's log and object
	 * (clang, hipcc), nvcc's kept cubins. */
	char **job_logs, **job_objects;	/* per job; NULL where none */
	char *keep_dir;
	struct kernel_facts kernels;
};

struct trace_probe {
	const char *dir;	/* where the commands run */
	long parallel;		/* TUs compiled at once, >= 1 */
	double timeout;		/* per job; 0: none */
	long granularity_us;	/* clang's -ftime-trace-granularity; 0: clang's own (500) */
	bool kernels;		/* also each kernel's resources and code size */
	struct trace_probe_tu *tus;
	size_t ntus;
	size_t failures;
};

/* Add a TU to trace; takes cmd (outputs already redirected) over. The
 * compiler must be clang, hipcc or nvcc. */
void trace_probe_add(struct trace_probe *tp, const char *name, struct compile_command *cmd);
/* Compile every TU with its traces on. Failures are reported (the tail
 * of the output) and counted, not fatal. */
void trace_probe_run(struct trace_probe *tp);
void trace_probe_free(struct trace_probe *tp);
#endif
