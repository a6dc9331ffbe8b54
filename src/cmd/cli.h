/* What every subcommand shares: the command table entry, option errors in
 * one line with exit 2, and number parsing for option values. */
#ifndef BUILDWALL_CLI_H
#define BUILDWALL_CLI_H

#include <stdbool.h>
#include <stdio.h>

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

/* "buildwall: CMD: <what> (see 'buildwall CMD --help')", exit 2. */
_Noreturn void usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Report getopt_long's '?' or ':' for argv[optind-1]. */
_Noreturn void bad_option(const char *cmd, int c, char **argv);
long option_int(const char *cmd, const char *name, const char *value, long min, long max);
double option_seconds(const char *cmd, const char *name, const char *value);
/* After the report: "buildwall: N <noun>s failed<how>; see above" when
 * some failed; returns the exit status (0, or 3). */
int failures_status(size_t failures, const char *noun, const char *how);
/* A count, with an optional K or M suffix ("150K"). */
long option_count(const char *cmd, const char *name, const char *value);
/* -j/MAX_JOBS: the explicit value, else $MAX_JOBS, else 0 (unset). */
long jobs_from_env(const char *cmd);
/* The job count to predict for when -j is not given: $MAX_JOBS, else CPUs. */
long jobs_default(const char *cmd);

/* pp and leak: the arguments into the request, checked (a usage error,
 * exit 2), then preprocessed and scanned. */
struct pp_request;
struct pp_sources;
void collect_sources(struct pp_request *req, char **args, size_t nargs, struct pp_sources *out);

int cmd_wall(int argc, char **argv);
int cmd_rank(int argc, char **argv);
int cmd_passes(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_pp(int argc, char **argv);
int cmd_leak(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_ab(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_survey(int argc, char **argv);

#endif
