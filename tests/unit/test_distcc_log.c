#include "unit.h"
#include "distcc_log.h"

#include <math.h>

#define CLUSTER FIXTURE("distcc/cluster.log")

/* Each job of the real log: where it compiled, its waits, its remote hold
 * and its whole run, as distcc wrote them. */
static void test_jobs(void **state)
{
	(void)state;
	struct distcc_log log;
	assert_ok(distcc_log_read(CLUSTER, &log, &unit_err));
	assert_int_equal(log.n, 10);
	const struct distcc_job *b1 = distcc_log_find(&log, "b1.o");
	assert_non_null(b1);
	assert_string_equal(b1->input, "b1.cpp");
	assert_string_equal(b1->host, "127.0.0.1:36321/1");
	assert_true(b1->remote && b1->ok && b1->done && b1->compile);
	assert_int_equal(b1->waits, 0);
	assert_true(fabs(b1->remote_s - 6.0997) < 1e-9);
	assert_true(fabs(b1->elapsed_s - 6.107951) < 1e-9);
	/* Three slots, five TUs: the last two slept six times a second each. */
	const struct distcc_job *b4 = distcc_log_find(&log, "b4.o");
	assert_int_equal(b4->waits, 6);
	assert_true(fabs(b4->wait_s - 6.0) < 1e-9);
	assert_true(fabs(b4->remote_s - 3.7463) < 1e-9);
	assert_string_equal(b4->host, "127.0.0.1:36321/1");
	/* A link passes through distcc: not a compile, not found as one. */
	assert_null(distcc_log_find(&log, "a.so"));
	assert_false(log.jobs[6].compile);
	assert_string_equal(log.jobs[6].why_local, "called for link?  i give up");
	/* A .cu source distcc does not know: compiled here by its choice. */
	const struct distcc_job *cu = distcc_log_find(&log, "acu.o");
	assert_true(cu->compile && !cu->remote && !cu->fell_back && cu->ok);
	assert_string_equal(cu->why_local, "no visible input file");
	/* The compile error: tried remotely, retried here, failed. */
	const struct distcc_job *bad = distcc_log_find(&log, "bad.o");
	assert_true(bad->fell_back && !bad->remote && bad->done && !bad->ok);
	assert_string_equal(bad->host, "localhost");
	/* The host that refused the connection: compiled here instead. */
	const struct distcc_job *af = distcc_log_find(&log, "af.o");
	assert_true(af->fell_back && af->ok && !af->remote);
	assert_int_equal(af->tries, 1);
	assert_string_equal(af->first_host, "127.0.0.1:36329/1");
	assert_true(isnan(af->remote_s));
	distcc_log_free(&log);
}

static void test_hosts_and_summary(void **state)
{
	(void)state;
	struct distcc_log log;
	assert_ok(distcc_log_read(CLUSTER, &log, &unit_err));
	assert_int_equal(log.nhosts, 4);
	assert_string_equal(log.hosts[0].name, "127.0.0.1:36321");
	assert_int_equal(log.hosts[0].slots, 1);
	assert_int_equal(log.hosts[0].compiles, 3);
	assert_int_equal(log.hosts[3].compiles, 0);
	struct distcc_summary s;
	distcc_summarize(&log, &s);
	assert_int_equal(s.remote, 6);
	assert_int_equal(s.fell_back, 2);
	assert_int_equal(s.local, 1);
	assert_int_equal(s.failed, 1);
	assert_int_equal(s.waited, 2);
	assert_true(fabs(s.wait_s - 12.0) < 1e-9);
	assert_true(fabs(s.remote_s - (6.0997 + 6.0776 + 6.0351 + 3.7463 + 3.5079 + 0.3422)) < 1e-9);
	assert_int_equal(s.remote_slots, 4);
	assert_int_equal(s.remote_hosts, 4);
	distcc_log_free(&log);
}

/* By base name only where one job has it; the latest job of a reused name. */
static void test_find(void **state)
{
	(void)state;
	char dir[] = "/tmp/bw-distcc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = xasprintf("%s/log", dir);
	FILE *f = fopen(path, "w");
	fputs("distcc[1] (dcc_scan_args) scanning arguments: c++ -c a.cpp -o obj/a.o\n"
	      "distcc[1] compile from a.cpp to obj/a.o\n"
	      "distcc[1] compile a.cpp on h1:1/2 completed ok\n"
	      "distcc[1] elapsed compilation time 2.000000s\n"
	      "distcc[1] (dcc_scan_args) scanning arguments: c++ -c a.cpp -o obj/a.o\n"
	      "distcc[1] compile from a.cpp to obj/a.o\n"
	      "distcc[1] 10 bytes from a.cpp compiled on h2 in 1.5000s, rate 1kB/s\n"
	      "distcc[1] compile a.cpp on h2:1/2 completed ok\n"
	      "distcc[1] elapsed compilation time 1.600000s\n"
	      "distcc[2] (dcc_scan_args) scanning arguments: c++ -c b.cpp -o x/b.o\n"
	      "distcc[2] compile from b.cpp to x/b.o\n"
	      "distcc[3] (dcc_scan_args) scanning arguments: c++ -c b.cpp -o y/b.o\n"
	      "distcc[3] compile from b.cpp to y/b.o\n",
	      f);
	fclose(f);
	struct distcc_log log;
	assert_ok(distcc_log_read(path, &log, &unit_err));
	assert_int_equal(log.n, 4);
	const struct distcc_job *a = distcc_log_find(&log, "a.o");
	assert_non_null(a);
	assert_string_equal(a->host, "h2:1/2");
	assert_true(fabs(a->elapsed_s - 1.6) < 1e-12);
	assert_null(distcc_log_find(&log, "b.o"));	/* two jobs by that name */
	assert_non_null(distcc_log_find(&log, "y/b.o"));
	assert_false(distcc_log_find(&log, "y/b.o")->done);	/* its end was cut off */
	distcc_log_free(&log);
	unlink(path);
	rmdir(dir);
	free(path);
}

/* A daemon killed mid-compile: distcc sent the TU to the next host. */
static void test_retried_elsewhere(void **state)
{
	(void)state;
	struct distcc_log log;
	assert_ok(distcc_log_read(FIXTURE("distcc/retried.log"), &log, &unit_err));
	assert_int_equal(log.n, 1);
	const struct distcc_job *j = &log.jobs[0];
	assert_int_equal(j->tries, 2);
	assert_string_equal(j->first_host, "127.0.0.1:36321/1");
	assert_string_equal(j->host, "127.0.0.1:36322/1");
	assert_true(j->remote && j->ok && !j->fell_back);
	assert_string_equal(j->output, "/tmp/dc/out/bt.o");	/* scan_args' path, not the base name */
	struct distcc_summary s;
	distcc_summarize(&log, &s);
	assert_int_equal(s.retried, 1);
	assert_int_equal(s.remote, 1);
	distcc_log_free(&log);
}

static void test_not_a_distcc_log(void **state)
{
	(void)state;
	struct distcc_log log;
	char *err = NULL;
	distcc_log_read(FIXTURE("README.md"), &log, &err);
	assert_non_null(err);
	assert_non_null(strstr(err, "no distcc compile in it"));
	free(err);
	err = NULL;
	distcc_log_read("/nonexistent/distcc.log", &log, &err);
	assert_non_null(strstr(err, "cannot read"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_hosts_and_summary),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_retried_elsewhere),
		cmocka_unit_test(test_not_a_distcc_log),
	};
	return cmocka_run_group_tests_name("distcc_log", tests, NULL, NULL);
}
