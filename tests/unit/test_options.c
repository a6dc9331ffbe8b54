#include "unit.h"
#include "options.h"
#include "util.h"

#include <sys/stat.h>
#include <unistd.h>

static bool twice(void *value, const char *arg, char **err)
{
	if (strcmp(arg, "ok"))
		return fail_with(err, xasprintf("--twice wants ok, not '%s'", arg));
	*(int *)value += 2;
	return true;
}

struct values {
	const char *dir;
	bool json;
	long repeats, top;
	double timeout;
	size_t lean;
	int calls;
	struct policy_option policy;
};

static int parse(struct values *v, int argc, char **argv)
{
	const struct opt opts[] = {
		OPT_DIR(&v->dir),
		OPT_INT('r', "repeats", &v->repeats, "R", "runs", 1, 10),
		OPT_TOP(&v->top, 0, "rows"),
		OPT_COUNT(0, "lean", &v->lean, "LINES", "lean below"),
		OPT_CALL(0, "twice", &v->calls, "X", "twice", twice),
		OPT_POLICY(&v->policy),
		OPT_TIMEOUT(&v->timeout, "give up"),
		OPT_JSON(&v->json),
		OPT_TABLE_END,
	};
	return parse_options("t", argc, argv, opts, "usage: t\n");
}

static void test_parse(void **state)
{
	(void)state;
	struct values v = { .dir = "." };
	char *argv[] = { "t", "-C", "out", "-r", "3", "--top=5", "--lean", "150K", "--twice", "ok", "--twice", "ok",
			 "--policy", "critical", "--timeout", "2.5", "--json", "a.o", "--", "-b", NULL };
	int first = parse(&v, 20, argv);
	assert_string_equal(v.dir, "out");
	assert_int_equal(v.repeats, 3);
	assert_int_equal(v.top, 5);
	assert_int_equal(v.lean, 150000);
	assert_int_equal(v.calls, 4);	/* repeatable */
	assert_true(v.policy.given && v.policy.policy == POLICY_CRITICAL);
	assert_true(v.timeout == 2.5);
	assert_true(v.json);
	/* Arguments are gathered after the options; "--" ends them. */
	if (20 - first != 2)
		fail_msg("first %d: %s %s", first, argv[first], argv[first + 1]);
	assert_string_equal(argv[first], "a.o");
	assert_string_equal(argv[first + 1], "-b");
}

static void run_bad(void *arg)
{
	char **argv = arg;
	int argc = 0;
	while (argv[argc])
		argc++;
	struct values v = { 0 };
	parse(&v, argc, argv);
}

static void test_errors(void **state)
{
	(void)state;
	char *unknown[] = { "t", "--bogus", NULL };
	expect_exit(run_bad, unknown, 2, "buildwall: t: unknown option '--bogus' (see 'buildwall t --help')");
	char *range[] = { "t", "-r", "11", NULL };
	expect_exit(run_bad, range, 2, "-r takes a whole number from 1 to 10, not '11'");
	char *missing[] = { "t", "--timeout", NULL };
	expect_exit(run_bad, missing, 2, "option '--timeout' needs a value");
	char *call[] = { "t", "--twice", "no", NULL };
	expect_exit(run_bad, call, 2, "--twice wants ok, not 'no'");
	char *policy[] = { "t", "--policy", "fastest", NULL };
	expect_exit(run_bad, policy, 2, "--policy is manifest or critical, not 'fastest'");
}

/* --help prints the table: every option with its value's name. */
static void test_help(void **state)
{
	(void)state;
	const struct opt opts[] = {
		OPT_DIR(NULL),
		OPT_INT('r', "repeats", NULL, "R", "runs per TU;\ntwo lines", 1, 10),
		OPT_JSON(NULL),
		OPT_TABLE_END,
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	options_help(f, opts);
	fclose(f);
	assert_string_equal(buf, "options:\n"
				 "  -C DIR              ninja build directory (default .)\n"
				 "  -r, --repeats R     runs per TU;\n"
				 "                      two lines\n"
				 "  --json              one JSON document (docs/json.md) instead of tables\n"
				 "  -h, --help          this help\n");
	free(buf);
}

/* --project is made absolute against the current directory (not -C's)
 * and must be a directory; given twice, the last holds. */
static void test_project(void **state)
{
	(void)state;
	char *project = NULL, *cwd = getcwd(NULL, 0);
	assert_ok(parse_project(&project, ".", &unit_err));
	assert_string_equal(project, cwd);
	assert_ok(parse_project(&project, "/", &unit_err));
	assert_string_equal(project, "/");
	char *err = NULL;
	parse_project(&project, "/nonexistent/dir", &err);
	assert_string_equal(err, "--project /nonexistent/dir: No such file or directory");
	free(err);
	err = NULL;
	parse_project(&project, "/dev/null", &err);
	assert_string_equal(err, "--project /dev/null: not a directory");
	free(err);
	assert_string_equal(project, "/");
	free(project);
	free(cwd);
}

/* --launcher: distcc alone (its log says where each compile ran), and
 * only where PATH has it. */
static void test_launcher(void **state)
{
	(void)state;
	const char *launcher = NULL;
	char *err = NULL;
	parse_launcher(&launcher, "icecc", &err);
	assert_string_equal(err, "--launcher: only distcc is supported (its log says where each compile ran), not 'icecc'");
	free(err);
	char dir[] = "/tmp/buildwall-launcher-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *old = xstrdup(getenv("PATH") ? getenv("PATH") : ""), *tool = xasprintf("%s/distcc", dir);
	setenv("PATH", dir, 1);
	err = NULL;
	parse_launcher(&launcher, "distcc", &err);
	assert_string_equal(err, "--launcher distcc: not found in PATH (apt-get install distcc)");
	free(err);
	assert_null(launcher);
	FILE *f = fopen(tool, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\n", f);
	fclose(f);
	assert_int_equal(chmod(tool, 0755), 0);
	assert_ok(parse_launcher(&launcher, "distcc", &unit_err));
	assert_string_equal(launcher, "distcc");
	setenv("PATH", old, 1);
	assert_int_equal(unlink(tool), 0);
	assert_int_equal(rmdir(dir), 0);
	free(tool);
	free(old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_project),
		cmocka_unit_test(test_launcher),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
