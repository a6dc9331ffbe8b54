#include "unit.h"
#include "cmdline.h"

static void split_ok(const char *line, const char *const *want, size_t n)
{
	struct strvec w = { 0 };
	const char *err = cmdline_split(line, &w);
	if (err)
		fail_msg("split '%s': %s", line, err);
	assert_int_equal(w.n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(w.v[i], want[i]);
	strvec_clear(&w);
}

static void test_split_torch_cflags(void **state)
{
	(void)state;
	/* As ninja hands torch's cpp_extension flags to sh. */
	const char *want[] = { "c++", "-DPYBIND11_COMPILER_TYPE=\"_gcc\"", "--compiler-options", "-fPIC",
			       "-o", "a b.o", "" };
	split_ok("c++  -DPYBIND11_COMPILER_TYPE=\\\"_gcc\\\" --compiler-options '-fPIC' -o \"a b.o\" ''",
		 want, 7);
}

static void test_split_quotes_and_escapes(void **state)
{
	(void)state;
	const char *want[] = { "a'b", "c\"d", "e f", "g\\h", "-DX=\"1 2\"" };
	split_ok("'a'\\''b' \"c\\\"d\" e\\ f 'g\\h' -DX='\"1 2\"'", want, 5);
	const char *tabs[] = { "x", "y" };
	split_ok("\tx \t y  # a comment", tabs, 2);
}

static void test_split_refuses_shell(void **state)
{
	(void)state;
	const char *bad[] = { "a && b", "a | b", "a > out", "a; b", "echo $(x)", "echo $HOME",
			      "echo 'open", "echo \"open", "echo `x`", "a \\" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strvec w = { 0 };
		if (!cmdline_split(bad[i], &w))
			fail_msg("accepted '%s'", bad[i]);
		strvec_clear(&w);
	}
}

static void test_join_round_trip(void **state)
{
	(void)state;
	char *words[] = { "nvcc", "-DX=\"_gcc\"", "a b", "", "it's", "$HOME", "plain-word_1.o", "x;y", NULL };
	char *line = cmdline_join(words, 8);
	struct strvec back = { 0 };
	assert_null(cmdline_split(line, &back));
	assert_int_equal(back.n, 8);
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(back.v[i], words[i]);
	/* Plain words stay unquoted, so the line reads like the original. */
	assert_non_null(strstr(line, "nvcc "));
	assert_non_null(strstr(line, " plain-word_1.o "));
	strvec_clear(&back);
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_torch_cflags),
		cmocka_unit_test(test_split_quotes_and_escapes),
		cmocka_unit_test(test_split_refuses_shell),
		cmocka_unit_test(test_join_round_trip),
	};
	return cmocka_run_group_tests_name("cmdline", tests, NULL, NULL);
}
