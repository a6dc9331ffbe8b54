/* One line replaced or removed, and the same as a unified diff: the
 * hunks diff -u writes for it (checked against GNU diff by hand), at
 * the top, in the middle and at a last line with no newline. */
#include "unit.h"
#include "line_patch.h"

static const char file[] = "1\n2\n3\n4\n#include <torch/extension.h>\n6\n7\n8\n9\n";

static void test_replaced_in_the_middle(void **state)
{
	(void)state;
	char *edited, *patch, *err = NULL;
	assert_true(line_edit(file, strlen(file), 5, "#include <ATen/core/Tensor.h>", &edited, &err));
	assert_string_equal(edited, "1\n2\n3\n4\n#include <ATen/core/Tensor.h>\n6\n7\n8\n9\n");
	assert_true(line_patch(file, strlen(file), 5, "#include <ATen/core/Tensor.h>", "include/a.h", &patch, &err));
	assert_string_equal(patch, "--- a/include/a.h\n+++ b/include/a.h\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n"
				   "-#include <torch/extension.h>\n+#include <ATen/core/Tensor.h>\n 6\n 7\n 8\n");
	free(edited);
	free(patch);
}

static void test_removed_at_the_top(void **state)
{
	(void)state;
	char *edited, *patch, *err = NULL;
	assert_true(line_edit(file, strlen(file), 1, NULL, &edited, &err));
	assert_string_equal(edited, file + 2);
	assert_true(line_patch(file, strlen(file), 1, NULL, "a.h", &patch, &err));
	assert_string_equal(patch, "--- a/a.h\n+++ b/a.h\n@@ -1,4 +1,3 @@\n-1\n 2\n 3\n 4\n");
	free(edited);
	free(patch);
}

/* The last line without a newline, and CRLF lines kept as they are. */
static void test_last_line_and_endings(void **state)
{
	(void)state;
	const char *text = "a\r\nb";
	char *edited, *patch, *err = NULL;
	assert_true(line_edit(text, strlen(text), 2, "c", &edited, &err));
	assert_string_equal(edited, "a\r\nc");
	assert_true(line_patch(text, strlen(text), 2, "c", "x", &patch, &err));
	assert_string_equal(patch, "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\r\n-b\n\\ No newline at end of file\n"
				   "+c\n\\ No newline at end of file\n");
	free(patch);
	free(edited);
	assert_true(line_edit(text, strlen(text), 1, "z", &edited, &err));
	assert_string_equal(edited, "z\r\nb");
	free(edited);
	assert_true(line_patch("only\n", 5, 1, NULL, "x", &patch, &err));
	assert_string_equal(patch, "--- a/x\n+++ b/x\n@@ -1 +0,0 @@\n-only\n");
	free(patch);
}

static void test_no_such_line(void **state)
{
	(void)state;
	char *out = NULL, *err = NULL;
	assert_false(line_edit(file, strlen(file), 10, NULL, &out, &err));
	assert_string_equal(err, "no line 10 (the file has 9)");
	free(err);
	err = NULL;
	assert_false(line_patch(file, strlen(file), 0, "x", "a.h", &out, &err));
	assert_non_null(err);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replaced_in_the_middle),
		cmocka_unit_test(test_removed_at_the_top),
		cmocka_unit_test(test_last_line_and_endings),
		cmocka_unit_test(test_no_such_line),
	};
	return cmocka_run_group_tests_name("line_patch", tests, NULL, NULL);
}
