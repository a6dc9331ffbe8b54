#include "unit.h"
#include "pass_probe.h"
#include "tmpdir.h"

#include <math.h>

/* A probe TU compiled with gcc in dir, its output redirected to the temp dir. */
static void add_probe(struct pass_probe *ps, const char *dir, const char *name, const char *text)
{
	char *src = xasprintf("%s/%s.c", dir, name);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	char *line = xasprintf("gcc -O2 -c %s -o %s.o", src, name);
	struct compile_command cmd = { 0 };
	assert_null(driver_parse(line, dir, &cmd));
	char *out = tmpdir_subdir(name);
	assert_null(driver_redirect_outputs(&cmd, out));
	pass_probe_add(ps, name, 0, &cmd);
	assert_null(cmd.argv.v);	/* taken over */
	free(out);
	free(line);
	free(src);
}

static void test_host_pass_split_into_phases(void **state)
{
	(void)state;
	char *dir = tmpdir_subdir("pass-probe");
	struct pass_probe ps = { .dir = dir, .repeats = 2, .parallel = 2, .th = { 5.0, 0.7 } };
	add_probe(&ps, dir, "heavy", "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
		  "int f(int x) { char b[64]; snprintf(b, sizeof b, \"%d\", x); return (int)strlen(b) + atoi(b); }\n");
	add_probe(&ps, dir, "broken", "int broken(void) { return }\n");
	pass_probe_run(&ps);
	assert_int_equal(ps.failures, 1);
	const struct pass_tu *t = &ps.tus[0], *bad = &ps.tus[1];
	assert_string_equal(t->name, "heavy");
	assert_false(t->failed);
	/* gcc's jobs: the compiler proper, then the assembler; both host. */
	assert_int_equal(t->jobs.n, 2);
	assert_string_equal(t->jobs.v[0].tool, "cc1");
	assert_int_equal(t->nwalls, 2);
	assert_true(t->wall.median > 0);
	/* One host pass, its front end read from -ftime-report and scaled to
	 * the plain runs: no phase exceeds the pass. */
	assert_true(t->bd.n >= 1 && t->bd.passes[0].kind == PASS_HOST);
	double host = pass_tu_side(t, PASS_HOST);
	assert_true(host > 0 && pass_tu_side(t, PASS_DEVICE) == 0);
	double fe = t->bd.passes[0].phase[PHASE_FRONT_END];
	assert_true(!isnan(fe) && fe > 0 && fe <= host);
	assert_int_equal(t->bd.verdict.kind, VERDICT_HOST);
	/* The broken probe fails at its whole run, and says why. */
	assert_true(bad->failed);
	assert_non_null(strstr(bad->failure, "exit status 1"));
	pass_probe_free(&ps);
	assert_int_equal(ps.ntus, 0);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_pass_split_into_phases),
	};
	return cmocka_run_group_tests_name("pass_probe", tests, NULL, NULL);
}
