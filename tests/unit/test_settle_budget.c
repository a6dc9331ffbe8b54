#include "unit.h"
#include "settle_budget.h"

static double ahead_of(void *ctx)
{
	return *(double *)ctx;
}

/* A settling round runs where it ends, with the first rounds still to
 * come (its probe's own and what `ahead` keeps), by the limit. */
static void test_round_fits_beside_what_is_kept(void **state)
{
	(void)state;
	double kept = 30;
	struct settle_budget b = { .until = 120, .ahead = ahead_of, .ctx = &kept };
	assert_true(settle_budget_allows(&b, 60, 20, 10));	/* 60 + 20 + 10 + 30 = 120 */
	assert_false(settle_budget_allows(&b, 60, 20, 10.5));
	assert_int_equal(b.declined, 1);
	kept = 0;	/* the rounds kept for have run */
	assert_true(settle_budget_allows(&b, 60, 20, 10.5));
	assert_false(settle_budget_allows(&b, 101, 20, 0));	/* past the limit by itself */
	assert_int_equal(b.declined, 2);
	struct settle_budget none = { .until = 120 };	/* nothing kept */
	assert_true(settle_budget_allows(&none, 100, 20, 0));
}

/* Two walls can agree: a round past them only settles; with fewer
 * repeats, all of them are first walls. */
static void test_first_walls(void **state)
{
	(void)state;
	assert_int_equal(settle_first_walls(3), 2);
	assert_int_equal(settle_first_walls(2), 2);
	assert_int_equal(settle_first_walls(1), 1);
	assert_int_equal(settle_first_walls(0), 0);
}

/* No limit: every settling round runs. */
static void test_no_limit(void **state)
{
	(void)state;
	struct settle_budget b = { 0 };
	assert_true(settle_budget_allows(&b, 1e9, 1e9, 1e9));
	assert_int_equal(b.declined, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_fits_beside_what_is_kept),
		cmocka_unit_test(test_no_limit),
		cmocka_unit_test(test_first_walls),
	};
	return cmocka_run_group_tests_name("settle_budget", tests, NULL, NULL);
}
