/* The load curve measured: copies of a command run alone and all at once,
 * each level until it has its walls, the two levels' rounds
 * interleaved. Each copy here appends its index to a file, so the order
 * of the rounds shows. */
#include "unit.h"
#include "load_probe.h"
#include "proc.h"

#include <math.h>

static void copies(struct compile_command *cmds, size_t n, const char *order)
{
	for (size_t i = 0; i < n; i++) {
		cmds[i] = (struct compile_command){ 0 };
		strvec_push(&cmds[i].argv, "sh");
		strvec_push(&cmds[i].argv, "-c");
		strvec_pushf(&cmds[i].argv, "echo %zu >>'%s'", i, order);
	}
}

/* n copies of a SLEEP_S sleep: walls that agree (within 3 %: long enough
 * that starting a process on a busy machine, tens of ms, stays inside it). */
#define SLEEP_S 1.2
static void sleeps(struct compile_command *cmds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cmds[i] = (struct compile_command){ 0 };
		strvec_push(&cmds[i].argv, "sleep");
		strvec_push(&cmds[i].argv, "1.2");
	}
}

static void test_levels_interleaved(void **state)
{
	(void)state;
	char *order = xasprintf("%s/order", tmpdir_path());
	struct compile_command cmds[3];
	copies(cmds, 3, order);
	struct load_curve c;
	size_t failures = 0;
	load_probe_measure(".", cmds, 3, 3, NULL, 0, &c, &failures, NULL, NULL);
	assert_int_equal(failures, 0);
	/* Levels 1 and 3 (none between); alone 3 walls, 3 at once one round. */
	assert_int_equal(c.n, 2);
	assert_true(c.jobs[0] == 1 && c.jobs[1] == 3);
	assert_int_equal(c.samples[0], 3);
	assert_int_equal(c.samples[1], 3);
	/* Rounds: alone, 3; alone; alone: the alone runs spread over the
	 * calibration, not bunched before it. */
	FILE *f = fopen(order, "r");
	assert_non_null(f);
	char line[16];
	size_t n = 0, last = 0, seen2 = 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		last = (size_t)atoi(line);
		if (last == 2)
			seen2 = n;
	}
	fclose(f);
	assert_int_equal(n, 1 + 3 + 1 + 1);
	assert_true(seen2 >= 2 && seen2 <= 4);	/* the one round of 3, second */
	assert_int_equal(last, 0);	/* the last alone run ends it */
	for (size_t i = 0; i < 3; i++)
		compile_command_clear(&cmds[i]);
	free(order);
}

/* One level alone (advise's two copies at once, its other level among
 * its probes): rounds of the copies until it has its walls, or two that
 * agree. */
static void test_one_level(void **state)
{
	(void)state;
	struct compile_command cmds[2];
	sleeps(cmds, 2);
	size_t n = 0, failures = 0;
	struct settle_budget settle = { 0 };
	double start = monotonic_seconds();
	double *walls = load_probe_level("sleeps", ".", cmds, 2, 3, &settle, 0, &n, &failures);
	double took = monotonic_seconds() - start;
	assert_int_equal(failures, 0);
	assert_int_equal(n, 2);	/* one round: its two walls agree */
	/* A sleep takes no less than asked, and running beside another
	 * costs it no CPU: far from twice as long. */
	assert_true(walls[0] >= SLEEP_S && walls[0] < 1.5 * SLEEP_S && walls[1] >= SLEEP_S && walls[1] < 1.5 * SLEEP_S);
	assert_true(took < 2 * SLEEP_S);
	free(walls);
	walls = load_probe_level("sleeps", ".", cmds, 2, 3, NULL, 0, &n, &failures);
	assert_int_equal(n, 4);	/* two rounds for three walls */
	free(walls);
	strvec_clear(&cmds[1].argv);
	strvec_push(&cmds[1].argv, "false");
	fflush(NULL);
	walls = load_probe_level("sleeps", ".", cmds, 2, 3, &settle, 0, &n, &failures);
	assert_int_equal(failures, 1);
	assert_int_equal(n, 0);	/* a failed round's walls do not count */
	free(walls);
	for (size_t i = 0; i < 2; i++)
		compile_command_clear(&cmds[i]);
}

/* Settled: a level whose walls agree stops before its repeats. Two
 * copies of one sleep at once agree in one round, where three walls
 * would take two; alone takes two runs at least. */
static void test_settle(void **state)
{
	(void)state;
	struct compile_command cmds[2];
	sleeps(cmds, 2);
	struct load_curve c;
	size_t failures = 0;
	double *top = NULL;
	size_t ntop = 0;
	struct settle_budget settle = { 0 };
	load_probe_measure(".", cmds, 2, 3, &settle, 0, &c, &failures, &top, &ntop);
	assert_int_equal(failures, 0);
	assert_int_equal(c.n, 2);
	assert_true(c.samples[0] >= 2 && c.samples[0] <= 3);
	assert_int_equal(c.samples[1], 2);
	assert_true(c.slowdown[1] < 1.5);	/* sleeps share no CPU */
	/* The walls of the level at once, handed over (an edit's walls) */
	assert_int_equal(ntop, 2);
	assert_true(top[0] >= SLEEP_S && top[0] < 1.5 * SLEEP_S && top[1] >= SLEEP_S && top[1] < 1.5 * SLEEP_S);
	free(top);
	load_probe_measure(".", cmds, 2, 3, NULL, 0, &c, &failures, &top, &ntop);
	assert_int_equal(c.samples[0], 3);
	assert_int_equal(c.samples[1], 4);
	assert_int_equal(ntop, 4);
	free(top);
	for (size_t i = 0; i < 2; i++)
		compile_command_clear(&cmds[i]);
}

/* Walls that disagree (one copy sleeps 4 times as long as the other)
 * take another round where the budget allows it, and none where its time
 * is spent: the level keeps its first walls, the round counted as
 * declined. Alone, the first two walls are taken before any is
 * declined. */
static void test_settle_budget_spent(void **state)
{
	(void)state;
	struct compile_command cmds[2];
	sleeps(cmds, 2);
	strvec_clear(&cmds[0].argv);
	strvec_push(&cmds[0].argv, "sleep");
	strvec_push(&cmds[0].argv, "0.3");
	size_t n = 0, failures = 0;
	struct settle_budget room = { .until = monotonic_seconds() + 600 };
	double *walls = load_probe_level("sleeps", ".", cmds, 2, 3, &room, 0, &n, &failures);
	assert_int_equal(n, 4);	/* a second round for three walls */
	assert_int_equal(room.declined, 0);
	free(walls);
	struct settle_budget spent = { .until = 1 };	/* long past */
	walls = load_probe_level("sleeps", ".", cmds, 2, 3, &spent, 0, &n, &failures);
	assert_int_equal(n, 2);
	assert_int_equal(spent.declined, 1);
	free(walls);
	/* The curve: alone cmds[0] (two runs), two at once (disagree). */
	struct load_curve c;
	spent.declined = 0;
	load_probe_measure(".", cmds, 2, 3, &spent, 0, &c, &failures, NULL, NULL);
	assert_int_equal(failures, 0);
	assert_int_equal(c.samples[0], 2);
	assert_int_equal(c.samples[1], 2);
	assert_true(spent.declined >= 1);
	for (size_t i = 0; i < 2; i++)
		compile_command_clear(&cmds[i]);
}

/* A copy that fails ends the calibration with what it measured, counted. */
static void test_failure_stops(void **state)
{
	(void)state;
	struct compile_command cmds[2] = { 0 };
	for (size_t i = 0; i < 2; i++) {
		strvec_push(&cmds[i].argv, "sh");
		strvec_push(&cmds[i].argv, "-c");
		strvec_push(&cmds[i].argv, i ? "exit 1" : "true");
	}
	struct load_curve c;
	size_t failures = 0;
	fflush(NULL);
	double *top = &c.slowdown[0];
	size_t ntop = 1;
	load_probe_measure(".", cmds, 2, 1, NULL, 0, &c, &failures, &top, &ntop);
	assert_int_equal(failures, 1);
	assert_int_equal(c.n, 1);	/* alone only: the level of 2 failed */
	assert_null(top);	/* and it has no walls to hand over */
	assert_int_equal(ntop, 0);
	for (size_t i = 0; i < 2; i++)
		compile_command_clear(&cmds[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_interleaved),
		cmocka_unit_test(test_settle_budget_spent),
		cmocka_unit_test(test_one_level),
		cmocka_unit_test(test_failure_stops),
		cmocka_unit_test(test_settle),
	};
	int failed = cmocka_run_group_tests_name("load_probe", tests, NULL, NULL);
	tmpdir_remove();
	return failed;
}
