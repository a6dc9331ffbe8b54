#include "unit.h"
#include "tmpdir.h"
#include "whatif.h"

#include <math.h>

/* Four TUs of 8, 2, 2, 2 s and a 1 s link that needs them all. */
static const char manifest[] =
	"rule cc\n  command = gcc -c $in -o $out\n"
	"rule link\n  command = gcc $in -o $out\n"
	"build a.o: cc a.c\nbuild b.o: cc b.c\nbuild c.o: cc c.c\nbuild d.o: cc d.c\n"
	"build prog: link a.o b.o c.o d.o\n";
static const char logged[] = "# ninja log v5\n0\t2000\t0\tb.o\t1\n2000\t4000\t0\tc.o\t3\n4000\t6000\t0\td.o\t4\n"
			     "0\t8000\t0\ta.o\t2\n8000\t9000\t0\tprog\t5\n";

static void load(struct ninja_build *b, double *seconds)
{
	char *dir = manifest_dir("whatif", manifest);
	ninja_load(dir, b);
	char *log_path = write_temp(logged), *err = NULL;
	struct ninja_log log;
	assert_true(ninja_log_read_latest(log_path, &log, &err));
	durations_from_log(b, &log, seconds);
	ninja_log_free(&log);
	unlink(log_path);
	free(log_path);
	free(dir);
}

static struct prediction predict(const struct model *m, long jobs)
{
	struct prediction p;
	const struct sched_options o = { .jobs = (int)jobs, .policy = POLICY_MANIFEST, .cores = 0, .contention = 0 };
	assert_true(model_predict(m, &o, &p));
	return p;
}

static void test_durations_and_prediction(void **state)
{
	(void)state;
	struct ninja_build b;
	double seconds[5];
	load(&b, seconds);
	assert_true(seconds[ninja_edge_of(&b, "a.o")] == 8 && seconds[ninja_edge_of(&b, "prog")] == 1);
	struct model m;
	model_from_build(&m, &b, seconds);
	/* -j 2: a.o alone on one slot, the three 2 s TUs on the other. */
	struct prediction p = predict(&m, 2);
	assert_true(fabs(p.wall - 9) < 1e-9);
	assert_true(fabs(p.critical - 9) < 1e-9);
	assert_true(fabs(p.work - 7.5) < 1e-9);
	assert_string_equal(p.binds, "critical path");
	/* -j 1: the work binds. */
	p = predict(&m, 1);
	assert_true(fabs(p.wall - 15) < 1e-9);
	assert_string_equal(p.binds, "total work / jobs");
	model_free(&m);
	ninja_build_free(&b);
}

static void test_edits(void **state)
{
	(void)state;
	struct ninja_build b;
	double seconds[5];
	load(&b, seconds);
	size_t a = (size_t)ninja_edge_of(&b, "a.o"), bc[2] = { (size_t)ninja_edge_of(&b, "b.o"),
								(size_t)ninja_edge_of(&b, "c.o") };
	struct model m;

	/* Split a.o in 4 pieces of 2 s + 0.5 s each. */
	model_from_build(&m, &b, seconds);
	const struct edit split = { EDIT_SPLIT, &a, 1, 4 };
	assert_ok(model_apply(&m, &split, 0.5, &unit_err));
	assert_int_equal(m.n, 9);	/* four pieces added */
	struct prediction p = predict(&m, 8);
	assert_true(fabs(p.wall - (2.5 + 1)) < 1e-9);	/* every piece and TU at once, then the link */
	model_free(&m);

	/* Scale by half, remove, fuse. */
	model_from_build(&m, &b, seconds);
	const struct edit half = { EDIT_SCALE, &a, 1, 0.5 };
	assert_ok(model_apply(&m, &half, 0, &unit_err));
	assert_true(fabs(predict(&m, 4).wall - 5) < 1e-9);
	const struct edit gone = { EDIT_REMOVE, &a, 1, 0 };
	assert_ok(model_apply(&m, &gone, 0, &unit_err));
	assert_true(fabs(predict(&m, 4).wall - 3) < 1e-9);
	const struct edit fused = { EDIT_FUSE, bc, 2, 0 };
	assert_ok(model_apply(&m, &fused, 0, &unit_err));
	assert_true(fabs(predict(&m, 4).wall - 5) < 1e-9);	/* b+c: 4 s, then the link */
	model_free(&m);

	/* Errors are returned, not printed. */
	model_from_build(&m, &b, seconds);
	size_t twice[2] = { a, a };
	const struct edit dup = { EDIT_FUSE, twice, 2, 0 };
	char *err = NULL;
	model_apply(&m, &dup, 0, &err);
	assert_string_equal(err, "--fuse names a step twice");
	free(err);
	const struct edit bad = { EDIT_SPLIT, &a, 1, 1 };
	err = NULL;
	model_apply(&m, &bad, 0, &err);
	assert_string_equal(err, "--split wants 2 to 1000 pieces, not 1");
	free(err);
	model_free(&m);
	ninja_build_free(&b);
}

/* Two 10 s TUs side by side slow each other by 20 %: both end at 12 s. */
static void test_scheduler_with_contention(void **state)
{
	(void)state;
	struct graph_node n[2] = { { 10, false, NULL, 0, 0, 0, NULL, 0 }, { 10, false, NULL, 0, 0, 0, NULL, 0 } };
	struct model m = { n, NULL, 2 };
	struct prediction p;
	const struct sched_options alone = { .jobs = 2, .policy = POLICY_MANIFEST };
	const struct sched_options side = { .jobs = 2, .policy = POLICY_MANIFEST, .contention = 0.2 };
	assert_true(model_predict(&m, &alone, &p));
	assert_true(fabs(p.wall - 10) < 1e-9);
	assert_true(model_predict(&m, &side, &p));
	assert_true(fabs(p.wall - 12) < 1e-9);
	/* -j 1: nothing beside it, no slowdown. */
	const struct sched_options one = { .jobs = 1, .policy = POLICY_MANIFEST, .cores = 0, .contention = 0.2 };
	assert_true(model_predict(&m, &one, &p));
	assert_true(fabs(p.wall - 20) < 1e-9);
	/* -j 4 on 1 core: shared, and no one beside it on another core. */
	const struct sched_options shared = { .jobs = 2, .policy = POLICY_MANIFEST, .cores = 1, .contention = 0.2 };
	assert_true(model_predict(&m, &shared, &p));
	assert_true(fabs(p.wall - 20) < 1e-9);
	/* One of them on two cores (nvcc --threads 2) loads 2 cores as two
	 * jobs do: beside it on 2 cores the other shares them three ways. */
	n[0].cores = 2;
	const struct sched_options two_cores = { .jobs = 2, .policy = POLICY_MANIFEST, .cores = 2 };
	assert_true(model_predict(&m, &two_cores, &p));
	assert_true(fabs(p.wall - 15) < 1e-9);
}

/* The calibration recovers a known contention from a recorded build: the
 * four TUs ran two at a time and took 25 % longer than alone. */
static void test_calibration(void **state)
{
	(void)state;
	struct ninja_build b;
	double seconds[5];
	load(&b, seconds);
	char *path = write_temp("# ninja log v5\n0\t2500\t0\tb.o\t1\n0\t2500\t0\tc.o\t3\n2500\t5000\t0\td.o\t4\n"
				"2500\t5000\t0\ta.o\t2\n5000\t6000\t0\tprog\t5\n"), *err = NULL;
	struct ninja_log log;
	assert_true(ninja_log_read_latest(path, &log, &err));
	double isolated[5];
	for (size_t i = 0; i < 5; i++)
		isolated[i] = NAN;
	const char *tus[] = { "a.o", "b.o", "c.o", "d.o" };
	for (size_t i = 0; i < 4; i++)
		isolated[ninja_edge_of(&b, tus[i])] = 2;
	struct contention c;
	contention_calibrate(&b, &log, isolated, NULL, 2, "the test build", &c);
	assert_int_equal(c.samples, 4);
	assert_true(fabs(c.mean_concurrency - 2) < 1e-9);
	assert_true(fabs(c.share - 0.25) < 1e-9);
	char *text = contention_text(&c);
	assert_non_null(strstr(text, "+25.0% per job running beside it"));
	assert_non_null(strstr(text, "calibrated from the test build (4 steps"));
	free(text);
	/* Their CPU time grew by 10 % only: the other 15 % was waiting for a
	 * CPU that the build's own jobs did not take, and does not count. */
	double work[5];
	for (size_t i = 0; i < 5; i++)
		work[i] = i == 4 ? NAN : 1.10;
	contention_calibrate(&b, &log, isolated, work, 2, "the test build", &c);
	assert_int_equal(c.bounded, 4);
	assert_true(fabs(c.share - 0.10) < 1e-9);
	assert_true(fabs(c.wall_share - 0.25) < 1e-9);
	text = contention_text(&c);
	assert_non_null(strstr(text, "+10.0% per job running beside it"));
	assert_non_null(strstr(text, "bounded by their CPU time: 4 steps' walls grew more than their work"));
	assert_non_null(strstr(text, "the walls alone said +25.0%"));
	free(text);
	/* Work that grew as much as the wall bounds nothing. */
	for (size_t i = 0; i < 4; i++)
		work[i] = 1.30;
	contention_calibrate(&b, &log, isolated, work, 2, "the test build", &c);
	assert_int_equal(c.bounded, 0);
	assert_true(fabs(c.share - 0.25) < 1e-9);
	/* Nothing to compare: no contention, said so. */
	for (size_t i = 0; i < 5; i++)
		isolated[i] = NAN;
	contention_calibrate(&b, &log, isolated, NULL, 2, "the test build", &c);
	assert_int_equal(c.samples, 0);
	assert_true(c.share == 0);
	ninja_log_free(&log);
	unlink(path);
	free(path);
	ninja_build_free(&b);
}

/* Three full builds (a.o 8, 10, 12 s) around a partial one that rebuilt
 * only b.o: the medians of the full builds, the partial one left out. */
static void test_recent_builds(void **state)
{
	(void)state;
	char *dir = manifest_dir("recent", manifest);
	struct ninja_build b;
	ninja_load(dir, &b);
	char *path = xasprintf("%s/.ninja_log", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("# ninja log v5\n", f);
	const int a_ms[] = { 8000, 10000, 12000 };
	for (int k = 0; k < 3; k++) {
		fprintf(f, "0\t2000\t0\tb.o\t1\n2000\t4000\t0\tc.o\t3\n4000\t6000\t0\td.o\t4\n");
		fprintf(f, "0\t%d\t0\ta.o\t2\n%d\t%d\t0\tprog\t5\n", a_ms[k], a_ms[k], a_ms[k] + 1000);
		if (k == 1)
			fputs("0\t500\t0\tb.o\t1\n", f);	/* a partial rebuild */
	}
	fclose(f);
	bool needed[5] = { false };
	needed[ninja_edge_of(&b, "a.o")] = needed[ninja_edge_of(&b, "b.o")] = true;
	double seconds[5], lo[5], hi[5];
	char *err = NULL;
	struct recent_builds rb;
	assert_int_equal(recent_builds_read(dir, &b, needed, 5, &rb, &err), 3);
	assert_null(err);
	recent_builds_durations(&rb, NULL, seconds, lo, hi);
	size_t a = (size_t)ninja_edge_of(&b, "a.o"), bo = (size_t)ninja_edge_of(&b, "b.o");
	assert_true(seconds[a] == 10 && seconds[bo] == 2);
	assert_true(lo[a] == 8 && hi[a] == 12);
	assert_true(recent_builds_wall(&rb) == 11);
	/* Isolated by a curve of 1.5 at two jobs: a.o ran 6 s beside b.o, c.o
	 * and d.o (4 s of its own work), then alone: 6, 8 and 10 s. */
	struct load_curve c = { 0 };
	double alone[] = { 2 }, two[] = { 3 };
	load_curve_add_level(&c, 1, alone, 1, alone, 1);
	load_curve_add_level(&c, 2, alone, 1, two, 1);
	recent_builds_durations(&rb, &c, seconds, lo, hi);
	assert_true(fabs(seconds[a] - 8) < 1e-9 && fabs(lo[a] - 6) < 1e-9 && fabs(hi[a] - 10) < 1e-9);
	assert_true(fabs(seconds[bo] - 2 / 1.5) < 1e-9);
	recent_builds_free(&rb);
	/* At most the last two: a.o 10 and 12. */
	assert_int_equal(recent_builds_read(dir, &b, needed, 2, &rb, &err), 2);
	recent_builds_durations(&rb, NULL, seconds, NULL, NULL);
	assert_true(seconds[a] == 11);
	recent_builds_free(&rb);
	ninja_build_free(&b);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations_and_prediction),
		cmocka_unit_test(test_edits),
		cmocka_unit_test(test_scheduler_with_contention),
		cmocka_unit_test(test_calibration),
		cmocka_unit_test(test_recent_builds),
	};
	return cmocka_run_group_tests_name("whatif", tests, NULL, NULL);
}
