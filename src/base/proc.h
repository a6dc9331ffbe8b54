/* Run one command as a child and measure it, the way every probe needs:
 * its own process group (so Ctrl-C and timeouts reach the whole compiler
 * tree), output captured to files, TMPDIR pointed at buildwall's private
 * temp dir, and wall time, user+sys CPU and peak RSS from wait4(). */
#ifndef BUILDWALL_PROC_H
#define BUILDWALL_PROC_H

#include "memcg.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PROC_SAMPLE_MS 20
#define PROC_SAMPLE_WORDS "its processes' RSS summed over its process tree, sampled from /proc every 20 ms"
#define PROC_SHAPE_BINS 16

struct proc {
	/* What to run. argv[0] is searched in PATH; env_extra holds
	 * "NAME=value" strings added to the child's environment. */
	char *const *argv;
	char *const *env_extra;
	const char *cwd;	/* NULL: buildwall's own */
	const char *out_path;	/* stdout goes here; NULL: /dev/null */
	const char *err_path;	/* stderr goes here; NULL: with stdout */
	double timeout_s;	/* 0: no limit */
	bool no_peak;		/* a short question: its memory is not measured */

	/* Results, valid after the proc has finished. */
	pid_t pid;
	int pidfd;
	double t_start;
	double wall_s;		/* monotonic clock, start to reap */
	double cpu_s;		/* user + sys of the child and its reaped descendants */
	long maxrss_kb;		/* largest peak RSS of any process in the tree */
	/* The process tree's peak: the most memory its processes held at
	 * once, from a cgroup of its own (memcg.h), else the most of their
	 * RSS summed over its process tree, sampled every
	 * PROC_SAMPLE_MS; -1 when not measured. peak_by says which. */
	long peak_kb;
	const char *peak_by;
	/* How its memory ran: in each PROC_SHAPE_BINS-th of its wall, the
	 * most it held as a share of peak_kb (has_shape false: it ended
	 * before a sample). */
	float shape[PROC_SHAPE_BINS];
	bool has_shape;
	/* While it runs: its cgroup, and its memory sampled every
	 * PROC_SAMPLE_MS (seconds since its start, KiB). */
	struct memcg memcg;
	double sampled_at;
	struct memory_sample { double at; long kb; } *samples;
	size_t nsamples, samples_cap;
	int status;		/* raw wait status */
	int exec_errno;		/* nonzero: the command could not be started */
	bool timed_out;
	bool done;
};

/* Install SIGINT/SIGTERM handlers that forward the signal to every running
 * child group. Call once, early. */
void proc_init_signals(void);
bool proc_interrupted(void);
/* Exit 130 (after cleanup via atexit) when a signal arrived. */
void proc_exit_if_interrupted(void);

/* Start p; returns 0, or -1 when no process can be made (EAGAIN, ENOMEM).
 * A command that cannot run (no such program, an output that cannot be
 * opened) finishes at once with exec_errno set. */
int proc_start(struct proc *p);
/* Wait until one of the running procs finishes; returns its index. */
size_t proc_wait_any(struct proc **procs, size_t n);
/* Start p and wait for it. */
void proc_run(struct proc *p);

/* The most children buildwall runs at once: the size of the table the
 * signal handler walks. Every -j / --parallel is capped by it. */
#define PROC_MAX_RUNNING 256

/* One process pool for every probe that runs children side by side (as
 * git's run_processes_parallel): at most `max` at once. next() fills in
 * the next command to start and returns its task id, or -1 when there is
 * none to start now (the pool waits for a running one, or ends when none
 * runs); finished() takes each one as it ends (p is valid during the
 * call). After an interrupt nothing new starts, the running ones are
 * reaped, and buildwall exits 130. moot (optional), asked of each running
 * task after each finished(): true stops it (its process group killed),
 * and finished() takes it as it ends. */
struct proc_pool {
	long (*next)(void *ctx, struct proc *p);
	void (*finished)(void *ctx, long task, struct proc *p);
	bool (*moot)(void *ctx, long task);
	void *ctx;
};
void proc_run_parallel(long max, const struct proc_pool *pool);

bool proc_succeeded(const struct proc *p);
/* One phrase: "exit status 1", "killed by signal 9", "timed out after 5 s"… */
char *proc_failure(const struct proc *p);

/* Print the last `lines` lines of a captured output file to stderr. */
void print_file_tail(const char *path, int lines);
/* The first line of a compiler's output at path that says "error"
 * (owned), or NULL: none, or unreadable. */
char *file_first_error_line(const char *path);
/* "buildwall: <what> failed (<why>); last lines of its output:" and the
 * tail of `log`, for a finished proc that failed. Returns <why> ("exit
 * status 1", "timed out after 5 s", …), owned by the caller. */
char *proc_report_failure(const struct proc *p, const char *log, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Run argv in cwd (NULL: buildwall's own) with env_extra added, stdout to
 * a file in the private temp dir, stderr dropped, for at most timeout_s
 * (0: no limit): what it printed, or NULL when it failed (owned). Exits
 * 130 on an interrupt. For the short questions asked of tools (a
 * --version, git rev-parse). */
char *proc_capture(char *const *argv, const char *cwd, char *const *env_extra, double timeout_s);
double monotonic_seconds(void);

#endif
