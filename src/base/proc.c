#define _GNU_SOURCE
#include "proc.h"
#include "guardian.h"
#include "progress.h"
#include "tmpdir.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNNING PROC_MAX_RUNNING
/* After a forwarded signal, a child group gets this long to exit before SIGKILL. */
#define KILL_GRACE_S 2.0

static volatile sig_atomic_t interrupted_by;
static volatile pid_t running[MAX_RUNNING];
static double interrupt_time;

double monotonic_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void forward_signal(int sig)
{
	interrupted_by = sig;
	for (int i = 0; i < MAX_RUNNING; i++)
		if (running[i] > 0)
			kill(-running[i], sig);
}

void proc_init_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a blocking wait must return so we can clean up. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* Orphans of a compile (a driver's children whose parent died) come
	 * to us instead of init, so we can reap the whole group. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
}

bool proc_interrupted(void)
{
	return interrupted_by != 0;
}

void proc_exit_if_interrupted(void)
{
	if (interrupted_by)
		die(EXIT_INTERRUPTED, "interrupted; every child stopped, temporary files removed");
}

static void track(pid_t pid, bool add)
{
	if (add)
		guardian_watch(pid);
	else
		guardian_unwatch(pid);
	for (int i = 0; i < MAX_RUNNING; i++) {
		if (add ? running[i] == 0 : running[i] == pid) {
			running[i] = add ? pid : 0;
			return;
		}
	}
}

/* The child's environment: ours with TMPDIR set to the private temp dir
 * and p's "NAME=value" strings on top (each replacing its NAME). The
 * array is owned, its strings are borrowed but for TMPDIR's (the last
 * slot after the NULL, to free). */
static char **child_environ(const struct proc *p)
{
	extern char **environ;
	size_t n = 0, extra = 0;
	while (environ[n])
		n++;
	for (char *const *e = p->env_extra; e && *e; e++)
		extra++;
	char **env = xcalloc(n + extra + 3, sizeof(*env));
	char *tmpdir = xasprintf("TMPDIR=%s", tmpdir_path());
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t len = eq ? (size_t)(eq - environ[i]) + 1 : strlen(environ[i]);
		bool replaced = !strncmp(environ[i], tmpdir, len);
		for (char *const *e = p->env_extra; e && *e && !replaced; e++)
			replaced = !strncmp(environ[i], *e, len);
		if (!replaced)
			env[k++] = environ[i];
	}
	env[k++] = tmpdir;
	for (char *const *e = p->env_extra; e && *e; e++)
		env[k++] = *e;
	env[k + 1] = tmpdir;	/* after the NULL: for child_environ_free */
	return env;
}

static void child_environ_free(char **env)
{
	size_t k = 0;
	while (env[k])
		k++;
	free(env[k + 1]);
	free(env);
}

/* Where the child's program is: on the PATH the child gets (a command's
 * own "env PATH=..." included), as execvp after env finds it; else argv0
 * itself, for posix_spawn to say why it cannot run. Owned. */
static char *find_program(const char *argv0, char **env)
{
	const char *path = "/usr/local/bin:/usr/bin:/bin";
	for (char **e = env; *e; e++)
		if (has_prefix(*e, "PATH="))
			path = *e + strlen("PATH=");
	char *found = path_search(argv0, path, NULL);
	return found ? found : xstrdup(argv0);
}

/* The child is started with posix_spawn, which shares our memory until it
 * execs (vfork): fork would copy the page tables of a parent holding a
 * large build's graph and make every later write to its heap fault
 * (survey's parent, 100 modules read, spent most of its time there). The
 * child gets its own process group, the default for the signals we
 * handle or ignore, /dev/null on stdin and out_path/err_path on stdout and
 * stderr (opened before it moves to cwd). */
int proc_start(struct proc *p)
{
	tmpdir_path();	/* create it in the parent, so children share it */
	p->done = false;
	p->timed_out = false;
	p->exec_errno = 0;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_t actions;
	sigset_t defaults;
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGHUP);
	sigaddset(&defaults, SIGPIPE);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&actions, 1, p->out_path ? p->out_path : "/dev/null",
					 O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (p->err_path)
		posix_spawn_file_actions_addopen(&actions, 2, p->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	else
		posix_spawn_file_actions_adddup2(&actions, 1, 2);
	if (p->cwd)
		posix_spawn_file_actions_addchdir_np(&actions, p->cwd);
	char **env = child_environ(p);
	char *program = find_program(p->argv[0], env);
	p->peak_kb = -1;
	p->peak_by = NULL;
	p->has_shape = false;
	p->samples = NULL;
	p->nsamples = p->samples_cap = 0;
	p->sampled_at = 0;
	/* The child is born in a cgroup of its own: buildwall steps into it
	 * to start it, so that no process the child starts, however soon,
	 * is born outside it. */
	bool in_cgroup = !p->no_peak && memcg_open(&p->memcg) && memcg_enter(&p->memcg);
	pid_t pid;
	p->t_start = monotonic_seconds();
	int err = posix_spawn(&pid, program, &actions, &attr, p->argv, env);
	if (in_cgroup)
		memcg_leave();
	free(program);
	child_environ_free(env);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	if (!err && in_cgroup) {
		p->peak_by = memcg_words(p->memcg.version);
		p->peak_kb = 0;
	} else {
		memcg_close(&p->memcg);
		if (!err && !p->no_peak) {
			p->peak_by = PROC_SAMPLE_WORDS;
			p->peak_kb = 0;
		}
	}
	if (err == EAGAIN || err == ENOMEM)
		return -1;
	if (err) {
		/* It could not run (no such program, a cwd or log that cannot be
		 * opened): a finished proc that says why, as a failed exec was. */
		p->exec_errno = err;
		p->pid = -1;	/* try_reap hands it over as finished */
		p->pidfd = -1;
		p->status = 127 << 8;
		return 0;
	}
	setpgid(pid, pid);	/* also here: no race with a fast signal */
	track(pid, true);
	p->pid = pid;
	p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (interrupted_by)
		kill(-pid, interrupted_by);
	return 0;
}

/* Its samples into its shape: each bin the most any sample in it held
 * (a bin no sample fell in holds its neighbour's), over its peak. */
static void shape_from_samples(struct proc *p)
{
	p->has_shape = p->nsamples > 0 && p->peak_kb > 0 && p->wall_s > 0;
	float most[PROC_SHAPE_BINS];
	bool seen[PROC_SHAPE_BINS] = { false };
	for (size_t i = 0; p->has_shape && i < p->nsamples; i++) {
		long bin = (long)(p->samples[i].at / p->wall_s * PROC_SHAPE_BINS);
		bin = bin < 0 ? 0 : bin >= PROC_SHAPE_BINS ? PROC_SHAPE_BINS - 1 : bin;
		float share = (float)p->samples[i].kb / (float)p->peak_kb;
		if (!seen[bin] || share > most[bin])
			most[bin] = share > 1 ? 1 : share;
		seen[bin] = true;
	}
	float carry = -1;
	for (int k = 0; p->has_shape && k < PROC_SHAPE_BINS; k++)
		if (seen[k] && carry < 0)
			carry = most[k];	/* the first seen fills the bins before it */
	for (int k = 0; p->has_shape && k < PROC_SHAPE_BINS; k++) {
		if (seen[k])
			carry = most[k];
		p->shape[k] = carry;
	}
	free(p->samples);
	p->samples = NULL;
	p->nsamples = p->samples_cap = 0;
}

/* Reap p if it has exited; true when it is done. */
static bool try_reap(struct proc *p)
{
	if (p->pid < 0) {	/* it never ran */
		p->wall_s = 0;
		p->done = true;
		return true;
	}
	int status;
	struct rusage ru;
	pid_t r = wait4(p->pid, &status, WNOHANG, &ru);
	if (r != p->pid)
		return false;
	p->wall_s = monotonic_seconds() - p->t_start;
	p->status = status;
	p->cpu_s = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		   ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	p->maxrss_kb = ru.ru_maxrss;
	/* Anything the leader left behind in its group goes with it, and is
	 * reaped here: no compiler outlives its measurement. */
	if (kill(-p->pid, SIGKILL) == 0)
		while (waitpid(-p->pid, NULL, 0) > 0 || errno == EINTR)
			;
	if (p->memcg.dir) {
		p->peak_kb = memcg_peak_kb(&p->memcg);
		memcg_close(&p->memcg);
	} else if (p->peak_kb >= 0 && p->peak_kb < p->maxrss_kb) {
		p->peak_kb = p->maxrss_kb;	/* a process that lived between two samples */
	}
	shape_from_samples(p);
	track(p->pid, false);
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	p->done = true;
	return true;
}

/* Enforce timeouts and the grace period after an interrupt. */
static void police(struct proc *p, double now)
{
	if (p->done || p->pid < 0)
		return;
	if (p->timeout_s > 0 && !p->timed_out && now - p->t_start > p->timeout_s) {
		p->timed_out = true;
		kill(-p->pid, SIGTERM);
	}
	if (p->timed_out && now - p->t_start > p->timeout_s + KILL_GRACE_S)
		kill(-p->pid, SIGKILL);
	if (interrupted_by) {
		if (interrupt_time == 0)
			interrupt_time = now;
		else if (now - interrupt_time > KILL_GRACE_S)
			kill(-p->pid, SIGKILL);
	}
}

static void keep_sample(struct proc *p, double now, long kb)
{
	if (kb < 0)
		return;
	if (p->nsamples == p->samples_cap) {
		p->samples_cap = p->samples_cap ? 2 * p->samples_cap : 256;
		p->samples = xrealloc(p->samples, p->samples_cap * sizeof(*p->samples));
	}
	p->samples[p->nsamples++] = (struct memory_sample){ now - p->t_start, kb };
	if (!p->memcg.dir && kb > p->peak_kb)
		p->peak_kb = kb;
	p->sampled_at = now;
}

/* One process as /proc/PID/stat shows it. */
struct proc_stat {
	long pid, ppid, pgrp, rss_kb;
};

static int by_pid(const void *a, const void *b)
{
	const struct proc_stat *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every process now, by pid; *n how many (owned array). */
static struct proc_stat *scan_processes(size_t *n)
{
	*n = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return NULL;
	long page_kb = sysconf(_SC_PAGESIZE) / 1024;
	size_t cap = 256;
	struct proc_stat *all = xcalloc(cap, sizeof(*all));
	struct dirent *de;
	char path[sizeof("/proc//stat") + sizeof(de->d_name)], buf[1024];
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = 0;
		/* After the command's name in parentheses: state, ppid, pgrp,
		 * ... rss is the 24th field in all. */
		char *rest = strrchr(buf, ')');
		struct proc_stat p = { .pid = atol(de->d_name) };
		if (!rest || sscanf(rest + 2, "%*c %ld %ld %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %*u "
					     "%*u %ld", &p.ppid, &p.pgrp, &p.rss_kb) != 3)
			continue;
		p.rss_kb *= page_kb;
		if (*n == cap)
			all = xrealloc(all, (cap *= 2) * sizeof(*all));
		all[(*n)++] = p;
	}
	closedir(d);
	qsort(all, *n, sizeof(*all), by_pid);	/* in_tree looks parents up */
	return all;
}

/* Whether process k descends from `root` (its parent chain), or is in its
 * process group (an orphan handed to us, the subreaper, keeps its group). */
static bool in_tree(const struct proc_stat *all, size_t n, size_t k, long root)
{
	if (all[k].pgrp == root)
		return true;
	long pid = all[k].pid;
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == root)
			return true;
		const struct proc_stat key = { .pid = pid }, *found = bsearch(&key, all, n, sizeof(*all), by_pid);
		pid = found ? found->ppid : 0;
	}
	return false;
}

/* Each proc's memory now: its cgroup's, else the RSS of every process of
 * its tree summed (ninja puts each command in a process group of its
 * own: the tree, not the group, is the build), one pass over /proc for
 * all of those. */
static void sample_memory(struct proc **procs, size_t n, double now)
{
	bool scan = false;
	for (size_t i = 0; i < n; i++) {
		if (procs[i]->memcg.dir)
			keep_sample(procs[i], now, memcg_usage_kb(&procs[i]->memcg));
		else
			scan = true;
	}
	if (!scan)
		return;
	size_t nall;
	struct proc_stat *all = scan_processes(&nall);
	for (size_t i = 0; i < n; i++) {
		if (procs[i]->memcg.dir)
			continue;
		long sum = 0;
		for (size_t k = 0; k < nall; k++)
			if (in_tree(all, nall, k, procs[i]->pid))
				sum += all[k].rss_kb;
		keep_sample(procs[i], now, sum);
	}
	free(all);
}

static bool sampled(const struct proc *p)
{
	return !p->done && p->pid > 0 && p->peak_kb >= 0;
}

size_t proc_wait_any(struct proc **procs, size_t n)
{
	struct pollfd fds[MAX_RUNNING];
	struct proc *to_sample[MAX_RUNNING];
	for (;;) {
		double now = monotonic_seconds();
		size_t nfds = 0, live = 0, nsample = 0;
		bool need_polling = false, sampling = false;
		for (size_t i = 0; i < n; i++) {
			if (procs[i]->done)
				continue;
			police(procs[i], now);
			if (try_reap(procs[i]))
				return i;
			live++;
			sampling |= sampled(procs[i]);
			if (sampled(procs[i]) && now - procs[i]->sampled_at >= PROC_SAMPLE_MS / 1000.0)
				to_sample[nsample++] = procs[i];
			if (procs[i]->pidfd < 0 || nfds == MAX_RUNNING)
				need_polling = true;
			else
				fds[nfds++] = (struct pollfd){ .fd = procs[i]->pidfd, .events = POLLIN };
		}
		if (nsample)
			sample_memory(to_sample, nsample, now);
		progress_tick();
		if (!live)
			die(EXIT_INTERNAL, "internal error: waiting with no running process");
		/* Wake at least every 100 ms to enforce timeouts (every sample's
		 * period where memory is sampled); pidfds make the normal
		 * wake-up exact, so this does not skew wall times. */
		int timeout_ms = need_polling ? 5 : sampling ? PROC_SAMPLE_MS : 100;
		if (poll(fds, nfds, timeout_ms) < 0 && errno != EINTR)
			die(EXIT_INTERNAL, "poll: %s", strerror(errno));
	}
}

void proc_run(struct proc *p)
{
	struct proc *one[1] = { p };
	if (proc_start(p))
		die(EXIT_INTERNAL, "cannot start %s: %s", p->argv[0], strerror(errno));
	proc_wait_any(one, 1);
}

void proc_run_parallel(long max, const struct proc_pool *pool)
{
	if (max < 1 || max > PROC_MAX_RUNNING)
		die(EXIT_INTERNAL, "internal error: %ld processes at once (1 to %d)", max, PROC_MAX_RUNNING);
	size_t slots = (size_t)max, nlive = 0;
	struct proc *procs = xcalloc(slots, sizeof(*procs));
	struct proc **live = xcalloc(slots, sizeof(*live));
	long *task = xcalloc(slots, sizeof(*task));
	for (;;) {
		while (nlive < slots && !proc_interrupted()) {
			struct proc *p = &procs[nlive];
			*p = (struct proc){ 0 };
			long id = pool->next(pool->ctx, p);
			if (id < 0)
				break;
			if (proc_start(p))
				die(EXIT_INTERNAL, "cannot start %s: %s", p->argv[0], strerror(errno));
			task[nlive] = id;
			nlive++;
		}
		if (!nlive)
			break;
		for (size_t i = 0; i < nlive; i++)
			live[i] = &procs[i];
		size_t k = proc_wait_any(live, nlive);
		if (!proc_interrupted())
			pool->finished(pool->ctx, task[k], &procs[k]);
		/* Keep the running ones dense: the last slot moves into k. */
		nlive--;
		procs[k] = procs[nlive];
		task[k] = task[nlive];
		for (size_t i = 0; pool->moot && i < nlive && !proc_interrupted(); i++)
			if (procs[i].pid > 0 && pool->moot(pool->ctx, task[i]))
				kill(-procs[i].pid, SIGKILL);
	}
	progress_clear();
	free(procs);
	free(live);
	free(task);
	proc_exit_if_interrupted();
}

char *proc_capture(char *const *argv, const char *cwd, char *const *env_extra, double timeout_s)
{
	char *out = xasprintf("%s/capture.txt", tmpdir_path());
	struct proc p = { .argv = argv, .cwd = cwd, .env_extra = env_extra, .out_path = out, .err_path = "/dev/null",
			  .timeout_s = timeout_s, .no_peak = true };
	proc_run(&p);
	proc_exit_if_interrupted();
	char *text = proc_succeeded(&p) ? read_text_file(out) : NULL;
	remove(out);
	free(out);
	return text;
}

bool proc_succeeded(const struct proc *p)
{
	return p->done && !p->exec_errno && !p->timed_out &&
	       WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0;
}

char *proc_failure(const struct proc *p)
{
	if (p->exec_errno)
		return xasprintf("cannot run %s: %s", p->argv[0], strerror(p->exec_errno));
	if (p->timed_out)
		return xasprintf("timed out after %g s", p->timeout_s);
	if (WIFSIGNALED(p->status))
		return xasprintf("killed by signal %d (%s)", WTERMSIG(p->status), strsignal(WTERMSIG(p->status)));
	if (WIFEXITED(p->status))
		return xasprintf("exit status %d", WEXITSTATUS(p->status));
	return xstrdup("ended abnormally");
}

char *proc_report_failure(const struct proc *p, const char *log, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *what = xvasprintf(fmt, ap);
	va_end(ap);
	tmpdir_check_room();	/* a full TMPDIR is ours to report, not the compile's */
	char *why = proc_failure(p);
	progress_clear();
	fprintf(stderr, "buildwall: %s failed (%s); last lines of its output:\n", what, why);
	print_file_tail(log, 15);
	free(what);
	return why;
}

void print_file_tail(const char *path, int lines)
{
	enum { WINDOW = 16384 };
	char buf[WINDOW + 1];
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	long from = size > WINDOW ? size - WINDOW : 0;
	fseek(f, from, SEEK_SET);
	size_t got = fread(buf, 1, WINDOW, f);
	fclose(f);
	buf[got] = '\0';
	while (got && buf[got - 1] == '\n')
		buf[--got] = '\0';
	char *start = buf + got;
	int seen = 0;
	while (start > buf && seen < lines) {
		start--;
		if (*start == '\n' && ++seen == lines) {
			start++;
			break;
		}
	}
	if (!got)
		return;
	flush_stdout();
	for (char *line = start; line && *line;) {
		char *nl = strchr(line, '\n');
		fprintf(stderr, "  | %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
		line = nl ? nl + 1 : NULL;
	}
}

char *file_first_error_line(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	ssize_t len;
	while (!found && (len = getline(&line, &cap, f)) > 0) {
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!include_tree_line(line, NULL) && strstr(line, "error"))	/* -H's lines name files */
			found = xstrdup(line);
	}
	free(line);
	fclose(f);
	return found;
}
