/* survey's model: where the build dirs are, one module read from a real
 * torch 2.11 extension's manifest and log, and what modules share. */
#include "unit.h"
#include "survey.h"

#include <jansson.h>
#include <math.h>
#include <sys/stat.h>

static char *scratch(void)
{
	char *dir = xstrdup("/tmp/buildwall-survey-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return dir;
}

static void write_file(const char *path, const char *text)
{
	make_parent_dirs(path, 0755);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void copy_fixture(const char *fixture, const char *to)
{
	char *text = read_text_file(fixture);
	assert_non_null(text);
	write_file(to, text);
	free(text);
}

static const char *skipped_of(const struct survey_places *p, const char *suffix)
{
	for (size_t i = 0; i < p->n; i++)
		if (has_suffix(p->v[i].dir, suffix))
			return p->v[i].skipped ? p->v[i].skipped : "";
	return NULL;
}

/* aiter's <jit>/build/<module>/build, torch's <ext>/<py_cu>/<name>, and
 * the halves of build dirs, each with its reason. */
static void test_find(void **state)
{
	(void)state;
	char *root = scratch();
	char *p[6];
	p[0] = xasprintf("%s/aiter/jit/build/module_a/build/build.ninja", root);
	p[1] = xasprintf("%s/aiter/jit/build/module_a/build/.ninja_log", root);
	p[2] = xasprintf("%s/aiter/jit/build/module_b/build/build.ninja", root);	/* never built */
	p[3] = xasprintf("%s/ext/py311_cu121/textmod/.ninja_log", root);		/* manifest gone */
	p[4] = xasprintf("%s/ext/py311_cu121/other/build.ninja", root);
	p[5] = xasprintf("%s/ext/py311_cu121/other/.ninja_log", root);
	for (int i = 0; i < 6; i++)
		write_file(p[i], "");
	char *blob = xasprintf("%s/aiter/jit/build/module_a/blob", root);	/* sources only: not listed */
	assert_int_equal(mkdir(blob, 0755), 0);

	struct strvec roots = { 0 };
	strvec_pushf(&roots, "%s/aiter/jit/build", root);
	strvec_pushf(&roots, "%s/ext", root);
	strvec_pushf(&roots, "%s/ext/py311_cu121/oth*", root);	/* the same dir again, by a glob */
	strvec_pushf(&roots, "%s/nothere", root);
	strvec_pushf(&roots, "%s/aiter/jit/build/module_a/blob", root);
	struct survey_places places;
	survey_find(&roots, &places);
	assert_int_equal(places.n, 6);
	assert_string_equal(skipped_of(&places, "module_a/build"), "");
	assert_string_equal(skipped_of(&places, "module_b/build"), "never built: a build.ninja and no .ninja_log");
	assert_string_equal(skipped_of(&places, "textmod"), "a .ninja_log and no build.ninja: not a build dir any more");
	assert_string_equal(skipped_of(&places, "other"), "");
	assert_string_equal(skipped_of(&places, "nothere"), "no such directory");
	assert_true(has_prefix(skipped_of(&places, "module_a/blob"), "not a build dir: no build.ninja or .ninja_log in it"));
	survey_places_free(&places);
	strvec_clear(&roots);
	for (int i = 0; i < 6; i++)
		free(p[i]);
	free(blob);
	remove_tree(root);
	free(root);
}

/* A scratch build dir holding the real extension's manifest and log
 * (log: its .ninja_log's path, owned). */
static char *torch_extension_dir(char **log)
{
	char *dir = scratch(), *manifest = path_in(dir, "build.ninja");
	*log = path_in(dir, ".ninja_log");
	copy_fixture(FIXTURE("ninja/torch211_build.ninja"), manifest);
	copy_fixture(FIXTURE("ninja/torch211_ninja_log"), *log);
	free(manifest);
	return dir;
}

/* The real extension: 6 kernel TUs, a dispatcher, a binding and a link
 * in one clean build of 65.603 s (the v7 log the device wrote),
 * its sources not here: roles from their extensions. */
static void test_read_torch_extension(void **state)
{
	(void)state;
	char *log, *dir = torch_extension_dir(&log);
	char *out = xasprintf("%s.out", dir);
	FILE *f = fopen(out, "w");
	survey_read_module(dir, false, NULL, f);
	fclose(f);

	struct survey s = { 0 };
	assert_ok(survey_add(&s, out, "ext/textmod", &unit_err));
	survey_finish(&s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.nread, 1);
	json_t *m = s.modules[0];
	assert_string_equal(json_string_value(json_object_get(m, "module")), "textmod");
	assert_string_equal(json_string_value(json_object_get(m, "dir")), "ext/textmod");
	assert_true(json_is_true(json_object_get(m, "clean")));
	assert_int_equal(json_integer_value(json_object_get(m, "builds")), 1);
	assert_float_equal(json_number_value(json_object_get(m, "wall_s")), 65.603, 1e-4);
	json_t *setter = json_object_get(m, "setter");
	assert_string_equal(json_string_value(json_object_get(setter, "target")), "kern_0.cuda.o");
	assert_float_equal(json_number_value(json_object_get(setter, "seconds")), 64.852, 1e-4);
	json_t *roles = json_object_get(m, "roles");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(roles, "kernel"), "steps")), 6);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(roles, "dispatcher"), "steps")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(roles, "link"), "steps")), 1);
	assert_int_equal(json_integer_value(json_object_get(roles, "from_extension")), 8);
	assert_int_equal(json_integer_value(json_object_get(m, "compiles")), 8);
	assert_int_equal(s.nshared, 0);
	survey_free(&s);
	remove(out);
	free(out);
	free(log);
	remove_tree(dir);
	free(dir);
}

/* The extension's log with a rebuild of the binding alone after its clean
 * build: the clean build is the one read (the one scan of the log keeps
 * it), and the builds are counted; with only the rebuild's lines, that
 * one, said not to be clean. */
static json_t *read_module_doc(const char *dir)
{
	char *out = xasprintf("%s.out", dir);
	FILE *f = fopen(out, "w");
	survey_read_module(dir, false, NULL, f);
	fclose(f);
	f = fopen(out, "r");
	char line[1 << 16];
	assert_non_null(fgets(line, sizeof(line), f));
	fclose(f);
	remove(out);
	free(out);
	return json_loads(line, 0, NULL);
}

static void test_read_latest_clean_build(void **state)
{
	(void)state;
	char *log, *dir = torch_extension_dir(&log);
	const char *rebuild = "0\t17500\t1795986990000000000\tbind.o\te367d33294bcbd34\n"
			      "17500\t18100\t1795986990100000000\ttextmod.so\t0123456789abcdef\n";
	FILE *f = fopen(log, "a");
	fputs(rebuild, f);
	fclose(f);
	json_t *m = read_module_doc(dir);
	assert_int_equal(json_integer_value(json_object_get(m, "builds")), 2);
	assert_true(json_is_true(json_object_get(m, "clean")));
	assert_float_equal(json_number_value(json_object_get(m, "wall_s")), 65.603, 1e-4);
	assert_int_equal(json_integer_value(json_object_get(m, "steps")), 9);
	json_decref(m);

	f = fopen(log, "w");
	fprintf(f, "# ninja log v7\n%s", rebuild);
	fclose(f);
	m = read_module_doc(dir);
	assert_int_equal(json_integer_value(json_object_get(m, "builds")), 1);
	assert_false(json_is_true(json_object_get(m, "clean")));
	assert_float_equal(json_number_value(json_object_get(m, "wall_s")), 18.1, 1e-4);
	assert_int_equal(json_integer_value(json_object_get(m, "steps")), 2);
	json_decref(m);
	free(log);
	remove_tree(dir);
	free(dir);
}

/* A module as survey_read_module writes it: its document, then its sources. */
static char *module_file(const char *dir, const char *name, double wall, const char *sources)
{
	char *path = xasprintf("%s/%s.out", dir, name);
	char *text = xasprintf("{\"dir\": \"x\", \"module\": \"%s\", \"skipped\": null, \"wall_s\": %g, \"roles\": {}}\n%s",
			       name, wall, sources);
	write_file(path, text);
	free(text);
	return path;
}

/* By content (a hash) or, unread, by path; in the survey's order, each
 * module's seconds, what compiling it again costs. */
static void test_shared(void **state)
{
	(void)state;
	char *dir = scratch();
	char *a = module_file(dir, "light", 10, "h1\t2.000\t/m1/act.cpp\nh2\t6.000\t/csrc/quant.cu\n-\t1.000\t/gone\\tx.cu\n");
	char *b = module_file(dir, "heavy", 40, "h1\t2.500\t/m2/act.cpp\nh2\t6.500\t/csrc/quant.cu\nh3\t9.000\t/m2/own.cu\n"
			      "-\t1.500\t/gone\\tx.cu\n");
	char *c = module_file(dir, "alone", 20, "h4\t3.000\t/m3/k.cu\nh1\t2.000\t/m3/act.cpp\n");
	struct survey s = { 0 };
	assert_ok(survey_add(&s, a, "a", &unit_err));
	assert_ok(survey_add(&s, b, "b", &unit_err));
	assert_ok(survey_add(&s, c, "c", &unit_err));
	survey_add_doc(&s, json_pack("{s:s, s:n, s:s}", "dir", "d", "module", "skipped", "never built"));
	survey_finish(&s);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.nread, 3);
	assert_string_equal(json_string_value(json_object_get(s.modules[0], "module")), "heavy");
	assert_string_equal(json_string_value(json_object_get(s.modules[3], "skipped")), "never built");
	assert_int_equal(s.nshared, 3);
	/* quant.cu by path: 6.0 s compiled again; act.cpp, three copies of
	 * one content: 6.5 s in all, 2.5 s once. */
	assert_string_equal(s.shared[0].path, "/csrc/quant.cu");
	assert_float_equal(s.shared[0].total_s - s.shared[0].once_s, 6.0, 1e-9);
	assert_string_equal(s.shared[1].path, "/m1/act.cpp");
	assert_int_equal(s.shared[1].nmodules, 3);
	assert_float_equal(s.shared[1].total_s, 6.5, 1e-9);
	assert_float_equal(s.shared[1].once_s, 2.5, 1e-9);
	assert_ptr_equal(s.shared[1].modules[0], s.modules[0]);	/* heaviest first */
	assert_float_equal(s.shared[1].seconds[0], 2.5, 1e-9);
	assert_ptr_equal(s.shared[1].modules[2], s.modules[2]);
	/* Unread, the same path: a tab in it, escaped on the line. */
	assert_string_equal(s.shared[2].path, "/gone\tx.cu");
	assert_float_equal(s.shared[2].total_s, 2.5, 1e-9);
	json_t *doc = json_object();
	survey_document(&s, doc);
	assert_float_equal(json_number_value(json_object_get(doc, "shared_repeated_s")), 4.0 + 6.0 + 1.0, 1e-9);
	assert_int_equal(json_integer_value(json_object_get(doc, "modules_read")), 3);
	json_decref(doc);
	survey_free(&s);
	free(a);
	free(b);
	free(c);
	remove_tree(dir);
	free(dir);
}

/* A file that is not survey's: the line that is wrong, nothing added. */
static void test_bad_file(void **state)
{
	(void)state;
	char *dir = scratch();
	char *bad = module_file(dir, "m", 1, "h1\t2.0\n");
	char *nan = module_file(dir, "n", 1, "h1\tsoon\t/a.cu\n");
	char *junk = xasprintf("%s/junk", dir);
	write_file(junk, "not json\n");
	struct survey s = { 0 };
	char *err = NULL;
	survey_add(&s, bad, "m", &err);
	assert_non_null(strstr(err, "m.out:2: not a source line"));
	free(err);
	err = NULL;
	survey_add(&s, nan, "n", &err);
	assert_non_null(strstr(err, "n.out:2: 'soon' is not a number of seconds"));
	free(err);
	err = NULL;
	survey_add(&s, junk, "j", &err);
	assert_non_null(strstr(err, "junk:1: not a module's document"));
	free(err);
	/* Wrong at its last line: its first source is not added either. */
	char *late = module_file(dir, "late", 1, "h1\t2.0\t/a.cu\nh1\t2.0\n");
	char *good = module_file(dir, "good", 1, "h1\t2.0\t/a.cu\n");
	err = NULL;
	survey_add(&s, late, "late", &err);
	assert_non_null(strstr(err, "late.out:3: not a source line"));
	free(err);
	assert_ok(survey_add(&s, good, "g1", &unit_err));
	assert_ok(survey_add(&s, good, "g2", &unit_err));
	survey_finish(&s);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.nshared, 1);
	assert_int_equal(s.shared[0].nmodules, 2);
	assert_float_equal(s.shared[0].total_s, 4.0, 1e-9);
	survey_free(&s);
	free(late);
	free(good);
	free(bad);
	free(nan);
	free(junk);
	remove_tree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_read_torch_extension),
		cmocka_unit_test(test_read_latest_clean_build),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_bad_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
