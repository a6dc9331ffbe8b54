#include "cli.h"
#include "preprocess.h"
#include "util.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

_Noreturn void usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	flush_stdout();
	fprintf(stderr, "buildwall: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see 'buildwall %s --help')\n", cmd);
	exit(EXIT_BAD_INPUT);
}

_Noreturn void bad_option(const char *cmd, int c, char **argv)
{
	const char *arg = argv[optind - 1];
	if (c == ':')
		usage_error(cmd, "option '%s' needs a value", arg);
	usage_error(cmd, "unknown option '%s'", arg);
}

long option_int(const char *cmd, const char *name, const char *value, long min, long max)
{
	long v;
	if (!parse_int(value, min, max, &v))
		usage_error(cmd, "%s takes a whole number from %ld to %ld, not '%s'", name, min, max, value);
	return v;
}

double option_seconds(const char *cmd, const char *name, const char *value)
{
	double v;
	if (!parse_double(value, &v) || v <= 0)
		usage_error(cmd, "%s takes a positive number of seconds, not '%s'", name, value);
	return v;
}

long jobs_from_env(const char *cmd)
{
	const char *env = getenv("MAX_JOBS");
	long v;
	if (!env || !*env)
		return 0;
	if (!parse_int(env, 1, 4096, &v))
		usage_error(cmd, "MAX_JOBS must be a whole number from 1 to 4096, not '%s'", env);
	return v;
}

long jobs_default(const char *cmd)
{
	long jobs = jobs_from_env(cmd);
	return jobs ? jobs : cpu_count();
}

int failures_status(size_t failures, const char *noun, const char *how)
{
	if (!failures)
		return EXIT_OK;
	fprintf(stderr, "buildwall: %zu %s%s failed%s; see above\n", failures, noun, failures == 1 ? "" : "s", how);
	return EXIT_BUILD_FAILED;
}

long option_count(const char *cmd, const char *name, const char *value)
{
	char *copy = xstrdup(value);
	size_t n = strlen(copy);
	double scale = 1, v;
	if (n && (copy[n - 1] == 'K' || copy[n - 1] == 'k'))
		scale = 1e3;
	else if (n && (copy[n - 1] == 'M' || copy[n - 1] == 'm'))
		scale = 1e6;
	if (scale > 1)
		copy[n - 1] = '\0';
	bool ok = parse_double(copy, &v) && v * scale >= 1 && v * scale < 1e15;
	free(copy);
	if (!ok)
		usage_error(cmd, "%s takes a positive count such as 150000 or 150K, not '%s'", name, value);
	return (long)(v * scale + 0.5);
}

void collect_sources(struct pp_request *req, char **args, size_t nargs, struct pp_sources *out)
{
	req->args = args;
	req->nargs = nargs;
	char *bad = NULL;
	if (!pp_request_check(req, &bad))
		usage_error(req->cmd, "%s", bad);
	pp_collect(req, out);
}
