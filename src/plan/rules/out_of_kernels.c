/* fused and launchers, one rule for two kinds of kernel TU: the framework
 * taken out of a kernel TU altogether, its tensor glue moved to a host TU.
 * fused: generated instances, their glue in one new host TU (the fused
 * probe measured it); launchers: hand-written kernel TUs, their glue
 * joining the binding TU (else a new one). */
#include "rule.h"
#include "rule_kit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
					"into one TU%s, its host pass alone with %s's command (the device passes not run), "
					"%.2f s against its headers alike %.2f s%s", fc->instances,
					fc->instances == 1 ? "" : "s", fc->glue, fc->included, fc->included == 1 ? "" : "s",
					fc->namespaced ? ", each in a namespace of its own (as they are, they define one name "
							 "twice)" : "",
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
		if (rule_parts_present(t) & PART_HOST)
			rule_add_tu(f, i, rule_part_seconds(t, PART_HOST | PART_DEVICE));
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
	const struct tu_facts *t = rule_first_tu(in, f);
	double g, scale = 0;
	for (size_t k = 0; k < f->ntus; k++)
		scale += in->tus[f->tus[k]].scale / (double)f->ntus;
	char *list = rule_tu_list(in, f), *cost = rule_cost_words(t->cost, "host pass");
	char *glue_words = glue_text(in, glue, generated, &g);
	if (generated) {
		/* The fused TU is a host TU: the headers as the host compiler
		 * parses them, measured with a host TU's command when one parses
		 * the framework, and the glue once (every wrapper instantiates
		 * the same tensor templates). */
		const struct header_cost *host = rule_host_compiler_cost(in);
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

static void apply_fused(const struct advice_input *in, const void *evidence, struct fix *f)
{
	(void)evidence;
	rule_out_of_kernels(in, f, true);
}

static void apply_launchers(const struct advice_input *in, const void *evidence, struct fix *f)
{
	(void)evidence;
	rule_out_of_kernels(in, f, false);
}

/* The fused TU: a new step beside the first instance, parsing the narrow
 * headers when narrow is chosen too. */
static void add_fused_tu(struct fix_edit *e)
{
	if (!e->f->ntus)
		return;
	double s = e->chosen[FIX_NARROW] ? e->f->added_narrow : e->f->added;
	size_t node = model_add_beside(e->m, e->in->tus[e->f->tus[0]].edge, e->spread * s);
	e->added[node - e->in->build->n] = "the fused host TU (new)";
}

/* The launchers' glue joins the binding TU, else a new step beside them. */
static void glue_to_binding(struct fix_edit *e)
{
	long binding = rule_binding_tu(e->in);
	if (binding >= 0)
		e->seconds[e->in->tus[binding].edge] += e->spread * e->f->added;
}

static void add_glue_tu(struct fix_edit *e)
{
	if (rule_binding_tu(e->in) >= 0 || !e->f->ntus)
		return;
	size_t node = model_add_beside(e->m, e->in->tus[e->f->tus[0]].edge, e->spread * e->f->added);
	e->added[node - e->in->build->n] = "the launchers' tensor glue TU (new)";
}

const struct fix_rule rule_fused = {
	.name = "fused",
	.title = "one fused host TU for the instances' tensor glue, the instance TUs device-only (per-source -D)",
	.parts = PART_HOST | PART_DEVICE,
	.apply = apply_fused,
	.edit_graph = add_fused_tu,
	.reads_cost = rule_reads_cost_with_kernels,
};

const struct fix_rule rule_launchers = {
	.name = "launchers",
	.title = "take the framework out of the launchers (raw pointers; the tensor glue in a host TU)",
	.parts = PART_HOST | PART_DEVICE,
	.apply = apply_launchers,
	.edit_seconds = glue_to_binding,
	.edit_graph = add_glue_tu,
	.reads_cost = rule_reads_cost_with_kernels,
};
