/* nvcc's own timings: the --time CSV (one row per job nvcc ran, in ms) and
 * the -fdevice-time-trace Chrome trace (what cicc and ptxas spent inside a
 * device pass). */
#ifndef BUILDWALL_NVCC_REPORT_H
#define BUILDWALL_NVCC_REPORT_H

#include <stddef.h>

#include "timereport.h"
#include "trace_scan.h"

struct nvcc_job_time {
	char *phase;	/* "gcc (preprocessing 4)", "cicc", "ptxas", "nvcc (driver)", … */
	char *arch;	/* "compute_80", "sm_80", or "" */
	double seconds;
};

/* One nvcc invocation: its rows end with the "nvcc (driver)" row. */
struct nvcc_run {
	struct nvcc_job_time *jobs;
	size_t n;
};

struct nvcc_time {
	struct nvcc_run *runs;	/* in file order; several when --time appended */
	size_t n;
};

/* Read a --time CSV. False, with *err set to "LINE: what" (owned by the caller). */
bool nvcc_time_read(const char *path, struct nvcc_time *t, char **err);
void nvcc_time_free(struct nvcc_time *t);

/* Inside one device pass, summed over the trace's events for that arch:
 * cicc's phases (front end = "CUDA C++ Front-End", IR generation =
 * "Generating NVVM IR", optimizer = "NVVM Optimizer", machine code
 * generation = "NVVM CodeGen") and ptxas's "Total PTXAS Time", the rest of
 * machine code generation. */
struct nvcc_device_phases {
	char *arch;	/* the virtual arch, "compute_80" */
	double cicc[NPHASES];
	double ptxas;
};

struct nvcc_trace {
	struct nvcc_device_phases *archs;
	size_t n;
};

/* Read a -fdevice-time-trace file, streamed (trace_scan). Returns NULL, or
 * "LINE[:COLUMN]: what". */
bool nvcc_trace_read(const char *path, struct nvcc_trace *t, char **err);
void nvcc_trace_free(struct nvcc_trace *t);
/* The arch in an nvcc thread name, "kern.cu [compute_80]": compute_80 (the
 * last brackets'); s is NULL when there is none. Points into thread. */
struct trace_str nvcc_thread_arch(struct trace_str thread);
/* sm_80 and compute_80 name the same arch: the number after the '_'. */
const char *nvcc_arch_number(const char *arch);

#endif
