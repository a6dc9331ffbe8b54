#include "unit.h"
#include "jobs.h"
#include "nvcc_report.h"
#include "timereport.h"

#include <math.h>

#define SECONDS(x, want) assert_float_equal((x), (want), 0.00005)

static void read_report(const char *path, struct time_report *r)
{
	char *err = NULL;
	if (!timereport_read(path, r, &err))
		fail_msg("%s", err);
}

/* clang <= 19 by the formula: IR generation, the two pipelines' Totals,
 * front end = "Clang front-end timer" minus the other three. */
static void test_clang19_formula(void **state)
{
	(void)state;
	struct time_report r;
	read_report(FIXTURE("timereport/hip_clang19_gfx90a_ftime-report.txt"), &r);
	assert_int_equal(r.n, 2);
	const struct time_group *dev = &r.groups[0], *host = &r.groups[1];
	assert_string_equal(dev->format, "clang<=19");
	assert_int_equal(dev->isa, ISA_AMDGPU);
	SECONDS(dev->total, 0.9746);
	SECONDS(dev->phase[PHASE_IR_GEN], 0.0160);
	SECONDS(dev->phase[PHASE_OPTIMIZER], 0.0282);
	SECONDS(dev->phase[PHASE_CODEGEN], 0.0366);
	SECONDS(dev->phase[PHASE_FRONT_END], 0.9746 - 0.0160 - 0.0282 - 0.0366);
	assert_string_equal(dev->heaviest[0].name, "AMDGPU DAG->DAG Pattern Instruction Selection");
	SECONDS(dev->heaviest[0].seconds, 0.0104);
	assert_int_equal(dev->nheaviest, TIMEREPORT_HEAVIEST);
	assert_int_equal(host->isa, ISA_X86);
	SECONDS(host->total, 1.0638);
	SECONDS(host->phase[PHASE_IR_GEN], 0.0298);
	SECONDS(host->phase[PHASE_OPTIMIZER], 0.0245);
	SECONDS(host->phase[PHASE_CODEGEN], 0.0198);
	SECONDS(host->phase[PHASE_FRONT_END], 1.0638 - 0.0298 - 0.0245 - 0.0198);
	time_report_free(&r);
}

/* clang >= 20: the "Clang time report" rows, one group per cc1 job; the
 * groups are labeled by the job list of the same compile (-###). */
static void test_clang22_labeled(void **state)
{
	(void)state;
	struct time_report r;
	read_report(FIXTURE("timereport/hip_clang22_2arch_ftime-report.txt"), &r);
	char *text = read_text_file(FIXTURE("jobs/hip_clang22_2arch_dashdashdash.txt"));
	struct job_list jobs = { 0 };
	assert_ok(jobs_parse_dashdashdash(text, &jobs, &unit_err));
	assert_int_equal(r.n, 3);
	const char *label[3] = { 0 };
	size_t g = 0;
	for (size_t i = 0; i < jobs.n; i++) {
		if (!jobs.v[i].time_report)
			continue;
		assert_true(g < r.n);
		/* The group's own ISA agrees with the job's pass. */
		assert_int_equal(r.groups[g].isa, jobs.v[i].pass == PASS_DEVICE ? ISA_AMDGPU : ISA_X86);
		label[g++] = jobs.v[i].pass == PASS_DEVICE ? jobs.v[i].arch : "host";
	}
	assert_int_equal(g, 3);
	assert_string_equal(label[0], "gfx90a");
	assert_string_equal(label[1], "gfx942");
	assert_string_equal(label[2], "host");
	static const double fe[3] = { 0.2462, 0.3265, 0.3254 }, cg[3] = { 0.0478, 0.0404, 0.0418 };
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(r.groups[i].format, "clang>=20");
		SECONDS(r.groups[i].phase[PHASE_FRONT_END], fe[i]);
		SECONDS(r.groups[i].phase[PHASE_CODEGEN], cg[i]);
	}
	SECONDS(r.groups[0].phase[PHASE_OPTIMIZER], 0.0233);
	SECONDS(r.groups[0].phase[PHASE_IR_GEN], 0.0040);
	SECONDS(r.groups[0].total, 0.3213);
	job_list_free(&jobs);
	free(text);
	time_report_free(&r);
}

/* Every other clang report: groups in job order, devices first. */
static void test_clang15_19_hipcc(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		size_t groups;
		double first_total, last_total;
	} cases[] = {
		{ FIXTURE("timereport/hip_clang15_2arch_ftime-report.txt"), 3, 0.8532, 0.7817 },
		{ FIXTURE("timereport/hip_clang16_2arch_ftime-report.txt"), 3, 0.4255, 0.6226 },
		{ FIXTURE("timereport/hip_clang19_2arch_ftime-report.txt"), 3, 1.1883, 0.9184 },
		{ FIXTURE("timereport/hip_clang19_2arch_genkernel_ftime-report.txt"), 3, 1.1888, 1.0993 },
		{ FIXTURE("timereport/hip_hipcc_gfx90a_ftime-report.txt"), 2, 0.7849, 0.7011 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct time_report r;
		read_report(cases[c].file, &r);
		assert_int_equal(r.n, cases[c].groups);
		SECONDS(r.groups[0].total, cases[c].first_total);
		SECONDS(r.groups[r.n - 1].total, cases[c].last_total);
		assert_int_equal(r.groups[0].isa, ISA_AMDGPU);
		assert_int_equal(r.groups[r.n - 1].isa, ISA_X86);
		for (size_t g = 0; g < r.n; g++) {
			double sum = 0;
			for (int k = 0; k < NPHASES; k++) {
				assert_true(r.groups[g].phase[k] >= 0);
				sum += r.groups[g].phase[k];
			}
			SECONDS(sum, r.groups[g].total);	/* the formula closes */
		}
		time_report_free(&r);
	}
	/* clang 15's codegen pipeline of the first group. */
	struct time_report r;
	read_report(FIXTURE("timereport/hip_clang15_2arch_ftime-report.txt"), &r);
	SECONDS(r.groups[0].phase[PHASE_OPTIMIZER], 0.0501);
	SECONDS(r.groups[0].phase[PHASE_CODEGEN], 0.0315);
	time_report_free(&r);
}

static void test_gcc(void **state)
{
	(void)state;
	struct time_report r;
	read_report(FIXTURE("timereport/gcc12_torch_ext_ftime-report.txt"), &r);
	assert_int_equal(r.n, 1);
	const struct time_group *g = &r.groups[0];
	assert_string_equal(g->format, "gcc");
	assert_true(g->backend_combined);
	SECONDS(g->phase[PHASE_FRONT_END], 0.01 + 18.36 + 5.70);
	SECONDS(g->phase[PHASE_CODEGEN], 12.32);
	assert_true(isnan(g->phase[PHASE_OPTIMIZER]));
	SECONDS(g->total, 36.39);
	SECONDS(g->template_instantiation, 11.01);
	assert_string_equal(g->heaviest[0].name, "template instantiation");
	time_report_free(&r);

	/* Through nvcc -Xcompiler: one table per gcc job; the compile is last. */
	read_report(FIXTURE("timereport/cuda_nvcc13_Xcompiler_ftime-report.txt"), &r);
	assert_int_equal(r.n, 4);
	SECONDS(r.groups[0].phase[PHASE_FRONT_END], 0.10);
	SECONDS(r.groups[3].phase[PHASE_FRONT_END], 0.01 + 0.60 + 0.10);
	SECONDS(r.groups[3].phase[PHASE_CODEGEN], 0.23);
	SECONDS(r.groups[3].total, 0.94);
	time_report_free(&r);
}

static void test_missing_and_garbage(void **state)
{
	(void)state;
	struct time_report r;
	char *err = NULL;
	timereport_read("/nonexistent/report", &r, &err);
	assert_non_null(strstr(err, "cannot read"));
	free(err);
	/* Compiler chatter and a report cut off before its closing table:
	 * nothing is made up. */
	char *path = write_temp("warning: x\n===---===\n  Pass execution timing report\n===---===\n"
				"   ---User Time---   ---Wall Time---  --- Name ---\n"
				"   0.5 (100.0%)   0.6 (100.0%)  Total\n");
	assert_ok(timereport_read(path, &r, &unit_err));
	assert_int_equal(r.n, 0);
	time_report_free(&r);
	unlink(path);
	free(path);
}

/* strtod takes "inf", "nan", hex and signs; no compiler prints them, so
 * such a row is not read, and huge values cannot add up to infinity. */
static void test_not_a_number(void **state)
{
	(void)state;
	struct time_report r;
	char *path = write_temp("Time variable      usr           sys          wall           GGC\n"
				" phase setup      :   0.00 (  0%)   0.00 (  0%)   4e6 (  0%)  1k (  0%)\n"
				" phase parsing    :   1.00 ( 50%)   0.00 (  0%)   4e6 ( 50%)  1k (  0%)\n"
				" phase lang. deferred : 0.00 ( 0%)  0.00 ( 0%)   1e308 ( 0%)  1k ( 0%)\n"
				" phase opt and generate : 0.00 ( 0%) 0.00 ( 0%)  inf ( 0%)  1k ( 0%)\n"
				" template instantiation : 0.00 ( 0%) 0.00 ( 0%)  nan ( 0%)  1k ( 0%)\n"
				" name lookup      :   0.00 (  0%)   0.00 (  0%)  0x1p3 (  0%)  1k (  0%)\n"
				" overload resolution : 0.00 ( 0%)  0.00 ( 0%)  -2.00 ( 0%)  1k ( 0%)\n"
				" TOTAL            :   1.00         0.00        8e6            1k\n"
				"\n===---===\n  Clang time report\n===---===\n"
				"   ---User Time---   ---Wall Time---  --- Name ---\n"
				"   0.1 ( 50.0%)   infinity ( 50.0%)  Front end\n"
				"   0.1 ( 50.0%)   0.25 ( 50.0%)  Optimizer\n"
				"   0.2 (100.0%)   0.50 (100.0%)  Total\n");
	assert_ok(timereport_read(path, &r, &unit_err));
	assert_int_equal(r.n, 2);
	SECONDS(r.groups[0].phase[PHASE_FRONT_END], 8e6);
	SECONDS(r.groups[0].phase[PHASE_CODEGEN], 0);
	assert_true(isnan(r.groups[0].template_instantiation));
	SECONDS(r.groups[0].total, 8e6);
	assert_int_equal(r.groups[0].nheaviest, 0);
	SECONDS(r.groups[1].phase[PHASE_FRONT_END], 0);
	SECONDS(r.groups[1].phase[PHASE_OPTIMIZER], 0.25);
	SECONDS(r.groups[1].total, 0.5);
	time_report_free(&r);
	unlink(path);
	free(path);
}

static void test_nvcc_time_csv(void **state)
{
	(void)state;
	struct nvcc_time t;
	assert_ok(nvcc_time_read(FIXTURE("timereport/cuda_nvcc13_time.csv"), &t, &unit_err));
	assert_int_equal(t.n, 2);	/* two compiles appended to one file */
	assert_int_equal(t.runs[0].n, 11);
	assert_int_equal(t.runs[1].n, 8);
	assert_string_equal(t.runs[0].jobs[0].phase, "gcc (preprocessing 4)");
	assert_string_equal(t.runs[0].jobs[0].arch, "");
	SECONDS(t.runs[0].jobs[0].seconds, 0.2438760);
	assert_string_equal(t.runs[0].jobs[3].phase, "cicc");
	assert_string_equal(t.runs[0].jobs[3].arch, "compute_80");
	SECONDS(t.runs[0].jobs[3].seconds, 0.7526290);
	assert_string_equal(t.runs[0].jobs[4].arch, "sm_80");
	SECONDS(t.runs[0].jobs[9].seconds, 1.0911851);
	assert_string_equal(t.runs[0].jobs[10].phase, "nvcc (driver)");
	nvcc_time_free(&t);

	assert_ok(nvcc_time_read(FIXTURE("timereport/torch211_kern_nvcc_time.csv"), &t, &unit_err));
	assert_int_equal(t.n, 1);
	SECONDS(t.runs[0].jobs[3].seconds, 21.0666016);
	nvcc_time_free(&t);
	assert_ok(nvcc_time_read(FIXTURE("timereport/cuda_nvcc13_genkernel_time.csv"), &t, &unit_err));
	assert_true(t.n >= 1);
	nvcc_time_free(&t);

	char *path = write_temp("source file name , phase name , a , b , arch , tool, metric , unit\nx , cicc , y\n");
	char *err = NULL;
	nvcc_time_read(path, &t, &err);
	assert_string_equal(err, "2: expected 8 comma-separated fields ending in a time and 'ms'");
	free(err);
	unlink(path);
	free(path);
}

static void test_nvcc_trace(void **state)
{
	(void)state;
	struct nvcc_trace t;
	assert_ok(nvcc_trace_read(FIXTURE("timereport/cuda_nvcc13_fdevice-time-trace.json"), &t, &unit_err));
	assert_int_equal(t.n, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct nvcc_device_phases *d = &t.archs[i];
		bool sm80 = !strcmp(d->arch, "compute_80");
		assert_true(sm80 || !strcmp(d->arch, "compute_90"));
		SECONDS(d->cicc[PHASE_FRONT_END], sm80 ? 0.404067 : 0.520035);
		SECONDS(d->cicc[PHASE_IR_GEN], sm80 ? 0.001909 : 0.002297);
		SECONDS(d->cicc[PHASE_OPTIMIZER], sm80 ? 0.026861 : 0.035972);
		SECONDS(d->cicc[PHASE_CODEGEN], sm80 ? 0.010285 : 0.012617);
		SECONDS(d->ptxas, sm80 ? 0.037111 : 0.065714);
	}
	nvcc_trace_free(&t);
	char *path = write_temp("{\"traceEvents\": [\n{\"ph\": \"X\",,}\n]}");
	char *err = NULL;
	nvcc_trace_read(path, &t, &err);
	assert_non_null(err);
	assert_true(has_prefix(err, "2:"));
	free(err);
	unlink(path);
	free(path);
	/* A thread named after its events still names them; a huge duration
	 * is clamped, not summed to infinity. */
	path = write_temp("[{\"ph\":\"X\",\"name\":\"NVVM Optimizer\",\"pid\":3,\"tid\":4,\"ts\":0,\"dur\":250000},"
			  "{\"ph\":\"X\",\"name\":\"Total PTXAS Time\",\"pid\":3,\"tid\":4,\"ts\":0,\"dur\":1e300},"
			  "{\"ph\":\"X\",\"name\":\"Total PTXAS Time\",\"pid\":3,\"tid\":4,\"ts\":0,\"dur\":1e300},"
			  "{\"ph\":\"X\",\"name\":\"NVVM CodeGen\",\"pid\":9,\"tid\":9,\"ts\":0,\"dur\":7},"
			  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":3,\"tid\":4,"
			  "\"args\":{\"name\":\"k.cu [compute_90]\"}}]");
	assert_ok(nvcc_trace_read(path, &t, &unit_err));
	assert_int_equal(t.n, 1);
	assert_string_equal(t.archs[0].arch, "compute_90");
	SECONDS(t.archs[0].cicc[PHASE_OPTIMIZER], 0.25);
	SECONDS(t.archs[0].cicc[PHASE_CODEGEN], 0);
	SECONDS(t.archs[0].ptxas, 2 * (double)TRACE_TIME_LIMIT_US / 1e6);	/* clamped, as trace does */
	nvcc_trace_free(&t);
	unlink(path);
	free(path);
	const char *bracketed = "k[1].cu [compute_80]";
	struct trace_str arch = nvcc_thread_arch((struct trace_str){ bracketed, strlen(bracketed) });
	assert_int_equal(arch.len, 10);
	assert_memory_equal(arch.s, "compute_80", 10);
	assert_null(nvcc_thread_arch((struct trace_str){ "k.cu", 4 }).s);
	assert_null(nvcc_thread_arch((struct trace_str){ "k.cu [", 6 }).s);
	err = NULL;
	nvcc_trace_read("/nonexistent/trace.json", &t, &err);
	assert_string_equal(err, "1: cannot read it: No such file or directory");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clang19_formula), cmocka_unit_test(test_clang22_labeled),
		cmocka_unit_test(test_clang15_19_hipcc), cmocka_unit_test(test_gcc),
		cmocka_unit_test(test_missing_and_garbage), cmocka_unit_test(test_not_a_number),
		cmocka_unit_test(test_nvcc_time_csv),
		cmocka_unit_test(test_nvcc_trace),
	};
	return cmocka_run_group_tests_name("timereport", tests, NULL, NULL);
}
