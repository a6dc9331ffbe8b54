#include "unit.h"
#include "cluster.h"

#include <math.h>

#define CLUSTER FIXTURE("distcc/cluster.log")

static void test_launcher(void **state)
{
	(void)state;
	assert_string_equal(cluster_launcher("distcc c++ -c a.cpp -o a.o", "."), "distcc");
	assert_string_equal(cluster_launcher("/usr/bin/icecc g++ -c a.cpp -o a.o", "."), "icecc");
	assert_null(cluster_launcher("ccache gcc -c a.c -o a.o", "."));
	assert_null(cluster_launcher("gcc -DUSE_DISTCC=1 -c a.c -o a.o", "."));	/* named, not run behind */
	assert_null(cluster_launcher(NULL, "."));
}

/* A build of the fixture's jobs: b1..b5 and bad.o behind distcc, x.o not,
 * a link; each edge's recorded seconds. */
static const char *const outputs[] = { "b1.o", "b2.o", "b3.o", "b4.o", "b5.o", "bad.o", "x.o", "a.so" };
static const double recorded[] = { 6.11, 6.10, 6.04, 9.76, 9.52, 0.09, 2.0, 0.5 };
#define NEDGES 8

static void make_build(struct ninja_build *b, struct ninja_edge *edges)
{
	for (size_t i = 0; i < NEDGES; i++) {
		edges[i] = (struct ninja_edge){ 0 };
		strvec_push(&edges[i].outputs, outputs[i]);
		edges[i].rule = xstrdup(i == 7 ? "link" : "cxx");
		edges[i].command = i == 7 ? xasprintf("c++ b1.o -shared -o a.so")
				 : xasprintf("%sc++ -c %.2s.cpp -o %s", i == 6 ? "" : "distcc ", outputs[i], outputs[i]);
	}
	*b = (struct ninja_build){ .dir = xstrdup("."), .edges = edges, .n = NEDGES };
}

static void free_build(struct ninja_edge *edges, struct ninja_build *b)
{
	for (size_t i = 0; i < NEDGES; i++) {
		strvec_clear(&edges[i].outputs);
		free(edges[i].rule);
		free(edges[i].command);
	}
	free(b->dir);
}

static void test_split_by_log(void **state)
{
	(void)state;
	struct ninja_edge edges[NEDGES];
	struct ninja_build b;
	make_build(&b, edges);
	struct distcc_log log;
	assert_ok(distcc_log_read(CLUSTER, &log, &unit_err));
	struct cluster_split cs;
	cluster_split(&b, recorded, &log, NULL, NULL, 2, &cs);
	assert_string_equal(cs.launcher, "distcc");
	assert_int_equal(cs.remote, 5);
	assert_int_equal(cs.measured, 5);
	assert_int_equal(cs.kept_here, 1);	/* bad.o: the cluster failed it */
	/* b4: 9.76 recorded, 3.7463 held there (at twice the speed), 6 s of
	 * waiting taken out: 0.0137 s here. */
	assert_true(fabs(cs.there[3] - 3.7463 / 2) < 1e-9);
	assert_true(fabs(cs.here[3] - (9.76 - 3.7463 - 6.0)) < 1e-9);
	assert_true(fabs(cs.waited_s - 12.0) < 1e-9);
	/* x.o runs here without a launcher; the link too. */
	assert_true(cs.there[6] == 0 && cs.here[6] == 2.0);
	assert_true(cs.there[7] == 0 && cs.here[7] == 0.5);
	assert_true(cs.there[5] == 0 && fabs(cs.here[5] - 0.09) < 1e-12);
	cluster_split_free(&cs);

	/* Without the log: every compile behind distcc is all remote. */
	cluster_split(&b, recorded, NULL, NULL, NULL, 1, &cs);
	assert_int_equal(cs.remote, 6);
	assert_int_equal(cs.measured, 0);
	assert_true(cs.here[3] == 0 && cs.there[3] == 9.76);
	assert_true(cs.there[6] == 0 && cs.here[6] == 2.0);
	cluster_split_free(&cs);

	/* Without the log, the preprocessing timed here: b4's 1.25 s stays
	 * here, the rest goes (at 2x); b5 has no time (all remote); one
	 * longer than its compile is the compile. x.o has no launcher: not
	 * probed, not sent. */
	const double local[NEDGES] = { NAN, NAN, NAN, 1.25, NAN, 0.5, 9.0, NAN };
	cluster_split(&b, recorded, NULL, local, NULL, 2, &cs);
	assert_int_equal(cs.remote, 6);
	assert_int_equal(cs.probed, 2);
	assert_true(fabs(cs.here[3] - 1.25) < 1e-12 && fabs(cs.there[3] - (9.76 - 1.25) / 2) < 1e-12);
	assert_true(cs.here[4] == 0 && fabs(cs.there[4] - 9.52 / 2) < 1e-12);
	assert_true(fabs(cs.here[5] - 0.09) < 1e-12 && cs.there[5] == 0);
	assert_true(cs.there[6] == 0 && cs.here[6] == 2.0);
	cluster_split_free(&cs);
	distcc_log_free(&log);
	free_build(edges, &b);
}

/* The fixture's five TUs as ninja logged them at -j 5: three held the
 * three slots, two waited six seconds each. */
static void test_report_waits(void **state)
{
	(void)state;
	struct ninja_log nl = { .version = 5 };
	const long end[] = { 6110, 6100, 6040, 9760, 9520 };
	const int by_end[] = { 2, 1, 0, 4, 3 };	/* a log's lines come in end order */
	for (int k = 0; k < 5; k++) {
		char hash[8];
		snprintf(hash, sizeof(hash), "%d", by_end[k]);
		ninja_log_add(&nl, 0, end[by_end[k]], outputs[by_end[k]], hash);
	}
	ninja_log_add(&nl, 9760, 9900, "a.so", "l");
	struct timeline tl;
	timeline_build(&nl, &tl);
	struct distcc_log log;
	assert_ok(distcc_log_read(CLUSTER, &log, &unit_err));
	struct cluster_report r;
	cluster_report_build(&tl, &log, &r);
	assert_int_equal(r.sent, 5);
	assert_int_equal(r.kept_here, 0);
	assert_int_equal(r.most_sent, 5);
	assert_true(fabs(r.wait_s - 12.0) < 1e-9);
	assert_true(fabs(r.there_s - (6.0997 + 6.0776 + 6.0351 + 3.7463 + 3.5079)) < 1e-9);
	assert_true(fabs(r.local_s - 0.14) < 1e-9);	/* the link */
	assert_string_equal(r.bound, "remote slots");
	assert_non_null(strstr(r.bound_why, "2 compiles waited 12.0 s"));
	cluster_report_free(&r);
	timeline_free(&tl);

	/* Two at a time, never waiting, 4 slots offered: ninja's jobs bound. */
	struct ninja_log two = { .version = 5 };
	ninja_log_add(&two, 0, 6000, "b1.o", "1");
	ninja_log_add(&two, 0, 6000, "b2.o", "2");
	ninja_log_add(&two, 6000, 12000, "b3.o", "3");
	timeline_build(&two, &tl);
	cluster_report_build(&tl, &log, &r);
	assert_int_equal(r.most_sent, 2);
	assert_int_equal(r.remote_slots, 4);
	assert_string_equal(r.bound, "ninja jobs");
	cluster_report_free(&r);
	timeline_free(&tl);
	distcc_log_free(&log);
	ninja_log_free(&nl);
	ninja_log_free(&two);
}

/* distcc sends what it can preprocess and ship: not a .cu, which stays
 * here (its log: "no visible input file"), nor, split without a log, is
 * it counted remote. */
static void test_sends(void **state)
{
	(void)state;
	struct ninja_edge e[4] = { 0 };
	const char *const src[] = { "k.cu", "a.cpp", "b.C", "t.ii" };
	for (int i = 0; i < 4; i++) {
		strvec_push(&e[i].outputs, i ? "x.o" : "k.o");
		strvec_push(&e[i].inputs, src[i]);
		strvec_push(&e[i].inputs, "common.h");
		e[i].rule = xstrdup("cc");
		e[i].command = xasprintf("distcc %s -c %s -o x.o", i ? "g++" : "nvcc", src[i]);
	}
	assert_false(cluster_sends(&e[0]));
	for (int i = 1; i < 4; i++)
		assert_true(cluster_sends(&e[i]));
	struct ninja_build b = { .dir = xstrdup("."), .edges = e, .n = 2 };
	const double seconds[2] = { 20, 5 };
	bool *sent = cluster_sent(&b);
	assert_true(!sent[0] && sent[1]);
	free(sent);
	struct cluster_split cs;
	cluster_split(&b, seconds, NULL, NULL, NULL, 1, &cs);
	assert_int_equal(cs.remote, 1);
	assert_int_equal(cs.kept_here, 1);
	assert_true(cs.here[0] == 20 && cs.there[0] == 0 && cs.there[1] == 5);
	cluster_split_free(&cs);
	/* The network's cost: not added to a build recorded through distcc
	 * (its durations hold it), added to one recorded here. */
	const double network[2] = { 0.25, 0.25 };
	cluster_split(&b, seconds, NULL, NULL, network, 1, &cs);
	assert_true(cs.there[1] == 5 && cs.networked == 0);
	cluster_split_free(&cs);
	for (int i = 0; i < 2; i++) {
		free(e[i].command);
		e[i].command = xasprintf("%s -c %s -o x.o", i ? "g++" : "nvcc", src[i]);
	}
	cluster_split(&b, seconds, NULL, NULL, network, 2, &cs);
	assert_true(cs.here[0] == 20 && cs.there[0] == 0);	/* the .cu stays here */
	assert_true(fabs(cs.there[1] - (5 / 2.0 + 0.25)) < 1e-12);	/* the network at no speed-up */
	assert_true(cs.networked == 1 && fabs(cs.network_s - 0.25) < 1e-12);
	cluster_split_free(&cs);
	free(b.dir);
	for (int i = 0; i < 4; i++) {
		strvec_clear(&e[i].outputs);
		strvec_clear(&e[i].inputs);
		free(e[i].rule);
		free(e[i].command);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launcher),
		cmocka_unit_test(test_split_by_log),
		cmocka_unit_test(test_report_waits),
		cmocka_unit_test(test_sends),
	};
	return cmocka_run_group_tests_name("cluster", tests, NULL, NULL);
}
