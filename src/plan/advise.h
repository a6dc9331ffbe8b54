/* The advise model in-process: the evidence gathered (baseline durations,
 * every TU preprocessed, header, table and pass probes in the temp dir),
 * the advice built from it, and its two renderings. advise and report
 * call it; the build directory is only read.
 *
 * Ownership: advise_collect returns a struct the caller frees with
 * advise_free (its renderers: cmd/advise_render.h). */
#ifndef BUILDWALL_ADVISE_H
#define BUILDWALL_ADVISE_H

#include "cluster.h"
#include "ninja.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct advise_options {
	const char *cmd;	/* the command, for messages: "advise", "report" */
	const char *dir;
	long jobs;		/* the job count to predict for (the caller's default: $MAX_JOBS, else CPUs) */
	long parallel;		/* probes at once (capped at PROC_MAX_RUNNING) */
	double timeout;		/* per compile; 0: none */
	struct policy_option policy;
	long repeats;		/* runs of each header, empty and table probe, walls a level of
				 * the load curve; 0: at most ADVISE_REPEATS, two that agree
				 * (walls_agree) settle it */
	bool kernels;		/* the kernel-work entries' worst kernel: one more compile of each */
	char **targets;		/* limit the TUs considered; none: all */
	size_t ntargets;
	struct remote_option remote;	/* a cluster for the jobs rule; slots 0: none */
	const char *distcc_log;	/* its split of each compile, here against there */
	bool probe_net;		/* without it: time what sending a compile costs */
	const char *launcher;	/* "distcc": the baseline timed on the cluster; NULL: here */
	const char *from;	/* advise --from: a saved document to re-plan from */
	const char *project;	/* --project: the root its edits are proven in; NULL: the
				 * common root of the TUs' sources and project headers */
	double memory_kb;	/* --memory: the limit the jobs rule holds -j to, every TU's
				 * peak measured for it; 0: the memory available here, with
				 * the peaks the probes measured */
};

/* What a spread needs: runs of every header, empty and table probe, and
 * walls a level of the load curve. */
#define ADVISE_REPEATS 3

struct advise;

/* Bad input exits 2 with one line, as the commands do; an interrupt 130. */
struct advise *advise_collect(const struct advise_options *o);
/* The same from o->from, a saved advise --json document, compiling
 * nothing: its measurements re-planned for o's job count and policy (the
 * document's where o gives none). Bad input exits 2 with one line. */
struct advise *advise_from(const struct advise_options *o);
/* The reading behind it, on a document in memory: false with *err
 * ("PATH:LINE: what" or "PATH: model_input.FIELD: what", owned) on the
 * first thing wrong; else *out for advise_free. */
bool advise_saved_parse(const char *text, size_t len, const char *path, struct advise **out, char **err);
/* advise --patch DIR: each applying fix's proven edits written into dir
 * (made if missing) as "STEP-RULE-NAME.patch", "RULE-NAME.patch" for a
 * fix the plan leaves out, whole or not at all. Bad
 * input (a dir that cannot be made) exits 2 with one line. */
void advise_write_patches(struct advise *ad, const char *dir);
/* Compiles and probes that failed (reported as they happened). */
size_t advise_failures(const struct advise *ad);
void advise_free(struct advise *ad);

#endif
