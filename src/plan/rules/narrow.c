/* narrow: a TU includes a framework's umbrella header and its code uses
 * only what narrower entry headers supply: each candidate measured with
 * the TU's command (the header probe), the saving the umbrella's cost
 * less theirs; with fused, the fused TU narrowed as well. */
#include "rule.h"
#include "rule_kit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	(void)evidence;
	size_t umbrellas = 0;
	struct strvec kept = { 0 };
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		if (t->narrow_why_not && kept.n < 3)
			strvec_pushf(&kept, "%s: %s", t->name, t->narrow_why_not);
		umbrellas += t->narrow || t->narrow_why_not;
		if (t->narrow && (rule_parts_present(t) & PART_NARROW)) {
			double s = rule_part_seconds(t, PART_NARROW);
			if (s > 0)
				rule_add_tu(f, i, s);
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

const struct fix_rule rule_narrow = {
	.name = "narrow",
	.title = "narrow the framework's headers: the umbrella replaced by the entry headers the TU's code needs",
	.parts = PART_NARROW,
	.apply = apply,
};
