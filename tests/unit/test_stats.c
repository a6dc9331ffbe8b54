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

/* The reference: a cold build at 8.4 s beside two at 3.7 s is
 * fenced; ordinary spread (5 builds within 8 %) is not, nor a wall within
 * the floor of two that agree by chance; under 3 walls, none. */
static const double two_walls[] = { 1.0, 9.0 };

static void test_fence(void **state)
{
	(void)state;
	bool f[6];
	const double cold[] = { 8.4, 3.7, 3.72 };
	assert_int_equal(fence_outliers(cold, 3, FENCE_FLOOR, f), 1);
	assert_true(f[0] && !f[1] && !f[2]);
	const double ordinary[] = { 10.0, 10.4, 9.7, 10.8, 10.1 };
	assert_int_equal(fence_outliers(ordinary, 5, FENCE_FLOOR, f), 0);
	const double agree[] = { 10.0, 10.01, 10.9 };
	assert_int_equal(fence_outliers(agree, 3, FENCE_FLOOR, f), 0);
	/* Without the floor the chance agreement fences the third. */
	assert_int_equal(fence_outliers(agree, 3, 0, f), 1);
	assert_true(f[2]);
	/* A busy runner's slow build among six is fenced; a quick one never
	 * is (nothing external makes a clean build faster). */
	const double six[] = { 10.0, 10.3, 9.9, 14.0, 10.1, 6.0 };
	assert_int_equal(fence_outliers(six, 6, FENCE_FLOOR, f), 1);
	assert_true(f[3] && !f[5] && !f[0]);
	/* The limit by hand: the median log wall, 3.5 scaled MADs above it
	 * (the MAD the mean of 9.9's and 10.3's deviations). */
	double mid = (log(10.0) + log(10.1)) / 2, mad = ((mid - log(9.9)) + (log(10.3) - mid)) / 2;
	assert_true(fabs(fence_limit(six, 6, FENCE_FLOOR) - (mid + 3.5 * 1.4826 * mad)) < 1e-9);
	assert_true(isinf(fence_limit(two_walls, 2, FENCE_FLOOR)));
	assert_int_equal(fence_outliers(two_walls, 2, FENCE_FLOOR, f), 0);
	assert_false(f[0] || f[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_odd_even_nan),
		cmocka_unit_test(test_fence),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
