/* The advice model: the playbook's fixes as rules over measured facts
 * about each TU, each fix's per-TU saving carried through the build graph
 * into a predicted wall, and the plan (the fixes in the order that lowers
 * the predicted wall most, with the wall after each step).
 *
 * Every saving comes from a measurement the caller made: header probes
 * (a one-line TU including the framework's headers, against an empty one,
 * compiled with a TU's own command, host and device passes apart), the
 * dispatch table compiled apart, and per TU the ratio of its baseline
 * duration to its probed wall (probes run in isolation or side by side;
 * the baseline is a recorded build or rank's measurement).
 *
 * Ownership: the input is the caller's; advice_build fills an advice
 * that owns its strings and arrays until advice_free. */
#ifndef BUILDWALL_ADVICE_H
#define BUILDWALL_ADVICE_H

#include "cluster.h"
#include "memory_plan.h"
#include "ninja.h"
#include "whatif.h"

#include <stdbool.h>

/* Every fix rule, one line each, in the order the tables list them: its
 * id and the struct fix_rule its file defines (src/plan/rules/<name>.c;
 * plan/rules.c makes the table of them the walk hands the model). */
#define FIX_RULES(RULE)                      \
	RULE(FIX_SPLIT, rule_split)          \
	RULE(FIX_FUSED, rule_fused)          \
	RULE(FIX_LAUNCHERS, rule_launchers)  \
	RULE(FIX_LEAK, rule_leak)            \
	RULE(FIX_RAW, rule_raw)              \
	RULE(FIX_FLAT, rule_flat)            \
	RULE(FIX_NARROW, rule_narrow)        \
	RULE(FIX_PCH, rule_pch)              \
	RULE(FIX_JOBS, rule_jobs)

enum fix_id {
#define FIX_RULE_ID(id, rule) id,
	FIX_RULES(FIX_RULE_ID)
#undef FIX_RULE_ID
	NFIXES
};

/* What a framework's headers cost with one command, isolated seconds:
 * the probe's passes minus the empty probe's (never below 0), and the
 * empty probe's own (what any TU of that command costs at least). */
struct header_cost {
	double host, device;
	double base_host, base_device;
	char *headers;		/* "<pybind11/pybind11.h>, <torch/extension.h>" */
	char *command_of;	/* the TU whose command compiled the probes */
};

struct tu_facts {
	size_t edge;
	const char *name;	/* borrowed */
	double scale;		/* baseline seconds per probed second (applied to savings) */
	bool kernel;		/* a device pass compiles a kernel it defines or launches */
	bool device_passes;	/* it has device passes (a dispatcher .cu has, and no kernel) */
	bool binding;		/* the module's binding: PYBIND11_MODULE, TORCH_LIBRARY */
	bool tensor_only;	/* its own code names the framework only as Tensor */
	bool generated;		/* an instance generated into the build tree */
	bool host_framework, device_framework;	/* a pass parses a heavy framework */
	bool includes_framework;	/* the TU's own #include opens it (it needs it) */
	char *frameworks;	/* "torch/ATen/c10, pybind11, Python", or NULL */
	char *leak_chain;	/* host pass: the chain down to the framework, when a project header leaks it */
	char *leak_fix;		/* "opus/tensor_args.h:13", or NULL */
	size_t host_lines, framework_lines;	/* preprocessed host pass, and the framework's share */
	const struct header_cost *cost;	/* for its command; NULL: not measured */
	double cost_lo, cost_hi;	/* that cost's least and most over its median, from the
					 * probes' repeats (0: no spread known, 1) */
	double glue;		/* isolated s of host code beyond the headers: the fused probe's
				 * per instance, else a probed instance's host pass (an upper
				 * bound); NaN: unknown */
	size_t table_entries;	/* an unordered_map<…, std::function<…>> with this many entries; 0: none */
	double table_saving;	/* isolated s: that table compiled apart minus a flat one; NaN: unknown */
	/* narrow: the umbrella it includes replaced by the narrowest headers
	 * its code needs (narrow.h), their cost with its command (NULL: not
	 * narrowed or not measured); all borrowed */
	const struct header_cost *narrow;
	const char *narrow_at;	/* the umbrella's #include: "opus/launcher.h:20" */
	const char *narrow_change;	/* the code change besides, or NULL */
	const char *narrow_why_not;	/* it includes an umbrella its code needs more of */
	bool probed;		/* the pass probe ran on it: the verdict below is measured */
	bool codegen_bound;	/* a device pass dominated by machine code generation */
	double codegen_share;	/* of that pass */
	char *codegen_pass;	/* "device sm_80" */
};

/* The instances' glue measured as one: their sources #included into one
 * TU and its host pass alone compiled with an instance's command, against
 * the framework's headers alike; both the host compiler's seconds (nvcc's
 * cudafe++ apart, which a host .cpp does not run). The headers themselves
 * cost what a host TU's command takes (header_cost). */
struct fused_cost {
	double glue;		/* probed s of every instance's glue together (carried
				 * past the included ones at their share each) */
	double probe, headers;	/* probed s: the fused probe, the headers alike */
	size_t included, instances;
	bool namespaced;	/* they compiled as one TU each in a namespace of its
				 * own (as when two define one name), not as they are */
	bool apart;		/* not even so: the first one alone was measured */
	const char *command_of;	/* borrowed */
};

struct advice_input {
	const struct ninja_build *build;
	const double *seconds;	/* per edge: the baseline durations */
	const struct tu_facts *tus;
	size_t ntus;
	struct sched_options sched;
	long cpus;		/* for the parallelism rule */
	double spread_lo, spread_hi;	/* the baseline builds' least and most wall over
					 * their median (0: one build, 1) */
	/* A cluster the jobs rule may send compiles to (slots 0: none): per
	 * edge the share of its time it holds there (NULL with none), and
	 * the distcc log that share came from (NULL: each sent compile's all) */
	struct remote_option remote;
	const double *remote_share;
	const char *remote_from;
	size_t local_probed;	/* without it: sent compiles whose preprocessing was timed here */
	/* Without it: per edge what sending the compile costs (the network,
	 * fixed + per preprocessed byte: net_probe), NULL: not timed */
	const double *remote_network;
	const struct net_cost *network;
	const char *launcher;	/* the cluster launcher the baseline's durations went
				 * through (ninja's compiles run behind it, or advise
				 * --launcher timed them through it), NULL: none */
	const struct fused_cost *fused;	/* NULL: no fused probe compiled */
	/* The instances' narrow headers compiled with the fused TU's host
	 * command (NULL: not narrowed): what the fused TU parses when narrow
	 * joins fused. */
	const struct header_cost *fused_narrow;
	/* The load curve (sched.curve) at the ends of its spread, flat then
	 * steep, each with the baseline durations it isolates: every range
	 * takes them in. NULL: the curve has no spread. */
	const struct curve_end_input {
		struct load_curve curve;
		const double *seconds;	/* per edge, as `seconds` */
	} *curve_ends;
	/* The rules (fix_rules), and per rule the evidence of its own
	 * probes (NULL: none, or not gathered). */
	const struct fix_rule *const *rules;
	const void *const *evidence;
	/* The build's memory: per edge each step's (peak 0: unknown; NULL:
	 * none measured), and the baseline's job counts against the
	 * memory there is (NULL: no limit or no peak known), what that limit
	 * is ("--memory", "MemAvailable in /proc/meminfo"). */
	const struct step_memory *step_memory;
	const struct memory_plan *memory;
	const char *memory_from;
};

/* A predicted wall's range: the baseline at its least with the savings at
 * their most, and the other way round. */
struct range {
	double lo, hi;
};

struct fix {
	enum fix_id id;
	const char *name;	/* the rule's: "split" */
	const char *title;	/* what the fix is (static): the rule's */
	bool applies;
	size_t *tus;		/* indexes into the input's tus */
	double *saving;		/* per listed TU: seconds off its baseline duration */
	size_t ntus;
	double added;		/* seconds of work it adds (the fused TU, moved glue) */
	double added_narrow;	/* fused: the fused TU's with narrow too (its headers narrowed) */
	char *evidence;		/* what was measured that makes it apply */
	char *measured_by;	/* how its saving was derived */
	char *not_applicable;	/* when it does not apply: what was checked, with the numbers */
	double own_lo, own_hi;	/* a rule of savings of its own (parts 0), or measured ones:
				 * their least and most over the median, as factors (0: no
				 * spread known) */
	bool measured;		/* some of its savings were timed with the fix made */
	bool *proven;		/* per listed TU (NULL: none): its saving was timed with the
				 * fix made, and is `saving`, not its parts' probe seconds
				 * (the parts still say what it overlaps) */
	struct prediction alone;	/* the wall with this fix alone */
	struct range alone_range;
};

struct plan_step {
	enum fix_id id;
	struct prediction after;
	struct range range;
	bool distinct;		/* beyond noise: with the baseline as it is, its savings'
				 * range and the step before's do not overlap */
};

/* What a TU's facts let a fix take out of it: the framework's host or
 * device cost, the dispatch table's, the umbrella's beyond its narrow
 * headers. Fixes that take the same part out of the same TU do not add
 * up. A rule with no part has savings of its own (its fix's saving per
 * TU), which none of its excluded parts chosen beside it leaves. */
enum { PART_HOST = 1, PART_DEVICE = 2, PART_TABLE = 4, PART_NARROW = 8 };

struct advice;

/* The most steps the fixes together add to the graph. */
#define FIX_ADDED_MAX 32

/* What a chosen fix does to the model beyond its TUs' savings: the
 * durations before the graph is built (seconds), then the graph (steps
 * added, each named in `added`) and the schedule's options. */
struct fix_edit {
	const struct advice_input *in;
	const struct fix *f;
	const bool *chosen;	/* the fixes chosen with it, by id */
	const int *parts;	/* per TU: the parts the chosen fixes take out of it */
	double spread;		/* the baseline's spread at this bound (1: the median) */
	double *seconds;	/* per edge */
	struct model *m;
	struct sched_options *o;
	const char **added;	/* per node past the build's edges: what it is */
};

/* A fix rule: its name and words, what it takes out of a TU, and how it
 * reads the facts. The walk's side (the probes it asks for, its evidence
 * saved and read back) is plan/rule.h's. */
struct fix_rule {
	const char *name;	/* "split" */
	const char *title;	/* what the fix is, in the playbook's words */
	int parts;		/* PART_*; 0: savings of its own */
	int excluded_by;	/* own savings: the parts that leave them nothing */
	/* Fill f: the TUs and what each saves, the evidence, how it was
	 * measured; or why it does not apply. `evidence`: its own probes' (NULL:
	 * none gathered). */
	void (*apply)(const struct advice_input *in, const void *evidence, struct fix *f);
	/* Each optional: the durations, then the graph, when it is chosen. */
	void (*edit_seconds)(struct fix_edit *e);
	void (*edit_graph)(struct fix_edit *e);
	/* Optional, once every fix's wall alone is known: words that weigh
	 * it against the others (f is a->fixes[its id]). */
	void (*conclude)(const struct advice_input *in, struct advice *a, struct fix *f);
	/* Whether apply() may read the header probes of TU tu's group (its
	 * cost, narrow), from the facts the sources give before any probe
	 * runs. NULL: it may, for every TU. A rule whose walk proves edits
	 * (rule_walk.proves) reads none for the TUs it proved. A group's
	 * header probe that no rule reads is not run. */
	bool (*reads_cost)(const struct tu_facts *tus, size_t ntus, size_t tu);
	const struct rule_walk *walk;	/* NULL: it reads the shared facts alone */
};

struct advice {
	struct prediction baseline;
	struct range baseline_range;
	struct fix fixes[NFIXES];
	struct plan_step *plan;
	size_t nplan;
	/* The critical path after the plan, first to last: nodes of the model
	 * (an edge, or past the build's edges a TU a fix adds) and their names
	 * (an edge's first output, or what the added TU is; borrowed). */
	size_t *final_chain;
	const char **final_names;
	size_t nfinal;
	double final_critical;
};

/* A TU takes at least as long as its framework's headers alone with its
 * command: a scale (one probed TU's ratio, borrowed by the rest, taken
 * while the machine ran at another speed) that makes t's header probe
 * outlast its `seconds` in the baseline is lowered to fit, so that no
 * saving exceeds what t spends beyond its narrowest headers or an empty
 * TU. Call once t->cost is set. */
void tu_facts_cap_scale(struct tu_facts *t, double seconds);
void advice_build(const struct advice_input *in, struct advice *a);
void advice_free(struct advice *a);

#endif
