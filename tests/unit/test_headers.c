/* Header groups, the project, names as an #include spells them, the
 * calibration, and the path helpers they stand on. */
#include "unit.h"

#include "headers.h"
#include "util.h"

static struct header_groups groups;

static const char *group_of(const struct header_context *ctx, const char *name, bool system)
{
	return groups.v[header_classify(&groups, ctx, name, system)].name;
}

static void test_path_normalize(void **state)
{
	(void)state;
	static const char *const cases[][3] = {
		{ "/b", "x.h", "/b/x.h" },
		{ "/b", "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/cmath", "/usr/include/c++/12/cmath" },
		{ "/b/c", "../inc/./a.h", "/b/inc/a.h" },
		{ "/b", "//usr///include/", "/usr/include" },
		{ "/", "../..", "/" },
		{ "/b", ".", "/b" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = path_normalize(cases[i][0], cases[i][1]);
		assert_string_equal(p, cases[i][2]);
		free(p);
	}
	assert_string_equal(path_below("/a/b/c.h", "/a"), "b/c.h");
	assert_null(path_below("/ab/c.h", "/a"));
	assert_null(path_below("/a", "/a"));
	assert_string_equal(path_below("/x.h", "/"), "x.h");
}

static void test_default_groups(void **state)
{
	(void)state;
	struct header_context ctx;
	header_context_init(&ctx, "/build", "/proj/src/x.cpp", "/proj", NULL, NULL);
	static const struct {
		const char *path;
		bool system;
		const char *group;
	} cases[] = {
		{ "/usr/include/torch/csrc/api/include/torch/all.h", true, "torch" },
		{ "/opt/conda/lib/python3.10/site-packages/torch/include/ATen/Tensor.h", true, "torch" },
		{ "/usr/include/c10/core/TensorImpl.h", true, "torch" },
		{ "/usr/include/pybind11/pybind11.h", true, "pybind11" },
		{ "/usr/include/python3.11/Python.h", true, "python" },
		{ "/usr/include/python3.11/object.h", true, "python" },
		{ "/usr/include/c++/12/vector", true, "stdlib" },
		{ "/usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h", true, "stdlib" },
		{ "/usr/lib/llvm-19/include/c++/v1/vector", true, "stdlib" },
		{ "/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/host_config.h", false, "gpu" },
		{ "/usr/include/cuda_runtime.h", true, "gpu" },
		{ "/usr/include/hip/hip_runtime.h", true, "gpu" },
		{ "/usr/lib/llvm-19/lib/clang/19/include/__clang_hip_runtime_wrapper.h", true, "gpu" },
		{ "/usr/lib/llvm-19/lib/clang/19/include/cuda_wrappers/cmath", true, "gpu" },
		{ "/usr/lib/gcc/x86_64-linux-gnu/12/include/avx512fintrin.h", true, "compiler" },
		{ "/usr/lib/llvm-19/lib/clang/19/include/stddef.h", true, "compiler" },
		{ "/usr/include/stdio.h", true, "other" },
		{ "<built-in>", false, "other" },
		{ "/proj/include/opus/tensor_args.h", false, "project" },
		{ "../proj/src/x.cpp", false, "project" },
		/* A system header is never the project's, even inside it. */
		{ "/proj/fakelibs/torch/extension.h", true, "torch" },
		{ "/proj/third_party/json.h", true, "other" },
		/* A vendored framework is still the framework; the project's own
		 * cuda/ directory is the project's. */
		{ "/proj/third_party/pybind11/include/pybind11/cast.h", false, "pybind11" },
		{ "/proj/csrc/cuda/kernel.cuh", false, "project" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strcmp(group_of(&ctx, cases[i].path, cases[i].system), cases[i].group))
			fail_msg("%s: %s, want %s", cases[i].path, group_of(&ctx, cases[i].path, cases[i].system),
				 cases[i].group);
	header_context_free(&ctx);

	/* A project checked out under a directory named torch/ is not torch. */
	header_context_init(&ctx, "/", "/home/me/torch/proj/x.cpp", "/home/me/torch/proj", NULL, NULL);
	assert_string_equal(group_of(&ctx, "/home/me/torch/proj/inc/a.h", false), "project");
	header_context_free(&ctx);
}

static void test_group_option(void **state)
{
	(void)state;
	struct header_groups g;
	header_groups_init(&g);
	assert_ok(header_groups_add(&g, "cutlass=(^|/)cutlass/", &unit_err));
	assert_ok(header_groups_add(&g, "torch=(^|/)mytorch/", &unit_err));
	struct header_context ctx;
	header_context_init(&ctx, "/b", "/p/x.cpp", "/p", NULL, NULL);
	assert_string_equal(g.v[header_classify(&g, &ctx, "/usr/include/cutlass/gemm.h", true)].name, "cutlass");
	assert_string_equal(g.v[header_classify(&g, &ctx, "/opt/mytorch/a.h", true)].name, "torch");
	assert_string_equal(g.v[header_classify(&g, &ctx, "/usr/include/torch/a.h", true)].name, "other");
	assert_false(g.v[header_classify(&g, &ctx, "/usr/include/cutlass/gemm.h", true)].heavy);
	char *err = NULL;
	header_groups_add(&g, "bad=(", &err);
	assert_non_null(strstr(err, "bad regex"));
	free(err);
	err = NULL;
	header_groups_add(&g, "noequals", &err);
	assert_non_null(strstr(err, "NAME=REGEX"));
	free(err);
	err = NULL;
	header_groups_add(&g, "project=foo/", &err);
	assert_non_null(strstr(err, "--project"));
	free(err);
	assert_string_equal(g.v[header_group_other(&g)].name, "other");
	assert_string_equal(g.v[header_group_project(&g)].name, "project");
	header_context_free(&ctx);
	header_groups_free(&g);
}

static void test_display(void **state)
{
	(void)state;
	struct strvec user = { 0 }, sys = { 0 };
	strvec_push(&user, "/p/include");
	strvec_push(&sys, "/p/fakelibs");
	strvec_push(&sys, "/p/fakelibs/torch/csrc/api/include");
	struct header_context ctx;
	header_context_init(&ctx, "/build", "/p/src/x.cpp", "/p", &user, &sys);
	static const struct {
		const char *path;
		bool system, tu;
		const char *shown;
	} cases[] = {
		{ "/p/include/opus/tensor_args.h", false, false, "opus/tensor_args.h" },
		{ "/p/fakelibs/torch/extension.h", true, false, "<torch/extension.h>" },
		{ "/p/fakelibs/torch/csrc/api/include/torch/all.h", true, false, "<torch/all.h>" },	/* the longest dir */
		{ "/usr/lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/vector", true, false, "<vector>" },
		{ "/usr/include/x86_64-linux-gnu/bits/wordsize.h", true, false, "<bits/wordsize.h>" },
		{ "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h", true, false, "<stddef.h>" },
		{ "/usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h", true, false, "<bits/c++config.h>" },
		{ "/p/src/x.cpp", false, true, "src/x.cpp" },
		{ "/p/src/local.h", false, false, "src/local.h" },
		{ "/elsewhere/a.h", false, false, "/elsewhere/a.h" },
		{ "<built-in>", false, false, "<built-in>" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = header_display(&ctx, cases[i].path, cases[i].system, cases[i].tu);
		if (strcmp(s, cases[i].shown))
			fail_msg("%s shown as %s, want %s", cases[i].path, s, cases[i].shown);
		free(s);
	}
	header_context_free(&ctx);
	strvec_clear(&user);
	strvec_clear(&sys);
}

/* The default project: the git work tree that holds the TU, else its
 * directory and the command's -I dirs outside /usr. */
static void test_default_project(void **state)
{
	(void)state;
	char dir[] = "/tmp/buildwall-proj-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *cmd = xasprintf("mkdir -p %s/repo/.git %s/repo/src %s/loose/src %s/loose/include", dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	struct header_context ctx;
	char *tu = xasprintf("%s/repo/src/x.cpp", dir), *root = xasprintf("%s/repo", dir);
	header_context_init(&ctx, "/", tu, NULL, NULL, NULL);
	assert_int_equal(ctx.project.n, 1);
	assert_string_equal(ctx.project.v[0], root);
	header_context_free(&ctx);
	free(tu);
	free(root);

	struct strvec user = { 0 };
	char *inc = xasprintf("%s/loose/include", dir);
	strvec_push(&user, inc);
	strvec_push(&user, "/usr/include/python3.11");
	tu = xasprintf("%s/loose/src/x.cpp", dir);
	header_context_init(&ctx, "/", tu, NULL, &user, NULL);
	assert_int_equal(ctx.project.n, 2);
	assert_true(has_suffix(ctx.project.v[0], "/loose/src"));
	assert_string_equal(ctx.project.v[1], inc);
	assert_true(header_in_project(&ctx, inc, false) == false);	/* the dir itself is no file in it */
	char *h = xasprintf("%s/opus/a.h", inc);
	assert_true(header_in_project(&ctx, h, false));
	assert_false(header_in_project(&ctx, h, true));
	header_context_free(&ctx);
	free(h);
	free(tu);
	free(inc);
	strvec_clear(&user);
	cmd = xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void test_weigh(void **state)
{
	(void)state;
	struct weight_limits w = { 150000, 400000 };
	assert_int_equal(weigh(149999, &w), WEIGHT_LEAN);
	assert_int_equal(weigh(150000, &w), WEIGHT_MIDDLE);
	assert_int_equal(weigh(376239, &w), WEIGHT_MIDDLE);
	assert_int_equal(weigh(400001, &w), WEIGHT_HEAVY);
	assert_string_equal(weight_name(WEIGHT_HEAVY), "heavy");
}

static int setup(void **state)
{
	(void)state;
	header_groups_init(&groups);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	header_groups_free(&groups);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_normalize),
		cmocka_unit_test(test_default_groups),
		cmocka_unit_test(test_group_option),
		cmocka_unit_test(test_display),
		cmocka_unit_test(test_default_project),
		cmocka_unit_test(test_weigh),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
