/* The load curve and the scheduler that applies it, on synthetic
 * schedules whose walls are known exactly: a TU alone, two at once, k at
 * once on a known curve, and the isolation of a recorded build as the
 * scheduler's exact inverse. */
#include "unit.h"
#include "graph.h"
#include "load_curve.h"

#include <math.h>

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-9)

/* 1 job 1.0, 2 jobs 1.5, 4 jobs 1.9: what two, three, four at once cost. */
static void known_curve(struct load_curve *c, double cores)
{
	*c = (struct load_curve){ .cores = cores };
	double alone[] = { 10, 10, 10 }, two[] = { 15, 15, 15 }, four[] = { 19, 19, 19, 19 };
	assert_true(load_curve_add_level(c, 4, alone, 3, four, 4));
	assert_true(load_curve_add_level(c, 1, alone, 3, alone, 3));
	assert_true(load_curve_add_level(c, 2, alone, 3, two, 3));
}

static double wall(const struct graph_node *n, size_t count, int jobs, const struct load_curve *c, struct schedule *s)
{
	const struct sched_options o = { .jobs = jobs, .policy = POLICY_MANIFEST, .cores = c->cores, .curve = c };
	assert_true(graph_schedule(n, count, &o, s));
	return s->makespan;
}

static void test_curve_values(void **state)
{
	(void)state;
	struct load_curve c;
	known_curve(&c, 0);
	assert_int_equal(c.n, 3);
	NEAR(c.jobs[0], 1);	/* kept sorted */
	NEAR(load_curve_at(&c, 1), 1);
	NEAR(load_curve_at(&c, 2), 1.5);
	NEAR(load_curve_at(&c, 3), 1.7);	/* between 2 and 4 */
	NEAR(load_curve_at(&c, 4), 1.9);
	NEAR(load_curve_at(&c, 6), 2.3);	/* past 4 on the last slope, 0.2 a job */
	/* Past 4 cores, the cores are shared besides: 8 jobs at 1.9 x 8/4. */
	c.cores = 4;
	NEAR(load_curve_at(&c, 8), 3.8);
	/* No curve: 1, and nothing below 1. */
	struct load_curve none = { 0 };
	NEAR(load_curve_at(&none, 5), 1);
	char *text = load_curve_text(&c);
	assert_string_equal(text, "1 job 1.00, 2 jobs 1.50, 4 jobs 1.90, past 4 jobs the 4 cores are shared");
	free(text);
}

static void test_level_spread(void **state)
{
	(void)state;
	struct load_curve c = { 0 };
	double alone[] = { 9, 10, 11 }, two[] = { 12, 15, 18 };
	assert_true(load_curve_add_level(&c, 2, alone, 3, two, 3));
	NEAR(c.slowdown[0], 1.5);
	NEAR(c.lo[0], 12.0 / 11);	/* the least together over the most alone */
	NEAR(c.hi[0], 18.0 / 9);
	assert_false(load_curve_add_level(&c, 2, alone, 3, two, 3));	/* once a level */
	assert_false(load_curve_add_level(&c, 3, alone, 0, two, 3));	/* nothing alone */
}

/* Two levels at once and none alone: alone where the line through their
 * medians meets one job, each level's spread against alone carried back
 * from the low level's extremes; a falling line is flat. */
static void test_from_two(void **state)
{
	(void)state;
	struct load_curve c;
	double two[] = { 10, 11, 12 }, eight[] = { 14, 15, 16 };
	assert_true(load_curve_from_two(&c, 2, two, 3, 8, eight, 3));
	double slope = (15.0 - 11) / 6, alone = 11 - slope;
	assert_int_equal(c.n, 3);
	assert_true(c.jobs[0] == 1 && c.samples[0] == 0 && c.samples[1] == 3 && c.samples[2] == 3);
	NEAR(c.slowdown[0], 1);
	NEAR(c.slowdown[1], 11 / alone);
	NEAR(c.slowdown[2], 15 / alone);
	NEAR(c.lo[1], 10 / (12 - slope));
	NEAR(c.hi[2], 16 / (10 - slope));
	NEAR(load_curve_at(&c, 5), (11 + 3 * slope) / alone);
	double faster[] = { 9 };
	assert_true(load_curve_from_two(&c, 2, two, 3, 8, faster, 1));
	NEAR(c.slowdown[1], 1);		/* alone at the pair's median */
	NEAR(load_curve_at(&c, 8), 1);	/* never below 1 */
	assert_false(load_curve_from_two(&c, 2, two, 3, 8, eight, 0));
	assert_false(load_curve_from_two(&c, 1, two, 3, 8, eight, 3));	/* the low level is a pair or more */
}

/* The curve's ends: each level at its least or most, never below 1; a
 * curve without spread has no other end. */
static void test_ends(void **state)
{
	(void)state;
	struct load_curve c = { .cores = 4 }, flat, steep;
	double alone[] = { 9, 10, 11 }, two[] = { 9.5, 11, 12 };
	assert_true(load_curve_add_level(&c, 1, alone, 3, alone, 3));
	assert_true(load_curve_add_level(&c, 2, alone, 3, two, 3));
	assert_true(load_curve_end(&c, false, &flat));
	assert_true(load_curve_end(&c, true, &steep));
	NEAR(flat.slowdown[1], 1);	/* 9.5 / 11 is below 1: no speed-up */
	NEAR(steep.slowdown[1], 12.0 / 9);
	NEAR(steep.slowdown[0], 1);
	NEAR(steep.cores, 4);
	NEAR(load_curve_at(&steep, 2), 12.0 / 9);
	struct load_curve lin, end;
	load_curve_linear(&lin, 0.2, 8);
	assert_false(load_curve_end(&lin, true, &end));
	NEAR(load_curve_at(&end, 8), load_curve_at(&lin, 8));
}

static void test_alone_and_together(void **state)
{
	(void)state;
	struct load_curve c;
	known_curve(&c, 0);
	struct schedule s;
	/* A TU alone runs at full speed whatever the curve. */
	struct graph_node one[1] = { { 10, false, NULL, 0, 0, 0, NULL, 0 } };
	NEAR(wall(one, 1, 4, &c, &s), 10);
	schedule_free(&s);
	/* Two 10 s TUs at once: both at 1/1.5 speed, 15 s. */
	struct graph_node two[2] = { { 10, false, NULL, 0, 0, 0, NULL, 0 }, { 10, false, NULL, 0, 0, 0, NULL, 0 } };
	NEAR(wall(two, 2, 2, &c, &s), 15);
	schedule_free(&s);
	/* The same at -j 1: one after the other, 20 s. */
	NEAR(wall(two, 2, 1, &c, &s), 20);
	schedule_free(&s);
	/* 10 s beside 4 s: both at 1.5 until the short one is done (6 s),
	 * the long one's last 6 s alone: 12 s. The load moved, so did its speed. */
	struct graph_node mixed[2] = { { 10, false, NULL, 0, 0, 0, NULL, 0 }, { 4, false, NULL, 0, 0, 0, NULL, 0 } };
	NEAR(wall(mixed, 2, 2, &c, &s), 12);
	NEAR(s.end[1], 6);
	schedule_free(&s);
}

static void test_k_at_once(void **state)
{
	(void)state;
	struct load_curve c;
	known_curve(&c, 0);
	struct schedule s;
	struct graph_node four[4] = { { 8, false, NULL, 0, 0, 0, NULL, 0 }, { 8, false, NULL, 0, 0, 0, NULL, 0 }, { 8, false, NULL, 0, 0, 0, NULL, 0 },
				      { 8, false, NULL, 0, 0, 0, NULL, 0 } };
	NEAR(wall(four, 4, 4, &c, &s), 8 * 1.9);
	schedule_free(&s);
	/* -j 3: three at 1.7 (13.6 s), then the fourth alone (8 s). */
	NEAR(wall(four, 4, 3, &c, &s), 8 * 1.7 + 8);
	schedule_free(&s);
	/* On 2 cores the 4 at once share them: 1.5 x 4/2 = 3.0. */
	c.cores = 2;
	NEAR(wall(four, 4, 4, &c, &s), 8 * 3.0);
	schedule_free(&s);
	/* Taking two heavy TUs out speeds the two left: 1.5, not 1.9. */
	c.cores = 0;
	NEAR(wall(four, 2, 4, &c, &s), 8 * 1.5);
	schedule_free(&s);
}

/* The linear share is the curve the scheduler used before: the same
 * walls as 1 + share (n - 1), with the cores shared beyond their count. */
static void test_linear_share(void **state)
{
	(void)state;
	struct load_curve c;
	load_curve_linear(&c, 0.2, 8);
	for (int k = 1; k <= 8; k++)
		NEAR(load_curve_at(&c, k), 1 + 0.2 * (k - 1));
	NEAR(load_curve_at(&c, 16), (1 + 0.2 * 7) * 2);
	load_curve_linear(&c, 0.3, 0);
	NEAR(load_curve_at(&c, 5), 1 + 0.3 * 4);
	struct graph_node two[2] = { { 10, false, NULL, 0, 0, 0, NULL, 0 }, { 10, false, NULL, 0, 0, 0, NULL, 0 } };
	struct schedule s;
	const struct sched_options o = { .jobs = 2, .policy = POLICY_MANIFEST, .cores = 0, .contention = 0.3 };
	assert_true(graph_schedule(two, 2, &o, &s));
	NEAR(s.makespan, 13);
	schedule_free(&s);
}

/* A build scheduled with the curve, then its starts and ends isolated by
 * the same curve: every duration comes back. */
static void test_isolate_inverts_the_schedule(void **state)
{
	(void)state;
	struct load_curve c;
	known_curve(&c, 4);
	size_t d3[] = { 0, 1 }, d5[] = { 2, 3, 4 };
	struct graph_node n[6] = { { 9, false, NULL, 0, 0, 0, NULL, 0 }, { 3, false, NULL, 0, 0, 0, NULL, 0 }, { 7, false, d3, 2, 0, 0, NULL, 0 }, { 2.5, false, NULL, 0, 0, 0, NULL, 0 },
				   { 5, false, NULL, 0, 0, 0, NULL, 0 }, { 1, false, d5, 3, 0, 0, NULL, 0 } };
	for (int jobs = 1; jobs <= 6; jobs++) {
		struct schedule s;
		wall(n, 6, jobs, &c, &s);
		double iso[6];
		load_curve_isolate(&c, s.start, s.end, 6, iso);
		for (size_t i = 0; i < 6; i++)
			assert_true(fabs(iso[i] - n[i].duration) < 1e-6);
		schedule_free(&s);
	}
	/* A step not in the build stays unknown. */
	double start[2] = { 0, NAN }, end[2] = { 3, NAN }, iso[2];
	load_curve_isolate(&c, start, end, 2, iso);
	NEAR(iso[0], 3);
	assert_true(isnan(iso[1]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_curve_values),
		cmocka_unit_test(test_level_spread),
		cmocka_unit_test(test_from_two),
		cmocka_unit_test(test_ends),
		cmocka_unit_test(test_alone_and_together),
		cmocka_unit_test(test_k_at_once),
		cmocka_unit_test(test_linear_share),
		cmocka_unit_test(test_isolate_inverts_the_schedule),
	};
	return cmocka_run_group_tests_name("load_curve", tests, NULL, NULL);
}
