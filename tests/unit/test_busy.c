/* The CPUs' busy share between two readings of /proc/stat: idle and
 * iowait are idle, guest time is not counted twice, junk is refused. */
#include "unit.h"
#include "busy.h"

#include <math.h>

static void test_share(void **state)
{
	(void)state;
	/* 400 ticks pass: 100 idle, 0 iowait: 75 % busy */
	const char *before = "cpu  1000 0 500 8000 100 0 0 0 50 0\n";
	const char *after = "cpu  1200 0 600 8100 100 0 0 0 90 0\n";
	double share;
	assert_true(busy_share(before, after, &share));
	assert_true(fabs(share - 0.75) < 1e-9);
	/* iowait counts as idle */
	assert_true(busy_share("cpu  0 0 0 0 0 0 0 0\n", "cpu  10 0 0 20 10 0 0 0\n", &share));
	assert_true(fabs(share - 0.25) < 1e-9);
}

static void test_refused(void **state)
{
	(void)state;
	double share;
	assert_false(busy_share("cpu0 1 2 3 4\n", "cpu0 2 3 4 5\n", &share));	/* one CPU's, not all */
	assert_false(busy_share("cpu  1 2\n", "cpu  3 4\n", &share));	/* too few fields */
	assert_false(busy_share("cpu  1 2 3 4\n", "cpu  1 2 3 4\n", &share));	/* no time passed */
	assert_false(busy_share("", "cpu  1 2 3 4\n", &share));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests_name("busy", tests, NULL, NULL);
}
