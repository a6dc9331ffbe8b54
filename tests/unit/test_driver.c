#include "unit.h"
#include "driver.h"
#include "ninja.h"
#include "tmpdir.h"

static void test_identify(void **state)
{
	(void)state;
	assert_int_equal(driver_identify("nvcc"), COMPILER_NVCC);
	assert_int_equal(driver_identify("/usr/local/cuda/bin/nvcc"), COMPILER_NVCC);
	assert_int_equal(driver_identify("clang++-19"), COMPILER_CLANG);
	assert_int_equal(driver_identify("/usr/lib/llvm-22/bin/clang"), COMPILER_CLANG);
	assert_int_equal(driver_identify("x86_64-linux-gnu-g++-12"), COMPILER_GCC);
	assert_int_equal(driver_identify("/usr/bin/hipcc"), COMPILER_HIPCC);
	assert_int_equal(driver_identify("python3"), COMPILER_UNKNOWN);
	assert_true(driver_is_launcher("/usr/bin/ccache"));
	assert_true(driver_is_launcher("sccache"));
	assert_false(driver_is_launcher("gcc"));
}

static void test_parse_launchers_and_env(void **state)
{
	(void)state;
	struct compile_command c = { 0 };
	assert_ok(driver_parse("ccache distcc g++ -c a.cc -o a.o", NULL, &c, &unit_err));
	assert_int_equal(c.launchers.n, 2);
	assert_string_equal(c.launchers.v[0], "ccache");
	assert_string_equal(c.argv.v[0], "g++");
	assert_int_equal(c.compiler, COMPILER_GCC);
	compile_command_clear(&c);
	assert_ok(driver_parse("env HIP_CLANG_PATH=/usr/bin ROCM_PATH=/usr /usr/bin/hipcc -c k.hip -o k.o", NULL, &c, &unit_err));
	assert_int_equal(c.env.n, 2);
	assert_string_equal(c.env.v[1], "ROCM_PATH=/usr");
	assert_int_equal(c.compiler, COMPILER_HIPCC);
	compile_command_clear(&c);
}

static void test_response_file(void **state)
{
	(void)state;
	char *rsp = write_temp("-O2 'a b.o'\n-lm");
	char *line = xasprintf("g++ @%s -o prog", rsp);
	struct compile_command c = { 0 };
	assert_ok(driver_parse(line, NULL, &c, &unit_err));
	assert_int_equal(c.argv.n, 6);
	assert_string_equal(c.argv.v[2], "a b.o");
	compile_command_clear(&c);
	unlink(rsp);
	free(rsp);
	free(line);
}

/* Rewrite `line` into /T; return the argv as one string for easy asserts. */
static char *rewrite(const char *line, char **err)
{
	struct compile_command c = { 0 };
	char *perr = NULL;
	driver_parse(line, NULL, &c, &perr);
	assert_null(perr);
	*err = NULL;
	driver_redirect_outputs(&c, "/T", err);
	char *joined = xstrdup("");
	for (size_t i = 0; i < c.argv.n; i++) {
		char *next = xasprintf("%s%s%s", joined, i ? " " : "", c.argv.v[i]);
		free(joined);
		joined = next;
	}
	compile_command_clear(&c);
	return joined;
}

static void test_redirect_forms(void **state)
{
	(void)state;
	char *err;
	char *s = rewrite("g++ -MMD -MF obj/a.o.d -c a.cc -oobj/a.o -ftime-trace=t/a.json -MJ a.json", &err);
	assert_null(err);
	assert_string_equal(s, "g++ -MMD -MF /T/a.o.d -c a.cc -o/T/a.o -ftime-trace=/T/a.json -MJ /T/a.json");
	free(s);
	s = rewrite("nvcc --dependency-output k.o.d --time=k.csv -fdevice-time-trace tr.json -c k.cu --output-file k.o", &err);
	assert_null(err);
	assert_string_equal(s, "nvcc --dependency-output /T/k.o.d --time=/T/k.csv -fdevice-time-trace /T/tr.json -c k.cu --output-file /T/k.o");
	free(s);
	s = rewrite("clang++ -fcrash-diagnostics-dir=crash -c a.cc -o a.o", &err);
	assert_null(err);
	assert_string_equal(s, "clang++ -fcrash-diagnostics-dir=/T/ -c a.cc -o /T/a.o");
	free(s);
	s = rewrite("nvcc -odir objs -c k.cu", &err);
	assert_null(err);
	assert_string_equal(s, "nvcc -odir /T/ -c k.cu");
	free(s);
}

static void test_redirect_refuses(void **state)
{
	(void)state;
	const char *bad[][2] = {
		{ "g++ -save-temps -c a.cc -o a.o", "-save-temps" },
		{ "clang++ -save-temps=cwd -c a.cc -o a.o", "-save-temps" },
		{ "nvcc --keep -c k.cu -o k.o", "--keep" },
		{ "nvcc -keep-dir kd -c k.cu -o k.o", "-keep-dir" },
		{ "nvcc -Xcompiler -fPIC,-save-temps -c k.cu -o k.o", "-save-temps" },
		{ "nvcc --run k.cu", "--run" },
		{ "g++ a.o -Wl,-Map=a.map -o a", "-Map" },
		{ "g++ a.o -Xlinker --dependency-file=a.d -o a", "--dependency-file" },
		{ "python3 gen.py out.h", "not a compiler" },
		{ "g++ -c a.cc -o", "missing its file name" },
		{ "g++ -MMD -c src/a.cc", "no -o" },
		{ "nvcc -c k.cu", "no -o" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *err;
		char *s = rewrite(bad[i][0], &err);
		if (!err || !strstr(err, bad[i][1]))
			fail_msg("'%s': %s", bad[i][0], err ? err : "accepted");
		free(err);
		free(s);
	}
}

/* Every compile and link command of the fixture builds, as ninja itself
 * expands them, rewritten: outputs land in /T, nothing else changes. */
static void check_fixture_build(const char *fixture, size_t want_edges)
{
	char *dir = tmpdir_subdir(base_name(fixture));
	char *cmd = xasprintf("cp %s %s/build.ninja", fixture, dir);
	assert_int_equal(system(cmd), 0);
	struct ninja_build b;
	ninja_load(dir, &b);
	assert_int_equal(b.n, want_edges);
	size_t compiles = 0;
	for (size_t i = 0; i < b.n; i++) {
		const struct ninja_edge *e = &b.edges[i];
		if (ninja_edge_is_phony(e))
			continue;
		struct compile_command c = { 0 }, orig = { 0 };
		assert_ok(driver_parse(e->command, dir, &c, &unit_err));
		assert_ok(driver_parse(e->command, dir, &orig, &unit_err));
		assert_int_not_equal(c.compiler, COMPILER_UNKNOWN);
		char *err = NULL;
		if (!driver_redirect_outputs(&c, "/T", &err))
			fail_msg("%s: %s", e->command, err);
		/* The move of the edge's output is recorded: links use it. */
		char *out = xasprintf("/T/%s", base_name(e->outputs.v[0]));
		size_t k = 0;
		while (k < c.moved_from.n && strcmp(c.moved_from.v[k], e->outputs.v[0]))
			k++;
		assert_true(k < c.moved_from.n);
		assert_string_equal(c.moved_to.v[k], out);
		assert_int_equal(c.argv.n, orig.argv.n);
		size_t changed = 0;
		for (size_t a = 0; a < c.argv.n; a++) {
			if (strcmp(c.argv.v[a], orig.argv.v[a])) {
				changed++;
				assert_true(has_prefix(c.argv.v[a], "/T/"));
			}
		}
		/* -o, and the depfile for compiles (-MF / --dependency-output). */
		if (ninja_edge_is_compile(e)) {
			compiles++;
			assert_int_equal(changed, strstr(e->command, "$out.d") || strstr(e->command, ".o.d") ? 2 : 1);
		}
		free(out);
		compile_command_clear(&c);
		compile_command_clear(&orig);
	}
	assert_true(compiles >= 6);
	ninja_build_free(&b);
	free(cmd);
	free(dir);
}

static void test_fixture_builds(void **state)
{
	(void)state;
	check_fixture_build(FIXTURE("ninja/cuda_build.ninja"), 11);
	check_fixture_build(FIXTURE("ninja/hip_gfx90a_build.ninja"), 11);
	check_fixture_build(FIXTURE("ninja/hip_clang19_2arch_build.ninja"), 11);
	check_fixture_build(FIXTURE("ninja/torch211_build.ninja"), 9);
}

static void test_include_dirs(void **state)
{
	(void)state;
	char *argv[] = { "g++", "-Iinc", "-I", "/abs/x", "-isystem", "../fake", "-isystem/sys", "-iquote", "q",
			 "-isystem-after", "/no", "-idirafter", "/late", "--include-path=/nv", "--system-include", "/nvs",
			 "-I-", "-c", "a.cpp", NULL };
	struct strvec user = { 0 }, sys = { 0 };
	driver_include_dirs(argv, sizeof(argv) / sizeof(argv[0]) - 1, "/b/build", &user, &sys);
	const char *want_user[] = { "/b/build/inc", "/abs/x", "/b/build/q", "/nv" };
	const char *want_sys[] = { "/b/fake", "/sys", "/late", "/nvs" };
	assert_int_equal(user.n, 4);
	assert_int_equal(sys.n, 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(user.v[i], want_user[i]);
		assert_string_equal(sys.v[i], want_sys[i]);
	}
	strvec_clear(&user);
	strvec_clear(&sys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identify),
		cmocka_unit_test(test_parse_launchers_and_env),
		cmocka_unit_test(test_response_file),
		cmocka_unit_test(test_redirect_forms),
		cmocka_unit_test(test_redirect_refuses),
		cmocka_unit_test(test_fixture_builds),
		cmocka_unit_test(test_include_dirs),
	};
	return cmocka_run_group_tests_name("driver", tests, NULL, NULL);
}
