#include "advice.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const fix_names[NFIXES] = { "split", "fused", "launchers", "leak", "raw", "flat", "narrow", "jobs" };
const char *const fix_titles[NFIXES] = {
	"split the host and device passes: guard the framework with !__CUDA_ARCH__ / !__HIP_DEVICE_COMPILE__",
	"one fused host TU for the instances' tensor glue, the instance TUs device-only (per-source -D)",
	"take the framework out of the launchers (raw pointers; the tensor glue in a host TU)",
	"remove the include that leaks the framework into a host TU",
	"raw pointers (or a small struct) in the dispatcher's signatures instead of the framework's tensors",
	"a flat sorted table instead of unordered_map<..., std::function<...>>",
	"narrow the framework's headers: the umbrella replaced by the entry headers the TU's code needs",
	"run as many jobs as there are CPUs",
};

/* What a fix takes out of a TU: the framework's host or device cost, or
 * the dispatch table's. Fixes that take the same part out of the same TU
 * do not add up. */
enum { PART_HOST = 1, PART_DEVICE = 2, PART_TABLE = 4, PART_NARROW = 8 };
static const int fix_parts[NFIXES] = { PART_DEVICE, PART_HOST | PART_DEVICE, PART_HOST | PART_DEVICE,
				       PART_HOST | PART_DEVICE, PART_HOST | PART_DEVICE, PART_TABLE, PART_NARROW, 0 };

static int parts_present(const struct tu_facts *t)
{
	return (t->host_framework && t->cost ? PART_HOST : 0) | (t->device_framework && t->cost ? PART_DEVICE : 0) |
	       (t->table_entries && !isnan(t->table_saving) ? PART_TABLE : 0) | (t->narrow && t->cost ? PART_NARROW : 0);
}

/* What narrowing takes out of a pass: the umbrella's cost less the narrow
 * headers', where no other fix takes the framework out of it. */
static double narrowed_part(double umbrella, double narrow)
{
	return umbrella > narrow ? umbrella - narrow : 0;
}

/* Which end of a range a prediction is for: the median, or the least
 * (baseline at its least, savings at their most) or the most wall; or the
 * savings' ends alone (the baseline's spread is the machine's, common to
 * every step: it does not tell two steps apart). */
enum bound { BOUND_MEDIAN, BOUND_LEAST, BOUND_MOST, BOUND_SAVINGS_MOST, BOUND_SAVINGS_LEAST };

static double factor(double f)
{
	return f > 0 ? f : 1;
}

/* Baseline seconds that `parts` take out of t, at `bound`'s end (the
 * header cost's spread; the table's probes share it). */
static double part_seconds_at(const struct tu_facts *t, int parts, enum bound bound)
{
	parts &= parts_present(t);
	double s = 0;
	if (parts & PART_HOST)
		s += t->cost->host;
	if (parts & PART_DEVICE)
		s += t->cost->device;
	if (parts & PART_TABLE)
		s += t->table_saving;
	if ((parts & PART_NARROW) && !(parts & PART_HOST) && t->host_framework)
		s += narrowed_part(t->cost->host, t->narrow->host);
	if ((parts & PART_NARROW) && !(parts & PART_DEVICE) && t->device_framework)
		s += narrowed_part(t->cost->device, t->narrow->device);
	double f = bound == BOUND_LEAST || bound == BOUND_SAVINGS_MOST ? factor(t->cost_hi)
		 : bound == BOUND_MOST || bound == BOUND_SAVINGS_LEAST ? factor(t->cost_lo) : 1;
	return s * t->scale * f;
}

static double part_seconds(const struct tu_facts *t, int parts)
{
	return part_seconds_at(t, parts, BOUND_MEDIAN);
}

void tu_facts_cap_scale(struct tu_facts *t, double seconds)
{
	const struct header_cost *c = t->cost;
	double headers = c ? c->host + c->base_host + c->device + c->base_device : 0;
	if (headers > 0 && seconds > 0 && t->scale * headers > seconds)
		t->scale = seconds / headers;
}

/* A TU gets no cheaper than an empty one with its command. */
static double floor_of(const struct tu_facts *t, double d)
{
	double empty = t->cost ? t->scale * (t->cost->base_host + t->cost->base_device) : 0;
	return empty < d ? empty : d;
}

/* The binding TU (PYBIND11_MODULE, TORCH_LIBRARY), else the first host TU
 * that includes the framework itself: where moved tensor glue goes. -1:
 * none. */
static long binding_tu(const struct advice_input *in)
{
	long first = -1;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		if (!t->kernel && t->binding)
			return (long)i;
		if (!t->kernel && t->includes_framework && first < 0)
			first = (long)i;
	}
	return first;
}

/* What the framework's headers cost a host compiler: the header probe of
 * a host TU that parses them (the binding TU first), or NULL. */
static const struct header_cost *host_compiler_cost(const struct advice_input *in)
{
	long binding = binding_tu(in);
	if (binding >= 0 && in->tus[binding].cost)
		return in->tus[binding].cost;
	for (size_t i = 0; i < in->ntus; i++)
		if (!in->tus[i].kernel && in->tus[i].host_framework && in->tus[i].cost)
			return in->tus[i].cost;
	return NULL;
}

static void add_tu(struct fix *f, size_t tu, double saving)
{
	f->tus = xrealloc(f->tus, (f->ntus + 1) * sizeof(size_t));
	f->saving = xrealloc(f->saving, (f->ntus + 1) * sizeof(double));
	f->tus[f->ntus] = tu;
	f->saving[f->ntus++] = saving;
}

/* The load curve a prediction schedules with: the measured one, or one
 * end of its spread (the durations isolated by that end with it). */
enum curve_end { CURVE_MEDIAN = -1, CURVE_FLAT = 0, CURVE_STEEP = 1 };

/* The model with the chosen fixes applied, at `bound`'s end of the
 * baseline's and the savings' spread, scheduled with `curve`. */
static void model_with(const struct advice_input *in, const struct advice *a, const bool *chosen, enum bound bound,
		       enum curve_end curve, struct model *m, struct sched_options *o)
{
	size_t n = in->build->n;
	double spread = bound == BOUND_LEAST ? factor(in->spread_lo) : bound == BOUND_MOST ? factor(in->spread_hi) : 1;
	const double *base = curve == CURVE_MEDIAN ? in->seconds : in->curve_ends[curve].seconds;
	double *seconds = xcalloc(n, sizeof(double));
	for (size_t i = 0; i < n; i++)
		seconds[i] = base[i] * spread;
	int *parts = xcalloc(in->ntus, sizeof(int));
	for (int id = 0; id < NFIXES; id++)
		for (size_t k = 0; chosen[id] && k < a->fixes[id].ntus; k++)
			parts[a->fixes[id].tus[k]] |= fix_parts[id];
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		double d = isnan(seconds[t->edge]) ? 0 : seconds[t->edge];
		double cut = d - spread * part_seconds_at(t, parts[i], bound), least = floor_of(t, d);
		seconds[t->edge] = cut > least ? cut : least;
	}
	long binding = binding_tu(in);
	if (chosen[FIX_LAUNCHERS] && binding >= 0)
		seconds[in->tus[binding].edge] += spread * a->fixes[FIX_LAUNCHERS].added;
	model_from_build(m, in->build, seconds);
	if (chosen[FIX_FUSED] && a->fixes[FIX_FUSED].ntus)
		model_add_beside(m, in->tus[a->fixes[FIX_FUSED].tus[0]].edge,
				 spread * (chosen[FIX_NARROW] ? a->fixes[FIX_FUSED].added_narrow : a->fixes[FIX_FUSED].added));
	if (chosen[FIX_LAUNCHERS] && binding < 0 && a->fixes[FIX_LAUNCHERS].ntus)
		model_add_beside(m, in->tus[a->fixes[FIX_LAUNCHERS].tus[0]].edge, spread * a->fixes[FIX_LAUNCHERS].added);
	*o = in->sched;
	if (curve != CURVE_MEDIAN)
		o->curve = &in->curve_ends[curve].curve;
	if (chosen[FIX_JOBS] && in->remote.slots) {
		/* The cluster: each compile's share there on its slots; ninja
		 * runs a job for every slot and core. */
		for (size_t i = 0; i < in->build->n; i++) {
			double there = m->nodes[i].duration * in->remote_share[i];
			bool sent = there > 0 && in->remote_network && !isnan(in->remote_network[i]);
			m->nodes[i].duration -= there;
			m->nodes[i].remote = there / in->remote.speed + (sent ? in->remote_network[i] : 0);
		}
		o->remote_slots = (int)in->remote.slots;
		o->jobs = (int)(in->remote.slots + in->cpus);
	} else if (chosen[FIX_JOBS]) {
		o->jobs = (int)in->cpus;
	}
	free(parts);
	free(seconds);
}

static struct prediction predict_at(const struct advice_input *in, const struct advice *a, const bool *chosen,
				    enum bound bound, enum curve_end curve)
{
	struct model m;
	struct sched_options o;
	struct prediction p = { 0 };
	model_with(in, a, chosen, bound, curve, &m, &o);
	if (!model_predict(&m, &o, &p))
		p.wall = NAN;	/* a cycle or an interrupt: the caller checks */
	model_free(&m);
	return p;
}

static struct prediction predict_with(const struct advice_input *in, const struct advice *a, const bool *chosen)
{
	return predict_at(in, a, chosen, BOUND_MEDIAN, CURVE_MEDIAN);
}

/* The baseline's and the savings' spread, and the load curve's: a fix
 * that changes how many heavy jobs run at once moves the wall by how much
 * they slow each other, which the curve's spread bounds (the baseline
 * itself, isolated and scheduled by one curve, comes back the same). */
static struct range range_with(const struct advice_input *in, const struct advice *a, const bool *chosen)
{
	struct range r = { predict_at(in, a, chosen, BOUND_LEAST, CURVE_MEDIAN).wall,
			   predict_at(in, a, chosen, BOUND_MOST, CURVE_MEDIAN).wall };
	for (enum curve_end end = CURVE_FLAT; in->curve_ends && end <= CURVE_STEEP; end++) {
		double lo = predict_at(in, a, chosen, BOUND_LEAST, end).wall,
		       hi = predict_at(in, a, chosen, BOUND_MOST, end).wall;
		r.lo = lo < r.lo ? lo : r.lo;
		r.hi = hi > r.hi ? hi : r.hi;
	}
	return r;
}

static struct range savings_range(const struct advice_input *in, const struct advice *a, const bool *chosen)
{
	return (struct range){ predict_at(in, a, chosen, BOUND_SAVINGS_MOST, CURVE_MEDIAN).wall,
			       predict_at(in, a, chosen, BOUND_SAVINGS_LEAST, CURVE_MEDIAN).wall };
}

static char *tu_list(const struct advice_input *in, const struct fix *f)
{
	struct strvec names = { 0 };
	for (size_t k = 0; k < f->ntus && k < 3; k++)
		strvec_push(&names, in->tus[f->tus[k]].name);
	char *list = strvec_join(&names, ", ");
	strvec_clear(&names);
	if (f->ntus <= 3)
		return list;
	char *more = xasprintf("%s and %zu more", list, f->ntus - 3);
	free(list);
	return more;
}

/* The first TU's framework names and header cost: the fixes' shared words. */
static const struct tu_facts *first_tu(const struct advice_input *in, const struct fix *f)
{
	return &in->tus[f->tus[0]];
}

static char *cost_words(const struct header_cost *c, const char *side)
{
	return xasprintf("header probe: %s compiled with %s's command, against an empty TU: %s %.2f s; each TU's "
			 "saving scaled by its baseline/probed wall", c->headers, c->command_of, side,
			 !strcmp(side, "host pass") ? c->host : c->device);
}

static void rule_split(const struct advice_input *in, struct fix *f)
{
	size_t kernels = 0;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		kernels += t->kernel;
		if (t->kernel && (parts_present(t) & PART_DEVICE) && t->cost->device > 0)
			add_tu(f, i, part_seconds(t, PART_DEVICE));
	}
	if (!f->ntus) {
		f->not_applicable = kernels ? xasprintf("no device pass of the %zu kernel TUs parses a host-only framework", kernels)
					    : xstrdup("no kernel TUs (no compile step has device passes)");
		return;
	}
	const struct tu_facts *t = first_tu(in, f);
	char *list = tu_list(in, f);
	f->evidence = xasprintf("the device passes of %s parse %s, which only host code uses (%.2f s per TU of the "
				"device passes, measured)", list, t->frameworks, t->cost->device);
	f->measured_by = cost_words(t->cost, "device passes");
	free(list);
}

/* How the glue a fix moves was measured, in words (owned); *g its probed
 * seconds: with the fused probe every instance's glue together, else one
 * instance's counted once (every wrapper instantiates the same tensor
 * templates). */
static char *glue_text(const struct advice_input *in, double glue, bool generated, double *g)
{
	const struct fused_cost *fc = in->fused;
	if (generated && fc) {
		*g = fc->glue;
		char *carried = fc->included < fc->instances
			? xasprintf(", carried to all %zu at %.2f s each%s", fc->instances, fc->glue / (double)fc->instances,
				    fc->apart ? " (they do not compile as one TU)" : "")
			: xstrdup("");
		char *words = xasprintf("the glue of the %zu instance%s %.2f s, measured as one: %zu source%s #included "
					"into one TU, its host pass alone with %s's command (the device passes not run), "
					"%.2f s against its headers alike %.2f s%s", fc->instances,
					fc->instances == 1 ? "" : "s", fc->glue, fc->included, fc->included == 1 ? "" : "s",
					fc->command_of, fc->probe, fc->headers, carried);
		free(carried);
		return words;
	}
	*g = isnan(glue) ? 0 : glue;
	if (isnan(glue))
		return xstrdup("glue unknown (no generated instance probed), counted as 0 s");
	return fc ? xasprintf("the tensor glue %.2f s (an instance's share of the fused probe's), counted once", glue)
		  : xasprintf("the tensor glue %.2f s (a probed instance's host pass beyond its headers: an upper bound), "
			      "counted once", glue);
}

/* fused (generated instances) and launchers (hand-written kernel TUs):
 * the framework out of a kernel TU altogether. */
static void rule_out_of_kernels(const struct advice_input *in, struct fix *f, bool generated)
{
	size_t candidates = 0;
	double glue = NAN;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		if (!t->kernel || t->generated != generated)
			continue;
		candidates++;
		if (t->generated && !isnan(t->glue) && isnan(glue))
			glue = t->glue;
		if (parts_present(t) & PART_HOST)
			add_tu(f, i, part_seconds(t, PART_HOST | PART_DEVICE));
	}
	/* The glue as one probed generated instance showed it, for either fix. */
	for (size_t i = 0; isnan(glue) && i < in->ntus; i++)
		if (in->tus[i].generated && !isnan(in->tus[i].glue))
			glue = in->tus[i].glue;
	const char *what = generated ? "generated instance" : "hand-written kernel";
	if (!f->ntus) {
		f->not_applicable = candidates ? xasprintf("none of the %zu %s TUs parses a framework in its host pass", candidates, what)
					       : xasprintf("no %s TUs", what);
		return;
	}
	const struct tu_facts *t = first_tu(in, f);
	double g, scale = 0;
	for (size_t k = 0; k < f->ntus; k++)
		scale += in->tus[f->tus[k]].scale / (double)f->ntus;
	char *list = tu_list(in, f), *cost = cost_words(t->cost, "host pass");
	char *glue_words = glue_text(in, glue, generated, &g);
	if (generated) {
		/* The fused TU is a host TU: the headers as the host compiler
		 * parses them, measured with a host TU's command when one parses
		 * the framework, and the glue once (every wrapper instantiates
		 * the same tensor templates). */
		const struct header_cost *host = host_compiler_cost(in);
		if (!host)
			host = t->cost;
		f->added = scale * (host->host + host->base_host + g);
		/* Narrowed, the fused TU parses the instances' narrow headers. */
		const struct header_cost *narrow = in->fused_narrow;
		f->added_narrow = narrow ? scale * (narrow->host + host->base_host + g) : f->added;
		f->evidence = xasprintf("%zu %s TU%s (%s) each parse %s in the host pass (%.2f s) and the device passes "
					"(%.2f s); one fused host TU parses it once: %.2f s predicted", f->ntus, what,
					f->ntus == 1 ? "" : "s", list, t->frameworks, t->cost->host, t->cost->device, f->added);
		f->measured_by = xasprintf("%s; the fused TU = the headers compiled with %s's command (%.2f s) + an empty TU "
					   "(%.2f s) + %s", cost, host->command_of, host->host, host->base_host,
					   glue_words);
	} else {
		f->added = scale * g;
		f->evidence = xasprintf("%s parse%s %s through a launcher header, in the host pass (%.2f s) and the device "
					"passes (%.2f s); the tensor glue moves to a host TU that includes it anyway",
					list, f->ntus == 1 ? "s" : "", t->frameworks, t->cost->host, t->cost->device);
		f->measured_by = xasprintf("%s; %s, for the TU it joins", cost, glue_words);
	}
	free(glue_words);
	free(cost);
	free(list);
}

static void rule_fused(const struct advice_input *in, struct fix *f)
{
	rule_out_of_kernels(in, f, true);
}

static void rule_launchers(const struct advice_input *in, struct fix *f)
{
	rule_out_of_kernels(in, f, false);
}

static void rule_leak(const struct advice_input *in, struct fix *f)
{
	size_t hosts = 0;
	struct strvec needing = { 0 };
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		if (t->kernel)
			continue;
		hosts++;
		if (t->host_framework && t->includes_framework)
			strvec_pushf(&needing, "%s%s", t->name, t->binding ? " (the binding)"
							     : t->tensor_only ? " (only for tensors: see raw)" : "");
		else if (t->host_framework && t->leak_fix && (parts_present(t) & PART_HOST))
			add_tu(f, i, part_seconds(t, PART_HOST | PART_DEVICE));
	}
	char *need = needing.n ? strvec_join(&needing, ", ") : NULL;
	if (!f->ntus) {
		f->not_applicable = xasprintf("no host TU gets a framework through a project header (%zu host TU%s "
					      "preprocessed%s%s%s)", hosts, hosts == 1 ? "" : "s", need ? "; " : "",
					      need ? need : "", need ? " include it themselves" : "");
	} else {
		const struct tu_facts *t = first_tu(in, f);
		f->evidence = xasprintf("%s: %s; line to fix: %s; the framework is %zu of its %zu preprocessed host lines%s",
					t->name, t->leak_chain, t->leak_fix, t->framework_lines, t->host_lines,
					t->device_passes ? " (its device passes parse it too)" : "");
		f->measured_by = cost_words(t->cost, t->device_passes ? "host and device passes" : "host pass");
	}
	free(need);
	strvec_clear(&needing);
}

/* A dispatcher (not the binding) that includes the framework itself but
 * names it only as Tensor in its code: pointers or a small struct would
 * do, and the conversion joins the binding TU, which parses it anyway. */
static void rule_raw(const struct advice_input *in, struct fix *f)
{
	size_t hosts = 0;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		hosts += !t->kernel;
		if (!t->kernel && !t->binding && t->includes_framework && t->tensor_only &&
		    (parts_present(t) & PART_HOST))
			add_tu(f, i, part_seconds(t, PART_HOST | PART_DEVICE));
	}
	if (!f->ntus) {
		f->not_applicable = xasprintf("no host TU but the binding includes a framework only for tensors in its "
					      "code (%zu host TU%s read)", hosts, hosts == 1 ? "" : "s");
		return;
	}
	const struct tu_facts *t = first_tu(in, f);
	char *list = tu_list(in, f);
	f->evidence = xasprintf("%s include%s %s itself, and %s own code names it only as Tensor: it parses the "
				"framework (%zu of %zu host lines) for its signatures", list, f->ntus == 1 ? "s" : "",
				t->frameworks ? t->frameworks : "the framework", f->ntus == 1 ? "its" : "their",
				t->framework_lines, t->host_lines);
	char *cost = cost_words(t->cost, t->device_passes ? "host and device passes" : "host pass");
	f->measured_by = xasprintf("%s; the tensors' conversion to pointers joins the binding TU, which parses the "
				   "framework anyway (counted as 0 s)", cost);
	free(cost);
	free(list);
}

static void rule_flat(const struct advice_input *in, struct fix *f)
{
	size_t hosts = 0;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		hosts += !t->kernel;
		if (!t->kernel && (parts_present(t) & PART_TABLE) && t->table_saving > 0)
			add_tu(f, i, part_seconds(t, PART_TABLE));
	}
	if (!f->ntus) {
		f->not_applicable = xasprintf("no host TU instantiates a table of std::function worth replacing (%zu host "
					      "TU%s read)", hosts, hosts == 1 ? "" : "s");
		return;
	}
	const struct tu_facts *t = first_tu(in, f);
	f->evidence = xasprintf("%s instantiates unordered_map<..., std::function<...>> with %zu entries", t->name,
				t->table_entries);
	f->measured_by = xasprintf("that table (%zu lambdas) compiled apart with %s's command costs %.2f s more than a "
				   "flat sorted table of function pointers; scaled by its baseline/probed wall",
				   t->table_entries, t->name, t->table_saving);
}

/* A TU that includes a framework's umbrella header and whose code uses
 * only what narrower entry headers supply: each candidate measured with
 * the TU's command (the header probe), the saving the umbrella's cost
 * less theirs; with fused, the fused TU narrowed as well. */
static void rule_narrow(const struct advice_input *in, struct fix *f)
{
	size_t umbrellas = 0;
	struct strvec kept = { 0 };
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		if (t->narrow_why_not && kept.n < 3)
			strvec_pushf(&kept, "%s: %s", t->name, t->narrow_why_not);
		umbrellas += t->narrow || t->narrow_why_not;
		if (t->narrow && (parts_present(t) & PART_NARROW)) {
			double s = part_seconds(t, PART_NARROW);
			if (s > 0)
				add_tu(f, i, s);
		}
	}
	char *why = kept.n ? strvec_join(&kept, "; ") : NULL;
	strvec_clear(&kept);
	if (!f->ntus) {
		f->not_applicable = !umbrellas ? xstrdup("no TU includes a framework's umbrella header (<torch/extension.h>, "
							"<torch/torch.h>, <torch/all.h>, <ATen/ATen.h>)")
				  : why ? xasprintf("no TU's code is served by narrower headers for less: %s", why)
					: xasprintf("the narrow headers of the %zu TU%s that include an umbrella cost as much "
						    "(measured)", umbrellas, umbrellas == 1 ? "" : "s");
		free(why);
		return;
	}
	struct strvec each = { 0 }, how = { 0 };
	const char *changed = NULL;	/* a TU whose code changes too (the binding's registration) */
	for (size_t k = 0; k < f->ntus; k++) {
		const struct tu_facts *t = &in->tus[f->tus[k]];
		changed = t->narrow_change && !changed ? t->name : changed;
		strvec_pushf(&each, "%s: %s at %s -> %s%s%s", t->name, t->cost->headers, t->narrow_at ? t->narrow_at : "its #include",
			     t->narrow->headers, t->narrow_change ? "; and " : "", t->narrow_change ? t->narrow_change : "");
		char *probe = xasprintf("%s %.2f s against %s %.2f s with %s's command", t->narrow->headers,
					t->narrow->host + t->narrow->device, t->cost->headers, t->cost->host + t->cost->device,
					t->narrow->command_of);
		if (strvec_contains(&how, probe))	/* TUs of one command share their probes */
			free(probe);
		else
			strvec_push_nodup(&how, probe);
	}
	const struct header_cost *fn = in->fused_narrow;
	char *list = strvec_join(&each, "; "), *measured = strvec_join(&how, "; ");
	char *fused = fn ? xasprintf("; with fused, the fused host TU parses %s (%.2f s with %s's command) instead",
				     fn->headers, fn->host, fn->command_of)
			 : xstrdup("");
	f->evidence = xasprintf("%s%s%s", list, why ? "; kept whole: " : "", why ? why : "");
	/* Its own code is assumed unchanged: PYBIND11_MODULE's m.def templates
	 * go with the change, and weigh more than TORCH_LIBRARY's (the demo's
	 * binding and the torch extension's built faster than predicted). */
	char *bound = changed ? xasprintf("; %s's saving counts the headers alone, not the registration code the change "
					  "replaces: at least that", changed)
			      : xstrdup("");
	f->measured_by = xasprintf("header probes, each against an empty TU: %s; each TU's saving scaled by its "
				   "baseline/probed wall%s%s", measured, fused, bound);
	free(bound);
	free(fused);
	free(list);
	free(measured);
	free(why);
	strvec_clear(&each);
	strvec_clear(&how);
}

/* What the cluster rule knows of the network (owned). */
static char *network_words(const struct advice_input *in)
{
	if (in->network)
		return xasprintf("the network %.3f s a compile + %.3f s a MiB preprocessed (probes through distcc less the "
				 "same compile here)", in->network->fixed_s, in->network->per_byte_s * 1048576);
	if (in->launcher)
		return xasprintf("the network in the baseline's durations (timed through %s)", in->launcher);
	return xstrdup("the network not timed (--probe-net times it)");
}

static void rule_cluster(const struct advice_input *in, struct fix *f)
{
	size_t sent = 0;
	for (size_t i = 0; i < in->build->n; i++)
		sent += in->remote_share[i] > 0;
	if (!sent) {
		f->not_applicable = xasprintf("no compile to send to the %ld remote slots (%s)", in->remote.slots,
					      in->remote_from ? "the distcc log shows none sent" : "none found");
		return;
	}
	f->title = "send the compiles to the cluster's remote slots (distcc, icecream)";
	f->evidence = xasprintf("%ld remote slot%s offered (--remote) for %zu compile%s, -j %ld (the slots and the %ld CPUs)",
				in->remote.slots, in->remote.slots == 1 ? "" : "s", sent, sent == 1 ? "" : "s",
				in->remote.slots + in->cpus, in->cpus);
	if (in->remote_from) {
		f->measured_by = xasprintf("each compile's remote hold from %s (at %.2gx), its part here and the links on "
					   "the CPUs here", in->remote_from, in->remote.speed);
	} else if (in->local_probed) {
		char *network = network_words(in);
		f->measured_by = xasprintf("each sent compile's time less its preprocessing on a remote slot (at %.2gx); its "
					   "preprocessing (timed here for %zu of %zu: distcc's client runs it) and the links "
					   "on the CPUs here; %s", in->remote.speed, in->local_probed, sent, network);
		free(network);
	} else {
		f->measured_by = xasprintf("each sent compile's whole time on a remote slot (at %.2gx; no --distcc-log to "
					   "split off its preprocessing here)", in->remote.speed);
	}
}

static void rule_jobs(const struct advice_input *in, struct fix *f)
{
	if (in->remote.slots) {
		rule_cluster(in, f);
		return;
	}
	/* Behind a cluster more jobs than CPUs is the point: this machine's
	 * CPUs say nothing of the slots. */
	if (in->launcher) {
		f->not_applicable = xasprintf("the compiles run behind %s: --remote N (the cluster's slots) and --distcc-log "
					      "FILE price more jobs on the cluster", in->launcher);
		return;
	}
	if (in->sched.jobs >= in->cpus || in->ntus <= (size_t)in->sched.jobs) {
		f->not_applicable = xasprintf("-j %d for %zu compile steps on %ld CPUs", in->sched.jobs, in->ntus, in->cpus);
		return;
	}
	f->evidence = xasprintf("-j %d runs fewer jobs than the %ld CPUs, with %zu compile steps to run", in->sched.jobs,
				in->cpus, in->ntus);
	f->measured_by = xasprintf("the same durations scheduled at -j %ld", in->cpus);
}

/* The rules, one a fix, in enum fix_id's order: each reads the facts and
 * fills its fix (the TUs and what each saves, the evidence, what measured
 * it) or says why it does not apply. */
static void (*const rules[NFIXES])(const struct advice_input *, struct fix *) = {
	[FIX_SPLIT] = rule_split, [FIX_FUSED] = rule_fused, [FIX_LAUNCHERS] = rule_launchers,
	[FIX_LEAK] = rule_leak,	  [FIX_RAW] = rule_raw,	    [FIX_FLAT] = rule_flat,
	[FIX_NARROW] = rule_narrow, [FIX_JOBS] = rule_jobs,
};

void advice_build(const struct advice_input *in, struct advice *a)
{
	*a = (struct advice){ 0 };
	bool none[NFIXES] = { false };
	for (int id = 0; id < NFIXES; id++) {
		a->fixes[id].id = (enum fix_id)id;
		a->fixes[id].title = fix_titles[id];
		rules[id](in, &a->fixes[id]);
	}
	a->baseline = predict_with(in, a, none);
	a->baseline_range = range_with(in, a, none);
	for (int id = 0; id < NFIXES; id++) {
		struct fix *f = &a->fixes[id];
		f->applies = !f->not_applicable;
		if (!f->applies)
			continue;
		bool only[NFIXES] = { false };
		only[id] = true;
		f->alone = predict_with(in, a, only);
		f->alone_range = range_with(in, a, only);
		if (id == FIX_JOBS && in->remote.slots && f->alone.gate < in->build->n) {
			char *with = xasprintf("%s; with them the wall is %.1f s and %s sets it", f->measured_by, f->alone.wall,
					       in->build->edges[f->alone.gate].outputs.v[0]);
			free(f->measured_by);
			f->measured_by = with;
		}
	}

	/* The plan: each step the fix that lowers the predicted wall most,
	 * while one still lowers it (by more than 0.5 %). */
	bool chosen[NFIXES] = { false };
	struct prediction now = a->baseline;
	struct range noise = savings_range(in, a, chosen);	/* the step before's, savings' spread only */
	a->plan = xcalloc(NFIXES, sizeof(*a->plan));
	for (;;) {
		int best = -1;
		struct prediction best_p = now;
		for (int id = 0; id < NFIXES; id++) {
			if (!a->fixes[id].applies || chosen[id])
				continue;
			chosen[id] = true;
			struct prediction p = predict_with(in, a, chosen);
			chosen[id] = false;
			/* Two fixes that leave the same wall (the same step sets
			 * it) tie to the last bit only by rounding: the one
			 * that leaves less work wins, so that the order does not
			 * turn on digits no measurement has. */
			double tie = 1e-9 * now.wall;
			if (p.wall < now.wall - 0.005 * now.wall &&
			    (best < 0 || p.wall < best_p.wall - tie ||
			     (p.wall <= best_p.wall + tie && p.work < best_p.work - tie))) {
				best = id;
				best_p = p;
			}
		}
		if (best < 0)
			break;
		chosen[best] = true;
		struct range after = savings_range(in, a, chosen);
		a->plan[a->nplan++] = (struct plan_step){ (enum fix_id)best, best_p, range_with(in, a, chosen),
							  after.hi < noise.lo };
		noise = after;
		now = best_p;
	}

	/* What sets the wall at the end: the critical path after the plan,
	 * a TU a fix adds named by what it is. */
	struct model m;
	struct sched_options o;
	model_with(in, a, chosen, BOUND_MEDIAN, CURVE_MEDIAN, &m, &o);
	size_t *chain = xcalloc(m.n, sizeof(size_t));
	size_t len = graph_longest_chain(m.nodes, m.n, chain);
	a->final_chain = xcalloc(len ? len : 1, sizeof(size_t));
	a->final_names = xcalloc(len ? len : 1, sizeof(char *));
	for (size_t i = 0; i < len; i++) {
		if (m.nodes[chain[i]].free)
			continue;
		a->final_chain[a->nfinal] = chain[i];
		a->final_names[a->nfinal++] = chain[i] < in->build->n ? in->build->edges[chain[i]].outputs.v[0]
					      : chosen[FIX_FUSED] && chain[i] == in->build->n ? "the fused host TU (new)"
					      : "the launchers' tensor glue TU (new)";
	}
	a->final_critical = graph_longest_path(m.nodes, m.n, NULL);
	free(chain);
	model_free(&m);
}

void advice_free(struct advice *a)
{
	for (int id = 0; id < NFIXES; id++) {
		struct fix *f = &a->fixes[id];
		free(f->tus);
		free(f->saving);
		free(f->evidence);
		free(f->measured_by);
		free(f->not_applicable);
	}
	free(a->plan);
	free(a->final_chain);
	free(a->final_names);
	*a = (struct advice){ 0 };
}
