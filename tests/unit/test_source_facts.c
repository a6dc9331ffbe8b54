/* A TU's role from its text: kernels defined or launched, the binding,
 * and a dispatcher that names the framework only as Tensor. */
#include "unit.h"
#include "source_facts.h"

static struct source_facts scan(const char *text)
{
	struct source_facts f = { 0 };
	source_facts_scan(text, strlen(text), &f);
	return f;
}

static void test_kernels(void **state)
{
	(void)state;
	assert_true(scan("template <int K>\n__global__ void gemm(float *c) {}\n").defines_kernel);
	assert_true(scan("void run() { k<<<1, 64>>>(p); }\n").launches_kernel);
	/* A prologue that defines the word, comments and strings are no kernel. */
	struct source_facts f = scan("#define __global__ __attribute__((global))\n"
				     "#  define LAUNCH(k) k<<<1, 1>>>() \\\n   __global__\n"
				     "// __global__ void old();\n/* k<<<1,1>>>(); __global__ */\n"
				     "const char *s = \"__global__ <<<\";\nint dispatch(int);\n");
	assert_false(f.defines_kernel);
	assert_false(f.launches_kernel);
	/* An identifier that merely contains it. */
	assert_false(scan("int my__global__x;\n").defines_kernel);
}

static void test_binding_and_tensors(void **state)
{
	(void)state;
	assert_true(scan("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"f\", &f); }\n").binds_module);
	assert_true(scan("TORCH_LIBRARY(opus, m) {}\n").binds_module);
	/* A dispatcher with tensors in its signatures only. */
	struct source_facts d = scan("#include <torch/extension.h>\n"
				     "using Fn = std::function<void(torch::Tensor, torch::Tensor)>;\n"
				     "void run(int key, at::Tensor a, torch :: Tensor b) { table.at(key)(a, b); }\n");
	assert_int_equal(d.framework_names, 4);
	assert_int_equal(d.tensor_names, 4);
	assert_true(source_facts_tensor_only(&d));
	assert_false(d.binds_module);
	/* A check macro or another framework name needs the framework. */
	assert_false(source_facts_tensor_only(&(struct source_facts){ 0 }));
	struct source_facts c = scan("void run(torch::Tensor a) { TORCH_CHECK(a.dim() == 2); }\n");
	assert_false(source_facts_tensor_only(&c));
	c = scan("void run(torch::Tensor a) { auto s = at::cuda::getCurrentCUDAStream(); }\n");
	assert_int_equal(c.framework_names, 2);
	assert_false(source_facts_tensor_only(&c));
	/* c10::X inside another scope (my::c10::X) is not the framework. */
	assert_int_equal(scan("int x = my::c10::thing;\n").framework_names, 0);
}

/* What narrowing reads: tensors and their checks, registration, the
 * pybind module, anything beyond; macro bodies count (they expand into
 * code), a role does not come from one. */
static void test_narrow_uses(void **state)
{
	(void)state;
	struct source_facts w = scan("#define WRAP(name) \\\n"
				     "  void name(const at::Tensor &a) { TORCH_CHECK(a.dim() == 2, #name); } \\\n"
				     "  __global__ void k_##name();\n"
				     "void f(torch::Tensor t) { t.data_ptr<float>(); }\n");
	assert_int_equal(w.tensor_api, 3);
	assert_int_equal(w.torch_aliases, 1);
	assert_int_equal(w.beyond_tensor, 0);
	assert_false(w.defines_kernel);
	/* The role counters keep to code outside macros. */
	assert_int_equal(w.framework_names, 1);
	struct source_facts b = scan("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"f\", &f); }\n");
	assert_true(b.pybind_module && b.binds_module && !b.registers_ops);
	assert_int_equal(b.beyond_tensor, 0);
	struct source_facts r = scan("TORCH_LIBRARY(ns, m) { m.def(\"f\", &f); }\nstatic torch::Library *lib;\n");
	assert_true(r.registers_ops && !r.pybind_module);
	assert_int_equal(r.beyond_tensor, 0);
	struct source_facts o = scan("void g(at::Tensor a) { auto s = at::cuda::getCurrentCUDAStream(); "
				     "auto e = torch::empty({1}); py::object x; }\n");
	assert_int_equal(o.beyond_tensor, 3);
	assert_string_equal(o.first_beyond, "at::cuda");
	struct source_facts d = scan("void h() { AT_DISPATCH_FLOATING_TYPES(t, \"h\", [&] {}); }\n");
	assert_string_equal(d.first_beyond, "AT_DISPATCH_FLOATING_TYPES");
	/* Added up over a TU and its headers: the first name beyond stays. */
	struct source_facts sum = { 0 };
	source_facts_add(&sum, &w);
	source_facts_add(&sum, &o);
	source_facts_add(&sum, &d);
	assert_int_equal(sum.beyond_tensor, 4);
	assert_string_equal(sum.first_beyond, "at::cuda");
	assert_int_equal(sum.tensor_api, 4);
}

static void test_file(void **state)
{
	(void)state;
	char *path = write_temp("__global__ void k() {}\n");
	struct source_facts f = { 0 };
	assert_true(source_facts_file(path, &f));
	assert_true(f.defines_kernel);
	remove(path);
	free(path);
	assert_false(source_facts_file("/nonexistent/buildwall/x.cu", &f));
}

/* A text that ends right after "#define" (the fuzzer's find): the scan
 * reads its bytes and none past them (the asan build checks). */
static void test_directive_at_end(void **state)
{
	(void)state;
	char *text = malloc(7);
	memcpy(text, "#define", 7);
	struct source_facts f = { 0 };
	source_facts_scan(text, 7, &f);
	assert_int_equal(f.framework_names, 0);
	assert_int_equal(f.beyond_tensor, 0);
	free(text);
	/* A macro body at the very end still counts; a longer word is no define. */
	static const char body[] = "#define E torch::empty", longer[] = "#defined E torch::empty";
	text = malloc(sizeof(body) - 1);
	memcpy(text, body, sizeof(body) - 1);
	f = (struct source_facts){ 0 };
	source_facts_scan(text, sizeof(body) - 1, &f);
	assert_int_equal(f.beyond_tensor, 1);
	assert_string_equal(f.first_beyond, "torch::empty");
	free(text);
	f = (struct source_facts){ 0 };
	source_facts_scan(longer, sizeof(longer) - 1, &f);
	assert_int_equal(f.beyond_tensor, 0);
}

/* Where a dispatch table may be written: "function<" anywhere, a
 * #define's body and a comment too (the -E for tables is skipped only
 * where no file of the TU says it). */
static void test_names_function(void **state)
{
	(void)state;
	assert_true(scan("static std::unordered_map<int, std::function<void()>> t = {};\n").names_function);
	assert_true(scan("#define TABLE std::map<int, std::function<void()>>\n").names_function);
	assert_false(scan("#include <functional>\nint function(int);\n").names_function);
	struct source_facts to = { 0 }, from = scan("// function<void()>\n");
	source_facts_add(&to, &from);
	assert_true(to.names_function);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernels),
		cmocka_unit_test(test_binding_and_tensors),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_narrow_uses),
		cmocka_unit_test(test_directive_at_end),
		cmocka_unit_test(test_names_function),
	};
	return cmocka_run_group_tests_name("source_facts", tests, NULL, NULL);
}
