#include "unit.h"
#include "jobs.h"

static void parse(const char *fixture, bool nvcc, struct job_list *jobs)
{
	char *text = read_text_file(fixture);
	assert_non_null(text);
	*jobs = (struct job_list){ 0 };
	char *err = NULL;
	if (!(nvcc ? jobs_parse_dryrun(text, jobs, &err) : jobs_parse_dashdashdash(text, jobs, &err)))
		fail_msg("%s: %s", fixture, err);
	free(text);
}

static void expect_job(const struct job *j, enum pass_kind pass, const char *arch, const char *tool)
{
	assert_int_equal(j->pass, pass);
	if (arch)
		assert_string_equal(j->arch, arch);
	else
		assert_null(j->arch);
	assert_string_equal(j->tool, tool);
}

/* clang 15, 16, 19, 22: per arch a device cc1 and an lld link, the offload
 * bundler, then the host cc1. */
static void test_clang_hip(void **state)
{
	(void)state;
	static const struct {
		const char *file, *second_arch, *lld;
	} cases[] = {
		{ FIXTURE("jobs/hip_clang15_2arch_dashdashdash.txt"), "gfx940", "/usr/bin/lld" },
		{ FIXTURE("jobs/hip_clang16_2arch_dashdashdash.txt"), "gfx940", "/usr/lib/llvm-16/bin/lld" },
		{ FIXTURE("jobs/hip_clang19_2arch_dashdashdash.txt"), "gfx942", "/usr/lib/llvm-19/bin/lld" },
		{ FIXTURE("jobs/hip_clang22_2arch_dashdashdash.txt"), "gfx942", "/usr/lib/llvm-22/bin/lld" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct job_list jobs;
		parse(cases[c].file, false, &jobs);
		assert_int_equal(jobs.n, 6);
		expect_job(&jobs.v[0], PASS_DEVICE, "gfx90a", "cc1");
		expect_job(&jobs.v[1], PASS_DEVICE, "gfx90a", "lld");
		expect_job(&jobs.v[2], PASS_DEVICE, cases[c].second_arch, "cc1");
		expect_job(&jobs.v[3], PASS_DEVICE, cases[c].second_arch, "lld");
		expect_job(&jobs.v[4], PASS_OTHER, NULL, "offload bundler");
		expect_job(&jobs.v[5], PASS_HOST, NULL, "cc1");
		assert_true(jobs.v[0].time_report && jobs.v[5].time_report);
		assert_false(jobs.v[1].time_report || jobs.v[4].time_report);
		assert_string_equal(jobs.v[1].argv.v[0], cases[c].lld);
		assert_string_equal(jobs.v[0].argv.v[1], "-cc1");
		assert_int_equal(job_list_device_archs(&jobs), 2);	/* one cc1 an arch; lld not counted */
		job_list_free(&jobs);
	}
}

/* hipcc 5.2 prints its own "hipcc-cmd:" line first; one arch. */
static void test_hipcc(void **state)
{
	(void)state;
	const char *files[] = { FIXTURE("jobs/hip_hipcc_gfx90a_dashdashdash.txt"),
				FIXTURE("jobs/hip_hipcc_torchkernel_dashdashdash.txt") };
	for (size_t c = 0; c < 2; c++) {
		struct job_list jobs;
		parse(files[c], false, &jobs);
		assert_int_equal(jobs.n, 4);
		expect_job(&jobs.v[0], PASS_DEVICE, "gfx90a", "cc1");
		expect_job(&jobs.v[1], PASS_DEVICE, "gfx90a", "lld");
		expect_job(&jobs.v[2], PASS_OTHER, NULL, "offload bundler");
		expect_job(&jobs.v[3], PASS_HOST, NULL, "cc1");
		assert_string_equal(jobs.v[3].argv.v[0], "/usr/lib/llvm-15/bin/clang");
		assert_int_equal(job_list_device_archs(&jobs), 1);
		job_list_free(&jobs);
	}
}

/* gcc: cc1plus then as, with COLLECT_GCC_OPTIONS lines in between. */
static void test_gcc(void **state)
{
	(void)state;
	struct job_list jobs = { 0 };
	const char *text =
		"Using built-in specs.\nCOLLECT_GCC=g++\nTarget: x86_64-linux-gnu\ngcc version 12.2.0 (Debian 12.2.0-14)\n"
		"COLLECT_GCC_OPTIONS='-c' '-o' 'a.o' '-mtune=generic' '-march=x86-64'\n"
		" /usr/lib/gcc/x86_64-linux-gnu/12/cc1plus -quiet -imultiarch x86_64-linux-gnu -D_GNU_SOURCE a.cpp -quiet "
		"-dumpbase a.cpp -dumpbase-ext .cpp \"-mtune=generic\" \"-march=x86-64\" -o /tmp/ccG7Fu8g.s\n"
		"COLLECT_GCC_OPTIONS='-c' '-o' 'a.o' '-mtune=generic' '-march=x86-64'\n"
		" as --64 -o a.o /tmp/ccG7Fu8g.s\n"
		"COMPILER_PATH=/usr/lib/gcc/x86_64-linux-gnu/12/\n";
	assert_ok(jobs_parse_dashdashdash(text, &jobs, &unit_err));
	assert_int_equal(jobs.n, 2);
	expect_job(&jobs.v[0], PASS_HOST, NULL, "cc1plus");
	assert_true(jobs.v[0].time_report);
	assert_string_equal(jobs.v[0].argv.v[11], "-mtune=generic");
	expect_job(&jobs.v[1], PASS_HOST, NULL, "as");
	assert_string_equal(jobs.v[1].argv.v[3], "a.o");
	job_list_free(&jobs);

	/* C: cc1, whose name ends in a digit that is not a version. */
	assert_ok(jobs_parse_dashdashdash(" /usr/lib/gcc/x86_64-linux-gnu/12/cc1 -quiet a.c -o /tmp/x.s\n"
					    " /usr/bin/x86_64-linux-gnu-as --64 -o a.o /tmp/x.s\n", &jobs, &unit_err));
	expect_job(&jobs.v[0], PASS_HOST, NULL, "cc1");
	assert_true(jobs.v[0].time_report);
	expect_job(&jobs.v[1], PASS_HOST, NULL, "as");
	job_list_free(&jobs);

	/* -pipe joins the jobs with '|': said, not guessed. */
	char *err = NULL;
	jobs_parse_dashdashdash(" /usr/lib/gcc/x86_64-linux-gnu/12/cc1plus -quiet a.cpp -o - |\n as --64 -o a.o\n",
					    &jobs, &err);
	assert_non_null(strstr(err, "drop -pipe"));
	free(err);
	job_list_free(&jobs);
	err = NULL;
	jobs_parse_dashdashdash("clang version 19\nTarget: x86_64\n", &jobs, &err);
	assert_string_equal(err, "the driver listed no jobs");
	free(err);
}

/* nvcc --dryrun: settings, then gcc -E, cudafe++, per arch gcc -E / cicc /
 * ptxas, fatbinary, (rm), gcc -c. */
static void test_nvcc_dryrun(void **state)
{
	(void)state;
	const char *files[] = { FIXTURE("jobs/cuda_nvcc13_2arch_dryrun.txt"),
				FIXTURE("jobs/cuda_nvcc13_2arch_dryrun_replayed.txt") };
	for (size_t c = 0; c < 2; c++) {
		struct job_list jobs;
		parse(files[c], true, &jobs);
		assert_int_equal(jobs.n, 10);
		expect_job(&jobs.v[0], PASS_HOST, NULL, "gcc -E");
		assert_string_equal(jobs.v[0].nvcc_phase, "gcc (preprocessing 4)");
		expect_job(&jobs.v[1], PASS_HOST, NULL, "cudafe++");
		expect_job(&jobs.v[2], PASS_DEVICE, "compute_80", "gcc -E");
		assert_string_equal(jobs.v[2].nvcc_phase, "gcc (preprocessing 1)");
		expect_job(&jobs.v[3], PASS_DEVICE, "compute_80", "cicc");
		/* $CICC_PATH expanded from nvcc's own setting. */
		assert_string_equal(jobs.v[3].argv.v[0], "/usr/local/cuda/bin/../nvvm/bin/cicc");
		expect_job(&jobs.v[4], PASS_DEVICE, "sm_80", "ptxas");
		expect_job(&jobs.v[5], PASS_DEVICE, "compute_90", "gcc -E");
		expect_job(&jobs.v[6], PASS_DEVICE, "compute_90", "cicc");
		expect_job(&jobs.v[7], PASS_DEVICE, "sm_90", "ptxas");
		expect_job(&jobs.v[8], PASS_OTHER, NULL, "fatbinary");
		expect_job(&jobs.v[9], PASS_HOST, NULL, "gcc");
		assert_string_equal(jobs.v[9].nvcc_phase, "gcc (compiling)");
		assert_string_equal(jobs.v[9].argv.v[jobs.v[9].argv.n - 1], c ? "kern_replay.o" : "kern.o");
		/* The settings travel with every job; quotes removed as sh would. */
		assert_true(strvec_contains(&jobs.v[0].env, "CICC_PATH=/usr/local/cuda/bin/../nvvm/bin"));
		assert_true(strvec_contains(&jobs.v[0].env, "INCLUDES=-I/usr/local/cuda/bin/../targets/x86_64-linux/include"));
		assert_int_equal(job_list_device_archs(&jobs), 2);	/* one cicc an arch */
		job_list_free(&jobs);
	}
	struct job_list jobs = { 0 };
	char *err = NULL;
	jobs_parse_dryrun("#$ \"$NOT_SET/cicc\" -arch compute_80\n", &jobs, &err);
	assert_non_null(strstr(err, "line 1 of nvcc's --dryrun"));
	free(err);
	job_list_free(&jobs);
}

/* Settings that expand each other double each line: refused past 1 MiB,
 * at the line that crosses it, instead of growing to gigabytes. */
static void test_dryrun_expansion_bound(void **state)
{
	(void)state;
	struct strvec text = { 0 };
	strvec_push(&text, "#$ A0=xxxxxxxxxxxxxxxx");
	for (int i = 0; i < 25; i++)
		strvec_pushf(&text, "#$ A%d=$A%d$A%d", i + 1, i, i);
	strvec_push(&text, "#$ gcc -c $A25 -o x.o");
	char *joined = strvec_join(&text, "\n");
	struct job_list jobs = { 0 };
	char *err = NULL;
	jobs_parse_dryrun(joined, &jobs, &err);
	assert_non_null(err);
	/* 16 << 17 = 2 MiB: A17 on line 18 is the first past the bound. */
	assert_string_equal(err, "line 18 of nvcc's --dryrun: its settings expand past 1048576 bytes");
	free(err);
	job_list_free(&jobs);
	free(joined);
	strvec_clear(&text);
}

/* nvcc's host pass alone: the stub each cicc writes, and its host jobs. */
static void test_nvcc_host_jobs(void **state)
{
	(void)state;
	struct job_list jobs;
	parse(FIXTURE("jobs/cuda_nvcc13_2arch_dryrun.txt"), true, &jobs);
	assert_string_equal(job_nvcc_stub(&jobs.v[3]), "/tmp/tmpxft_00003ebe_00000000-7_kern.compute_80.cudafe1.stub.c");
	assert_string_equal(job_nvcc_stub(&jobs.v[6]), "/tmp/tmpxft_00003ebe_00000000-6_kern.compute_90.cudafe1.stub.c");
	assert_null(job_nvcc_stub(&jobs.v[1]));	/* cudafe++ names it, cicc writes it */
	job_list_keep(&jobs, PASS_HOST);
	assert_int_equal(jobs.n, 3);
	expect_job(&jobs.v[0], PASS_HOST, NULL, "gcc -E");
	expect_job(&jobs.v[1], PASS_HOST, NULL, "cudafe++");
	expect_job(&jobs.v[2], PASS_HOST, NULL, "gcc");
	job_list_free(&jobs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clang_hip), cmocka_unit_test(test_hipcc),
		cmocka_unit_test(test_gcc), cmocka_unit_test(test_nvcc_dryrun),
		cmocka_unit_test(test_dryrun_expansion_bound),
		cmocka_unit_test(test_nvcc_host_jobs),
	};
	return cmocka_run_group_tests_name("jobs", tests, NULL, NULL);
}
