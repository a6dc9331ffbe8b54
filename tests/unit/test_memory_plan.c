#include "unit.h"
#include "memory_plan.h"
#include "meminfo.h"
#include "tmpdir.h"

#include <math.h>

/* Four TUs of 10 s each, peaks 1, 1, 1 and 3 GiB, and a link that needs
 * them all (its peak unknown). */
static const char manifest[] =
	"rule cc\n  command = gcc -c $in -o $out\n"
	"rule link\n  command = gcc $in -o $out\n"
	"build a.o: cc a.c\nbuild b.o: cc b.c\nbuild c.o: cc c.c\nbuild d.o: cc d.c\n"
	"build prog: link a.o b.o c.o d.o\n";
#define GIB (1024.0 * 1024)

static void load(struct ninja_build *b, struct model *m)
{
	char *dir = manifest_dir("memory", manifest);
	ninja_load(dir, b);
	double seconds[5];
	static struct step_memory mem[5];
	for (size_t i = 0; i < b->n; i++) {
		const char *out = b->edges[i].outputs.v[0];
		seconds[i] = !strcmp(out, "prog") ? 1 : 10;
		mem[i] = (struct step_memory){ .peak_kb = !strcmp(out, "d.o") ? 3 * GIB : !strcmp(out, "prog") ? 0 : GIB };
	}
	model_from_build(m, b, seconds);
	model_set_memory(m, mem, b->n);
	free(dir);
}

static struct prediction predict(const struct model *m, long jobs)
{
	struct prediction p;
	const struct sched_options o = { .jobs = (int)jobs, .policy = POLICY_MANIFEST };
	assert_true(model_predict(m, &o, &p));
	return p;
}

static void test_peak_through_the_schedule(void **state)
{
	(void)state;
	struct ninja_build b;
	struct model m;
	load(&b, &m);
	/* One at a time: the largest step; the link's unknown peak said. */
	struct prediction p = predict(&m, 1);
	assert_float_equal(p.peak_kb, 3 * GIB, 1);
	assert_int_equal(p.peak_unknown, 1);
	/* Two at once in manifest order: a+b, then c+d (1 + 3 GiB). */
	assert_float_equal(predict(&m, 2).peak_kb, 4 * GIB, 1);
	/* All four at once. */
	assert_float_equal(predict(&m, 4).peak_kb, 6 * GIB, 1);
	/* A step split in two holds its peak in each piece, side by side. */
	size_t d = (size_t)ninja_edge_of(&b, "d.o");
	const struct edit split = { EDIT_SPLIT, &d, 1, 2 };
	char *err = NULL;
	assert_true(model_apply(&m, &split, 0, &err));
	assert_float_equal(predict(&m, 5).peak_kb, 9 * GIB, 1);
	model_free(&m);
	ninja_build_free(&b);
	/* Fused steps hold the most of theirs, once. */
	load(&b, &m);
	size_t all[4] = { 0, 1, 2, 3 };
	const struct edit fuse = { EDIT_FUSE, all, 4, 0 };
	assert_true(model_apply(&m, &fuse, 0, &err));
	assert_float_equal(predict(&m, 4).peak_kb, 3 * GIB, 1);
	model_free(&m);
	ninja_build_free(&b);
}

/* A step's shape spreads its memory over its run: two steps of 10 s
 * started together, each 1 GiB for its first half and 0.25 after, and
 * a third of 20 s whose 2 GiB come in its second half, hold together at
 * most 2.2 GiB (the first halves beside the third's low start) where
 * their peaks held throughout would say 4. */
static void test_shapes(void **state)
{
	(void)state;
	struct graph_node n[3] = { 0 };
	struct step_memory mem[3] = { 0 };
	for (int i = 0; i < 3; i++) {
		n[i].duration = i == 2 ? 20 : 10;
		for (int k = 0; k < GRAPH_SHAPE_BINS; k++)
			mem[i].shape[k] = i == 2 ? (k < GRAPH_SHAPE_BINS / 2 ? 0.1f : 1) : (k < GRAPH_SHAPE_BINS / 2 ? 1 : 0.25f);
		mem[i].has_shape = true;
		mem[i].peak_kb = i == 2 ? 2 * GIB : GIB;
	}
	struct model m = { .nodes = n, .n = 3 };
	model_set_memory(&m, mem, 3);
	const struct sched_options o = { .jobs = 3, .policy = POLICY_MANIFEST };
	struct prediction p;
	assert_true(model_predict(&m, &o, &p));
	/* 0-5 s: 1 + 1 + 0.2; 5-10 s: 0.25 + 0.25 + 0.2; 10-20 s: 2. */
	assert_float_equal(p.peak_kb, 2.2 * GIB, 1);
	for (int i = 0; i < 3; i++)
		mem[i].has_shape = false;
	model_set_memory(&m, mem, 3);
	assert_true(model_predict(&m, &o, &p));
	assert_float_equal(p.peak_kb, 4 * GIB, 1);
}

/* 4.5 GiB, 4.05 usable: -j 2 (a+b, then c+d: 4 GiB, 21 s) is the fastest
 * that fits; -j 3 (a+b+c, then d alone: 3 GiB) ties it at 21 s with more
 * jobs; -j 4 is faster (11 s) and needs 6. */
static void test_fastest_that_fits(void **state)
{
	(void)state;
	struct ninja_build b;
	struct model m;
	load(&b, &m);
	const struct sched_options o = { .policy = POLICY_MANIFEST };
	struct memory_plan mp;
	assert_true(memory_plan_make(&m, &o, 4, 4.5 * GIB, &mp));
	assert_int_equal(mp.n, 4);
	assert_float_equal(mp.usable_kb, 4.5 * GIB * (1 - MEMORY_MARGIN), 1);
	assert_true(mp.best >= 0);
	assert_int_equal(mp.rows[mp.best].jobs, 2);
	assert_float_equal(mp.rows[mp.best].p.wall, 21, 1e-9);
	assert_true(mp.faster >= 0);
	assert_true(mp.rows[2].fits);
	assert_int_equal(mp.rows[mp.faster].jobs, 4);
	assert_float_equal(mp.rows[mp.faster].p.wall, 11, 1e-9);
	assert_float_equal(mp.rows[mp.faster].p.peak_kb, 6 * GIB, 1);
	assert_int_equal(mp.unknown, 1);
	memory_plan_free(&mp);
	/* Less than the largest step: nothing fits. */
	assert_true(memory_plan_make(&m, &o, 4, 2 * GIB, &mp));
	assert_int_equal(mp.best, -1);
	assert_int_equal(mp.faster, -1);
	memory_plan_free(&mp);
	model_free(&m);
	ninja_build_free(&b);
}

static void test_sizes(void **state)
{
	(void)state;
	double kb;
	assert_true(parse_memory_size("16G", &kb));
	assert_float_equal(kb, 16 * GIB, 1e-6);
	assert_true(parse_memory_size("800M", &kb));
	assert_float_equal(kb, 800 * 1024, 1e-6);
	assert_true(parse_memory_size("1.5GiB", &kb));
	assert_float_equal(kb, 1.5 * GIB, 1e-6);
	assert_true(parse_memory_size("2t", &kb));
	assert_true(parse_memory_size("1048576", &kb));
	assert_float_equal(kb, 1024, 1e-6);
	assert_false(parse_memory_size("12Q", &kb));
	assert_false(parse_memory_size("0G", &kb));
	assert_false(parse_memory_size("-1G", &kb));
	assert_false(parse_memory_size("G", &kb));
	assert_false(parse_memory_size("16GX", &kb));
	assert_false(parse_memory_size("100", &kb));	/* under a KiB */
	const char *from;
	double here = memory_available_kb(&from);
	assert_true(here > 0);
	assert_non_null(from);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak_through_the_schedule),
		cmocka_unit_test(test_fastest_that_fits),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_sizes),
	};
	return cmocka_run_group_tests_name("memory_plan", tests, NULL, NULL);
}
