#include "unit.h"
#include "ninja_log.h"
#include "util.h"

/* Where the readers put what is wrong; NULL after a good read. */
static char *err;

static long duration(struct ninja_log *log, const char *output)
{
	ninja_log_load_names(log);	/* read_build holds none */
	const struct log_entry *e = ninja_log_find(log, output);
	assert_non_null(e);
	return e->end_ms - e->start_ms;
}

static void test_latest_of_three_builds(void **state)
{
	(void)state;
	struct ninja_log log;
	/* Three clean builds appended in one file: only the third counts. */
	assert_true(ninja_log_read_latest(FIXTURE("ninja/hip_gfx90a_ninja_log_after_run3"), &log, &err));
	assert_int_equal(log.version, 5);
	assert_int_equal(log.n, 11);
	assert_int_equal(duration(&log, "pybind.o"), 67493 - 29379);
	assert_int_equal(duration(&log, "kern_000.cuda.o"), 7456 - 1);
	assert_int_equal(duration(&log, "aiter_like_module.so"), 67877 - 67493);
	assert_string_equal(log.names[0].output, "kern_001.cuda.o");
	assert_string_equal(log.names[10].hash, "b5e8368d1e3fa3c");
	assert_int_equal(log.names[10].hash_len, 15);
	ninja_log_free(&log);

	assert_true(ninja_log_read_latest(FIXTURE("ninja/cuda_sm80_sm90_ninja_log_after_run1"), &log, &err));
	assert_int_equal(log.n, 11);
	assert_int_equal(duration(&log, "pybind.o"), 76591 - 43151);
	ninja_log_free(&log);
}

static void test_v7_torch211(void **state)
{
	(void)state;
	struct ninja_log log;
	assert_true(ninja_log_read_latest(FIXTURE("ninja/torch211_ninja_log"), &log, &err));
	assert_int_equal(log.version, 7);
	assert_int_equal(log.n, 9);
	assert_int_equal(duration(&log, "kern_0.cuda.o"), 64852);
	assert_int_equal(duration(&log, "textmod.so"), 750);
	ninja_log_free(&log);
}

static void test_v6_cut_off_and_empty(void **state)
{
	(void)state;
	struct ninja_log log;
	/* A killed build leaves a last line without its newline: dropped. */
	char *path = write_temp("# ninja log v6\n0\t100\t5\ta.o\tab\n0\t150\t5\tb.o\tcd\n150\t1");
	assert_true(ninja_log_read_latest(path, &log, &err));
	assert_int_equal(log.version, 6);
	assert_int_equal(log.n, 2);
	assert_int_equal(duration(&log, "b.o"), 150);
	assert_null(ninja_log_find(&log, "c.o"));
	ninja_log_free(&log);
	unlink(path);
	free(path);

	/* An output built twice in one run: the later line counts. */
	path = write_temp("# ninja log v5\n0\t100\t5\ta.o\tab\n100\t300\t5\ta.o\tab\n");
	assert_true(ninja_log_read_latest(path, &log, &err));
	assert_int_equal(duration(&log, "a.o"), 200);
	ninja_log_free(&log);
	unlink(path);
	free(path);

	path = write_temp("");
	assert_true(ninja_log_read_latest(path, &log, &err));
	assert_int_equal(log.n, 0);
	unlink(path);
	free(path);
	assert_false(ninja_log_read_latest("/nonexistent/.ninja_log", &log, &err));
}

/* Going back: the fixture holds three clean builds of 11 steps. */
static void test_builds_back(void **state)
{
	(void)state;
	struct ninja_log log;
	long n;
	assert_true(ninja_log_read_build(FIXTURE("ninja/cuda_sm80_sm90_ninja_log_after_run3"), 2, &log, &n, &err));
	assert_int_equal(n, 3);
	assert_int_equal(log.n, 11);
	assert_int_equal(log.first_line, 2);
	assert_int_equal(duration(&log, "pybind.o"), 76591 - 43151);	/* the first build's */
	/* When it ran: its newest output mtime, nanoseconds as ninja 1.11 writes them. */
	assert_true(ninja_log_when(&log) == 1795983469);
	ninja_log_free(&log);
	assert_true(ninja_log_read_build(FIXTURE("ninja/cuda_sm80_sm90_ninja_log_after_run3"), 1, &log, &n, &err));
	assert_int_equal(log.first_line, 13);
	assert_true(ninja_log_when(&log) == 1795983547);
	ninja_log_free(&log);
	assert_false(ninja_log_read_build(FIXTURE("ninja/cuda_sm80_sm90_ninja_log_after_run3"), 3, &log, &n, &err));
	assert_int_equal(n, 3);
	assert_int_equal(log.n, 0);
}

/* A recompacted log: ninja rewrote one line per output, in hash order,
 * then appended a run. The latest build is the run's four lines; rewritten
 * stretches that start late are not builds. A rewritten line of a step
 * that started its run (a.o, at 2 ms) cannot be told from a one-step build. */
static void test_recompacted(void **state)
{
	(void)state;
	char *path = write_temp("# ninja log v7\n"
				"4200\t9100\t1\tc.o\t0c\n"	/* rewritten: hash order */
				"4150\t8000\t1\tb.o\t0b\n"
				"9100\t9400\t1\tprog\t0d\n"
				"2\t4100\t1\ta.o\t0a\n"
				"1\t3900\t1\ta.o\t0a\n"		/* the new run */
				"2\t4000\t1\tb.o\t0b\n"
				"3900\t8800\t1\tc.o\t0c\n"
				"8800\t9000\t1\tprog\t0d\n");
	struct ninja_log log;
	long n;
	assert_true(ninja_log_read_build(path, 0, &log, &n, &err));
	assert_int_equal(n, 2);	/* not 4: c.o and b.o+prog started late */
	assert_int_equal(log.version, 7);
	assert_int_equal(log.n, 4);
	assert_int_equal(log.first_line, 6);
	assert_int_equal(duration(&log, "c.o"), 4900);
	ninja_log_free(&log);
	assert_true(ninja_log_read_build(path, 1, &log, &n, &err));
	assert_int_equal(log.n, 1);
	assert_null(log.names);	/* read again from the file, line by line */
	assert_string_equal(ninja_log_line(&log, 0).output, "a.o");
	assert_string_equal(ninja_log_line(&log, 0).hash, "0a");
	ninja_log_free(&log);
	unlink(path);
	free(path);
}

/* The reader's error for `text`, which must be one. */
static void expect_error(const char *text, const char *want_after_path)
{
	char *path = write_temp(text);
	struct ninja_log log;
	assert_false(ninja_log_read_latest(path, &log, &err));
	assert_non_null(err);
	char *want = xasprintf("%s%s", path, want_after_path);
	assert_true(has_prefix(err, want));
	free(want);
	free(err);
	err = NULL;
	unlink(path);
	free(path);
}

static void test_corrupt(void **state)
{
	(void)state;
	expect_error("# ninja log v5\n0\t100\t5\ta.o\tab\n12\tx\t5\tb.o\tcd\n", ":3: malformed .ninja_log entry");
	expect_error("not a log\n", ":1: not a .ninja_log");
	expect_error("# ninja log v3\n", ":1: .ninja_log version 3 is not supported");
	expect_error("# ninja log v99\n", ":1: .ninja_log version 99 is not supported");
	expect_error("# ninja log v5\n0\t100\t5\ta.o\n", ":2: malformed");
	expect_error("# ninja log v5\n200\t100\t5\ta.o\tab\n", ":2: step ends (100 ms) before it starts (200 ms)");
	expect_error("# ninja log v5\n0\t4294967296\t5\ta.o\tab\n", ":2: step ends 4294967296 ms into its build, past 2^32 ms");
	expect_error("# ninja log v5\n0\t99999999999999999999\t5\ta.o\tab\n", ":2: malformed");
}

/* ninja writes an output's name raw: a tab in it stays part of the name. */
static void test_tab_in_name(void **state)
{
	(void)state;
	struct ninja_log log;
	char *path = write_temp("# ninja log v4\n0\t100\t5\tdir\tx/a b.o\tab12\n");
	assert_true(ninja_log_read_latest(path, &log, &err));
	assert_null(err);
	assert_int_equal(log.n, 1);
	assert_string_equal(log.names[0].output, "dir\tx/a b.o");
	assert_string_equal(log.names[0].hash, "ab12");
	assert_true(ninja_log_when(&log) == 0);	/* an mtime of 5: no clock */
	ninja_log_free(&log);
	/* the same, read again from the file */
	assert_true(ninja_log_read_build(path, 0, &log, NULL, &err));
	assert_string_equal(ninja_log_line(&log, 0).output, "dir\tx/a b.o");
	assert_int_equal(ninja_log_line(&log, 0).output_len, 11);
	assert_string_equal(ninja_log_line(&log, 0).hash, "ab12");
	ninja_log_free(&log);
	unlink(path);
	free(path);
}

/* An empty hash is a hash: two lines with it and the same times are one
 * edge's outputs (the fuzzer's find: the first empty hash has no buffer). */
static void test_empty_hash(void **state)
{
	(void)state;
	struct ninja_log log;
	char *path = write_temp("# ninja log v5\n0\t100\t5\ta.o\t\n0\t100\t5\ta.h\t\n0\t100\t5\tb.o\tx\n");
	assert_true(ninja_log_read_build(path, 0, &log, NULL, &err));
	assert_int_equal(log.n, 3);
	assert_false(log.entries[0].joins);
	assert_true(log.entries[1].joins);
	assert_false(log.entries[2].joins);
	assert_string_equal(ninja_log_line(&log, 1).output, "a.h");
	assert_string_equal(ninja_log_line(&log, 1).hash, "");
	ninja_log_free(&log);
	unlink(path);
	free(path);
}

static void read_line_0(void *log)
{
	ninja_log_line(log, 0);
}

/* A log written over in place between the read and the re-read of a name
 * (same inode, so the held file sees it): exit 2, not another step's name. */
static void test_changed_under_us(void **state)
{
	(void)state;
	struct ninja_log log;
	char *path = write_temp("# ninja log v5\n0\t100\t5\ta.o\tab\n");
	assert_true(ninja_log_read_build(path, 0, &log, NULL, &err));
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	fputs("# ninja log v5\n0\t900\t5\tz.o\tab\n", f);
	fclose(f);
	expect_exit(read_line_0, &log, 2, "changed while buildwall read it (the line at byte 15 is not what it was)");
	ninja_log_free(&log);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latest_of_three_builds),
		cmocka_unit_test(test_empty_hash),
		cmocka_unit_test(test_v7_torch211),
		cmocka_unit_test(test_v6_cut_off_and_empty),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_tab_in_name),
		cmocka_unit_test(test_builds_back),
		cmocka_unit_test(test_recompacted),
		cmocka_unit_test(test_changed_under_us),
	};
	return cmocka_run_group_tests_name("ninja_log", tests, NULL, NULL);
}
