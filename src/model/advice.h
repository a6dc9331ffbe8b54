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
#include "ninja.h"
#include "whatif.h"

enum fix_id { FIX_SPLIT, FIX_FUSED, FIX_LAUNCHERS, FIX_LEAK, FIX_RAW, FIX_FLAT, FIX_NARROW, FIX_JOBS, NFIXES };
extern const char *const fix_names[NFIXES];	/* "split", "fused", … */
extern const char *const fix_titles[NFIXES];	/* what the fix is, in the playbook's words */

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
	bool apart;		/* the instances did not compile as one TU (as when two
				 * define one name): the first one alone was measured */
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
};

/* A predicted wall's range: the baseline at its least with the savings at
 * their most, and the other way round. */
struct range {
	double lo, hi;
};

struct fix {
	enum fix_id id;
	const char *title;	/* what the fix is (static): fix_titles', or the rule's own */
	bool applies;
	size_t *tus;		/* indexes into the input's tus */
	double *saving;		/* per listed TU: seconds off its baseline duration */
	size_t ntus;
	double added;		/* seconds of work it adds (the fused TU, moved glue) */
	double added_narrow;	/* fused: the fused TU's with narrow too (its headers narrowed) */
	char *evidence;		/* what was measured that makes it apply */
	char *measured_by;	/* how its saving was derived */
	char *not_applicable;	/* when it does not apply: what was checked, with the numbers */
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
