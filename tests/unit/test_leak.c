/* The leak finder on a preprocessed file: the chain to the first heavy
 * header, and the project header whose #include is the line to fix. */
#include "unit.h"
#include "leak.h"
#include "preprocess.h"
#include "tmpdir.h"

/* src/d.cpp includes opus/args.h (line 3), which includes
 * <torch/extension.h> on its line 7; a second chain reaches pybind11
 * straight from the TU. */
static const char ii[] =
	"# 1 \"/proj/src/d.cpp\"\n"
	"int before;\n"
	"# 1 \"/proj/include/opus/args.h\" 1\n"
	"int in_args;\n"
	"# 6 \"/proj/include/opus/args.h\"\n"
	"int six;\n"
	"# 1 \"/usr/include/torch/extension.h\" 1 3\n"
	"int torch1;\nint torch2;\nint torch3;\n"
	"# 8 \"/proj/include/opus/args.h\" 2\n"
	"int after_torch;\n"
	"# 4 \"/proj/src/d.cpp\" 2\n"
	"# 1 \"/usr/include/pybind11/pybind11.h\" 1 3\n"
	"int pb;\n"
	"# 5 \"/proj/src/d.cpp\" 2\n"
	"int main_code;\n";

/* One preprocessed file scanned as leak scans a pass: its source in
 * *ss, the rule's groups in *rule (project /proj); free with scanned_free. */
static void scan(const char *name, const char *text, struct leak_rule *rule, struct pp_sources *ss)
{
	char *dir = tmpdir_subdir(name);
	char *path = xasprintf("%s/%s.ii", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	*rule = (struct leak_rule){ .project = "/proj" };
	header_groups_init(&rule->groups);
	char *args[] = { path };
	struct pp_request req = { .cmd = "leak", .dir = dir, .args = args, .nargs = 1, .jobs = 1, .hooks = leak_hooks,
				  .ctx = rule };
	pp_collect(&req, ss);
	assert_true(ss->n == 1 && ss->v[0].scanned);
	free(path);
	free(dir);
}

static void scanned_free(struct leak_rule *rule, struct pp_sources *ss)
{
	leak_scan_free(ss->v[0].data);
	pp_sources_free(ss);
	header_groups_free(&rule->groups);
}

static void test_chain_and_line_to_fix(void **state)
{
	(void)state;
	struct leak_rule rule;
	struct pp_sources ss;
	scan("leak", ii, &rule, &ss);
	struct leak_view v;
	leak_view_init(&v, &ss.v[0], 0);
	assert_int_equal(v.nchains, 2);
	char *chain = leak_chain_text(&v, v.chains[0]), *fix = leak_fix_text(&v);
	assert_string_equal(chain, "src/d.cpp -> include/opus/args.h -> <torch/extension.h>");
	/* The nearest project header above the match holds the #include (a
	 * plain file has no -I dirs: names are the project's). */
	assert_string_equal(fix, "include/opus/args.h:7");
	assert_int_equal(v.chains[0]->lines, 3);
	char *second = leak_link_name(&v, v.chains[1], v.chains[1]->n - 1);
	assert_string_equal(second, "<pybind11/pybind11.h>");
	char *rule_text = leak_rule_text(&rule);
	assert_non_null(strstr(rule_text, "torch/ATen/c10"));
	free(rule_text);
	free(second);
	free(chain);
	free(fix);
	leak_view_free(&v);
	scanned_free(&rule, &ss);
}

/* src/e.cpp includes <Python.h> itself on line 1, then opus/args.h,
 * whose line 7 brings torch: the line to fix is that header's, not the
 * TU's own (a TU's own include is what it chose; the header's it got). */
static const char python_first[] =
	"# 1 \"/proj/src/e.cpp\"\n"
	"# 1 \"/usr/include/Python.h\" 1 3\n"
	"int py;\n"
	"# 2 \"/proj/src/e.cpp\" 2\n"
	"# 1 \"/proj/include/opus/args.h\" 1\n"
	"# 7 \"/proj/include/opus/args.h\"\n"
	"# 1 \"/usr/include/torch/extension.h\" 1 3\n"
	"int torch1;\nint torch2;\n"
	"# 8 \"/proj/include/opus/args.h\" 2\n"
	"# 3 \"/proj/src/e.cpp\" 2\n"
	"int main_code;\n";

static void test_own_include_first(void **state)
{
	(void)state;
	struct leak_rule rule;
	struct pp_sources ss;
	scan("leak-own", python_first, &rule, &ss);
	struct leak_view v;
	leak_view_init(&v, &ss.v[0], 0);
	assert_int_equal(v.nchains, 2);
	char *first = leak_chain_text(&v, v.chains[0]), *via = leak_chain_text(&v, v.fix_chain), *fix = leak_fix_text(&v);
	assert_string_equal(first, "src/e.cpp -> <Python.h>");
	assert_string_equal(via, "src/e.cpp -> include/opus/args.h -> <torch/extension.h>");
	assert_string_equal(fix, "include/opus/args.h:7");
	free(first);
	free(via);
	free(fix);
	leak_view_free(&v);
	scanned_free(&rule, &ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_and_line_to_fix),
		cmocka_unit_test(test_own_include_first),
	};
	return cmocka_run_group_tests_name("leak", tests, NULL, NULL);
}
