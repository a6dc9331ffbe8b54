/* leak: a host TU gets a framework through a project header's #include;
 * the line to fix is that header's. Proven where it can be (edit_probe.h):
 * the line removed or narrowed on a copy of the sources, every TU that
 * reaches it compiled with the edit, the heaviest timed with and without
 * it; the saving is what the edit took out, and the edit is handed back
 * as a patch. Where no copy can be made (or a document predates the
 * proof), its saving is the header probe's seconds, said as inferred. */
#include "rule.h"
#include "rule_kit.h"
#include "edit_probe.h"
#include "util.h"
#include "walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The lines' TUs the proof covers, each with the share of its baseline
 * the edit took out; a line with no winner says what each candidate's
 * compile said. */
static void apply_proven(const struct advice_input *in, const struct edit_evidence *ev, struct fix *f)
{
	struct edit_said said;
	edit_apply(in, ev, f, &said);
	struct strvec each = { 0 };
	for (size_t s = 0; s < ev->nsites; s++)
		if (said.sites[s]) {
			const struct tu_facts *first = &in->tus[ev->sites[s].tus[0]];
			strvec_pushf(&each, "%s: %s; line to fix: %s", first->name, first->leak_chain ? first->leak_chain : "?",
				     said.sites[s]);
		}
	if (f->ntus) {
		if (said.failed)
			strvec_push(&each, said.failed);
		f->evidence = strvec_join(&each, "; ");
		f->measured_by = edit_measured_by(ev);
	} else {
		f->not_applicable = xasprintf("the lines that bring a framework in were edited on a copy of the sources and "
					      "none compiled without it: %s", said.failed ? said.failed : "none was timed");
	}
	strvec_clear(&each);
	edit_said_free(&said, ev);
}

/* Without a proof: the TUs that get the framework only through a
 * project header, each saving its header probe's seconds. */
static void apply_inferred(const struct advice_input *in, const struct edit_evidence *ev, struct fix *f)
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
		else if (t->host_framework && t->leak_fix && (rule_parts_present(t) & PART_HOST))
			rule_add_tu(f, i, rule_part_seconds(t, PART_HOST | PART_DEVICE));
	}
	char *need = needing.n ? strvec_join(&needing, ", ") : NULL;
	if (!f->ntus) {
		f->not_applicable = xasprintf("no host TU gets a framework through a project header (%zu host TU%s "
					      "preprocessed%s%s%s)", hosts, hosts == 1 ? "" : "s", need ? "; " : "",
					      need ? need : "", need ? " include it themselves" : "");
	} else {
		const struct tu_facts *t = rule_first_tu(in, f);
		f->evidence = xasprintf("%s: %s; line to fix: %s; the framework is %zu of its %zu preprocessed host lines%s",
					t->name, t->leak_chain, t->leak_fix, t->framework_lines, t->host_lines,
					t->device_passes ? " (its device passes parse it too)" : "");
		char *cost = rule_cost_words(t->cost, t->device_passes ? "host and device passes" : "host pass");
		/* a document made before the proof keeps its own words */
		f->measured_by = !ev ? cost
				     : xasprintf("%s; inferred, not proven (%s)", cost,
						 ev->why_not ? ev->why_not : "no line to edit under the project's root");
		if (ev)
			free(cost);
	}
	free(need);
	strvec_clear(&needing);
}

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	const struct edit_evidence *ev = evidence;
	if (ev && !ev->why_not && ev->nsites)
		apply_proven(in, ev, f);
	else
		apply_inferred(in, ev, f);
}

/* ---- the walk's side ---- */

/* The host TUs that parse a framework brought in by a project line. */
static const struct include_site *leak_line(const struct advise_tu *t)
{
	return !t->f.kernel && t->f.host_framework && t->leak.file ? &t->leak : NULL;
}

static void *ask(struct advise *ad)
{
	return edit_probe_ask(ad, "leak", leak_line);
}

static const struct rule_walk walk = EDIT_RULE_WALK(ask);

const struct fix_rule rule_leak = {
	.name = "leak",
	.title = "remove the include that leaks the framework into a host TU",
	.parts = PART_HOST | PART_DEVICE,
	.apply = apply,
	.walk = &walk,
};
