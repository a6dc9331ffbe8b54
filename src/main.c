/* buildwall: find what holds up the build wall of a GPU kernel module.
 * The command table; each command lives in src/cmd_<name>.c. */
#include "cli.h"
#include "proc.h"
#include "util.h"
#include "version.h"

#include <stdio.h>
#include <string.h>

static const struct command commands[] = {
	{ "wall", cmd_wall, "time N clean rebuilds of the module (median, spread)" },
	{ "rank", cmd_rank, "re-time every TU in isolation, rank them, predict the wall" },
	{ "passes", cmd_passes, "split TUs into host and device passes, per arch and phase; host or device?" },
	{ "log", cmd_log, "the last build's timeline from .ninja_log: weighted time, parallelism, critical path" },
	{ "sim", cmd_sim, "simulate ninja's scheduling per job count, and what-if edits to the graph" },
	{ "pp", cmd_pp, "where a TU's preprocessed lines come from: per file, per header group, per pass" },
	{ "leak", cmd_leak, "the include chain that lets torch (or any heavy header) into a TU, and the line to fix" },
};

static void print_usage(FILE *f)
{
	fputs("usage: buildwall [--version] [--help] <command> [options]\n\n"
	      "Find what holds up the build wall of a GPU kernel module, without touching the build.\n\n"
	      "commands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-6s %s\n", commands[i].name, commands[i].summary);
	fputs("\nEvery command takes --help and --json (schema " "buildwall/1" ", docs/json.md).\n"
	      "Exit status: 0 ok, 2 usage or bad input, 3 a build or compile failed, 130 interrupted.\n", f);
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
			proc_init_signals();
			return commands[i].run(argc, argv);
		}
	}
	fprintf(stderr, "buildwall: '%s' is not a buildwall command (see 'buildwall --help')\n", name);
	return EXIT_BAD_INPUT;
}
