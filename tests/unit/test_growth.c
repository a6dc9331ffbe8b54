/* check's growth model: the steps that grew most between the reference
 * and the candidates' medians, and the header groups whose lines grew. */
#include "unit.h"
#include "growth.h"

static struct record_step step(const char *target, double seconds)
{
	return (struct record_step){ xstrdup(target), "kernel TU", seconds };
}

static void test_steps(void **state)
{
	(void)state;
	/* Three candidate builds; a.o grew 2 s (medians of 12, 12, 30: an
	 * outlier build does not move it), b.o 5 s, c.o 1 s, d.o 0.5 s, e.o
	 * shrank; f.o is new (nothing recorded: all of it grew). */
	struct build_record cand[3] = { 0 };
	double a[3] = { 12, 30, 12 };
	for (int b = 0; b < 3; b++) {
		cand[b].steps = xcalloc(6, sizeof(struct record_step));
		cand[b].steps[0] = step("e.o", 1);
		cand[b].steps[1] = step("a.o", a[b]);
		cand[b].steps[2] = step("b.o", 15);
		cand[b].steps[3] = step("c.o", 4);
		cand[b].steps[4] = step("d.o", 2.5);
		cand[b].steps[5] = step("f.o", 0.75);
		cand[b].nsteps = 6;
	}
	struct history_step ref[] = { { "d.o", "kernel TU", 2, 5 }, { "a.o", "kernel TU", 10, 5 },
				      { "c.o", "kernel TU", 3, 5 }, { "b.o", "kernel TU", 10, 5 },
				      { "e.o", "kernel TU", 2, 5 } };
	struct grown out[GROWTH_STEPS];
	size_t n = growth_steps(ref, 5, cand, 3, out);
	assert_int_equal(n, 3);
	assert_string_equal(out[0].target, "b.o");
	assert_float_equal(out[0].cand_s - out[0].ref_s, 5, 1e-9);
	assert_string_equal(out[1].target, "a.o");
	assert_float_equal(out[1].cand_s, 12, 1e-9);
	assert_string_equal(out[2].target, "c.o");
	assert_null(out[0].pass);
	for (size_t i = 0; i < n; i++)
		grown_clear(&out[i]);
	for (int b = 0; b < 3; b++)
		build_record_free(&cand[b]);
	assert_int_equal(growth_steps(ref, 5, cand, 0, out), 0);
}

static void test_lines(void **state)
{
	(void)state;
	/* The host pass took torch and pybind11 back in (the standard library
	 * grew more lines, but a framework is what a fix removes); the device
	 * pass grew torch by 2 % more lines: the host pass is named. */
	struct record_lines ref[] = {
		{ "x.o", "host", "torch/ATen/c10", 100 }, { "x.o", "host", "pybind11", 0 },
		{ "x.o", "host", "C++ standard library", 1000 }, { "x.o", "device sm_80", "torch/ATen/c10", 100 },
	};
	struct record_lines cand[] = {
		{ "x.o", "host", "torch/ATen/c10", 300000 }, { "x.o", "host", "pybind11", 20000 },
		{ "x.o", "host", "C++ standard library", 900000 }, { "x.o", "device sm_80", "torch/ATen/c10", 326000 },
	};
	struct grown g = { .target = xstrdup("x.o") };
	growth_lines(&g, ref, 4, cand, 4);
	assert_string_equal(g.pass, "host");
	assert_string_equal(g.group, "torch/ATen/c10, pybind11");
	assert_int_equal(g.ref_lines, 100);
	assert_int_equal(g.cand_lines, 320000);
	grown_clear(&g);
	/* No heavy group grew: the one group that grew most. */
	struct record_lines plain_ref[] = { { "y.o", "host", "project", 10 }, { "y.o", "host", "other", 5 } };
	struct record_lines plain_cand[] = { { "y.o", "host", "project", 40 }, { "y.o", "host", "other", 6 } };
	g = (struct grown){ .target = xstrdup("y.o") };
	growth_lines(&g, plain_ref, 2, plain_cand, 2);
	assert_string_equal(g.group, "project");
	assert_int_equal(g.cand_lines - g.ref_lines, 30);
	grown_clear(&g);
	/* Nothing grew: no pass named. */
	g = (struct grown){ .target = xstrdup("y.o") };
	growth_lines(&g, plain_cand, 2, plain_ref, 2);
	assert_null(g.pass);
	assert_null(g.group);
	grown_clear(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
