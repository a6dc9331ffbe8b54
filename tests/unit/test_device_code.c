/* Device code sizes from real device objects compiled here from
 * fixtures/kernels/axpy.{hip,cu}: clang-19's offload bundle for gfx90a
 * (readelf on the unbundled code object: .text 0x480, axpy 84 bytes) and
 * nvcc 13's sm_80 cubin (.text.axpy 0x180 = axpy's 384 bytes); and objects
 * that are not what they claim. */
#include "unit.h"
#include "device_code.h"
#include "kernel_facts.h"

static void test_amdgpu_bundle(void **state)
{
	(void)state;
	struct device_code c;
	assert_ok(device_code_read(FIXTURE("kernels/axpy_gfx90a.bundle"), "gfx90a", &c, &unit_err));
	assert_int_equal(c.text_bytes, 0x480);
	assert_int_equal(device_code_function(&c, "axpy"), 84);
	assert_int_equal(device_code_function(&c, "missing"), 0);
	device_code_free(&c);
	char *err = NULL;
	device_code_read(FIXTURE("kernels/axpy_gfx90a.bundle"), "gfx942", &c, &err);
	assert_string_equal(err, "the offload bundle has no device code for gfx942");
	free(err);
}

static void test_cubin(void **state)
{
	(void)state;
	struct device_code c;
	assert_ok(device_code_read(FIXTURE("kernels/axpy_sm80.cubin"), NULL, &c, &unit_err));
	assert_int_equal(c.text_bytes, 384);
	assert_int_equal(device_code_function(&c, "axpy"), 384);
	/* a kernel's facts get its size, per arch */
	struct kernel_facts f = { 0 };
	kernel_facts_parse_ptxas("ptxas info    : Compiling entry function 'axpy' for 'sm_80'\n"
				 "ptxas info    : Used 10 registers, 380 bytes cmem[0]\n", &f);
	kernel_facts_add_code(&f, "sm_90", &c);
	assert_int_equal(f.v[0].code_bytes, -1);
	kernel_facts_add_code(&f, "sm_80", &c);
	assert_int_equal(f.v[0].code_bytes, 384);
	assert_int_equal(f.ncode, 2);
	assert_string_equal(f.code[1].arch, "sm_80");
	assert_int_equal(f.code[1].text_bytes, 384);
	kernel_facts_free(&f);
	device_code_free(&c);
}

static void test_not_device_code(void **state)
{
	(void)state;
	struct device_code c;
	char *path = write_temp("not an object at all");
	char *err = NULL;
	device_code_read(path, NULL, &c, &err);
	assert_string_equal(err, "not an ELF file");
	free(err);
	unlink(path);
	free(path);
	/* a real cubin cut short: its section headers are past the end */
	char *text = NULL;
	size_t len = 0;
	FILE *in = fopen(FIXTURE("kernels/axpy_sm80.cubin"), "rb");
	assert_non_null(in);
	text = xmalloc(4096);
	len = fread(text, 1, 1000, in);
	fclose(in);
	char *cut = xasprintf("%s/cut.cubin", tmpdir_path());
	FILE *out = fopen(cut, "wb");
	assert_non_null(out);
	fwrite(text, 1, len, out);
	fclose(out);
	err = NULL;
	device_code_read(cut, NULL, &c, &err);
	assert_string_equal(err, "its section headers lie outside the file");
	free(err);
	free(text);
	free(cut);
	err = NULL;
	device_code_read(FIXTURE("kernels/no-such.o"), NULL, &c, &err);
	assert_string_equal(err, "No such file or directory");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amdgpu_bundle),
		cmocka_unit_test(test_cubin),
		cmocka_unit_test(test_not_device_code),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	tmpdir_remove();
	return failed;
}
