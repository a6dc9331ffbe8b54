/* buildwall: find what holds up the build wall of a GPU kernel module.
 * The command table; each command lives in src/cmd_<name>.c. */
#include "cli.h"
#include "proc.h"
#include "util.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where stdout started, when it is a regular file: a failed write cuts
 * the file back to it, so no partial report is left behind; a file that
 * the shell made empty for us ('> out.json') is removed. */
static off_t stdout_start = -1;
static struct stat stdout_stat;

static void remove_empty_stdout(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/fd/1", path, sizeof(path) - 1);
	struct stat st;
	if (n <= 0)
		return;
	path[n] = '\0';
	if (!stat(path, &st) && st.st_ino == stdout_stat.st_ino && st.st_dev == stdout_stat.st_dev && !st.st_size)
		unlink(path);
}

/* A report that did not reach its reader is a failure, not a success. */
static void check_stdout(void)
{
	int err = flush_stdout();
	if (!err)
		return;
	if (stdout_start >= 0 && ftruncate(STDOUT_FILENO, stdout_start) == 0) {
		lseek(STDOUT_FILENO, stdout_start, SEEK_SET);
		if (stdout_start == 0 && !(fcntl(STDOUT_FILENO, F_GETFL) & O_APPEND))
			remove_empty_stdout();
	}
	fprintf(stderr, "buildwall: cannot write standard output: %s\n", strerror(err));
	_exit(EXIT_INTERNAL);
}

static void watch_stdout(void)
{
	if (!fstat(STDOUT_FILENO, &stdout_stat) && S_ISREG(stdout_stat.st_mode))
		stdout_start = lseek(STDOUT_FILENO, 0, SEEK_CUR);
	/* Registered first, so it runs last: after the temp dir is gone. */
	atexit(check_stdout);
}

static const struct command commands[] = {
	{ "wall", cmd_wall, "time N clean rebuilds of the module (median, spread)" },
	{ "rank", cmd_rank, "re-time every TU in isolation, rank them, predict the wall" },
	{ "passes", cmd_passes, "split TUs into host and device passes, per arch and phase; host or device?" },
	{ "log", cmd_log, "the last build's timeline from .ninja_log: weighted time, parallelism, critical path" },
	{ "sim", cmd_sim, "simulate ninja's scheduling per job count, and what-if edits to the graph" },
	{ "pp", cmd_pp, "where a TU's preprocessed lines come from: per file, per header group, per pass" },
	{ "leak", cmd_leak, "the include chain that lets torch (or any heavy header) into a TU, and the line to fix" },
	{ "advise", cmd_advise, "which fix first, and the module's wall after each, predicted from measurements" },
	{ "ab", cmd_ab, "did the change help: A against B, a whole build or one TU, with a 95 % interval" },
	{ "trace", cmd_trace, "which headers, templates and functions cost the time, host and device passes alike" },
	{ "report", cmd_report, "the whole diagnosis as one self-contained HTML page" },
	{ "record", cmd_record, "put the latest build into the history: wall, critical path, every step" },
	{ "history", cmd_history, "a module's recorded walls over time, and the TUs that moved most" },
	{ "check", cmd_check, "a CI gate: fail when the wall grew beyond noise, naming the TU that grew" },
	{ "survey", cmd_survey, "every JIT module at once: walls, what sets them, sources compiled again" },
};

static void print_usage(FILE *f)
{
	fputs("usage: buildwall [--version] [--help] <command> [options]\n\n"
	      "Find what holds up the build wall of a GPU kernel module, without touching the build.\n\n"
	      "commands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-7s %s\n", commands[i].name, commands[i].summary);
	fputs("\nEvery command takes --help and --json (schema " "buildwall/1" ", docs/json.md).\n"
	      "Exit status: 0 ok (check: within), 1 check: over, 2 usage or bad input, 3 a build or\n"
	      "compile failed, 4 buildwall's own fault (no memory, no room in TMPDIR, a failed write),\n130 interrupted.\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return EXIT_BAD_INPUT;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		print_usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(name, "--version")) {
		printf("buildwall %s\n", BUILDWALL_VERSION);
		return EXIT_OK;
	}
	static char *help_argv[] = { NULL, "--help", NULL };
	if (!strcmp(name, "help") && argc > 2) {
		help_argv[0] = argv[2];
		name = argv[2];
		argv = help_argv;
		argc = 2;
	} else {
		argv++;
		argc--;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(name, commands[i].name)) {
			watch_stdout();
			proc_init_signals();
			return commands[i].run(argc, argv);
		}
	}
	fprintf(stderr, "buildwall: '%s' is not a buildwall command (see 'buildwall --help')\n", name);
	return EXIT_BAD_INPUT;
}
