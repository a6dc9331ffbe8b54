/* A command's options as one table, like git's parse-options.h: the same
 * table parses argv and prints the options part of --help, so the two
 * cannot drift apart. The options every command shares are declared once,
 * below, with one meaning everywhere:
 *
 *   -C DIR        the ninja build directory
 *   -j N          the build's job count (as ninja -j): what wall runs ninja
 *                 with, what rank and sim predict for
 *   --parallel P  how many of buildwall's own probes run at once
 *   --top K       the K heaviest: rows shown (rank, pp, log) or the TUs
 *                 probed (passes: the K slowest of the last build)
 *   --timeout S   give up on one compile or probe after S seconds
 *   --json        one JSON document (docs/json.md) instead of tables */
#ifndef BUILDWALL_OPTIONS_H
#define BUILDWALL_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "cluster.h"
#include "graph.h"
#include "proc.h"

enum opt_type {
	OPTION_END,
	OPTION_FLAG,	/* bool */
	OPTION_INT,	/* long, within [min, max] */
	OPTION_SECONDS,	/* double > 0 */
	OPTION_STRING,	/* const char * */
	OPTION_COUNT,	/* size_t, "150000" or "150K" */
	OPTION_CALL,	/* call(value, arg): returns what is wrong (owned) or NULL */
};

struct opt {
	enum opt_type type;
	char short_name;	/* 0: none */
	const char *long_name;	/* NULL: none */
	void *value;
	const char *arg;	/* the value's name in --help ("DIR"); NULL for a flag */
	const char *help;	/* '\n' continues on the next line */
	long min, max;		/* OPTION_INT */
	bool (*call)(void *value, const char *arg, char **err);
};

/* One entry of a table, by kind (git's parse-options.h): SHORT_NAME is a
 * char or 0, LONG_NAME a string or NULL, V where the value goes, ARG its name in
 * --help ("DIR"). */
#define OPT_FLAG(short_name, long_name, v, help) \
	{ OPTION_FLAG, (short_name), (long_name), (v), NULL, (help), 0, 0, NULL }
#define OPT_INT(short_name, long_name, v, arg, help, min, max) \
	{ OPTION_INT, (short_name), (long_name), (v), (arg), (help), (min), (max), NULL }
#define OPT_SECONDS(short_name, long_name, v, arg, help) \
	{ OPTION_SECONDS, (short_name), (long_name), (v), (arg), (help), 0, 0, NULL }
#define OPT_STRING(short_name, long_name, v, arg, help) \
	{ OPTION_STRING, (short_name), (long_name), (v), (arg), (help), 0, 0, NULL }
#define OPT_COUNT(short_name, long_name, v, arg, help) \
	{ OPTION_COUNT, (short_name), (long_name), (v), (arg), (help), 0, 0, NULL }
#define OPT_CALL(short_name, long_name, v, arg, help, call) \
	{ OPTION_CALL, (short_name), (long_name), (v), (arg), (help), 0, 0, (call) }
#define OPT_TABLE_END { OPTION_END, 0, NULL, NULL, NULL, NULL, 0, 0, NULL }

#define OPT_DIR(v) OPT_STRING('C', NULL, (v), "DIR", "ninja build directory (default .)")
#define OPT_JSON(v) OPT_FLAG(0, "json", (v), "one JSON document (docs/json.md) instead of tables")
#define OPT_TIMEOUT(v, help) OPT_SECONDS(0, "timeout", (v), "S", (help))
#define OPT_BUILD_JOBS(v, help) OPT_INT('j', "jobs", (v), "N", (help), 1, 4096)
#define OPT_PARALLEL(v, help) OPT_INT(0, "parallel", (v), "P", (help), 1, PROC_MAX_RUNNING)
#define OPT_TOP(v, min, help) OPT_INT(0, "top", (v), "K", (help), (min), 1000000000)
/* --policy manifest|critical (struct policy_option, ninja.h), for the
 * commands that predict (rank, sim, advise). */
bool parse_policy(void *policy_option, const char *arg, char **err);
#define OPT_POLICY(v) OPT_CALL(0, "policy", (v), "P", "manifest or critical: the order ready steps start in\n" \
			"(default: the installed ninja's)", parse_policy)
/* --project DIR, for the commands that group headers (pp, trace): made
 * absolute against the current directory, and it must exist. The value is
 * a char * the command frees. */
bool parse_project(void *path, const char *arg, char **err);
#define OPT_PROJECT(v) OPT_CALL(0, "project", (v), "DIR", "the project's own headers live here (default: the TU's git\n" \
			 "work tree, else its directory and -I directories outside /usr)", parse_project)
/* What pp and leak share: a pp_request's device passes, concurrency and timeout. */
#define OPT_PREPROCESS(req) \
	OPT_FLAG(0, "device", &(req)->device, "also the device passes, one per arch"), \
	OPT_PARALLEL(&(req)->jobs, "preprocess P passes at once (default: the CPU count)"), \
	OPT_TIMEOUT(&(req)->timeout, "give up on a pass's preprocessing after S seconds (counts as failed)")
/* --db PATH and --module NAME, for the commands on the history (record,
 * history, check). */
#define OPT_DB(v) OPT_STRING(0, "db", (v), "PATH", "the history file (default $BUILDWALL_DB, else\n" \
		    "~/.local/share/buildwall/history.db)")
/* --label K=V, repeatable, into a strvec (record, survey --record). */
bool parse_label(void *labels, const char *arg, char **err);
#define OPT_LABEL(v, help) OPT_CALL(0, "label", (v), "K=V", (help), parse_label)
#define OPT_MODULE(v) OPT_STRING(0, "module", (v), "NAME", "the module's name (default: its linked output's)")
/* A share given as 0.05 or 5 %; false, with *err set to what is wrong with
 * it, for `option`. The range is the caller's to check. */
bool parse_share(const char *option, const char *arg, double *out, char **err);
/* --memory SIZE into a double of KiB. */
bool parse_memory_option(void *kb, const char *arg, char **err);
bool parse_remote(void *remote_option, const char *arg, char **err);
#define OPT_REMOTE(v, help) OPT_CALL(0, "remote", (v), "N[:SPEED]", (help), parse_remote)
/* --launcher distcc: compiles sent through it, not stripped (rank, advise);
 * the only one whose log says where each ran, found in PATH. */
bool parse_launcher(void *launcher, const char *arg, char **err);
#define OPT_LAUNCHER(v, help) OPT_CALL(0, "launcher", (v), "NAME", (help), parse_launcher)
#define OPT_DISTCC_LOG(v, help) OPT_STRING(0, "distcc-log", (v), "FILE", (help))

/* Parse argv (argv[0] is the command's name) against the table. --help
 * prints `about`, the options block and exits 0; a bad option or value is
 * a usage error (exit 2). Returns the index of the first argument left
 * (after "--" when there is one). */
int parse_options(const char *cmd, int argc, char **argv, const struct opt *opts, const char *about);
/* The options block of --help, from the table. */
void options_help(FILE *f, const struct opt *opts);

#endif
