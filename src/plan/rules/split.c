/* split: a kernel TU's device passes parse a host-only framework; guarded
 * by !__CUDA_ARCH__ (!__HIP_DEVICE_COMPILE__), they do not. Its saving is
 * the header probe's device seconds. */
#include "rule.h"
#include "rule_kit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	(void)evidence;
	size_t kernels = 0;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		kernels += t->kernel;
		if (t->kernel && (rule_parts_present(t) & PART_DEVICE) && t->cost->device > 0)
			rule_add_tu(f, i, rule_part_seconds(t, PART_DEVICE));
	}
	if (!f->ntus) {
		f->not_applicable = kernels ? xasprintf("no device pass of the %zu kernel TUs parses a host-only framework", kernels)
					    : xstrdup("no kernel TUs (no compile step has device passes)");
		return;
	}
	const struct tu_facts *t = rule_first_tu(in, f);
	char *list = rule_tu_list(in, f);
	f->evidence = xasprintf("the device passes of %s parse %s, which only host code uses (%.2f s per TU of the "
				"device passes, measured)", list, t->frameworks, t->cost->device);
	f->measured_by = rule_cost_words(t->cost, "device passes");
	free(list);
}

/* A kernel TU's device passes: its header probe's. */
static bool reads_cost(const struct tu_facts *tus, size_t ntus, size_t tu)
{
	(void)ntus;
	return tus[tu].kernel;
}

const struct fix_rule rule_split = {
	.name = "split",
	.title = "split the host and device passes: guard the framework with !__CUDA_ARCH__ / !__HIP_DEVICE_COMPILE__",
	.parts = PART_DEVICE,
	.apply = apply,
	.reads_cost = reads_cost,
};
