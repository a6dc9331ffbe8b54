/* The network probe: its cost model, and a cluster that takes nothing
 * named as such (the probes through real daemons are t75's). */
#include "unit.h"
#include "driver.h"
#include "net_probe.h"
#include "tmpdir.h"

#include <math.h>
#include <stdlib.h>

static void test_cost_of(void **state)
{
	(void)state;
	const struct net_cost nc = { .fixed_s = 0.05, .per_byte_s = 1e-8 };
	assert_true(fabs(net_cost_of(&nc, 0) - 0.05) < 1e-12);
	assert_true(fabs(net_cost_of(&nc, 30e6) - 0.35) < 1e-12);
}

/* DISTCC_HOSTS=localhost: distcc compiles the probe here, which is no
 * measurement of a cluster. */
static void test_no_remote_host(void **state)
{
	(void)state;
	char *distcc = driver_find_program("distcc");
	if (!distcc)
		skip();
	free(distcc);
	char *state_dir = tmpdir_subdir("distcc");	/* its locks, not in $HOME */
	setenv("DISTCC_DIR", state_dir, 1);
	setenv("DISTCC_HOSTS", "localhost", 1);
	struct net_cost nc;
	char *err = NULL;
	net_probe_measure("gcc", 1, 60, &nc, &err);
	assert_non_null(err);
	assert_non_null(strstr(err, "distcc did not send the network probe to a host"));
	free(err);
	unsetenv("DISTCC_HOSTS");
	unsetenv("DISTCC_DIR");
	free(state_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_of),
		cmocka_unit_test(test_no_remote_host),
	};
	return cmocka_run_group_tests_name("net_probe", tests, NULL, NULL);
}
