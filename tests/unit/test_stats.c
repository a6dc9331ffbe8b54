#include "unit.h"
#include "stats.h"

#include <math.h>

static void test_summary_odd_even_nan(void **state)
{
	(void)state;
	double odd[] = { 12.0, 10.0, 11.0 };
	struct summary s = summarize(odd, 3);
	assert_int_equal(s.n, 3);
	assert_true(s.min == 10.0 && s.median == 11.0 && s.max == 12.0);
	assert_true(fabs(s.spread - 2.0 / 11.0) < 1e-12);
	double even[] = { 4.0, 1.0, NAN, 3.0, 2.0 };
	s = summarize(even, 5);
	assert_int_equal(s.n, 4);
	assert_true(s.median == 2.5 && s.mean == 2.5);
	double none[] = { NAN };
	s = summarize(none, 1);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median));
	assert_true(median_of(odd, 1) == 12.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_summary_odd_even_nan) };
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
