/* raw: a dispatcher (not the binding) includes the framework itself but
 * names it only as Tensor: pointers or a small struct would do, and the
 * conversion joins the binding TU, which parses it anyway. */
#include "rule.h"
#include "rule_kit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A dispatcher that names the framework only as Tensor (apply's TUs). */
static bool reads_cost(const struct tu_facts *tus, size_t ntus, size_t tu)
{
	(void)ntus;
	const struct tu_facts *t = &tus[tu];
	return !t->kernel && !t->binding && t->includes_framework && t->tensor_only;
}

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	(void)evidence;
	size_t hosts = 0;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		hosts += !t->kernel;
		if (!t->kernel && !t->binding && t->includes_framework && t->tensor_only &&
		    (rule_parts_present(t) & PART_HOST))
			rule_add_tu(f, i, rule_part_seconds(t, PART_HOST | PART_DEVICE));
	}
	if (!f->ntus) {
		f->not_applicable = xasprintf("no host TU but the binding includes a framework only for tensors in its "
					      "code (%zu host TU%s read)", hosts, hosts == 1 ? "" : "s");
		return;
	}
	const struct tu_facts *t = rule_first_tu(in, f);
	char *list = rule_tu_list(in, f);
	f->evidence = xasprintf("%s include%s %s itself, and %s own code names it only as Tensor: it parses the "
				"framework (%zu of %zu host lines) for its signatures", list, f->ntus == 1 ? "s" : "",
				t->frameworks ? t->frameworks : "the framework", f->ntus == 1 ? "its" : "their",
				t->framework_lines, t->host_lines);
	char *cost = rule_cost_words(t->cost, t->device_passes ? "host and device passes" : "host pass");
	f->measured_by = xasprintf("%s; the tensors' conversion to pointers joins the binding TU, which parses the "
				   "framework anyway (counted as 0 s)", cost);
	free(cost);
	free(list);
}

const struct fix_rule rule_raw = {
	.name = "raw",
	.title = "raw pointers (or a small struct) in the dispatcher's signatures instead of the framework's tensors",
	.parts = PART_HOST | PART_DEVICE,
	.apply = apply,
	.reads_cost = reads_cost,
};
