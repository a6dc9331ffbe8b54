/* The private copy of a project's sources: what is copied (the files
 * under the root, once), a command made to read the copy, an edit that
 * leaves the original alone, and a change to an original found. */
#include "unit.h"
#include "source_copy.h"
#include "tmpdir.h"


static char *proj;

static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", proj, rel);
	make_parent_dirs(path, 0700);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static char *slurp(const char *dir, const char *rel)
{
	char *path = xasprintf("%s/%s", dir, rel), *text = read_text_file(path);
	free(path);
	return text;
}

static int setup(void **state)
{
	(void)state;
	char *tmp = tmpdir_subdir("proj");
	proj = realpath(tmp, NULL);
	free(tmp);
	put("src/a.cpp", "#include \"p/x.h\"\nint a;\n");
	put("include/p/x.h", "#pragma once\n#include <torch/extension.h>\nint x;\n");
	put("build/build.ninja", "");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(proj);
	return 0;
}

static void test_root_copy_and_command(void **state)
{
	(void)state;
	char *build = xasprintf("%s/build", proj);
	struct strvec paths = { 0 };
	strvec_push(&paths, "../src/a.cpp");
	strvec_push(&paths, "../include/p/x.h");
	strvec_push(&paths, "../src/a.cpp");		/* once */
	strvec_push(&paths, "/usr/include/stdio.h");	/* outside the root */
	strvec_push(&paths, "../gone.h");		/* not there */
	/* with stdio.h the common root is above the project (or none) */
	char *root = source_copy_common_root(&paths, build);
	assert_true(!root || strcmp(root, proj));
	free(root);
	paths.n = 2;
	root = source_copy_common_root(&paths, build);
	assert_string_equal(root, proj);
	struct source_copy sc;
	char *err = NULL;
	paths.n = 5;
	assert_ok(source_copy_make(root, &paths, build, "copy", &sc, &unit_err));
	assert_int_equal(sc.files.n, 2);
	assert_string_equal(sc.files.v[0], "src/a.cpp");
	assert_string_equal(sc.files.v[1], "include/p/x.h");
	char *text = slurp(sc.dir, "include/p/x.h");
	assert_string_equal(text, "#pragma once\n#include <torch/extension.h>\nint x;\n");
	free(text);

	struct strvec argv = { 0 };
	const char *words[] = { "g++", "-I../include", "-isystem", "/usr/include", "-iquote", "../include",
				"-include", "../include/p/x.h", "-c", "../src/a.cpp", "-o", "a.o" };
	for (size_t k = 0; k < sizeof(words) / sizeof(*words); k++)
		strvec_push(&argv, words[k]);
	source_copy_command(&sc, build, &argv);
	char *got = strvec_join(&argv, " ");
	char *want = xasprintf("g++ -I%s/include -I../include -isystem /usr/include -iquote%s/include -iquote ../include "
			       "-include %s/include/p/x.h -c %s/src/a.cpp -o a.o", sc.dir, sc.dir, sc.dir, sc.dir);
	assert_string_equal(got, want);
	free(got);
	free(want);
	strvec_clear(&argv);

	/* An edit of a clone: the clone and only it changes. */
	struct source_copy edit;
	assert_ok(source_copy_clone(&sc, "copy-edit", &edit, &unit_err));
	assert_string_equal(edit.root, proj);
	assert_ok(source_copy_edit(&edit, "include/p/x.h", 2, "#include <ATen/core/Tensor.h>", &unit_err));
	text = slurp(edit.dir, "include/p/x.h");
	assert_string_equal(text, "#pragma once\n#include <ATen/core/Tensor.h>\nint x;\n");
	free(text);
	text = slurp(sc.dir, "include/p/x.h");
	assert_string_equal(text, "#pragma once\n#include <torch/extension.h>\nint x;\n");
	free(text);
	assert_false(source_copy_edit(&edit, "include/p/x.h", 9, NULL, &err));
	assert_string_equal(err, "include/p/x.h: no line 9 (the file has 3)");
	free(err);
	err = NULL;
	assert_false(source_copy_edit(&edit, "src/b.cpp", 1, NULL, &err));
	free(err);
	err = NULL;
	char *edit_dir = xstrdup(edit.dir);
	source_copy_free(&edit);
	assert_false(is_directory(edit_dir));
	free(edit_dir);

	/* The originals as copied; then one touched. */
	assert_ok(source_copy_unchanged(&sc, &unit_err));
	put("include/p/x.h", "#pragma once\n#include <torch/extension.h>\nint y;\n");
	assert_false(source_copy_unchanged(&sc, &err));
	char *want_err = xasprintf("%s/include/p/x.h changed while buildwall ran", proj);
	assert_string_equal(err, want_err);
	free(want_err);
	free(err);
	source_copy_free(&sc);
	strvec_clear(&paths);
	free(root);
	free(build);
}

static void test_not_a_directory(void **state)
{
	(void)state;
	struct strvec paths = { 0 };
	struct source_copy sc;
	char *err = NULL;
	assert_false(source_copy_make("/nonexistent/proj", &paths, "/", "copy-bad", &sc, &err));
	assert_string_equal(err, "/nonexistent/proj: not a directory");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_copy_and_command),
		cmocka_unit_test(test_not_a_directory),
	};
	return cmocka_run_group_tests_name("source_copy", tests, setup, teardown);
}
