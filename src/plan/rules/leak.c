/* leak: a host TU gets a framework through a project header, not an
 * #include of its own; the line to fix is that header's. Its saving is the
 * header probe's seconds. */
#include "rule.h"
#include "rule_kit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	(void)evidence;
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
		f->measured_by = rule_cost_words(t->cost, t->device_passes ? "host and device passes" : "host pass");
	}
	free(need);
	strvec_clear(&needing);
}

const struct fix_rule rule_leak = {
	.name = "leak",
	.title = "remove the include that leaks the framework into a host TU",
	.parts = PART_HOST | PART_DEVICE,
	.apply = apply,
};
