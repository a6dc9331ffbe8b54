#include "unit.h"
#include "recorded.h"
#include "tmpdir.h"

/* gen.h (1 s) feeds a.o (4 s); b.o (2 s) and c.o (1 s) need nothing; the
 * link waits for all three. At -j 2, c.o started in b.o's freed slot. */
static const char manifest[] =
	"rule cc\n  command = gcc -c $in -o $out\n"
	"rule gen\n  command = touch $out\n"
	"rule link\n  command = gcc $in -o $out\n"
	"build gen.h: gen\nbuild a.o: cc a.c | gen.h\nbuild b.o: cc b.c\nbuild c.o: cc c.c\n"
	"build prog: link a.o b.o c.o\n";
static const char logged[] = "# ninja log v5\n0\t1000\t0\tgen.h\t1\n0\t2000\t0\tb.o\t2\n2000\t3000\t0\tc.o\t3\n"
			     "1000\t5000\t0\ta.o\t4\n5000\t5500\t0\tprog\t5\n";

static void test_critical_path_and_chain(void **state)
{
	(void)state;
	char *dir = manifest_dir("recorded", manifest);
	struct ninja_build b;
	ninja_load(dir, &b);
	char *log_path = write_temp(logged), *err = NULL;
	struct ninja_log log;
	assert_true(ninja_log_read_latest(log_path, &log, &err));
	struct timeline tl;
	timeline_build(&log, &tl);
	struct recorded r;
	recorded_analyze(&b, &log, &tl, &r);
	/* The longest chain: gen.h -> a.o -> prog, 5.5 s. */
	assert_int_equal(r.ncritical, 3);
	assert_string_equal(step_line(&tl, &tl.steps[r.critical[0]], 0).output, "gen.h");
	assert_string_equal(step_line(&tl, &tl.steps[r.critical[1]], 0).output, "a.o");
	assert_string_equal(step_line(&tl, &tl.steps[r.critical[2]], 0).output, "prog");
	assert_true(r.critical_s > 5.49 && r.critical_s < 5.51);
	/* Recorded: prog waited for a.o, which waited for gen.h. */
	assert_int_equal(r.nchain, 3);
	assert_string_equal(step_line(&tl, &tl.steps[r.chain[0]], 0).output, "prog");
	assert_string_equal(r.waited[0], "dependency");
	assert_string_equal(step_line(&tl, &tl.steps[r.chain[1]], 0).output, "a.o");
	assert_string_equal(r.waited[1], "dependency");
	assert_string_equal(step_line(&tl, &tl.steps[r.chain[2]], 0).output, "gen.h");
	assert_null(r.waited[2]);
	/* Kinds from the sources: host TUs, the link, the generator. */
	assert_int_equal(tl.count_by_kind[KIND_HOST_TU], 3);
	assert_int_equal(tl.count_by_kind[KIND_LINK], 1);
	recorded_free(&r);
	timeline_free(&tl);
	ninja_log_free(&log);
	ninja_build_free(&b);
	unlink(log_path);
	free(log_path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_critical_path_and_chain),
	};
	return cmocka_run_group_tests_name("recorded", tests, NULL, NULL);
}
