/* Preprocess a compile step exactly as it is compiled, pass by pass: its
 * own flags plus -E, the output in buildwall's temp dir. The host pass is
 * the command with --cuda-host-only (clang, hipcc; gcc as it is) or, for
 * nvcc, the host compiler's preprocessing job from --dryrun; a device pass
 * per arch is --cuda-device-only --offload-arch=X (archs from -###) or
 * nvcc's per-arch preprocessing job (-D__CUDA_ARCH__). Shared by pp and
 * leak. */
#ifndef BUILDWALL_PREPROCESS_H
#define BUILDWALL_PREPROCESS_H

#include "driver.h"
#include "headers.h"
#include "jobs.h"
#include "markers.h"
#include "ninja.h"
#include "pp_source.h"
#include "proc.h"

struct pp_pass {
	enum pass_kind kind;		/* PASS_HOST or PASS_DEVICE */
	char *arch;			/* NULL for the host */
	struct strvec argv, env;	/* the -E command */
	char *output;			/* where it writes */
	struct strvec user_dirs, system_dirs;	/* its include dirs, absolute */
};

struct pp_plan {
	struct pp_pass *v;
	size_t n;
};

/* The -E commands of a parsed compile (outputs already redirected) run in
 * cwd: the host pass, and with `device` one per device arch. Outputs go
 * under `outdir`. False, with *err set to what went wrong (the driver's -### or
 * --dryrun failing, or not answering within timeout_s: its output is in
 * `log`). */
bool preprocess_plan(const struct compile_command *cmd, const char *cwd, bool device, const char *outdir,
		      const char *log, double timeout_s, struct pp_plan *plan, char **err);
void pp_plan_free(struct pp_plan *plan);
/* "host", "device gfx90a" */
char *pp_pass_name(const struct pp_pass *p);

/* One pass of one TU to preprocess. */
struct pp_run {
	const struct pp_pass *pass;
	const char *cwd;
	double timeout;		/* 0: none */
	char *what;		/* "x.o (host pass)": names it in messages */
	char *log;		/* its stderr */
	struct proc proc;
	bool failed;
};

/* Run every run's command, at most `jobs` at once. As each one succeeds,
 * done(ctx, i) is called and its output removed after; a failure is
 * reported with the tail of the compiler's output and marked. */
void preprocess_run_all(struct pp_run *runs, size_t n, long jobs, void (*done)(void *ctx, size_t i), void *ctx);

/* Plan edge e's -E runs in dir (its build dir): its command parsed
 * (launchers stripped into `stripped`, outputs in the temp subdir
 * "tu-INDEX") into cmd, its passes into plan (the host pass, and with
 * `device` one per device arch), a run per pass appended to *runs (named
 * "OUTPUT (PASS pass)"). False when the driver could not list them (the
 * tail of its output reported); nothing appended then. Used by pp, leak
 * and local_probe. */
bool preprocess_plan_edge(const char *dir, const struct ninja_edge *e, size_t index, bool device, double timeout,
			  struct compile_command *cmd, struct pp_plan *plan, struct strvec *stripped, struct pp_run **runs,
			  size_t *nruns);
/* Free nedges' cmds and plans and the nruns runs planned from them (the
 * arrays too). */
void preprocess_plans_free(size_t nedges, struct compile_command *cmds, struct pp_plan *plans, struct pp_run *runs,
			   size_t nruns);

/* Scan preprocessed output at path ("-": stdin). A malformed marker is bad
 * input: "buildwall: <what>:<line>: ..." and exit 2. */
void preprocess_scan(const char *path, const char *what, const struct pp_hooks *hooks, struct markers *m);

struct pp_request {
	const char *cmd;	/* "pp", "leak": for messages */
	const char *dir;	/* -C */
	const struct ninja_build *build;	/* dir's graph when the caller has it loaded; NULL: load it */
	const char *project;	/* --project (absolute), or NULL */
	char **args;		/* TARGET..., or FILE.ii... / "-" */
	size_t nargs;
	bool all, device;
	long jobs;
	double timeout;		/* per -E run; 0: none */
	/* Hooks for the scan of each source (may return no hooks). */
	struct pp_hooks (*hooks)(void *ctx, struct pp_source *src);
	/* Called once a source is scanned, its preprocessed output still at
	 * `path` (NULL: not called): a reader that needs the lines themselves
	 * reads them there rather than preprocess the TU again. */
	void (*scanned)(void *ctx, struct pp_source *src, const char *path);
	void *ctx;
};

/* What is wrong with a request (it names nothing, targets and --all, or
 * targets and files), in *err: false; the
 * command says it as a usage error. */
bool pp_request_check(const struct pp_request *req, char **err);
/* Preprocess and scan what a checked request names. Targets are preprocessed
 * in the build dir as they compile (outputs in the temp dir; the build dir
 * is fingerprinted before and after); files are scanned as they are. */
void pp_collect(const struct pp_request *req, struct pp_sources *out);
#endif
