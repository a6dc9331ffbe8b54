#include "unit.h"
#include "arch_plan.h"

/* A TU of a host pass (2 s, 300 MiB), two device archs (3 s at 200 MiB,
 * 4 s at 250 MiB) and a bundling step (0.1 s). */
static struct pass two_archs[] = {
	{ .kind = PASS_HOST, .seconds = 2, .peak_kb = 300 * 1024 },
	{ .kind = PASS_DEVICE, .arch = "sm_80", .seconds = 3, .peak_kb = 200 * 1024 },
	{ .kind = PASS_DEVICE, .arch = "sm_90", .seconds = 4, .peak_kb = 250 * 1024 },
	{ .kind = PASS_OTHER, .seconds = 0.1, .peak_kb = 10 * 1024 },
};

static void test_archs_side_by_side(void **state)
{
	(void)state;
	const struct breakdown b = { .passes = two_archs, .n = 4, .jobs_sum = 9.1 };
	struct arch_plan ap;
	assert_true(arch_plan_make(&b, &ap));
	assert_int_equal(ap.n, 2);
	assert_string_equal(ap.archs[1].arch, "sm_90");
	assert_float_equal(ap.archs[0].share, 3 / 9.1, 1e-9);
	/* Without sm_90: its 4 s gone. */
	assert_float_equal(ap.serial_s - ap.archs[1].seconds, 5.1, 1e-9);
	/* Side by side: the host and bundling jobs, then the longest arch. */
	assert_float_equal(ap.side_by_side_s, 6.1, 1e-9);
	/* One job at a time holds the host's 300; the archs at once 450. */
	assert_int_equal(ap.serial_peak_kb, 300 * 1024);
	assert_int_equal(ap.side_by_side_peak_kb, 450 * 1024);
	arch_plan_free(&ap);
	/* An arch whose memory nvcc's own timing did not measure: unknown. */
	two_archs[1].peak_kb = -1;
	assert_true(arch_plan_make(&b, &ap));
	assert_int_equal(ap.side_by_side_peak_kb, -1);
	arch_plan_free(&ap);
	two_archs[1].peak_kb = 200 * 1024;
}

static void test_one_arch_is_no_choice(void **state)
{
	(void)state;
	const struct breakdown b = { .passes = two_archs, .n = 2, .jobs_sum = 5 };
	struct arch_plan ap;
	assert_false(arch_plan_make(&b, &ap));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_archs_side_by_side),
		cmocka_unit_test(test_one_arch_is_no_choice),
	};
	return cmocka_run_group_tests_name("arch_plan", tests, NULL, NULL);
}
