#include "unit.h"
#include "target.h"

static char *names[] = { "a/x.o", "b/x.o", "opus_gemm_0.cuda.o", "dir/y.o", "opus_pybind.o", NULL };

static void test_match_one(void **state)
{
	(void)state;
	assert_int_equal(target_match_one("opus_gemm_0.cuda.o", names, 5), 2);
	assert_int_equal(target_match_one("a/x.o", names, 5), 0);
	assert_int_equal(target_match_one("./dir/y.o", names, 5), 3);
	assert_int_equal(target_match_one("y.o", names, 5), 3);
	assert_int_equal(target_match_one("x.o", names, 5), -2);
	assert_int_equal(target_match_one("nope.o", names, 5), -1);
}

static void test_select_globs(void **state)
{
	(void)state;
	bool sel[5] = { 0 };
	char *pats[] = { "*.cuda.o", "y.o" };
	target_select(pats, 2, names, 5, sel);
	assert_false(sel[0] || sel[1] || sel[4]);
	assert_true(sel[2] && sel[3]);
	bool all[5] = { 0 };
	char *star[] = { "*/*.o" };
	target_select(star, 1, names, 5, all);
	assert_true(all[0] && all[1] && all[3] && !all[2] && !all[4]);
}

static void select_one(void *pattern)
{
	bool sel[5] = { 0 };
	char *pats[] = { pattern };
	target_select(pats, 1, names, 5, sel);
}

static void test_select_errors(void **state)
{
	(void)state;
	expect_exit(select_one, "nope.o", 2, "unknown target 'nope.o'");
	expect_exit(select_one, "x.o", 2, "ambiguous target 'x.o': matches a/x.o, b/x.o");
	expect_exit(select_one, "*.hip.o", 2, "no target matches '*.hip.o'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_one),
		cmocka_unit_test(test_select_globs),
		cmocka_unit_test(test_select_errors),
	};
	return cmocka_run_group_tests_name("target", tests, NULL, NULL);
}
