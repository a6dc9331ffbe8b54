#include "unit.h"
#include "ninja.h"
#include "tmpdir.h"
#include "util.h"

/* A manifest with every kind of edge the graph must understand. */
static const char manifest[] =
	"rule cc\n  command = gcc -c $in -o $out\n"
	"rule two\n  command = touch $out\n"
	"rule link\n  command = gcc $in -o $out\n"
	"build gen.h gen2.h: two\n"
	"build ord: phony gen2.h\n"
	"build a.o: cc a.c | gen.h || ord\n"
	"build b.o: cc b.c\n"
	"build prog: link a.o b.o\n"
	"build all: phony prog\n"
	"default all\n";

static bool depends_on(const struct ninja_build *b, const char *user, const char *dep)
{
	const struct ninja_edge *e = &b->edges[ninja_edge_of(b, user)];
	for (size_t k = 0; k < e->ndeps; k++)
		if ((long)e->deps[k] == ninja_edge_of(b, dep))
			return true;
	return false;
}

static void test_graph_from_ninja(void **state)
{
	(void)state;
	char *dir = manifest_dir("manifest", manifest);

	struct ninja_build b;
	ninja_load(dir, &b);
	/* gen.h and gen2.h are one edge: six edges, in manifest order. */
	assert_int_equal(b.n, 6);
	assert_int_equal(ninja_edge_of(&b, "gen.h"), 0);
	assert_int_equal(ninja_edge_of(&b, "gen2.h"), 0);
	assert_int_equal(b.edges[0].outputs.n, 2);
	assert_string_equal(b.edges[0].command, "touch gen.h gen2.h");
	const struct ninja_edge *a = &b.edges[ninja_edge_of(&b, "a.o")];
	assert_string_equal(a->rule, "cc");
	assert_string_equal(a->command, "gcc -c a.c -o a.o");
	assert_string_equal(a->inputs.v[0], "a.c");
	assert_int_equal(a->inputs.n, 2);	/* explicit and implicit alike */
	assert_string_equal(a->inputs.v[1], "gen.h");
	assert_string_equal(a->order_only.v[0], "ord");
	assert_true(ninja_edge_is_compile(a));
	assert_int_equal(ninja_edge_of(&b, "a.c"), -1);	/* a source */
	assert_true(depends_on(&b, "a.o", "gen.h"));
	assert_true(depends_on(&b, "a.o", "ord"));
	assert_true(depends_on(&b, "ord", "gen2.h"));
	assert_true(depends_on(&b, "prog", "a.o") && depends_on(&b, "prog", "b.o"));
	const struct ninja_edge *all = &b.edges[ninja_edge_of(&b, "all")];
	assert_true(ninja_edge_is_phony(all));
	assert_null(all->command);
	assert_false(ninja_edge_is_compile(&b.edges[ninja_edge_of(&b, "prog")]));
	ninja_build_free(&b);
	free(dir);
}

/* Names as users have them: spaces, quotes, '<script>', one-input edges. */
static void test_awkward_names(void **state)
{
	(void)state;
	char *dir = manifest_dir("awkward", "rule cc\n  command = gcc -c $in -o $out\n"
	      "rule link\n  command = gcc $in -o $out\n"
	      "build my$ dir/a$ b.o: cc src/a$ b.c\n"
	      "build q\"x.o: cc q.c\n"
	      "build <script>alert(1)</script>.o: cc s.c || my$ dir/a$ b.o\n"
	      "build prog: link my$ dir/a$ b.o q\"x.o <script>alert(1)</script>.o\n");
	struct ninja_build b;
	ninja_load(dir, &b);
	assert_int_equal(b.n, 4);
	const struct ninja_edge *a = &b.edges[ninja_edge_of(&b, "my dir/a b.o")];
	assert_string_equal(a->rule, "cc");
	assert_int_equal(a->inputs.n, 1);
	assert_string_equal(a->inputs.v[0], "src/a b.c");
	assert_string_equal(a->command, "gcc -c 'src/a b.c' -o 'my dir/a b.o'");
	const struct ninja_edge *q = &b.edges[ninja_edge_of(&b, "q\"x.o")];
	assert_string_equal(q->inputs.v[0], "q.c");
	const struct ninja_edge *s = &b.edges[ninja_edge_of(&b, "<script>alert(1)</script>.o")];
	assert_int_equal(s->order_only.n, 1);
	assert_string_equal(s->order_only.v[0], "my dir/a b.o");
	assert_int_equal(s->ndeps, 1);
	const struct ninja_edge *prog = &b.edges[ninja_edge_of(&b, "prog")];
	assert_int_equal(prog->inputs.n, 3);
	assert_int_equal(prog->ndeps, 3);
	ninja_build_free(&b);
	free(dir);
}

static void load(void *dir)
{
	struct ninja_build b;
	ninja_load(dir, &b);
}

static void test_errors(void **state)
{
	(void)state;
	expect_exit(load, "/nonexistent/build", 2, "/nonexistent/build: no such build directory");
	char *dir = tmpdir_subdir("empty");
	expect_exit(load, dir, 2, "no build.ninja here");
	char *path = xasprintf("%s/build.ninja", dir);
	FILE *f = fopen(path, "w");
	fputs("rule cc\n  command = gcc\nbuild a.o: nosuchrule a.c\n", f);
	fclose(f);
	char *want = xasprintf("%s/build.ninja:3: unknown build rule 'nosuchrule'", dir);
	expect_exit(load, dir, 2, want);
	free(want);
	free(path);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph_from_ninja),
		cmocka_unit_test(test_awkward_names),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests_name("ninja", tests, NULL, NULL);
}
