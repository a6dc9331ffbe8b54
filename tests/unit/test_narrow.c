/* Narrowing torch's umbrella headers: which are umbrellas, and the
 * narrowest entry headers a TU's code needs, with the change it takes. */
#include "unit.h"
#include "narrow.h"

static struct strvec headers_of(const char *a, const char *b)
{
	struct strvec v = { 0 };
	strvec_push(&v, a);
	if (b)
		strvec_push(&v, b);
	return v;
}

static void test_umbrellas(void **state)
{
	(void)state;
	assert_true(narrow_is_umbrella("<torch/extension.h>"));
	assert_true(narrow_is_umbrella("\"torch/torch.h\""));
	assert_true(narrow_is_umbrella("<ATen/ATen.h>"));
	assert_false(narrow_is_umbrella("<ATen/core/Tensor.h>"));
	assert_false(narrow_is_umbrella("<torch/extension.h\""));
	assert_false(narrow_is_umbrella("torch/extension.h"));
	assert_false(narrow_is_umbrella("<pybind11/pybind11.h>"));
}

static void test_plans(void **state)
{
	(void)state;
	struct narrowing n;
	struct strvec h = headers_of("<pybind11/pybind11.h>", "<torch/extension.h>");
	/* Tensors alone: <ATen/core/Tensor.h> for every entry header. */
	assert_true(narrow_plan(&h, &(struct source_facts){ .tensor_api = 3 }, &n));
	assert_int_equal(n.headers.n, 1);
	assert_string_equal(n.headers.v[0], "<ATen/core/Tensor.h>");
	assert_null(n.change);
	assert_null(n.why_not);
	narrowing_free(&n);
	/* torch::Tensor is the umbrella's alias: said as a change. */
	assert_true(narrow_plan(&h, &(struct source_facts){ .tensor_api = 2, .torch_aliases = 1 }, &n));
	assert_string_equal(n.change, "torch::Tensor becomes at::Tensor (the umbrella's alias)");
	narrowing_free(&n);
	/* The pybind module: registration instead, said as the code change. */
	assert_true(narrow_plan(&h, &(struct source_facts){ .tensor_api = 1, .pybind_module = true }, &n));
	assert_int_equal(n.headers.n, 2);
	assert_string_equal(n.headers.v[0], "<torch/library.h>");
	assert_string_equal(n.headers.v[1], "<ATen/core/Tensor.h>");
	assert_non_null(strstr(n.change, "TORCH_LIBRARY(<namespace>, m) from <torch/library.h> instead of PYBIND11_MODULE"));
	narrowing_free(&n);
	assert_true(narrow_plan(&h, &(struct source_facts){ .registers_ops = true }, &n));
	assert_int_equal(n.headers.n, 2);
	assert_null(n.change);
	narrowing_free(&n);
	/* More than tensors: kept whole, with the first name that needs it. */
	struct source_facts more = { .tensor_api = 1, .beyond_tensor = 2 };
	strcpy(more.first_beyond, "torch::empty");
	assert_true(narrow_plan(&h, &more, &n));
	assert_int_equal(n.headers.n, 0);
	assert_string_equal(n.why_not, "its code uses torch::empty and 1 more names beyond tensors and their registration");
	narrowing_free(&n);
	assert_true(narrow_plan(&h, &(struct source_facts){ 0 }, &n));
	assert_non_null(strstr(n.why_not, "names none of the framework"));
	narrowing_free(&n);
	strvec_clear(&h);
	/* No umbrella: nothing to narrow. */
	h = headers_of("<ATen/core/Tensor.h>", NULL);
	assert_false(narrow_plan(&h, &(struct source_facts){ .tensor_api = 1 }, &n));
	strvec_clear(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_umbrellas),
		cmocka_unit_test(test_plans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
