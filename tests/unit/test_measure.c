#include "unit.h"
#include "measure.h"
#include "ninja.h"
#include "tmpdir.h"

#include <math.h>
#include <sys/stat.h>

/* A light TU, a heavy one (1500 functions at -O2) and a link over both. */
static const char manifest[] =
	"rule cc\n  command = gcc -O2 -c $in -o $out\n"
	"rule link\n  command = gcc $in -o $out\n"
	"build a.o: cc a.c\nbuild c.o: cc c.c\nbuild prog: link a.o c.o\n";

static char *tree(const char *name, const char *c_source)
{
	char *dir = manifest_dir(name, manifest);
	char *a = xasprintf("%s/a.c", dir), *c = xasprintf("%s/c.c", dir);
	FILE *f = fopen(a, "w");
	assert_non_null(f);
	fputs("int a(void) { return 1; }\n", f);
	fclose(f);
	f = fopen(c, "w");
	assert_non_null(f);
	fputs(c_source, f);
	fclose(f);
	free(a);
	free(c);
	return dir;
}

static char *heavy_source(void)
{
	char *buf;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (int i = 0; i < 1500; i++)
		fprintf(f, "int c%d(int x) { return x * %d + (x >> 3) - %d; }\n", i, i, i);
	fprintf(f, "int main(void) { return 0; }\n");
	fclose(f);
	return buf;
}

static void measure_all(const char *dir, struct ninja_build *b, const struct measure_options *o, struct measurement *m)
{
	ninja_load(dir, b);
	bool *selected = xcalloc(b->n, sizeof(bool));
	selected[ninja_edge_of(b, "a.o")] = selected[ninja_edge_of(b, "c.o")] = true;
	measure_tus(dir, b, selected, o, m);
	free(selected);
}

static bool exists_in(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct stat st;
	bool there = stat(path, &st) == 0;
	free(path);
	return there;
}

static void test_times_every_step(void **state)
{
	(void)state;
	char *src = heavy_source();
	char *dir = tree("measure", src);
	struct ninja_build b;
	struct measurement m;
	const struct measure_options o = { .repeats = 2, .parallel = 2, .contention = CONTENTION_NONE };
	measure_all(dir, &b, &o, &m);
	assert_int_equal(m.ntus, 2);
	assert_int_equal(m.failures, 0);
	const struct tu *a = &m.tus[m.tu_of[ninja_edge_of(&b, "a.o")]], *c = &m.tus[m.tu_of[ninja_edge_of(&b, "c.o")]];
	/* Every repeat ran; the medians are the runs' and the heavy TU is slower. */
	assert_int_equal(a->runs, 2);
	assert_int_equal(c->runs, 2);
	assert_true(c->wall.min <= c->wall.median && c->wall.median <= c->wall.max);
	assert_true(c->wall.median > 2 * a->wall.median);
	assert_true(c->cpu.median > 0 && c->maxrss_kb > 0);
	/* The TUs are measured; the link, with no .ninja_log, is re-run on the
	 * temp objects; nothing is written into the tree. */
	size_t link = (size_t)ninja_edge_of(&b, "prog");
	assert_string_equal(m.steps[ninja_edge_of(&b, "c.o")].source, "measured");
	assert_true(m.steps[ninja_edge_of(&b, "c.o")].seconds == c->wall.median);
	assert_string_equal(m.steps[link].source, "re-run link");
	assert_true(m.steps[link].seconds > 0);
	assert_false(exists_in(dir, "a.o") || exists_in(dir, "c.o") || exists_in(dir, "prog"));
	assert_int_equal(m.contention.samples, 0);
	double *seconds = measurement_seconds(&m);
	assert_true(seconds[link] == m.steps[link].seconds);
	free(seconds);
	measurement_free(&m);
	ninja_build_free(&b);
	free(dir);
	free(src);
}

static void test_contention_measured(void **state)
{
	(void)state;
	if (cpu_count() < 2)
		skip();
	char *src = heavy_source();
	char *dir = tree("contention", src);
	struct ninja_build b;
	struct measurement m;
	const struct measure_options o = { .repeats = 1, .parallel = 1, .contention = CONTENTION_MEASURE };
	measure_all(dir, &b, &o, &m);
	/* Both TUs ran once more side by side, and that pass is the source. */
	assert_int_equal(m.contention.samples, 2);
	assert_true(m.contention.cores == (double)cpu_count());
	assert_non_null(strstr(m.contention_source, "side-by-side"));
	measurement_free(&m);
	ninja_build_free(&b);
	free(dir);
	free(src);
}

static void test_failed_compile_is_counted(void **state)
{
	(void)state;
	char *dir = tree("failing", "int broken(void) { return }\n");
	struct ninja_build b;
	struct measurement m;
	const struct measure_options o = { .repeats = 3, .parallel = 1, .contention = CONTENTION_MEASURE };
	measure_all(dir, &b, &o, &m);
	const struct tu *c = &m.tus[m.tu_of[ninja_edge_of(&b, "c.o")]];
	/* One failure and why; no more repeats of it, no
	 * link re-run on a missing object, no contention from one TU. */
	assert_true(c->failed);
	assert_int_equal(c->runs, 0);
	assert_int_equal(m.failures, 1);
	assert_string_equal(c->failure, "exit status 1");
	assert_string_equal(m.steps[ninja_edge_of(&b, "c.o")].source, "none");
	assert_string_equal(m.steps[ninja_edge_of(&b, "prog")].source, "none");
	assert_int_equal(m.tus[m.tu_of[ninja_edge_of(&b, "a.o")]].runs, 3);
	assert_int_equal(m.contention.samples, 0);
	measurement_free(&m);
	ninja_build_free(&b);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_times_every_step),
		cmocka_unit_test(test_contention_measured),
		cmocka_unit_test(test_failed_compile_is_counted),
	};
	return cmocka_run_group_tests_name("measure", tests, NULL, NULL);
}
