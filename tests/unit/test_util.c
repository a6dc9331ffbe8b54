/* grow_array: room for one more, reallocated only at powers of two, and
 * every element kept across the moves; strvec_sorted_has;
 * include_tree_line. */
#include "unit.h"

static void test_grow_array(void **state)
{
	(void)state;
	int *v = NULL;
	size_t n = 0, moves = 0;
	for (; n < 100000; n++) {
		int *before = v;
		v = grow_array(v, n, sizeof(*v));
		if (n & (n - 1))
			assert_ptr_equal(v, before);	/* the room was there */
		moves += v != before;
		v[n] = (int)n;
	}
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i], (int)i);
	assert_true(moves <= 18);	/* 0, 1, 2, 4, ..., 65536 */
	free(v);
}

/* strvec_sorted_has: found after strvec_sort, whatever the order pushed;
 * an empty vector has nothing. */
static void test_sorted_has(void **state)
{
	(void)state;
	struct strvec v = { 0 };
	assert_false(strvec_sorted_has(&v, "a"));
	const char *words[] = { "/usr/include/c10/core/TensorImpl.h", "/usr/include/ATen/Tensor.h", "/usr/include/array",
				"/usr/include/ATen/ATen.h" };
	for (size_t i = 0; i < 4; i++)
		strvec_push(&v, words[i]);
	strvec_sort(&v);
	for (size_t i = 0; i < 4; i++)
		assert_true(strvec_sorted_has(&v, words[i]));
	assert_false(strvec_sorted_has(&v, "/usr/include/ATen/core/Tensor.h"));
	assert_false(strvec_sorted_has(&v, ""));
	strvec_clear(&v);
}

/* include_tree_line: -H's lines give their path and depth (not asked
 * for: NULL); a compiler's message, an ellipsis or a dotted word is none. */
static void test_include_tree_line(void **state)
{
	(void)state;
	char a[] = ".. /usr/include/ATen/Tensor.h\n", b[] = ". /usr/include/c++/12/bits/error_t.h\r\n",
	     c[] = "t.cpp:4:3: error: 'x' was not declared\n", d[] = "...\n", e[] = ".hidden file\n";
	size_t depth = 0;
	assert_string_equal(include_tree_line(a, &depth), "/usr/include/ATen/Tensor.h");
	assert_int_equal(depth, 2);
	assert_string_equal(include_tree_line(b, &depth), "/usr/include/c++/12/bits/error_t.h");
	assert_int_equal(depth, 1);
	assert_null(include_tree_line(c, &depth));
	assert_null(include_tree_line(d, &depth));
	assert_null(include_tree_line(e, &depth));
	char f[] = "... /usr/include/torch/types.h\n";
	assert_string_equal(include_tree_line(f, NULL), "/usr/include/torch/types.h");
	assert_int_equal(depth, 1);	/* untouched */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_array),
		cmocka_unit_test(test_sorted_has),
		cmocka_unit_test(test_include_tree_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
