/* The load curve measured: copies of a command run alone and all at
 * once, each level until it has its walls, the two levels' rounds
 * interleaved. Each copy here appends its index to a file, so the order
 * of the rounds shows. */
#include "unit.h"
#include "load_probe.h"

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

static void test_levels_interleaved(void **state)
{
	(void)state;
	char *order = xasprintf("%s/order", tmpdir_path());
	struct compile_command cmds[4];
	copies(cmds, 4, order);
	struct load_curve c;
	size_t failures = 0;
	load_probe_measure(".", cmds, 4, 3, false, 0, &c, &failures);
	assert_int_equal(failures, 0);
	/* Levels 1 and 4 (none between); alone 3 walls, 4 at once one round. */
	assert_int_equal(c.n, 2);
	assert_true(c.jobs[0] == 1 && c.jobs[1] == 4);
	assert_int_equal(c.samples[0], 3);
	assert_int_equal(c.samples[1], 4);
	/* Rounds: alone, 4; alone; alone: the alone runs spread over the
	 * calibration, not bunched before it. */
	FILE *f = fopen(order, "r");
	assert_non_null(f);
	char line[16];
	size_t n = 0, last = 0, seen3 = 0;
	while (fgets(line, sizeof(line), f)) {
		n++;
		last = (size_t)atoi(line);
		if (last == 3)
			seen3 = n;
	}
	fclose(f);
	assert_int_equal(n, 1 + 4 + 1 + 1);
	assert_true(seen3 >= 2 && seen3 <= 5);	/* the one round of 4, second */
	assert_int_equal(last, 0);	/* the last alone run ends it */
	for (size_t i = 0; i < 4; i++)
		compile_command_clear(&cmds[i]);
	free(order);
}

/* Settled: a level whose walls agree stops before its repeats. Two
 * copies of one sleep at once agree in one round, where three walls
 * would take two; alone takes two runs at least. */
static void test_settle(void **state)
{
	(void)state;
	struct compile_command cmds[2];
	for (size_t i = 0; i < 2; i++) {
		cmds[i] = (struct compile_command){ 0 };
		strvec_push(&cmds[i].argv, "sleep");
		strvec_push(&cmds[i].argv, "0.4");
	}
	struct load_curve c;
	size_t failures = 0;
	load_probe_measure(".", cmds, 2, 3, true, 0, &c, &failures);
	assert_int_equal(failures, 0);
	assert_int_equal(c.n, 2);
	assert_true(c.samples[0] >= 2 && c.samples[0] <= 3);
	assert_int_equal(c.samples[1], 2);
	assert_true(fabs(c.slowdown[1] - 1) < 0.1);
	load_probe_measure(".", cmds, 2, 3, false, 0, &c, &failures);
	assert_int_equal(c.samples[0], 3);
	assert_int_equal(c.samples[1], 4);
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
	load_probe_measure(".", cmds, 2, 1, false, 0, &c, &failures);
	assert_int_equal(failures, 1);
	assert_int_equal(c.n, 1);	/* alone only: the level of 2 failed */
	for (size_t i = 0; i < 2; i++)
		compile_command_clear(&cmds[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_interleaved),
		cmocka_unit_test(test_failure_stops),
		cmocka_unit_test(test_settle),
	};
	int failed = cmocka_run_group_tests_name("load_probe", tests, NULL, NULL);
	tmpdir_remove();
	return failed;
}
