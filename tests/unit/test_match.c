#include "unit.h"
#include "match.h"

#include <math.h>

/* aiter's line, colour codes included. */
static const char aiter_line[] =
	"[aiter] [pid=4242 pname=MainProcess] \033[32mfinish build [module_x], cost 11.1s \033[0m\n";

static void test_strip_ansi(void **state)
{
	(void)state;
	char s[sizeof(aiter_line)];
	memcpy(s, aiter_line, sizeof(aiter_line));
	strip_ansi(s);
	assert_string_equal(s, "[aiter] [pid=4242 pname=MainProcess] finish build [module_x], cost 11.1s \n");
}

static void test_match_aiter_cost(void **state)
{
	(void)state;
	char *text = NULL;
	assert_true(asprintf(&text, "[1/3] compiling\n%scost 99s is not this one\n%s[3/3] done\n", aiter_line,
			     "[aiter] \033[32mfinish build [module_y], cost 12.5s \033[0m\n") > 0);
	/* Both lines match 'finish build'; the last one wins. */
	char *path = write_temp(text);
	regex_t re;
	assert_int_equal(regcomp(&re, "finish build .*cost ([0-9.]+)s", REG_EXTENDED), 0);
	assert_true(fabs(match_last_number(&re, path) - 12.5) < 1e-9);
	regfree(&re);
	assert_int_equal(regcomp(&re, "module_x\\], cost ([0-9.]+)s", REG_EXTENDED), 0);
	assert_true(fabs(match_last_number(&re, path) - 11.1) < 1e-9);
	regfree(&re);
	/* No group: the number in the whole match. */
	assert_int_equal(regcomp(&re, "cost [0-9.]+s \\[", REG_EXTENDED), 0);
	assert_true(isnan(match_last_number(&re, path)));
	regfree(&re);
	assert_int_equal(regcomp(&re, "x\\], cost [0-9.]+", REG_EXTENDED), 0);
	assert_true(fabs(match_last_number(&re, path) - 11.1) < 1e-9);
	regfree(&re);
	unlink(path);
	free(path);
	free(text);
	/* strtod reads "+inf"; an infinite time is no match, the last finite
	 * one stands. */
	path = write_temp("cost 3.5s\ncost +inf s\n");
	assert_int_equal(regcomp(&re, "cost (.*)s", REG_EXTENDED), 0);
	assert_true(fabs(match_last_number(&re, path) - 3.5) < 1e-9);
	regfree(&re);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_ansi),
		cmocka_unit_test(test_match_aiter_cost),
	};
	return cmocka_run_group_tests_name("match", tests, NULL, NULL);
}
