/* The trace model on real traces: clang 19's replayed cc1 jobs (host and
 * gfx90a), clang 15's driver traces (one file per job) and nvcc 13's
 * -fdevice-time-trace (two archs). Values were read off the files with
 * Python's json and checked by hand; self times must add up to the
 * outermost entries' time. */
#include "unit.h"
#include "trace_model.h"

static const struct trace_pass *pass_named(const struct trace_model *m, const char *name)
{
	for (size_t p = 0; p < m->npasses; p++)
		if (!strcmp(m->passes[p].name, name))
			return &m->passes[p];
	fail_msg("no pass %s", name);
	return NULL;
}

static const struct trace_row *row_named(const struct trace_model *m, enum trace_table t, const char *pass,
					 const char *name)
{
	for (size_t i = 0; i < m->nrows[t]; i++)
		if (!strcmp(m->passes[m->rows[t][i].pass].name, pass) && !strcmp(m->rows[t][i].name, name))
			return &m->rows[t][i];
	fail_msg("no %s row %s in %s", trace_table_names[t], name, pass);
	return NULL;
}

static void read_model(struct trace_model *m, const char *const *paths, size_t n, long jobs)
{
	struct trace_input in[8] = { 0 };
	trace_model_init(m);
	for (size_t i = 0; i < n; i++)
		in[i].path = paths[i];
	trace_model_read(m, in, n, jobs);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(in[i].result, TRACE_SCAN_OK);
		trace_input_clear(&in[i]);
	}
	trace_model_finish(m);
}

/* Every pass: its headers' self times sum to its outermost headers' time,
 * and its templates' (and template sets') to its outermost instantiations'. */
static void assert_self_adds_up(const struct trace_model *m)
{
	for (size_t p = 0; p < m->npasses; p++) {
		int64_t headers = 0, templates = 0, sets = 0;
		for (size_t i = 0; i < m->nrows[TRACE_HEADERS]; i++)
			headers += m->rows[TRACE_HEADERS][i].pass == p ? m->rows[TRACE_HEADERS][i].self_us : 0;
		for (size_t i = 0; i < m->nrows[TRACE_TEMPLATES]; i++)
			templates += m->rows[TRACE_TEMPLATES][i].pass == p ? m->rows[TRACE_TEMPLATES][i].self_us : 0;
		for (size_t i = 0; i < m->nrows[TRACE_TEMPLATE_SETS]; i++)
			sets += m->rows[TRACE_TEMPLATE_SETS][i].pass == p ? m->rows[TRACE_TEMPLATE_SETS][i].self_us : 0;
		assert_int_equal(headers, m->passes[p].source_us);
		assert_int_equal(templates, m->passes[p].templates_us);
		assert_int_equal(sets, m->passes[p].templates_us);
	}
}

static void test_clang19_replayed_jobs(void **state)
{
	(void)state;
	const char *paths[] = { FIXTURE("traces/clang19_replay-gfx90a.json"), FIXTURE("traces/clang19_replay-host.json") };
	struct trace_model m;
	read_model(&m, paths, 2, 2);
	assert_int_equal(m.files, 2);
	assert_int_equal(m.events, 1110 + 973);
	assert_int_equal(m.npasses, 2);
	assert_string_equal(m.passes[0].name, "host");	/* host first */
	const struct trace_pass *dev = pass_named(&m, "device gfx90a");
	assert_int_equal(dev->tus, 1);
	assert_int_equal(dev->total_us, 1186856);	/* ExecuteCompiler */
	assert_int_equal(dev->front_end_us, 1093871);	/* two Frontend spans, one after the other */
	assert_int_equal(dev->backend_us, 70969);
	assert_int_equal(dev->source_us, 1017073);
	assert_int_equal(dev->templates_us, 167135);
	/* the biggest header, with the chain of the one below it */
	const struct trace_row *top = &m.rows[TRACE_HEADERS][0];
	assert_string_equal(m.passes[top->pass].name, "device gfx90a");
	assert_string_equal(top->name, "/usr/lib/llvm-19/lib/clang/19/include/__clang_hip_runtime_wrapper.h");
	assert_int_equal(top->inclusive_us, 819916);
	assert_int_equal(top->self_us, 2327);
	assert_int_equal(top->nchains, 1);
	assert_string_equal(top->chains[0].via, "");
	const struct trace_row *complex = row_named(&m, TRACE_HEADERS, "device gfx90a",
						    "/usr/lib/llvm-19/lib/clang/19/include/cuda_wrappers/complex");
	assert_int_equal(complex->inclusive_us, 417497);
	assert_int_equal(complex->self_us, 295);
	assert_string_equal(complex->chains[0].via, "/usr/lib/llvm-19/lib/clang/19/include/__clang_hip_runtime_wrapper.h");
	/* templates and their sets */
	const struct trace_row *set = row_named(&m, TRACE_TEMPLATE_SETS, "host", "HIP_vector_type<$>");
	assert_int_equal(set->count, 35);
	assert_int_equal(set->inclusive_us, 37245);
	assert_int_equal(set->self_us, 23224);
	const struct trace_row *up = row_named(&m, TRACE_TEMPLATES, "host", "std::unique_ptr<std::thread::_State>");
	assert_int_equal(up->inclusive_us, 28863);
	assert_int_equal(up->self_us, 7945);
	/* functions: optimizer (OptFunction) and codegen (CodeGen Function) apart */
	const struct trace_row *launch = row_named(&m, TRACE_FUNCTIONS, "host", "axpy_launch");
	assert_int_equal(launch->count, 2);
	assert_int_equal(launch->inclusive_us, 13518);
	assert_int_equal(launch->optimize_us, 12972);
	assert_int_equal(launch->self_us, 546);
	assert_self_adds_up(&m);
	/* one TU row per file and pass */
	assert_int_equal(m.ntus, 2);
	assert_string_equal(m.tus[0].pass, "device gfx90a");
	assert_int_equal(m.tus[0].total_us, 1186856);
	trace_model_free(&m);
}

static void test_clang15_driver_traces(void **state)
{
	(void)state;
	/* Source as complete events (ph X) rather than b/e pairs */
	const char *paths[] = { FIXTURE("traces/clang15_driver_kern.json"), FIXTURE("traces/clang15_driver_kern-gfx940.json") };
	struct trace_model m;
	read_model(&m, paths, 2, 1);
	const struct trace_pass *host = pass_named(&m, "host"), *dev = pass_named(&m, "device gfx940");
	assert_int_equal(host->total_us, 805514);
	assert_int_equal(host->front_end_us, 722867);
	assert_int_equal(host->source_us, 679709);
	assert_int_equal(dev->total_us, 824407);
	assert_int_equal(dev->source_us, 711828);
	const struct trace_row *hip = row_named(&m, TRACE_HEADERS, "device gfx940", "/usr/include/hip/hip_runtime.h");
	assert_int_equal(hip->inclusive_us, 711828);
	assert_int_equal(hip->self_us, 567);
	const struct trace_row *amd = row_named(&m, TRACE_HEADERS, "host", "/usr/include/hip/amd_detail/amd_hip_runtime.h");
	assert_int_equal(amd->inclusive_us, 547870);
	assert_string_equal(amd->chains[0].via, "/usr/include/hip/hip_runtime.h");
	assert_self_adds_up(&m);
	trace_model_free(&m);
}

static void test_nvcc_device_trace(void **state)
{
	(void)state;
	const char *paths[] = { FIXTURE("timereport/cuda_nvcc13_fdevice-time-trace.json") };
	struct trace_model m;
	read_model(&m, paths, 1, 1);
	assert_int_equal(m.npasses, 3);
	/* compute_80 (cicc) and sm_80 (ptxas) are one pass */
	const struct trace_pass *host = pass_named(&m, "host"), *sm80 = pass_named(&m, "device sm_80"),
				*sm90 = pass_named(&m, "device sm_90");
	/* the host: cudafe++, gcc's host preprocessing and compile, fatbinary; gcc traces nothing finer */
	assert_int_equal(host->total_us, 432258 + 188200 + 792403 + 3937);
	assert_true(host->front_end_us == TRACE_UNKNOWN);
	assert_int_equal(host->source_us, 0);
	/* a device pass: its preprocessing and cicc's front end, then LibNVVM and ptxas */
	assert_int_equal(sm80->front_end_us, 196000 + 404067);
	assert_int_equal(sm80->backend_us, 51354 + 37111);
	assert_int_equal(sm80->total_us, 688532);
	assert_int_equal(sm80->source_us, 286073);
	assert_int_equal(sm90->total_us, 800858);
	const struct trace_row *rt = row_named(&m, TRACE_HEADERS, "device sm_90",
					       "/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h");
	assert_int_equal(rt->inclusive_us, 306025);
	assert_int_equal(rt->self_us, 2554);
	const struct trace_row *math = row_named(&m, TRACE_HEADERS, "device sm_80",
						 "/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/math_functions.h");
	assert_int_equal(math->inclusive_us, 184648);
	assert_int_equal(math->self_us, 13907);
	assert_string_equal(math->chains[0].via, "/usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_runtime.h > "
						 "/usr/local/cuda/bin/../targets/x86_64-linux/include/crt/common_functions.h");
	/* nvcc names a template "set [instance]" */
	const struct trace_row *hyperg = row_named(&m, TRACE_TEMPLATES, "device sm_90",
						   "std::__detail::__hyperg<float>(float, float, float, float)");
	assert_int_equal(hyperg->inclusive_us, 20647);
	assert_int_equal(hyperg->self_us, 1021);
	row_named(&m, TRACE_TEMPLATE_SETS, "device sm_90", "std::__detail::__hyperg");
	/* NVVM's phases, each once */
	bool found = false;
	for (size_t k = 0; k < sm80->nphases; k++)
		if (!strcmp(sm80->phases[k].name, "NVVM Optimizer")) {
			assert_int_equal(sm80->phases[k].us, 26861);
			found = true;
		}
	assert_true(found);
	assert_self_adds_up(&m);
	trace_model_free(&m);
}

static void test_pass_from_name(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{ "kern.json", "host" },
		{ "/x/kern-gfx90a.json", "device gfx90a" },
		{ "device-amdgcn-amd-amdhsa-gfx942.json", "device gfx942" },
		{ "host-x86_64-pc-linux-gnu-x86-64.json", "host" },
		{ "a_sm_90a.json", "device sm_90a" },
		{ "gfx.json", "host" },
		{ "mygfx90a.json", "host" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *p = trace_pass_from_name(cases[i][0]);
		assert_string_equal(p, cases[i][1]);
		free(p);
	}
}

static void test_template_set(void **state)
{
	(void)state;
	const char *cases[][2] = {
		{ "std::vector<int, std::allocator<int>>", "std::vector<$>" },
		{ "a<b<c>>::f<d>", "a<$>::f<$>" },
		{ "std::less<void>::operator<", "std::less<$>::operator<" },
		{ "S::operator<<<int>", "S::operator<<<int>" },
		{ "plain", "plain" },
		{ "x<>", "x<$>" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = trace_template_set(cases[i][0], strlen(cases[i][0]));
		assert_string_equal(s, cases[i][1]);
		free(s);
	}
}

/* A trace without a process (no pass, no TU) is read and counted, beside
 * a real one: nothing is added for it. */
static void test_trace_without_a_pass(void **state)
{
	(void)state;
	char *empty = write_temp("{\"traceEvents\":[]}");
	const char *paths[] = { empty, FIXTURE("traces/clang19_replay-host.json") };
	struct trace_model m;
	read_model(&m, paths, 1, 1);
	assert_int_equal(m.files, 1);
	assert_int_equal(m.ntus, 0);
	assert_int_equal(m.npasses, 0);
	trace_model_free(&m);
	read_model(&m, paths, 2, 2);
	assert_int_equal(m.files, 2);
	assert_true(m.ntus > 0);
	trace_model_free(&m);
	remove(empty);
	free(empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clang19_replayed_jobs),
		cmocka_unit_test(test_clang15_driver_traces),
		cmocka_unit_test(test_nvcc_device_trace),
		cmocka_unit_test(test_pass_from_name),
		cmocka_unit_test(test_template_set),
		cmocka_unit_test(test_trace_without_a_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
