#include "unit.h"
#include "proc.h"
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = calloc(1, 4096);
	size_t n = fread(buf, 1, 4095, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_status_and_capture(void **state)
{
	(void)state;
	char *out = xasprintf("%s/o", tmpdir_path()), *err = xasprintf("%s/e", tmpdir_path());
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; echo \"tmp=$TMPDIR\"; exit 3", NULL };
	struct proc p = { .argv = argv, .out_path = out, .err_path = err };
	proc_run(&p);
	assert_false(proc_succeeded(&p));
	assert_true(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 3);
	char *why = proc_failure(&p);
	assert_string_equal(why, "exit status 3");
	char *o = slurp(out), *e = slurp(err);
	char *want = xasprintf("out\ntmp=%s\n", tmpdir_path());
	assert_string_equal(o, want);	/* children get our private TMPDIR */
	assert_string_equal(e, "err\n");
	free(why); free(o); free(e); free(want); free(out); free(err);
}

static void test_timeout_kills_group(void **state)
{
	(void)state;
	/* The grandchild sleeps too: the whole group must go. */
	char *argv[] = { "sh", "-c", "sleep 30 & sleep 30; wait", NULL };
	struct proc p = { .argv = argv, .timeout_s = 0.3 };
	double t0 = monotonic_seconds();
	proc_run(&p);
	assert_true(p.timed_out);
	assert_true(monotonic_seconds() - t0 < 5);
	char *why = proc_failure(&p);
	assert_string_equal(why, "timed out after 0.3 s");
	free(why);
	usleep(100 * 1000);
	assert_int_equal(kill(-p.pid, 0), -1);
	assert_int_equal(errno, ESRCH);
}

static void test_exec_failure(void **state)
{
	(void)state;
	char *argv[] = { "/nonexistent/compiler", "-c", "x.c", NULL };
	struct proc p = { .argv = argv };
	proc_run(&p);
	assert_int_equal(p.exec_errno, ENOENT);
	char *why = proc_failure(&p);
	assert_non_null(strstr(why, "cannot run /nonexistent/compiler"));
	free(why);
}

/* A command's own "env NAME=value" reaches it, replacing ours, and its
 * PATH is where its program is looked for (as execvp does after env): a
 * dir of that name on the way is passed over, a missing program fails. */
static void test_environment_and_path(void **state)
{
	(void)state;
	char *bin = xasprintf("%s/bin", tmpdir_path()), *decoy = xasprintf("%s/decoy", tmpdir_path());
	char *tool = xasprintf("%s/bwtool", bin), *decoy_dir = xasprintf("%s/bwtool", decoy);
	assert_int_equal(mkdir(bin, 0700), 0);
	assert_int_equal(mkdir(decoy, 0700), 0);
	assert_int_equal(mkdir(decoy_dir, 0700), 0);
	FILE *f = fopen(tool, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho \"$GREETING $TMPDIR\"\n", f);
	fclose(f);
	assert_int_equal(chmod(tool, 0700), 0);
	char *path = xasprintf("PATH=%s:%s:/usr/bin:/bin", decoy, bin), *out = xasprintf("%s/o", tmpdir_path());
	char *env[] = { path, "GREETING=hello", "TMPDIR=/elsewhere", NULL };
	char *argv[] = { "bwtool", NULL };
	setenv("GREETING", "ours", 1);
	struct proc p = { .argv = argv, .env_extra = env, .out_path = out };
	proc_run(&p);
	assert_true(proc_succeeded(&p));
	char *o = slurp(out), *want = xasprintf("hello /elsewhere\n");
	assert_string_equal(o, want);	/* the command's TMPDIR over ours */
	struct proc q = { .argv = argv, .out_path = out };
	proc_run(&q);	/* not on our PATH */
	assert_int_equal(q.exec_errno, ENOENT);
	assert_true(WIFEXITED(q.status) && WEXITSTATUS(q.status) == 127);
	unsetenv("GREETING");
	free(o); free(want); free(path); free(out); free(bin); free(decoy); free(tool); free(decoy_dir);
}

static void test_rusage_and_wait_any(void **state)
{
	(void)state;
	char *busy[] = { "sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done", NULL };
	char *slow[] = { "sleep", "1", NULL };
	struct proc a = { .argv = slow }, b = { .argv = busy };
	struct proc *both[] = { &a, &b };
	assert_int_equal(proc_start(&a), 0);
	assert_int_equal(proc_start(&b), 0);
	size_t first = proc_wait_any(both, 2);
	size_t second = proc_wait_any(both, 2);
	/* Whichever ends first, both are measured. */
	assert_true(first != second);
	assert_true(proc_succeeded(&a) && proc_succeeded(&b));
	assert_true(a.wall_s >= 0.99 && a.wall_s < 3);
	assert_true(a.cpu_s < 0.5);	/* sleeping costs no CPU */
	assert_true(b.cpu_s > 0.05);	/* the busy loop does */
	assert_true(b.maxrss_kb > 100);
}

/* Three processes of 60 MB each at once: the tree's peak is about three
 * times the largest process's, measured by a cgroup where one can be
 * made and by sampling /proc where not (BUILDWALL_MEMCG=0). */
static void tree_peak(bool sampled, bool own_groups)
{
	if (sampled)
		setenv("BUILDWALL_MEMCG", "0", 1);
	/* own_groups: each in a process group of its own, as ninja starts
	 * its commands: the tree holds them, not the group. */
	char *three[] = { "sh", "-c",
			  own_groups ? "for i in 1 2 3; do setsid python3 -c 'import time; b = b\"x\" * (60 << 20); time.sleep(0.8)' & done; wait"
				     : "for i in 1 2 3; do python3 -c 'import time; b = b\"x\" * (60 << 20); time.sleep(0.8)' & done; wait",
			  NULL };
	struct proc p = { .argv = three };
	proc_run(&p);
	unsetenv("BUILDWALL_MEMCG");
	assert_true(proc_succeeded(&p));
	assert_non_null(p.peak_by);
	if (sampled)
		assert_non_null(strstr(p.peak_by, "sampled"));
	assert_true(p.maxrss_kb > 60 * 1024);
	assert_true(p.peak_kb > 2.2 * p.maxrss_kb);
	assert_true(p.peak_kb < 4 * p.maxrss_kb);
}

static void test_tree_peak(void **state)
{
	(void)state;
	tree_peak(false, false);
	tree_peak(true, false);
	tree_peak(true, true);
}

static void test_short_question_not_measured(void **state)
{
	(void)state;
	char *argv[] = { "true", NULL };
	struct proc p = { .argv = argv, .no_peak = true };
	proc_run(&p);
	assert_int_equal(p.peak_kb, -1);
	assert_null(p.peak_by);
}

/* A pool's moot task is stopped: the quick one ends, after which the one
 * that would sleep 30 s is moot, killed and handed to finished(). */
struct two_tasks {
	size_t started;
	bool quick_done, slow_killed;
};

static long next_of_two(void *ctx, struct proc *p)
{
	static char *quick[] = { "true", NULL }, *slow[] = { "sh", "-c", "sleep 30 & sleep 30; wait", NULL };
	struct two_tasks *t = ctx;
	if (t->started == 2)
		return -1;
	*p = (struct proc){ .argv = t->started ? slow : quick, .no_peak = true };
	return (long)t->started++;
}

static void one_of_two_done(void *ctx, long task, struct proc *p)
{
	struct two_tasks *t = ctx;
	if (task == 0)
		t->quick_done = proc_succeeded(p);
	else
		t->slow_killed = WIFSIGNALED(p->status) && WTERMSIG(p->status) == SIGKILL;
}

static bool slow_is_moot(void *ctx, long task)
{
	return task == 1 && ((struct two_tasks *)ctx)->quick_done;
}

static void test_pool_stops_moot_task(void **state)
{
	(void)state;
	struct two_tasks t = { 0 };
	struct proc_pool pool = { .next = next_of_two, .finished = one_of_two_done, .moot = slow_is_moot, .ctx = &t };
	double t0 = monotonic_seconds();
	proc_run_parallel(2, &pool);
	assert_true(t.quick_done);
	assert_true(t.slow_killed);
	assert_true(monotonic_seconds() - t0 < 5);
}

/* The first error line of a compile run with -H: the files it opened
 * (". path" lines) are not errors, whatever their names. */
static void test_first_error_line_skips_opened_files(void **state)
{
	(void)state;
	char *path = xasprintf("%s/h.log", tmpdir_path());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(". /usr/include/errno.h\n.. /usr/include/x86_64-linux-gnu/bits/types/error_t.h\n"
	      "t.cpp:4:3: error: 'x' was not declared in this scope\n", f);
	fclose(f);
	char *line = file_first_error_line(path);
	assert_string_equal(line, "t.cpp:4:3: error: 'x' was not declared in this scope");
	free(line);
	remove(path);
	free(path);
}

int main(void)
{
	proc_init_signals();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_and_capture),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_environment_and_path),
		cmocka_unit_test(test_rusage_and_wait_any),
		cmocka_unit_test(test_tree_peak),
		cmocka_unit_test(test_short_question_not_measured),
		cmocka_unit_test(test_pool_stops_moot_task),
		cmocka_unit_test(test_first_error_line_skips_opened_files),
	};
	return cmocka_run_group_tests_name("proc", tests, NULL, NULL);
}
