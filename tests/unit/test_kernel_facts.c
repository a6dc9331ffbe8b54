/* The device compilers' kernel reports, on real output: ptxas -v for the
 * demo's bigtile kernel (nvcc 13, sm_80) and clang-19's
 * kernel-resource-usage remarks for its four instantiations (gfx90a). */
#include "unit.h"
#include "kernel_facts.h"

static void test_ptxas(void **state)
{
	(void)state;
	char *text = read_text_file(FIXTURE("kernels/nvcc13_ptxas_v_bigtile_sm80.txt"));
	assert_non_null(text);
	struct kernel_facts f = { 0 };
	kernel_facts_parse_ptxas(text, &f);
	assert_int_equal(f.n, 1);
	const struct kernel_fact *k = &f.v[0];
	assert_string_equal(k->name, "_ZN53_GLOBAL__N__f730e833_20_opus_gemm_bigtile_cu_7cf2568e7bigtileILi32ELi32ELi12EEEvPKfS2_Pf");
	assert_string_equal(k->arch, "sm_80");
	assert_int_equal(k->registers, 255);
	assert_int_equal(k->stack_bytes, 6872);
	assert_int_equal(k->spill_stores, 42408);
	assert_int_equal(k->spill_loads, 42436);
	assert_int_equal(k->shared_bytes, 0);
	assert_int_equal(k->vgprs, -1);
	assert_int_equal(kernel_fact_spills(k), 42408);
	kernel_facts_free(&f);
	free(text);
}

static void test_ptxas_device_function_and_smem(void **state)
{
	(void)state;
	/* A device function's properties are not a kernel's; smem is read. */
	const char *text =
		"ptxas info    : 0 bytes gmem\n"
		"ptxas info    : Function properties for _Z6helperv\n"
		"    16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
		"ptxas info    : Compiling entry function '_Z1kPf' for 'sm_90'\n"
		"ptxas info    : Function properties for _Z1kPf\n"
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Used 32 registers, 4096 bytes smem, 380 bytes cmem[0]\n";
	struct kernel_facts f = { 0 };
	kernel_facts_parse_ptxas(text, &f);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.v[0].arch, "sm_90");
	assert_int_equal(f.v[0].registers, 32);
	assert_int_equal(f.v[0].shared_bytes, 4096);
	assert_int_equal(f.v[0].spill_stores, 0);
	kernel_facts_free(&f);
}

static void test_amdgpu(void **state)
{
	(void)state;
	char *text = read_text_file(FIXTURE("kernels/clang19_resource_usage_bigtile_gfx90a.txt"));
	assert_non_null(text);
	struct kernel_facts f = { 0 };
	kernel_facts_parse_amdgpu(text, "gfx90a", &f);
	assert_int_equal(f.n, 4);
	const struct kernel_fact *k = &f.v[0];
	assert_string_equal(k->name, "_ZN12_GLOBAL__N_17bigtileILi32ELi32ELi8EEEvPKfS2_Pf");
	assert_string_equal(k->arch, "gfx90a");
	assert_int_equal(k->sgprs, 16);
	assert_int_equal(k->vgprs, 128);
	assert_int_equal(k->agprs, 0);
	assert_int_equal(k->stack_bytes, 8064);
	assert_int_equal(k->occupancy, 4);
	assert_int_equal(k->sgpr_spills, 0);
	assert_int_equal(k->vgpr_spills, 8106);
	assert_int_equal(k->shared_bytes, 0);
	assert_int_equal(k->registers, -1);
	/* The worst: the 12-deep unroll, 12,254 VGPRs spilled. */
	const struct kernel_fact *w = kernel_facts_worst(&f);
	assert_string_equal(w->name, "_ZN12_GLOBAL__N_17bigtileILi32ELi32ELi12EEEvPKfS2_Pf");
	assert_int_equal(kernel_fact_spills(w), 12254);
	kernel_facts_free(&f);
	free(text);
}

static void test_nothing_reported(void **state)
{
	(void)state;
	struct kernel_facts f = { 0 };
	kernel_facts_parse_ptxas("nvcc warning : something\n", &f);
	kernel_facts_parse_amdgpu("x.hip:1:1: remark: not ours [-Rpass=inline]\n", "gfx942", &f);
	assert_int_equal(f.n, 0);
	assert_null(kernel_facts_worst(&f));
	kernel_facts_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ptxas),
		cmocka_unit_test(test_ptxas_device_function_and_smem),
		cmocka_unit_test(test_amdgpu),
		cmocka_unit_test(test_nothing_reported),
	};
	return cmocka_run_group_tests_name("kernel_facts", tests, NULL, NULL);
}
