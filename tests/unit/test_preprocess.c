/* The -E commands of a compile, pass by pass: gcc as it is, clang's host
 * and per-arch device passes (archs from clang-19 -###), nvcc's own
 * preprocessing jobs (from --dryrun), all writing into the temp dir. */
#include "unit.h"

#include "preprocess.h"
#include "tmpdir.h"
#include "util.h"

static bool have(const char *program)
{
	char *cmd = xasprintf("command -v %s >/dev/null 2>&1", program);
	bool ok = !system(cmd);
	free(cmd);
	return ok;
}

/* Plan `line` as if run in the temp dir (where the drivers find k.hip). */
static void plan(const char *line, bool device, struct compile_command *cmd, struct pp_plan *p)
{
	const char *cwd = tmpdir_path();
	char *src = xasprintf("%s/k.hip", cwd);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fclose(f);
	free(src);
	*cmd = (struct compile_command){ 0 };
	assert_ok(driver_parse(line, cwd, cmd, &unit_err));
	char *out = tmpdir_subdir("tu");
	assert_ok(driver_redirect_outputs(cmd, out, &unit_err));
	char *log = xasprintf("%s/jobs.log", out);
	char *err = NULL;
	if (!preprocess_plan(cmd, cwd, device, out, log, 0, p, &err))
		fail_msg("%s", err);
	free(out);
	free(log);
}

static bool has_arg(const struct strvec *argv, const char *arg)
{
	return strvec_contains(argv, arg);
}

static size_t count_prefix(const struct strvec *argv, const char *prefix)
{
	size_t n = 0;
	for (size_t i = 0; i < argv->n; i++)
		n += has_prefix(argv->v[i], prefix);
	return n;
}

/* The output flag names the pass's own file in the temp dir. */
static void expect_output(const struct pp_pass *p)
{
	for (size_t i = 0; i + 1 < p->argv.n; i++)
		if (!strcmp(p->argv.v[i], "-o")) {
			assert_string_equal(p->argv.v[i + 1], p->output);
			assert_true(has_prefix(p->output, tmpdir_path()));
			return;
		}
	fail_msg("no -o");
}

static void test_gcc(void **state)
{
	(void)state;
	struct compile_command cmd;
	struct pp_plan p;
	plan("ccache g++ -O2 -Iinc -isystem /opt/fw -c src/x.cpp -o obj/x.o", true, &cmd, &p);
	assert_int_equal(p.n, 1);	/* no device pass for C++, even when asked */
	assert_int_equal(p.v[0].kind, PASS_HOST);
	assert_false(has_arg(&p.v[0].argv, "-c"));
	assert_true(has_arg(&p.v[0].argv, "-E"));
	assert_false(has_arg(&p.v[0].argv, "--cuda-host-only"));
	assert_string_equal(p.v[0].argv.v[0], "g++");	/* the launcher stripped */
	expect_output(&p.v[0]);
	char *inc = xasprintf("%s/inc", tmpdir_path());
	assert_string_equal(p.v[0].user_dirs.v[0], inc);
	free(inc);
	assert_string_equal(p.v[0].system_dirs.v[0], "/opt/fw");
	char *name = pp_pass_name(&p.v[0]);
	assert_string_equal(name, "host");
	free(name);
	pp_plan_free(&p);
	compile_command_clear(&cmd);
}

static void test_clang_hip(void **state)
{
	(void)state;
	const char *line = "clang++-19 -x hip -nogpulib -nogpuinc --offload-arch=gfx90a --offload-arch=gfx942 -O2 -c k.hip "
			   "-o k.o";
	struct compile_command cmd;
	struct pp_plan p;
	plan(line, false, &cmd, &p);	/* host only: no need to ask the driver */
	assert_int_equal(p.n, 1);
	assert_true(has_arg(&p.v[0].argv, "--cuda-host-only"));
	assert_false(has_arg(&p.v[0].argv, "-c"));
	expect_output(&p.v[0]);
	pp_plan_free(&p);
	compile_command_clear(&cmd);
	if (!have("clang++-19"))
		skip();
	plan(line, true, &cmd, &p);
	assert_int_equal(p.n, 3);
	const char *archs[] = { NULL, "gfx90a", "gfx942" };
	for (size_t i = 1; i < 3; i++) {
		assert_int_equal(p.v[i].kind, PASS_DEVICE);
		assert_string_equal(p.v[i].arch, archs[i]);
		assert_true(has_arg(&p.v[i].argv, "--cuda-device-only"));
		assert_int_equal(count_prefix(&p.v[i].argv, "--offload-arch="), 1);	/* its own arch alone */
		char *want = xasprintf("--offload-arch=%s", archs[i]);
		assert_true(has_arg(&p.v[i].argv, want));
		free(want);
		expect_output(&p.v[i]);
	}
	assert_string_not_equal(p.v[1].output, p.v[2].output);
	pp_plan_free(&p);
	compile_command_clear(&cmd);
}

static void test_nvcc(void **state)
{
	(void)state;
	if (!have("nvcc"))
		skip();
	struct compile_command cmd;
	struct pp_plan p;
	plan("nvcc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -c k.cu -o k.o", true, &cmd, &p);
	assert_int_equal(p.n, 3);
	assert_int_equal(p.v[0].kind, PASS_HOST);	/* the host first, as for the other drivers */
	assert_false(count_prefix(&p.v[0].argv, "-D__CUDA_ARCH__="));
	assert_string_equal(p.v[1].arch, "compute_80");
	assert_string_equal(p.v[2].arch, "compute_90");
	assert_true(has_arg(&p.v[1].argv, "-D__CUDA_ARCH__=800"));
	for (size_t i = 0; i < 3; i++) {
		assert_true(has_arg(&p.v[i].argv, "-E"));
		expect_output(&p.v[i]);
		assert_non_null(p.v[i].env.v);	/* nvcc's #$ settings */
	}
	pp_plan_free(&p);
	compile_command_clear(&cmd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gcc),
		cmocka_unit_test(test_clang_hip),
		cmocka_unit_test(test_nvcc),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tmpdir_remove();
	return rc;
}
