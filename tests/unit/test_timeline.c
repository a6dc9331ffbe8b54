#include "unit.h"
#include "ninja.h"
#include "timeline.h"

#include <math.h>

/* Where the readers put what is wrong; NULL after a good read. */
static char *err;

static void read_one(const char *text, struct ninja_log *log, char **path)
{
	*path = write_temp(text);
	assert_true(ninja_log_read_latest(*path, log, &err));
}

/* a [0,4] runs with b [0,2], then with c [2,4]: each half is shared by
 * two, so a weighs 2 s, b and c 1 s each. The link waits alone. */
static void test_weighted_slots_profile(void **state)
{
	(void)state;
	struct ninja_log log;
	char *path;
	read_one("# ninja log v5\n0\t2000\t1\tb.o\tbb\n0\t4000\t1\ta.cuda.o\taa\n2000\t4000\t1\tc.o\tcc\n"
		 "4000\t5000\t1\tmod.so\tdd\n", &log, &path);
	struct timeline t;
	timeline_build(&log, &t);
	assert_int_equal(t.n, 4);
	assert_float_equal(t.wall, 5, 1e-9);
	assert_float_equal(t.busy, 9, 1e-9);
	assert_int_equal(t.slots, 2);
	assert_float_equal(t.steps[0].weighted, 1, 1e-9);	/* b */
	assert_float_equal(t.steps[1].weighted, 2, 1e-9);	/* a */
	assert_float_equal(t.steps[2].weighted, 1, 1e-9);	/* c */
	assert_float_equal(t.steps[3].weighted, 1, 1e-9);	/* the link */
	/* Weighted times add up to the wall when something always runs. */
	assert_float_equal(t.steps[0].weighted + t.steps[1].weighted + t.steps[2].weighted + t.steps[3].weighted, 5, 1e-9);
	assert_int_equal(t.steps[0].slot, 0);	/* b and a start together */
	assert_int_equal(t.steps[1].slot, 1);
	assert_int_equal(t.steps[2].slot, 0);	/* c reuses b's slot */
	assert_int_equal(t.steps[3].slot, 0);
	/* From the log alone an object is a compile, whatever its name says. */
	assert_int_equal(t.steps[1].kind, KIND_COMPILE);
	assert_int_equal(t.steps[0].kind, KIND_COMPILE);
	assert_int_equal(t.steps[3].kind, KIND_LINK);
	assert_float_equal(t.by_kind[KIND_COMPILE], 8, 1e-9);
	assert_float_equal(t.weighted_by_kind[KIND_COMPILE], 4, 1e-9);
	assert_float_equal(t.profile[0], 2, 1e-9);	/* two running in the first 5 % */
	assert_float_equal(t.profile[TIMELINE_BUCKETS - 1], 1, 1e-9);
	timeline_free(&t);
	ninja_log_free(&log);
	unlink(path);
	free(path);
}

/* One edge, two outputs: two lines with the same times and hash. */
/* A step whose start equals its end weighs 0, whatever runs around it;
 * the weights add up to the time something ran. */
static void test_zero_length(void **state)
{
	(void)state;
	struct ninja_log log;
	char *path;
	read_one("# ninja log v5\n0\t1000\t0\ta.o\taa\n1500\t1500\t0\tb.stamp\tbb\n0\t2000\t0\tc.o\tcc\n"
		 "2000\t2000\t0\td.stamp\tdd\n3000\t4000\t0\te.o\tee\n", &log, &path);
	struct timeline t;
	timeline_build(&log, &t);
	double sum = 0;
	for (size_t i = 0; i < t.n; i++) {
		const char *o = step_line(&t, &t.steps[i], 0).output;
		if (!strcmp(o, "b.stamp") || !strcmp(o, "d.stamp"))
			assert_true(t.steps[i].weighted == 0);
		if (!strcmp(o, "a.o"))
			assert_true(fabs(t.steps[i].weighted - 0.5) < 1e-9);
		if (!strcmp(o, "c.o"))
			assert_true(fabs(t.steps[i].weighted - 1.5) < 1e-9);
		sum += t.steps[i].weighted;
	}
	assert_true(fabs(sum - 3.0) < 1e-9);	/* 4 s of wall, 1 s idle */
	timeline_free(&t);
	ninja_log_free(&log);
	unlink(path);
	free(path);
}

static void test_multi_output(void **state)
{
	(void)state;
	struct ninja_log log;
	char *path;
	read_one("# ninja log v6\n0\t1500\t1\tgen/a.h\t77\n0\t1500\t1\tgen/a.cpp\t77\n0\t1500\t1\tother.o\t78\n", &log, &path);
	struct timeline t;
	timeline_build(&log, &t);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.steps[0].noutputs, 2);
	assert_string_equal(step_line(&t, &t.steps[0], 1).output, "gen/a.cpp");
	assert_int_equal(t.steps[0].kind, KIND_OTHER);
	assert_float_equal(t.steps[0].weighted, 0.75, 1e-9);
	timeline_free(&t);
	ninja_log_free(&log);
	unlink(path);
	free(path);
}

static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(step_kind_of("kern_0.cuda.o", 13), KIND_COMPILE);
	assert_int_equal(step_kind_of("obj/x.hip.o", 11), KIND_COMPILE);
	assert_int_equal(step_kind_of("bind.o", 6), KIND_COMPILE);
	assert_int_equal(step_kind_of("textmod.so", 10), KIND_LINK);
	assert_int_equal(step_kind_of("libx.so.1", 9), KIND_LINK);
	assert_int_equal(step_kind_of("bin/prog", 8), KIND_LINK);
	assert_int_equal(step_kind_of("gen/table.inc", 13), KIND_OTHER);
	/* From the graph: the source decides, not the object's name. */
	struct ninja_edge e = { 0 };
	strvec_push(&e.outputs, "opus_dispatch.cuda.o");
	e.rule = xstrdup("cuda_compile");
	e.command = xstrdup("nvcc -c src/opus_dispatch.cpp -o opus_dispatch.cuda.o");
	strvec_push(&e.inputs, "src/opus_dispatch.cpp");
	assert_int_equal(step_kind_of_edge(&e), KIND_HOST_TU);
	free(e.command);
	e.command = xstrdup("clang++ -x hip -c src/opus_dispatch.cpp -o opus_dispatch.cuda.o");
	assert_int_equal(step_kind_of_edge(&e), KIND_KERNEL_TU);
	free(e.inputs.v[0]);
	e.inputs.v[0] = xstrdup("kernels/k.cu");
	assert_int_equal(step_kind_of_edge(&e), KIND_KERNEL_TU);
	free(e.inputs.v[0]);
	e.inputs.v[0] = xstrdup("gen/table.bin");
	assert_int_equal(step_kind_of_edge(&e), KIND_COMPILE);
	strvec_clear(&e.outputs);
	strvec_clear(&e.inputs);
	free(e.rule);
	free(e.command);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weighted_slots_profile),
		cmocka_unit_test(test_multi_output),
		cmocka_unit_test(test_zero_length),
		cmocka_unit_test(test_kinds),
	};
	return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
