#include "unit.h"
#include "graph.h"
#include "ninja.h"
#include "ninja_log.h"
#include "tmpdir.h"

#include <math.h>

/* Where the readers put what is wrong; NULL after a good read. */
static char *read_err;

/* ninja up to 1.11: manifest order, one job a core. */
static bool schedule_manifest(const struct graph_node *n, size_t count, int jobs, struct schedule *s)
{
	const struct sched_options o = { .jobs = jobs, .policy = POLICY_MANIFEST, .cores = 0, .contention = 0 };
	return graph_schedule(n, count, &o, s);
}

static void test_chain_and_slots(void **state)
{
	(void)state;
	/* Four independent steps of 1..4 s on 2 slots, manifest order:
	 * 0 and 1 start at 0; 2 takes 0's slot at 1; 3 takes 1's at 2. */
	struct graph_node n[4] = { { 1, false, NULL, 0, 0, 0, NULL, 0 }, { 2, false, NULL, 0, 0, 0, NULL, 0 }, { 3, false, NULL, 0, 0, 0, NULL, 0 }, { 4, false, NULL, 0, 0, 0, NULL, 0 } };
	struct schedule s;
	assert_true(schedule_manifest(n, 4, 2, &s));
	assert_true(s.makespan == 6);
	assert_true(s.start[2] == 1 && s.start[3] == 2);
	schedule_free(&s);

	assert_true(schedule_manifest(n, 4, 8, &s));
	assert_true(s.makespan == 4);
	schedule_free(&s);
}

static void test_deps_and_phony(void **state)
{
	(void)state;
	/* a(2) and b(5) feed a phony p, which gates link l(1). */
	size_t p_deps[] = { 0, 1 }, l_deps[] = { 2 };
	struct graph_node n[4] = { { 2, false, NULL, 0, 0, 0, NULL, 0 }, { 5, false, NULL, 0, 0, 0, NULL, 0 }, { 0, true, p_deps, 2, 0, 0, NULL, 0 }, { 1, false, l_deps, 1, 0, 0, NULL, 0 } };
	struct schedule s;
	assert_true(schedule_manifest(n, 4, 1, &s));
	assert_true(s.makespan == 8);
	schedule_free(&s);
	assert_true(schedule_manifest(n, 4, 4, &s));
	assert_true(s.makespan == 6);
	schedule_free(&s);
	/* The longest chain: b, the phony, the link. */
	size_t chain[4];
	size_t len = graph_longest_chain(n, 4, chain);
	assert_int_equal(len, 3);
	assert_int_equal(chain[0], 1);
	assert_int_equal(chain[2], 3);
}

/* ninja 1.12+ starts the ready step with the longest path ahead first:
 * here the chain c(1) -> d(4), listed last, goes before a(3) and b(3). */
static void test_critical_policy_and_bounds(void **state)
{
	(void)state;
	size_t d_deps[] = { 2 };
	struct graph_node n[4] = { { 3, false, NULL, 0, 0, 0, NULL, 0 }, { 3, false, NULL, 0, 0, 0, NULL, 0 }, { 1, false, NULL, 0, 0, 0, NULL, 0 }, { 4, false, d_deps, 1, 0, 0, NULL, 0 } };
	double tail[4];
	assert_true(graph_longest_path(n, 4, tail) == 5);
	assert_true(tail[2] == 5 && tail[3] == 4 && tail[0] == 3);
	struct schedule s;
	assert_true(schedule_manifest(n, 4, 2, &s));
	assert_true(s.makespan == 8);	/* a, b first; c at 3, d at 4..8 */
	schedule_free(&s);
	const struct sched_options crit = { .jobs = 2, .policy = POLICY_CRITICAL, .cores = 0, .contention = 0 };
	assert_true(graph_schedule(n, 4, &crit, &s));
	assert_true(s.makespan == 6);	/* c, a; d at 1..5, b at 3..6 */
	assert_true(s.start[2] == 0 && s.start[3] == 1);
	schedule_free(&s);
	/* Four 2 s jobs on 4 slots but 2 cores: each runs at half speed. */
	struct graph_node eq[4] = { { 2, false, NULL, 0, 0, 0, NULL, 0 }, { 2, false, NULL, 0, 0, 0, NULL, 0 }, { 2, false, NULL, 0, 0, 0, NULL, 0 }, { 2, false, NULL, 0, 0, 0, NULL, 0 } };
	const struct sched_options shared = { .jobs = 4, .policy = POLICY_MANIFEST, .cores = 2, .contention = 0 };
	assert_true(graph_schedule(eq, 4, &shared, &s));
	assert_float_equal(s.makespan, 4, 1e-9);
	schedule_free(&s);
}

static void test_cycle(void **state)
{
	(void)state;
	size_t d0[] = { 1 }, d1[] = { 0 };
	struct graph_node n[2] = { { 1, false, d0, 1, 0, 0, NULL, 0 }, { 1, false, d1, 1, 0, 0, NULL, 0 } };
	struct schedule s;
	assert_false(schedule_manifest(n, 2, 2, &s));
	schedule_free(&s);
	assert_true(graph_longest_path(n, 2, NULL) < 0);
}

/* Replay a recorded build: the fixture's graph (from ninja) with the
 * durations of its last .ninja_log run, on 2 jobs as it was built, lands
 * within 10 % of the recorded wall. */
static void replay(const char *manifest, const char *logfile)
{
	char *dir = tmpdir_subdir(base_name(manifest));
	char *cmd = xasprintf("cp %s %s/build.ninja", manifest, dir);
	assert_int_equal(system(cmd), 0);
	struct ninja_build b;
	ninja_load(dir, &b);
	struct ninja_log log;
	assert_true(ninja_log_read_latest(logfile, &log, &read_err));
	struct graph_node *n = calloc(b.n, sizeof(*n));
	double recorded = 0;
	for (size_t i = 0; i < b.n; i++) {
		const struct log_entry *e = ninja_log_find(&log, b.edges[i].outputs.v[0]);
		assert_non_null(e);
		n[i] = (struct graph_node){ (e->end_ms - e->start_ms) / 1000.0, false, b.edges[i].deps, b.edges[i].ndeps, 0, 0, NULL, 0 };
		if (e->end_ms / 1000.0 > recorded)
			recorded = e->end_ms / 1000.0;
	}
	struct schedule s;
	assert_true(schedule_manifest(n, b.n, 2, &s));
	double err = fabs(s.makespan - recorded) / recorded;
	if (err > 0.10)
		fail_msg("%s: predicted %.2f s, recorded %.2f s", manifest, s.makespan, recorded);
	/* The link is last, after pybind.o, the longest step. */
	size_t chain[16];
	size_t len = graph_longest_chain(n, b.n, chain);
	assert_true(len >= 2);
	assert_string_equal(b.edges[chain[len - 2]].outputs.v[0], "pybind.o");
	schedule_free(&s);
	free(n);
	ninja_log_free(&log);
	ninja_build_free(&b);
	free(cmd);
	free(dir);
}

static void test_replay_fixture_builds(void **state)
{
	(void)state;
	replay(FIXTURE("ninja/hip_gfx90a_build.ninja"), FIXTURE("ninja/hip_gfx90a_ninja_log_after_run3"));
	replay(FIXTURE("ninja/cuda_build.ninja"), FIXTURE("ninja/cuda_sm80_sm90_ninja_log_after_run3"));
}

/* A cluster: compiles hold their job slot while they wait for a remote
 * slot, first come first served; the local part shares the cores. */
static void test_remote_slots(void **state)
{
	(void)state;
	struct schedule s;
	/* Three compiles of 6 s remote on 2 remote slots, 3 jobs: the third
	 * waits for the first free slot, at 6. */
	struct graph_node three[3] = { { 0, false, NULL, 0, 6, 0, NULL, 0 }, { 0, false, NULL, 0, 6, 0, NULL, 0 }, { 0, false, NULL, 0, 6, 0, NULL, 0 } };
	struct sched_options o = { .jobs = 3, .remote_slots = 2 };
	assert_true(graph_schedule(three, 3, &o, &s));
	assert_true(fabs(s.makespan - 12) < 1e-9);
	assert_true(fabs(s.end[2] - 12) < 1e-9 && fabs(s.end[0] - 6) < 1e-9);
	schedule_free(&s);
	/* Without a cluster the remote part runs here: 3 jobs, 18 s of work
	 * on 3 slots. */
	o.remote_slots = 0;
	assert_true(graph_schedule(three, 3, &o, &s));
	assert_true(fabs(s.makespan - 6) < 1e-9);
	schedule_free(&s);

	/* 1 s here then 4 s there, four of them, 2 remote slots, 4 jobs and
	 * no core limit: all leave here at 1; two run 1-5, two 5-9. */
	struct graph_node four[4] = { { 1, false, NULL, 0, 4, 0, NULL, 0 }, { 1, false, NULL, 0, 4, 0, NULL, 0 }, { 1, false, NULL, 0, 4, 0, NULL, 0 },
				      { 1, false, NULL, 0, 4, 0, NULL, 0 } };
	o = (struct sched_options){ .jobs = 4, .remote_slots = 2 };
	assert_true(graph_schedule(four, 4, &o, &s));
	assert_true(fabs(s.makespan - 9) < 1e-9);
	schedule_free(&s);

	/* One core here: two local parts of 2 s share it (both leave at 4),
	 * the remote parts of 1 s run side by side; a link of 3 s after them
	 * runs here alone: 4 + 1 + 3. */
	size_t link_deps[] = { 0, 1 };
	struct graph_node tus[3] = { { 2, false, NULL, 0, 1, 0, NULL, 0 }, { 2, false, NULL, 0, 1, 0, NULL, 0 }, { 3, false, link_deps, 2, 0, 0, NULL, 0 } };
	o = (struct sched_options){ .jobs = 2, .remote_slots = 2, .cores = 1 };
	assert_true(graph_schedule(tus, 3, &o, &s));
	assert_true(fabs(s.makespan - 8) < 1e-9);
	schedule_free(&s);
	/* A job waiting for a remote slot does not load the cores: one
	 * remote slot, 2 jobs, 1 core; A (0 + 5 there) runs 0-5, B (1 here +
	 * 1 there) leaves here at 1 alone at full speed, waits to 5, ends 6. */
	struct graph_node ab[2] = { { 0, false, NULL, 0, 5, 0, NULL, 0 }, { 1, false, NULL, 0, 1, 0, NULL, 0 } };
	o = (struct sched_options){ .jobs = 2, .remote_slots = 1, .cores = 1 };
	assert_true(graph_schedule(ab, 2, &o, &s));
	assert_true(fabs(s.makespan - 6) < 1e-9);
	schedule_free(&s);
	/* The critical path counts both parts. */
	assert_true(fabs(graph_longest_path(tus, 3, NULL) - 6) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_remote_slots),
		cmocka_unit_test(test_chain_and_slots),
		cmocka_unit_test(test_deps_and_phony),
		cmocka_unit_test(test_critical_policy_and_bounds),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_replay_fixture_builds),
	};
	return cmocka_run_group_tests_name("graph", tests, NULL, NULL);
}
