#include "unit.h"
#include "regression.h"
#include "stats.h"

#include <math.h>

/* The t interval alone, as before the fence; and as check judges. */
static const struct regression_options raw = { 0.05, -1 }, fenced = { 0.05, FENCE_FLOOR };

/* 20 % slower, little noise: over at 5 %, with the interval a hand
 * computation gives (pooled log variance, 4 degrees of freedom, t 2.776). */
static void test_clear_regression(void **state)
{
	(void)state;
	const double ref[] = { 10, 10.2, 9.8 }, cand[] = { 12, 12.1, 11.9 };
	struct regression r;
	regression_judge(ref, 3, cand, 3, &raw, &r, NULL, NULL);
	assert_true(r.decided);
	assert_true(r.over);
	assert_true(fabs(r.ratio - 1.2001323) < 1e-6);
	assert_true(fabs(r.ratio_lo - 1.159167) < 1e-4);
	assert_true(fabs(r.ratio_hi - 1.242545) < 1e-4);
	/* The gate's one-sided bound: t 2.132 on the same standard error. */
	assert_true(fabs(r.ratio_least - 1.16854) < 1e-4);
	assert_true(r.ref_median == 10.0 && r.cand_median == 12.0);
}

/* Slower beyond noise on one side only: the two-sided interval's lower
 * end is below 1, the one-sided bound above. Builds of two sittings are
 * judged on the lower end (the interval does not hold the drift between
 * them): within. The gate itself takes whichever bound it is given (pairs
 * of one sitting give it the one-sided one). */
static void test_gate_bounds(void **state)
{
	(void)state;
	const double ref[] = { 10, 10.6, 9.4 }, cand[] = { 11.2, 11.8, 10.6 };
	struct regression r;
	regression_judge(ref, 3, cand, 3, &raw, &r, NULL, NULL);
	assert_true(r.decided);
	assert_true(r.ratio_lo < 1 && r.ratio_least > 1);
	assert_false(r.over);
	assert_true(regression_over(r.ratio, r.ratio_least, 0.05));
	assert_true(regression_over(1.10, 1.01, 0.05));
	assert_false(regression_over(1.10, 0.99, 0.05));
	assert_false(regression_over(1.04, 1.01, 0.05));
}

/* The same walls: within, and the interval holds 1. */
static void test_unchanged(void **state)
{
	(void)state;
	const double ref[] = { 10, 11, 9.5, 10.4 }, cand[] = { 10.1, 9.7, 10.9 };
	struct regression r;
	regression_judge(ref, 4, cand, 3, &raw, &r, NULL, NULL);
	assert_true(r.decided);
	assert_false(r.over);
	assert_true(r.ratio_lo < 1 && r.ratio_hi > 1);
}

/* 3 % slower beyond noise is still under a 5 % allowance; 10 % with a
 * wide spread is beyond the allowance but not beyond noise. */
static void test_allowance_and_noise(void **state)
{
	(void)state;
	const double ref[] = { 10, 10.01, 9.99 }, small[] = { 10.3, 10.31, 10.29 };
	struct regression r;
	regression_judge(ref, 3, small, 3, &raw, &r, NULL, NULL);
	assert_true(r.ratio_lo > 1);
	assert_false(r.over);
	regression_judge(ref, 3, small, 3, &(struct regression_options){ 0.02, -1 }, &r, NULL, NULL);
	assert_true(r.over);
	const double noisy_ref[] = { 8, 12, 10 }, noisy[] = { 9, 13.5, 10.5 };
	regression_judge(noisy_ref, 3, noisy, 3, &raw, &r, NULL, NULL);
	assert_true(r.ratio > 1.05);
	assert_true(r.ratio_lo < 1);
	assert_false(r.over);
}

/* One build a side makes no interval: too few to decide, never over. */
static void test_too_few(void **state)
{
	(void)state;
	const double ref[] = { 10 }, cand[] = { 30 };
	struct regression r;
	regression_judge(ref, 1, cand, 1, &raw, &r, NULL, NULL);
	assert_false(r.decided);
	assert_false(r.over);
	assert_true(fabs(r.ratio - 3) < 1e-12);
	assert_true(isnan(r.ratio_lo) && isnan(r.ratio_hi));
	/* One candidate against three: the reference's spread stands for both. */
	const double three[] = { 10, 10.5, 9.5 };
	regression_judge(three, 3, cand, 1, &raw, &r, NULL, NULL);
	assert_true(r.decided);
	assert_true(r.over);
}

/* The case: three reference builds, the first cold (8.4 s
 * against 3.7 s), a candidate 55 % slower. Unfenced the interval spans
 * no change and the gate is blind; fenced, the cold build is named and
 * the regression caught. */
static void test_cold_reference(void **state)
{
	(void)state;
	const double ref[] = { 8.4, 3.7, 3.75 }, cand[] = { 5.76, 5.8, 5.71 };
	struct regression r;
	bool fr[3], fc[3];
	regression_judge(ref, 3, cand, 3, &raw, &r, fr, fc);
	assert_true(r.decided);
	assert_false(r.over);
	assert_true(r.ratio_lo < 1 && r.ratio_hi > 2);
	assert_false(fr[0]);
	regression_judge(ref, 3, cand, 3, &fenced, &r, fr, fc);
	assert_true(r.decided);
	assert_true(r.over);
	assert_int_equal(r.ref_fenced, 1);
	assert_int_equal(r.cand_fenced, 0);
	assert_true(fr[0] && !fr[1] && !fr[2] && !fc[0] && !fc[1] && !fc[2]);
	assert_true(fabs(r.ref_median - 3.725) < 1e-9);
	assert_true(r.ratio > 1.53 && r.ratio < 1.56);
	assert_true(r.ratio_lo > 1.4);
}

/* A cold build among the candidate's is no regression: fenced, within;
 * the raw interval calls it one. The ordinary cases judge the same. */
static void test_cold_candidate(void **state)
{
	(void)state;
	const double ref[] = { 10, 10.2, 9.8, 10.1 }, cand[] = { 10.1, 22.7, 9.9, 10.0 };
	struct regression r;
	bool fc[4];
	regression_judge(ref, 4, cand, 4, &raw, &r, NULL, NULL);
	assert_true(r.ratio > 1.2);
	regression_judge(ref, 4, cand, 4, &fenced, &r, NULL, fc);
	assert_false(r.over);
	assert_int_equal(r.cand_fenced, 1);
	assert_true(fc[1]);
	assert_true(r.ratio_lo < 1 && r.ratio_hi > 1);
	const double ref2[] = { 10, 10.2, 9.8 }, slower[] = { 12, 12.1, 11.9 };
	regression_judge(ref2, 3, slower, 3, &fenced, &r, NULL, NULL);
	assert_true(r.over && r.ref_fenced == 0 && r.cand_fenced == 0);
	assert_true(fabs(r.ratio - 1.2001323) < 1e-6);
}

/* The case on fixed numbers: the same build in a later sitting
 * on a machine 25 % slower, its walls and its controls both 25 % longer.
 * Raw, that is a regression beyond noise; in units of the control it is
 * none. */
static void test_machine_drift_taken_out(void **state)
{
	(void)state;
	const double ref[] = { 10.0, 10.3, 9.8 }, ref_control[] = { 0.400, 0.410, 0.395 };
	double cand[3], cand_control[3], ref_rel[3], cand_rel[3];
	for (size_t i = 0; i < 3; i++)
		cand[i] = 1.25 * ref[i], cand_control[i] = 1.25 * ref_control[i];
	struct regression r;
	regression_judge(ref, 3, cand, 3, &fenced, &r, NULL, NULL);
	assert_true(r.over);	/* what check said before */
	assert_true(regression_relative(ref, ref_control, 3, ref_rel));
	assert_true(regression_relative(cand, cand_control, 3, cand_rel));
	regression_judge(ref_rel, 3, cand_rel, 3, &fenced, &r, NULL, NULL);
	assert_true(r.decided);
	assert_false(r.over);
	assert_true(fabs(r.ratio - 1) < 1e-9);
	assert_true(r.ratio_lo < 1 && r.ratio_hi > 1);
	/* The machine as slow, the build 20 % slower too: over, in units of
	 * the control as well. */
	for (size_t i = 0; i < 3; i++)
		cand[i] = 1.2 * 1.25 * ref[i];
	assert_true(regression_relative(cand, cand_control, 3, cand_rel));
	regression_judge(ref_rel, 3, cand_rel, 3, &fenced, &r, NULL, NULL);
	assert_true(r.over);
	assert_true(fabs(r.ratio - 1.2) < 1e-9);
	/* A build without its control: no relative walls, out untouched. */
	const double missing[] = { 0.4, 0, 0.4 };
	cand_rel[1] = -1;
	assert_false(regression_relative(cand, missing, 3, cand_rel));
	assert_true(cand_rel[1] == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clear_regression),
		cmocka_unit_test(test_gate_bounds),
		cmocka_unit_test(test_machine_drift_taken_out),
		cmocka_unit_test(test_unchanged),
		cmocka_unit_test(test_allowance_and_noise),
		cmocka_unit_test(test_too_few),
		cmocka_unit_test(test_cold_reference),
		cmocka_unit_test(test_cold_candidate),
	};
	return cmocka_run_group_tests_name("regression", tests, NULL, NULL);
}
