/* flat: a host TU instantiates unordered_map<…, std::function<…>>; a flat
 * sorted table of function pointers does the same. Its saving is that
 * table compiled apart against a flat one, with the TU's command. */
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
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		hosts += !t->kernel;
		if (!t->kernel && (rule_parts_present(t) & PART_TABLE) && t->table_saving > 0)
			rule_add_tu(f, i, rule_part_seconds(t, PART_TABLE));
	}
	if (!f->ntus) {
		f->not_applicable = xasprintf("no host TU instantiates a table of std::function worth replacing (%zu host "
					      "TU%s read)", hosts, hosts == 1 ? "" : "s");
		return;
	}
	const struct tu_facts *t = rule_first_tu(in, f);
	f->evidence = xasprintf("%s instantiates unordered_map<..., std::function<...>> with %zu entries", t->name,
				t->table_entries);
	f->measured_by = xasprintf("that table (%zu lambdas) compiled apart with %s's command costs %.2f s more than a "
				   "flat sorted table of function pointers; scaled by its baseline/probed wall",
				   t->table_entries, t->name, t->table_saving);
}

const struct fix_rule rule_flat = {
	.name = "flat",
	.title = "a flat sorted table instead of unordered_map<..., std::function<...>>",
	.parts = PART_TABLE,
	.apply = apply,
	.reads_cost = rule_reads_no_cost,
};
