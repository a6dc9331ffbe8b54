/* grow_array: room for one more, reallocated only at powers of two, and
 * every element kept across the moves. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_array),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
