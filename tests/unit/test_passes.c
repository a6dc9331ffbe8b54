#include "unit.h"
#include "passes.h"

#include <math.h>

/* A job list built by hand: pass, arch, tool, wall and phases. */
struct spec {
	enum pass_kind pass;
	const char *arch, *tool;
	double wall, fe, ir, opt, cg;
};

static void build(const struct spec *s, size_t n, const struct thresholds *t, struct job_list *jobs,
		  struct job_time **times, struct breakdown *b)
{
	*jobs = (struct job_list){ xcalloc(n, sizeof(struct job)), n };
	*times = xcalloc(n, sizeof(struct job_time));
	for (size_t i = 0; i < n; i++) {
		jobs->v[i].pass = s[i].pass;
		jobs->v[i].arch = s[i].arch ? xstrdup(s[i].arch) : NULL;
		jobs->v[i].tool = xstrdup(s[i].tool);
		strvec_push(&jobs->v[i].argv, s[i].tool);
		struct job_time *jt = &(*times)[i];
		jt->wall = s[i].wall;
		const double ph[NPHASES] = { s[i].fe, s[i].ir, s[i].opt, s[i].cg };
		memcpy(jt->phase, ph, sizeof(ph));
	}
	breakdown_build(jobs, *times, t, b);
}

static const struct thresholds playbook = { 5.0, 0.7 };

/* nvcc's jobs: compute_80 (gcc -E, cicc) and sm_80 (ptxas) are one pass,
 * named by the real GPU; fatbinary is "other". */
static void test_device_dominant_nvcc(void **state)
{
	(void)state;
	const struct spec s[] = {
		{ PASS_DEVICE, "compute_80", "gcc -E", 0.3, 0.3, NAN, NAN, NAN },
		{ PASS_HOST, NULL, "gcc -E", 0.2, 0.2, NAN, NAN, NAN },
		{ PASS_HOST, NULL, "cudafe++", 0.5, 0.5, NAN, NAN, NAN },
		{ PASS_DEVICE, "compute_80", "cicc", 4.0, 0.2, 0.0, 3.0, 0.3 },
		{ PASS_DEVICE, "sm_80", "ptxas", 16.0, NAN, NAN, NAN, 16.0 },
		{ PASS_OTHER, NULL, "fatbinary", 0.01, NAN, NAN, NAN, NAN },
		{ PASS_HOST, NULL, "gcc", 0.7, 0.6, NAN, NAN, 0.05 },
	};
	struct job_list jobs;
	struct job_time *times;
	struct breakdown b;
	build(s, 7, &playbook, &jobs, &times, &b);
	assert_int_equal(b.n, 3);
	assert_int_equal(b.passes[0].kind, PASS_HOST);
	assert_int_equal(b.passes[0].njobs, 3);
	assert_float_equal(b.passes[0].seconds, 1.4, 1e-6);
	assert_float_equal(b.passes[0].phase[PHASE_FRONT_END], 1.3, 1e-6);
	assert_float_equal(b.passes[0].other, 1.4 - 1.3 - 0.05, 1e-6);
	assert_int_equal(b.passes[1].kind, PASS_DEVICE);
	assert_string_equal(b.passes[1].arch, "sm_80");
	assert_float_equal(b.passes[1].seconds, 20.3, 1e-6);
	assert_float_equal(b.passes[1].phase[PHASE_CODEGEN], 16.3, 1e-6);
	assert_int_equal(b.passes[2].kind, PASS_OTHER);
	assert_float_equal(b.jobs_sum, 21.71, 1e-6);
	assert_int_equal(b.verdict.kind, VERDICT_DEVICE);
	assert_true(b.verdict.device_crossed);
	assert_false(b.verdict.host_crossed);
	assert_float_equal(b.verdict.device_codegen_share, 16.3 / 20.3, 1e-6);
	assert_ptr_equal(b.verdict.heaviest, &b.passes[1]);
	breakdown_free(&b);
	job_list_free(&jobs);
	free(times);
}

static void verdict_of(const struct spec *s, size_t n, const struct thresholds *t, struct verdict *v)
{
	struct job_list jobs;
	struct job_time *times;
	struct breakdown b;
	build(s, n, t, &jobs, &times, &b);
	*v = b.verdict;
	v->heaviest = v->device_pass = NULL;	/* point into b */
	breakdown_free(&b);
	job_list_free(&jobs);
	free(times);
}

/* HIP: per arch cc1 + lld; the host pass parses the framework. */
static void test_host_dominant_and_thresholds(void **state)
{
	(void)state;
	const struct spec s[] = {
		{ PASS_DEVICE, "gfx90a", "cc1", 4.0, 3.5, 0.05, 0.1, 0.3 },
		{ PASS_DEVICE, "gfx90a", "lld", 0.1, NAN, NAN, NAN, NAN },
		{ PASS_DEVICE, "gfx942", "cc1", 4.2, 3.6, 0.05, 0.1, 0.4 },
		{ PASS_DEVICE, "gfx942", "lld", 0.1, NAN, NAN, NAN, NAN },
		{ PASS_OTHER, NULL, "offload bundler", 0.05, NAN, NAN, NAN, NAN },
		{ PASS_HOST, NULL, "cc1", 9.0, 7.5, 0.3, 0.8, 0.4 },
	};
	struct verdict v;
	verdict_of(s, 6, &playbook, &v);
	assert_int_equal(v.kind, VERDICT_HOST);
	assert_float_equal(v.host_front_end, 7.5, 1e-6);
	assert_float_equal(v.device_codegen_share, 0.4 / 4.3, 1e-6);
	assert_float_equal(v.heaviest_share, 9.0 / 17.45, 1e-6);

	assert_int_equal(v.phase, PHASE_FRONT_END);
	assert_float_equal(v.phase_share, 7.5 / 9.0, 1e-6);

	/* The marks move; the answer does not: the host pass holds 52 % of
	 * the time, its front end 83 % of that. */
	const struct thresholds strict = { 8.0, 0.7 };
	verdict_of(s, 6, &strict, &v);
	assert_int_equal(v.kind, VERDICT_HOST);
	assert_false(v.host_crossed || v.device_crossed);
	const struct thresholds both = { 5.0, 0.05 };
	verdict_of(s, 6, &both, &v);
	assert_int_equal(v.kind, VERDICT_HOST);
	assert_true(v.host_crossed && v.device_crossed);
}

/* Two archs split a kernel's device time in halves: the device passes
 * together hold the majority, and the heaviest of them is named. */
static void test_device_side(void **state)
{
	(void)state;
	const struct spec s[] = {
		{ PASS_DEVICE, "gfx90a", "cc1", 4.0, 1.0, 0.1, 0.4, 2.5 },
		{ PASS_DEVICE, "gfx942", "cc1", 4.2, 1.0, 0.1, 0.4, 2.7 },
		{ PASS_HOST, NULL, "cc1", 4.0, 3.5, 0.1, 0.2, 0.2 },
	};
	struct verdict v;
	verdict_of(s, 3, &playbook, &v);
	assert_int_equal(v.kind, VERDICT_DEVICE);
	assert_float_equal(v.heaviest_share, 8.2 / 12.2, 1e-6);
	assert_int_equal(v.phase, PHASE_CODEGEN);
	assert_float_equal(v.phase_share, 2.7 / 4.2, 1e-6);

	/* Most of the time outside either (a slow bundler, say): mixed. */
	const struct spec o[] = {
		{ PASS_DEVICE, "gfx90a", "cc1", 1.0, 0.5, 0.1, 0.1, 0.3 },
		{ PASS_OTHER, NULL, "offload bundler", 5.0, NAN, NAN, NAN, NAN },
		{ PASS_HOST, NULL, "cc1", 1.0, 0.8, 0.1, 0.05, 0.05 },
	};
	verdict_of(o, 3, &playbook, &v);
	assert_int_equal(v.kind, VERDICT_MIXED);
	assert_int_equal(v.phase, -1);
}

/* A plain C++ TU: a host pass only; no device share to judge. */
static void test_host_only(void **state)
{
	(void)state;
	const struct spec s[] = {
		{ PASS_HOST, NULL, "cc1plus", 6.0, 5.5, NAN, NAN, 0.4 },
		{ PASS_HOST, NULL, "as", 0.1, NAN, NAN, NAN, NAN },
	};
	struct verdict v;
	verdict_of(s, 2, &playbook, &v);
	assert_int_equal(v.kind, VERDICT_HOST);
	assert_true(isnan(v.device_codegen_share));
	assert_string_equal(verdict_name(v.kind), "host");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_dominant_nvcc),
		cmocka_unit_test(test_host_dominant_and_thresholds),
		cmocka_unit_test(test_host_only),
		cmocka_unit_test(test_device_side),
	};
	return cmocka_run_group_tests_name("passes", tests, NULL, NULL);
}
