#include "unit.h"
#include "cluster_trials.h"
#include "tmpdir.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLUSTER FIXTURE("distcc/cluster.log")

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = xcalloc(1 << 20, 1);
	fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	return buf;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Two trials behind distcc: each points distcc's log into the temp dir,
 * the first's log is the fixture's, the second's is missing (a warning,
 * no summary); the last kept where asked only when it was read. */
static void test_trials(void **state)
{
	(void)state;
	struct cluster_trials ct;
	cluster_trials_start(&ct, 2, "distcc");
	cluster_trial_before(&ct, 0);
	char *path = xstrdup(getenv("DISTCC_LOG"));
	assert_true(!strncmp(path, tmpdir_path(), strlen(tmpdir_path())));
	assert_string_equal(getenv("DISTCC_VERBOSE"), "1");
	char *fixture = slurp(CLUSTER);
	write_text(path, fixture);
	cluster_trial_after(&ct, 0);
	assert_true(ct.have[0]);
	assert_int_equal(ct.sum[0].remote, 6);
	assert_int_equal(ct.sum[0].fell_back, 2);
	assert_true(fabs(ct.sum[0].wait_s - 12.0) < 1e-9);

	cluster_trial_before(&ct, 1);
	assert_string_not_equal(getenv("DISTCC_LOG"), path);	/* a log of its own */
	cluster_trial_after(&ct, 1);	/* no log written: warned, not read */
	assert_false(ct.have[1]);
	char *keep = xasprintf("%s/kept.log", tmpdir_path());
	cluster_trials_finish(&ct, NULL, keep);
	assert_false(ct.have_last);
	assert_null(fopen(keep, "r"));	/* the last trial had no log to keep */
	cluster_trials_free(&ct);

	/* One trial whose log was read: kept byte for byte. */
	cluster_trials_start(&ct, 1, "distcc");
	cluster_trial_before(&ct, 0);
	write_text(getenv("DISTCC_LOG"), fixture);
	cluster_trial_after(&ct, 0);
	cluster_trials_finish(&ct, NULL, keep);
	char *kept = slurp(keep);
	assert_string_equal(kept, fixture);
	assert_false(ct.have_last);	/* no -C: no build to set it against */
	cluster_trials_free(&ct);
	free(kept);
	free(keep);
	free(fixture);
	free(path);
}

/* No launcher: every step is a no-op, nothing set in the environment. */
static void test_no_cluster(void **state)
{
	(void)state;
	unsetenv("DISTCC_LOG");
	struct cluster_trials ct;
	cluster_trials_start(&ct, 3, NULL);
	cluster_trial_before(&ct, 0);
	assert_null(getenv("DISTCC_LOG"));
	cluster_trial_after(&ct, 0);
	cluster_trials_finish(&ct, ".", NULL);
	assert_false(ct.have_last);
	cluster_trials_free(&ct);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trials),
		cmocka_unit_test(test_no_cluster),
	};
	int rc = cmocka_run_group_tests_name("cluster_trials", tests, NULL, NULL);
	tmpdir_remove();
	return rc;
}
