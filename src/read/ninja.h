/* The build as ninja itself describes it: every edge with its outputs,
 * rule, inputs and final command, asked of ninja (-t targets all,
 * -t graph, -t commands -s) rather than parsed from build.ninja.
 *
 * The rule: only ninja tools that read the manifest alone ever run on the
 * user's tree (ninja.cc runs them RUN_AFTER_LOAD: targets, graph, inputs,
 * commands, compdb). Tools that run after loading the logs (query, deps,
 * missingdeps, cleandead) open .ninja_log and .ninja_deps first, and
 * loading a log recompacts it when it is redundant, upgrades an old
 * version and deletes one it cannot read: every build recorded in it
 * would be gone. buildwall reads .ninja_log with its own reader only. */
#ifndef BUILDWALL_NINJA_H
#define BUILDWALL_NINJA_H

#include "util.h"

/* Which ready node starts first: the earliest in the manifest (ninja up to
 * 1.11), or the one with the longest path still ahead of it (ninja 1.12+). */
enum sched_policy { POLICY_MANIFEST, POLICY_CRITICAL };
/* A policy a user named (--policy), or none: the installed ninja's. */
struct policy_option {
	bool given;
	enum sched_policy policy;
};

struct ninja_edge {
	struct strvec outputs;	/* outputs[0] names the edge */
	char *rule;
	char *command;		/* final command; NULL for phony edges */
	struct strvec inputs;	/* explicit and implicit (|) inputs: -t graph does not tell them apart */
	struct strvec order_only;	/* || deps */
	size_t *deps;		/* edges that produce any input */
	size_t ndeps;
};

struct output_index;

struct ninja_build {
	char *dir;
	struct ninja_edge *edges;	/* in manifest order */
	size_t n;
	struct output_index *index;	/* every output, sorted, -> its edge */
	size_t nindex;
};

/* The ninja program: $NINJA, else "ninja". */
const char *ninja_program(void);
/* Check that dir exists and holds a build.ninja; dies with exit 2 if not. */
void ninja_check_dir(const char *dir);
/* Every output the manifest builds and (rules not NULL) its rule, in
 * manifest order, from `ninja -t targets all` alone: what is cheap to ask
 * when the graph is not needed. */
void ninja_outputs(const char *dir, struct strvec *outputs, struct strvec *rules);
/* Load the whole build graph; dies with a clear message when ninja fails. */
void ninja_load(const char *dir, struct ninja_build *b);
/* The same graph of the default targets in one question to ninja, without
 * the commands (each edge's command NULL): what survey reads of dozens
 * of modules at once; with cache, ninja's answer is kept for the next
 * time the manifest is the same (cache.h). */
void ninja_load_graph(const char *dir, bool cache, struct ninja_build *b);
void ninja_build_free(struct ninja_build *b);
/* Index of the edge that writes `output`, or -1 (a source file). */
long ninja_edge_of(const struct ninja_build *b, const char *output);
/* Every command ninja would run to build the default targets
 * (ninja -t commands), without loading the graph. */
void ninja_commands(const char *dir, struct strvec *commands);
bool ninja_edge_is_phony(const struct ninja_edge *e);
/* How the installed ninja picks among ready steps, for rank's and sim's
 * predictions alike: up to 1.11 in manifest order, from 1.12 the step with
 * the longest path ahead first (ninja's critical-path scheduling). *why
 * gets "installed ninja 1.13" (owned by the caller). */
enum sched_policy ninja_policy(char **why);
/* "1.11.1", as the installed ninja says (owned); NULL when it says nothing. */
char *ninja_version(void);
/* Object files: what rank and passes treat as compile steps. */
bool ninja_edge_is_compile(const struct ninja_edge *e);

#endif
