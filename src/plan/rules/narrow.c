/* narrow: a TU includes a framework's umbrella header and its code needs
 * only part of it. Proven where it can be (edit_probe.h): the host TUs'
 * umbrella lines (not a PYBIND11_MODULE binding's) edited on a copy of
 * the sources, the umbrella replaced by a narrower header (or removed),
 * every TU that reaches the line compiled with it, the heaviest timed
 * with and without; the edit is handed back as a patch. A line that is leak's too is leak's proof. The
 * rest (kernel TUs, whose trial would be a whole device compile, and
 * everything when no copy can be made) keep the header probes: each
 * candidate measured with the TU's command, the saving the umbrella's
 * cost less theirs; with fused, the fused TU narrowed as well. */
#include "rule.h"
#include "rule_kit.h"
#include "edit_probe.h"
#include "util.h"
#include "walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool listed(const struct fix *f, size_t tu)
{
	for (size_t k = 0; k < f->ntus; k++)
		if (f->tus[k] == tu)
			return true;
	return false;
}

/* A TU of a line the proof found no edit for: no narrower header serves it. */
static bool unproven(const struct edit_evidence *ev, size_t tu)
{
	for (size_t s = 0; ev && s < ev->nsites; s++)
		for (size_t k = 0; ev->sites[s].chosen < 0 && k < ev->sites[s].ntus; k++)
			if (ev->sites[s].tus[k] == tu)
				return true;
	return false;
}

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	const struct edit_evidence *ev = evidence && !((const struct edit_evidence *)evidence)->why_not ? evidence : NULL;
	struct edit_said said = { 0 };
	if (ev)
		edit_apply(in, ev, f, &said);
	size_t proven = f->ntus, umbrellas = 0;
	struct strvec kept = { 0 };
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		umbrellas += t->narrow || t->narrow_why_not;
		if (listed(f, i) || unproven(ev, i))
			continue;
		if (t->narrow_why_not && kept.n < 3)
			strvec_pushf(&kept, "%s: %s", t->name, t->narrow_why_not);
		if (t->narrow && (rule_parts_present(t) & PART_NARROW)) {
			double s = rule_part_seconds(t, PART_NARROW);
			if (s > 0)
				rule_add_tu(f, i, s);
		}
	}
	if (said.failed)
		strvec_pushf(&kept, "%s", said.failed);
	char *why = kept.n ? strvec_join(&kept, "; ") : NULL;
	strvec_clear(&kept);
	if (!f->ntus) {
		f->not_applicable = !umbrellas ? xstrdup("no TU includes a framework's umbrella header (<torch/extension.h>, "
							"<torch/torch.h>, <torch/all.h>, <ATen/ATen.h>)")
				  : why ? xasprintf("no TU's code is served by narrower headers for less: %s", why)
					: xasprintf("the narrow headers of the %zu TU%s that include an umbrella cost as much "
						    "(measured)", umbrellas, umbrellas == 1 ? "" : "s");
		free(why);
		if (ev)
			edit_said_free(&said, ev);
		return;
	}
	struct strvec each = { 0 }, how = { 0 };
	for (size_t s = 0; ev && s < ev->nsites; s++)
		if (said.sites[s])
			strvec_pushf(&each, "%s: %s", in->tus[ev->sites[s].tus[0]].name, said.sites[s]);
	const char *changed = NULL;	/* a TU whose code changes too (the binding's registration) */
	for (size_t k = proven; k < f->ntus; k++) {
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
	char *list = strvec_join(&each, "; ");
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
	char *probes = NULL;
	if (how.n) {
		char *measured = strvec_join(&how, "; ");
		probes = xasprintf("header probes, each against an empty TU: %s; each TU's saving scaled by its "
				   "baseline/probed wall%s%s", measured, fused, bound);
		free(measured);
	}
	char *proof = proven ? edit_measured_by(ev) : NULL;
	f->measured_by = proof && probes ? xasprintf("%s; the other TUs (their lines not proven: a kernel TU's trial is a "
						     "whole device compile, a line leak proves is leak's, a PYBIND11_MODULE "
						     "binding's narrowing changes its code): %s", proof, probes)
		       : proof ? xstrdup(proof) : xstrdup(probes);
	free(proof);
	free(probes);
	free(bound);
	free(fused);
	free(list);
	free(why);
	strvec_clear(&each);
	strvec_clear(&how);
	if (ev)
		edit_said_free(&said, ev);
}

/* ---- the walk's side ---- */

static bool same_line(const struct include_site *a, const struct include_site *b)
{
	return a->file && b->file && a->line == b->line && !strcmp(a->file, b->file);
}

/* The host TUs whose umbrella line is not leak's (leak proves those), a
 * PYBIND11_MODULE binding aside: its narrowing is a change of its
 * registration code too (narrow_plan's), which no edit of an #include
 * proves. */
static const struct include_site *umbrella_line(const struct advise_tu *t)
{
	bool provable = !t->f.kernel && !t->uses.pybind_module && !same_line(&t->narrow_site, &t->leak);
	return provable && t->narrow_site.file ? &t->narrow_site : NULL;
}

static void *ask(struct advise *ad)
{
	return edit_probe_ask(ad, "narrow", umbrella_line);
}

static const struct rule_walk walk = EDIT_RULE_WALK(ask);

const struct fix_rule rule_narrow = {
	.name = "narrow",
	.title = "narrow the framework's headers: the umbrella replaced by the entry headers the TU's code needs",
	.parts = PART_NARROW,
	.apply = apply,
	.walk = &walk,
};
