/* What advise's walk (advise.c) and its renderers (advise_render.c)
 * share: the evidence a walk gathers, private to the two. */
#ifndef BUILDWALL_ADVISE_WALK_H
#define BUILDWALL_ADVISE_WALK_H

#include "advice.h"
#include "advise.h"
#include "distcc_log.h"
#include "kernel_facts.h"
#include "load_curve.h"
#include "measure.h"
#include "narrow.h"
#include "net_probe.h"
#include "pass_probe.h"
#include "source_facts.h"
#include "strmap.h"

#define ADVISE_BUILDS 5

/* Where advise's own wall goes, phase by phase. */
enum spent { SPENT_BASELINE, SPENT_PREPROCESS, SPENT_TABLES, SPENT_LOAD_CURVE, SPENT_PROBES, SPENT_MODEL, NSPENT };

/* A header probe: a command (a TU's) compiling its framework's entry
 * headers, and an empty TU. */
struct probe_group {
	char *key;		/* rule + headers */
	size_t donor;		/* the TU whose command compiles them */
	struct strvec headers;	/* as spelled: "<torch/extension.h>" */
	char *source;		/* the headers' probe TU, in the temp dir */
	long headers_tu, empty_tu;	/* indexes in the pass probe; -1: none */
	struct header_cost cost;
	double cost_lo, cost_hi;	/* its spread: the probe's least and most wall over the median */
	bool measured;
	bool narrow;		/* a TU's narrow headers: it shares its TU group's empty probe */
};

/* One preprocessed pass of a TU: its lines, by header group. */
struct pass_lines {
	char *pass;		/* "host", "device gfx90a" */
	size_t lines;
	struct strvec groups;	/* group titles with lines, heaviest first */
	size_t *group_lines;
};

struct advise_tu {
	struct tu_facts f;
	struct pass_lines *lines;
	size_t nlines;
	struct strvec headers;	/* the framework's entry headers, as spelled */
	struct strvec frameworks;
	long group;		/* its probe group, -1: none */
	long probe_tu;		/* its pass probe, -1: none */
	long table_tu, flat_tu;	/* its dispatch-table probes, -1: none */
	char *family;		/* source name with digits as '#', and rule */
	struct source_facts uses;	/* what its host pass's project files name */
	struct narrowing narrow;	/* valid when umbrella */
	bool umbrella;		/* it includes a framework's umbrella header */
	char *narrow_at;	/* where: "opus/launcher.h:20" */
	long narrow_group;	/* its narrow headers' probe group, -1: none */
};

struct advise {
	const char *dir;
	struct ninja_build build;
	long jobs, parallel, repeats;
	long cpus;		/* of the machine measured on */
	/* Re-planned from a saved document (advise --from): the document,
	 * whose measured parts the renderers carry over, and its path; NULL
	 * when measured here. */
	json_t *saved;
	const char *from;
	bool settle;		/* no -r: repeats is a most, two walls that agree do */
	double timeout;
	enum sched_policy policy;
	char *policy_why;
	double *seconds;	/* per edge: the baseline, isolated once the curve is known */
	char *baseline_source;
	struct recent_builds recent;	/* the builds it comes from; n 0 when measured */
	double recorded_wall;	/* the median wall of those builds; NaN when measured */
	double spread_lo, spread_hi;	/* their least and most wall over the median, widened
					 * to the machine's (machine_lo, machine_hi) */
	double builds_lo, builds_hi;	/* the builds' own, before widening */
	double machine_lo, machine_hi;	/* the widest least and most over the median of
					 * any probe repeated in this run (1: none) */
	struct load_curve load;	/* what running side by side costs here */
	char *load_source;
	char *load_what;	/* what its copies compile (until the curve is known) */
	double *load_pair;	/* a machine of many CPUs: the walls of two copies at
				 * once, their at-once level run among the probes */
	size_t npair;
	long load_first, load_copies;	/* those copies in the pass probe; 0 copies: none */
	struct curve_end_input load_ends[2];	/* its flat and steep ends, with the
						 * baseline each isolates */
	double *end_seconds[2];	/* those baselines, per edge */
	bool load_spread;	/* the ends differ from it */
	struct strmap file_index;	/* project file -> its index in file_facts */
	struct strvec file_names;	/* its keys */
	struct source_facts *file_facts;	/* what each project file's text says */
	struct measurement m;	/* when the baseline was measured */
	bool measured;
	struct advise_tu *tus;
	size_t ntus;
	struct probe_group *groups;
	size_t ngroups;
	struct pass_probe probe;
	long fused_tu, fused_one_tu;	/* the fused probe and the same of its first
					 * instance alone (when it has more) in the
					 * pass probe, -1: none; its headers alike are
					 * its instances' header probe's host jobs */
	size_t fused_donor;	/* the instance whose command compiles it */
	struct fused_cost fused;
	bool fused_measured;
	long fused_narrow_group;	/* the instances' narrow headers with the fused TU's
					 * host command, -1: none */
	bool kernels;
	struct strvec stripped;
	struct advice advice;
	struct prediction *curve;	/* the baseline at -j 1, 2, …: the jobs curve */
	size_t ncurve;
	size_t failures;
	/* --remote: the cluster, and each compile's share of its time sent there */
	struct remote_option remote;
	const char *distcc_path;
	struct distcc_log distcc;
	double *remote_share;
	size_t local_probed;	/* sent compiles whose preprocessing was timed here */
	bool probe_net;
	const char *launcher;	/* the baseline's TUs sent through it (measure.h) */
	const char *build_launcher;	/* the one the baseline's durations went through:
					 * launcher, else the one the build's compiles run
					 * behind (static, or the saved document's); NULL: none */
	struct net_cost net;	/* with probe_net: what sending a compile costs */
	double *network;	/* per edge, seconds; NULL: not timed */
	/* advise's own wall, by what it spent it on: what a user waits for */
	double spent[NSPENT];
	double spent_at;	/* when the phase under way began (monotonic) */
};

/* The advice model over the evidence, measured or saved: the fixes,
 * the plan and the jobs curve. */
void advise_model(struct advise *ad);

/* The model's input as advise --json saves it (model_input), at full
 * precision (advise_saved.c). */
json_t *advise_input_json(const struct advise *ad);
/* Each of those inputs made what the document holds of it
 * (BUILDWALL_JSON_DIGITS significant digits): the walk calls it before the model, so that the plan it prints
 * is the plan --from computes from its document. */
void advise_hold_inputs(struct advise *ad);

/* The baseline's runs through the launcher: sent, kept here, and the
 * hosts that failed some (their runs compiled here instead). */
struct cluster_runs {
	size_t sent, kept_here, fell_back;
};
struct cluster_runs cluster_runs(const struct advise *ad);
/* The worst kernel of a kernel-work TU, when --kernels found one. */
const struct kernel_fact *worst_kernel(const struct advise *ad, const struct advise_tu *t);
/* The pass probe's TU i, or NULL (-1, or it failed). */
const struct pass_tu *probed(const struct advise *ad, long i);

#endif
