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
#include "settle_budget.h"
#include "source_facts.h"
#include "strmap.h"

#define ADVISE_BUILDS 5
/* advise's own wall, in the recorded builds' wall: its settling rounds
 * run only while it stays within it (walk.c: advise_settling). */
#define ADVISE_BUDGET_BUILDS 2

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
	bool unread;		/* no rule reads it: its headers' probe not run */
};

/* One preprocessed pass of a TU: its lines, by header group. */
struct pass_lines {
	char *pass;		/* "host", "device gfx90a" */
	size_t lines;
	struct strvec groups;	/* group titles with lines, heaviest first */
	size_t *group_lines;
};

/* A line that includes a framework's header: the file as the compiler
 * named it, from the build dir; the line; what it includes as spelled
 * ("<torch/extension.h>"). file NULL: none. */
struct include_site {
	char *file;
	unsigned long line;
	char *header;
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
	bool host_read;		/* its host pass preprocessed and read */
	bool names_function;	/* a file of that pass (not a system header's) names
				 * function<: a dispatch table may be there */
	bool tables_read;	/* its host pass's dispatch tables read with the pass
				 * (f.table_entries): no second -E for them */
	char *family;		/* source name with digits as '#', and rule */
	struct source_facts uses;	/* what its host pass's project files name */
	struct narrowing narrow;	/* valid when umbrella */
	bool umbrella;		/* it includes a framework's umbrella header */
	char *narrow_at;	/* where: "opus/launcher.h:20" */
	long narrow_group;	/* its narrow headers' probe group, -1: none */
	struct include_site leak;	/* the project line that brings a framework into its host pass */
	struct include_site narrow_site;	/* the line that includes its umbrella (narrow_at) */
};

/* The baseline: each step's duration, what it came from and its spread
 * (baseline.c). */
struct advise_baseline {
	double *seconds;	/* per edge: isolated once the curve is known */
	char *source;
	struct recent_builds recent;	/* the builds it comes from; n 0 when measured */
	double recorded_wall;	/* the median wall of those builds; NaN when measured */
	double spread_lo, spread_hi;	/* their least and most wall over the median, widened
					 * to the machine's (machine_lo, machine_hi) */
	double builds_lo, builds_hi;	/* the builds' own, before widening */
	double machine_lo, machine_hi;	/* the widest least and most over the median of
					 * any probe repeated in this run (1: none) */
	struct measurement m;	/* when the baseline was measured */
	bool measured;
};

/* The load curve: what running side by side costs here (load.c). */
struct advise_load {
	struct load_curve curve;
	char *source;
	char *what;		/* what its copies compile (until the curve is known) */
	double *pair;		/* a machine of many CPUs: the walls of two copies at
				 * once, their at-once level run among the probes */
	size_t npair;
	/* Its compile a proven edit's (rule_walk.edited): that evidence (the
	 * edit marks its wall), and the walls of its rounds of two copies at
	 * once (NULL: none), which are that wall's edited walls. */
	const void *shared_by;
	double *shared;
	size_t nshared;
	long first, copies;	/* those copies in the pass probe; 0 copies: none */
	struct curve_end_input ends[2];	/* its flat and steep ends, with the
					 * baseline each isolates */
	double *end_seconds[2];	/* those baselines, per edge */
	bool spread;		/* the ends differ from it */
	bool timed_as_built;	/* a proven edit's walls time every compile at once as
				 * the recorded builds ran them: no curve is run */
	bool unsettled;		/* a level's settling round declined (advise_settling) */
};

/* The probes compiled in the temp dir, and what they measured (probes.c). */
struct advise_probes {
	struct probe_group *groups;
	size_t ngroups;
	struct pass_probe pass;
	long fused_tu, fused_apart_tu, fused_one_tu;	/* the fused probe, the same
					 * with each instance in a namespace of its own,
					 * and its first instance alone (when it has
					 * more) in the pass probe, -1: none; its
					 * headers alike are its instances' header
					 * probe's host jobs */
	size_t fused_donor;	/* the instance whose command compiles it */
	struct fused_cost fused;
	bool fused_measured;
	long fused_narrow_group;	/* the instances' narrow headers with the fused TU's
					 * host command, -1: none */
};

/* --remote: the cluster, and each compile's share of its time sent there
 * (cluster.c). */
struct advise_cluster {
	struct remote_option remote;
	const char *distcc_path;
	struct distcc_log distcc;
	double *share;
	size_t local_probed;	/* sent compiles whose preprocessing was timed here */
	bool probe_net;
	const char *launcher;	/* the baseline's TUs sent through it (measure.h) */
	const char *build_launcher;	/* the one the baseline's durations went through:
					 * launcher, else the one the build's compiles run
					 * behind (static, or the saved document's); NULL: none */
	struct net_cost net;	/* with probe_net: what sending a compile costs */
	double *network;	/* per edge, seconds; NULL: not timed */
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
	struct settle_budget budget;	/* with settle: its rounds held to ADVISE_BUDGET_BUILDS */
	double timeout;
	enum sched_policy policy;
	char *policy_why;
	struct advise_baseline base;
	struct advise_load load;
	struct strmap file_index;	/* project file -> its index in file_facts */
	struct strvec file_names;	/* its keys */
	struct source_facts *file_facts;	/* what each project file's text says */
	struct strvec project_files;	/* every TU's source and project headers, as the
					 * compiler named them from the build dir */
	const char *project;	/* --project: the root of the sources edits are made
				 * in; NULL: those files' common root */
	struct advise_tu *tus;
	size_t ntus;
	struct advise_probes probes;
	void *evidence[NFIXES];	/* per rule, of the probes of its own (rule.h); NULL: none */
	bool kernels;
	struct strvec stripped;
	struct advice advice;
	struct prediction *curve;	/* the baseline at -j 1, 2, …: the jobs curve */
	/* Memory: per edge each step's (peak 0: unknown), how many peaks
	 * are known, the limit the jobs are held to and what it is, and the
	 * job counts against it (rows NULL: no limit or no peak known). */
	struct step_memory *step_memory;
	size_t npeaks;
	size_t memory_peaks_measured;	/* TUs compiled once more for theirs (--memory) */
	double memory_kb;
	const char *memory_from;
	struct memory_plan memory;
	size_t ncurve;
	size_t failures;
	struct advise_cluster cluster;
	/* --patch: the patches written, each fix's that applies */
	struct advise_patch {
		size_t step;	/* its plan step, from 1; 0: not in the plan */
		enum fix_id id;
		char *path;
	} *patches;
	size_t npatches;
	/* advise's own wall, by what it spent it on: what a user waits for */
	double spent[NSPENT];
	double spent_at;	/* when the phase under way began (monotonic) */
};

/* How a probe of the walk settles its walls: NULL with --repeats (every
 * repeat runs), else the walk's budget. */
struct settle_budget *advise_settling(struct advise *ad);

/* The parts of a walk, each in its file and each freeing its own. */

/* baseline.c: the builds recorded in .ninja_log that ran every selected
 * TU, else every TU measured as rank does; then its spread widened to
 * what the probes repeated in this run show. */
void baseline_measure(struct advise *ad, const bool *selected);
void baseline_widen_to_machine(struct advise *ad);
void baseline_free(struct advise_baseline *b);

/* tus.c: every TU preprocessed (its lines, chains and what its project
 * files name), the generated instances marked, the sources read. */
void tus_preprocess(struct advise *ad);
void tus_mark_generated(struct advise *ad);
void tus_read_sources(struct advise *ad);
void tus_free(struct advise_tu *tus, size_t n);
/* TU indexes sorted by baseline seconds, the heaviest first (a TU with
 * none last): the ones a probe that samples measures. */
void tus_heaviest_first(const struct advise *ad, size_t *tus, size_t n);
/* t's source, as its edge names it. */
const char *tu_source(const struct advise *ad, const struct advise_tu *t);

/* probes.c: each kind of probe planned into the pass probe, the compilers
 * warmed up, and after the run the probes read into each TU's facts. */
void probes_plan_headers(struct advise *ad);
void probes_plan_tables(struct advise *ad, struct advise_tu *t, size_t index);
void probes_plan_fused(struct advise *ad);
void probes_plan_tus(struct advise *ad);
void probes_plan_narrow(struct advise *ad);
/* After the rules' asks: the header probes no rule would read skipped. */
void probes_drop_unread(struct advise *ad);
/* Until the pass probe runs: what its first runs are expected to take. */
double probes_ahead(const struct advise *ad);
void probes_warm_up(struct advise *ad);
void probes_read(struct advise *ad);
void probes_find_kernels(struct advise *ad);
void probes_free(struct advise_probes *p);
/* t's command with its outputs in the temp dir (under `sub`) and `source`
 * compiled in place of its own; false (with a warning) when the command
 * does not name its source as ninja does. */
bool probe_command(struct advise *ad, const struct advise_tu *t, const char *sub, const char *source,
		   struct compile_command *cmd);

/* load.c: the load curve measured before the probes (or its copies
 * planned among them), finished after them; the baseline isolated by it. */
void load_calibrate(struct advise *ad);
void load_finish(struct advise *ad);
void load_free(struct advise_load *l);

/* memory.c: the steps' peaks (memory_collect, after the probes; with
 * memory_kb > 0 the TUs without one compiled for it, and that the limit,
 * else the memory available here), then the job counts against the
 * limit (memory_plan_jobs, with the schedule the model uses). */
void memory_collect(struct advise *ad, double memory_kb);
void memory_plan_jobs(struct advise *ad, const struct sched_options *sched);

/* cluster.c */
const char *cluster_baseline_launcher(const struct advise *ad);
double *cluster_remote_shares(struct advise *ad);
void cluster_free(struct advise_cluster *c);

/* The advice model over the evidence, measured or saved: the fixes,
 * the plan and the jobs curve. */
void advise_model(struct advise *ad);
/* The walk's TUs' facts in one array, as the model and the rules read
 * them (owned by the caller; the strings in them borrowed). */
struct tu_facts *advise_facts(const struct advise *ad);
/* During the walk, after the asks of the rules before the caller's: an
 * edit proven on a copy (a rule_walk's proves) covers TU tu. */
bool walk_edit_proves(const struct advise *ad, size_t tu);

/* The model's input as advise --json saves it (model_input), at full
 * precision (advise_saved.c). */
json_t *advise_input_json(const struct advise *ad);
/* x as the document holds it (BUILDWALL_JSON_DIGITS significant digits):
 * what a rule's read() does to its evidence's numbers. */
void advise_held(double *x);
/* x as the document writes it: a number at full precision, null for NaN. */
json_t *advise_json_number(double x);
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
/* A rule's two timed probes of one TU, as it is (`plain`) and changed
 * (`with`): the plain one, or NULL when it has no walls. Then *changed is
 * the changed one, or NULL with *error (owned) saying why it failed. */
const struct pass_tu *probed_pair(const struct advise *ad, long plain, long with, const struct pass_tu **changed,
				  char **error);

#endif
