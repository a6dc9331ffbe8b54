#include "unit.h"
#include "dispatch_table.h"

/* The demo's dispatcher as gcc -E writes it: the table's entries come
 * from a project .inc file; a system header's own map of std::function
 * does not count. */
static const char preprocessed[] =
	"# 1 \"/proj/src/opus_dispatch.cpp\"\n"
	"# 1 \"/usr/include/c++/12/functional\" 1 3\n"
	"  std::unordered_map<int, std::function<void()>> hidden = { {1, [](){}} };\n"
	"# 12 \"/proj/src/opus_dispatch.cpp\" 2\n"
	"bool dispatch(const std::string &key, const GemmArgs &args)\n"
	"{\n"
	" static const std::unordered_map<std::string, std::function<void(const GemmArgs &)>> table = {\n"
	"# 1 \"/b/gen/opus_table.inc\" 1\n"
	"{ \"m64_n128_k64\", [](const GemmArgs &a) { opus_gemm_0_launch(a); } },\n"
	"{ \"m64_n128_k128\", [](const GemmArgs &a) { opus_gemm_bigtile_launch(a); } },\n"
	"{ \"m64_n256_k64\", [](const GemmArgs &a) { opus_gemm_0_launch(a); } },\n"
	"# 19 \"/proj/src/opus_dispatch.cpp\" 2\n"
	" };\n"
	" auto it = table.find(key);\n"
	" if (it == table.end()) { return false; }\n"
	" return [&](){ it->second(args); return true; }();\n"
	"}\n";

static void test_scan(void **state)
{
	(void)state;
	FILE *f = fmemopen((void *)preprocessed, sizeof(preprocessed) - 1, "r");
	assert_non_null(f);
	struct dispatch_tables t;
	dispatch_tables_scan(f, &t);
	fclose(f);
	/* One table, three lambdas; the lambda after the table is not one. */
	assert_int_equal(t.tables, 1);
	assert_int_equal(t.entries, 3);
}

static void test_no_table(void **state)
{
	(void)state;
	static const char flat[] = "# 1 \"d.cpp\"\nconstexpr Entry table[] = {\n{ \"a\", &f },\n};\n";
	FILE *f = fmemopen((void *)flat, sizeof(flat) - 1, "r");
	struct dispatch_tables t;
	dispatch_tables_scan(f, &t);
	fclose(f);
	assert_int_equal(t.tables, 0);
	assert_int_equal(t.entries, 0);
}

/* Both probes compile with g++ -std=c++17, and the map probe scans as
 * the table it stands for. */
static void test_probes_compile(void **state)
{
	(void)state;
	char *dir = tmpdir_subdir("dispatch-probes");
	const char *kinds[] = { "map", "flat" };
	for (int k = 0; k < 2; k++) {
		char *src = xasprintf("%s/%s.cpp", dir, kinds[k]);
		FILE *f = fopen(src, "w");
		assert_non_null(f);
		if (k == 0)
			dispatch_table_write_map(f, 7);
		else
			dispatch_table_write_flat(f, 7);
		fclose(f);
		char *cmd = xasprintf("g++ -std=c++17 -fsyntax-only %s", src);
		assert_int_equal(system(cmd), 0);
		free(cmd);
		if (k == 0) {
			f = fopen(src, "r");
			struct dispatch_tables t;
			dispatch_tables_scan(f, &t);
			fclose(f);
			assert_int_equal(t.tables, 1);
			assert_int_equal(t.entries, 7);
		}
		free(src);
	}
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_probes_compile),
	};
	return cmocka_run_group_tests_name("dispatch_table", tests, NULL, NULL);
}
