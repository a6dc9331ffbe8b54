/* A compile's jobs: the processes its driver runs, as the driver itself
 * lists them (-### for clang, hipcc and gcc; --dryrun for nvcc), each
 * labeled with its pass (host or device), its arch and its tool. */
#ifndef BUILDWALL_JOBS_H
#define BUILDWALL_JOBS_H

#include "driver.h"
#include "util.h"

enum pass_kind { PASS_HOST, PASS_DEVICE, PASS_OTHER };

struct job {
	struct strvec argv;
	struct strvec env;	/* NAME=value settings the job needs (nvcc's) */
	enum pass_kind pass;
	char *arch;		/* "gfx90a", "sm_80", "compute_80"; NULL for none */
	char *tool;		/* "cc1", "lld", "offload bundler", "cicc", "ptxas", "gcc -E", … */
	const char *nvcc_phase;	/* the row nvcc --time writes for it; NULL elsewhere */
	bool time_report;	/* a compiler proper that takes -ftime-report */
};

struct job_list {
	struct job *v;
	size_t n;
};

/* "host", "device", "other". */
const char *pass_kind_name(enum pass_kind p);

/* Parse the stderr of `clang|hipcc|gcc -###`. False, with *err set to a message
 * (owned by the caller) naming the line that cannot be read. */
bool jobs_parse_dashdashdash(const char *text, struct job_list *jobs, char **err);
/* Parse the stderr of `nvcc --dryrun`: "#$ NAME=value" settings become each
 * job's env and expand $NAME in the commands; nvcc's cleanup (rm) is not a
 * job. */
bool jobs_parse_dryrun(const char *text, struct job_list *jobs, char **err);
/* Run the driver with -### (or --dryrun) in cwd, its output captured in
 * `log`, for at most timeout_s (0: no limit), and parse what it prints.
 * False, with *err set to a message. */
bool jobs_list(const struct compile_command *cmd, const char *cwd, const char *log, double timeout_s,
		struct job_list *jobs, char **err);
/* Does the driver take the command's arguments? It is asked as jobs_list
 * asks it (nothing compiles); false with *err its first error line (an
 * argument it does not know). */
bool jobs_driver_takes(const struct compile_command *cmd, const char *cwd, const char *log, double timeout_s,
		       char **err);
/* Say that listing `name`'s jobs failed (err from jobs_list), with the tail
 * of the driver's output in `log`. */
void jobs_report_list_failure(const char *name, const char *err, const char *log);
/* clang writes temp files into per-compile directories it may not have
 * created under -###: make the parents of every path in our temp dir that
 * the job names. */
void job_make_temp_parents(const struct job *j);
/* The stub file an nvcc cicc job writes for the host compile to include
 * (its --stub_file_name: the kernels' host-side launch stubs; one per
 * arch, the host compile includes the last), or NULL for any other job.
 * The string belongs to the job. */
const char *job_nvcc_stub(const struct job *j);
/* The device archs the compile compiles for: its compiler proper's
 * device jobs (cicc, cc1), one an arch, counted once each. */
size_t job_list_device_archs(const struct job_list *jobs);
/* Drop every job not of `pass`, keeping the order of the rest. */
void job_list_keep(struct job_list *jobs, enum pass_kind pass);
void job_list_free(struct job_list *jobs);

#endif
