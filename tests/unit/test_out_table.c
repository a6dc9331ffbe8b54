#include "unit.h"
#include "out_table.h"
#include "util.h"

static void test_alignment(void **state)
{
	(void)state;
	setenv("NO_COLOR", "1", 1);
	struct table *t = table_new();
	table_column(t, "#", true);
	table_column(t, "TU", false);
	table_column(t, "wall s", true);
	table_column(t, "compiler", false);
	table_cell(t, "%d", 1);
	table_cell(t, "%s", "opus_gemm_bigtile.cuda.o");
	table_cell(t, "%.2f", 22.931);
	table_cell(t, "nvcc");
	table_cell(t, "%d", 10);
	table_cell(t, "%s", "b.o");
	table_cell(t, "%.2f", 0.5);
	table_cell(t, "gcc");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	table_print(t, f);
	fclose(f);
	assert_string_equal(buf,
		" #  TU                        wall s  compiler\n"
		" 1  opus_gemm_bigtile.cuda.o   22.93  nvcc\n"
		"10  b.o                         0.50  gcc\n");
	free(buf);
	table_free(t);
}

/* A huge cell is elided in the middle, whole UTF-8 characters kept. */
static void test_elide(void **state)
{
	(void)state;
	char *s = table_elide("short", 100);
	assert_string_equal(s, "short");
	free(s);
	s = table_elide("abcdefghijklmnopqrstuvwxyz", 11);
	assert_string_equal(s, "abcd...wxyz");
	free(s);
	s = table_elide("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9xyz", 10);	/* é é é ... */
	assert_string_equal(s, "\xc3\xa9...\xc3\xa9xyz");
	free(s);
	struct table *t = table_new();
	table_column(t, "name", false);
	char big[5000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	table_cell(t, "%s", big);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	table_print(t, f);
	fclose(f);
	assert_int_equal(len, strlen("name\n") + TABLE_MAX_CELL + 1);
	free(buf);
	table_free(t);
}

static void test_format_kib(void **state)
{
	(void)state;
	char *s = format_kib(512);
	assert_string_equal(s, "512 KiB");
	free(s);
	s = format_kib(591 * 1024 + 100);
	assert_string_equal(s, "591 MiB");
	free(s);
	s = format_kib(3 * 1024 * 1024 / 2);
	assert_string_equal(s, "1.5 GiB");
	free(s);
}

static void test_format_count(void **state)
{
	(void)state;
	static const struct {
		size_t n;
		const char *s;
	} cases[] = { { 0, "0" }, { 999, "999" }, { 1000, "1,000" }, { 376239, "376,239" }, { 1234567, "1,234,567" } };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = format_count(cases[i].n);
		assert_string_equal(s, cases[i].s);
		free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_elide),
		cmocka_unit_test(test_format_kib),
		cmocka_unit_test(test_format_count),
	};
	return cmocka_run_group_tests_name("out_table", tests, NULL, NULL);
}
