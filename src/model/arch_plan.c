#include "arch_plan.h"
#include "util.h"

#include <stdlib.h>

bool arch_plan_make(const struct breakdown *b, struct arch_plan *ap)
{
	*ap = (struct arch_plan){ .serial_s = b->jobs_sum, .serial_peak_kb = -1, .side_by_side_peak_kb = -1 };
	size_t archs = 0;
	for (size_t i = 0; i < b->n; i++)
		archs += b->passes[i].kind == PASS_DEVICE && b->passes[i].arch;
	if (archs < 2)
		return false;
	ap->archs = xcalloc(archs, sizeof(*ap->archs));
	double longest = 0, others = 0;
	long others_peak = -1, archs_peak = 0;
	bool known = true;
	for (size_t i = 0; i < b->n; i++) {
		const struct pass *p = &b->passes[i];
		if (p->peak_kb > ap->serial_peak_kb)
			ap->serial_peak_kb = p->peak_kb;
		if (p->kind != PASS_DEVICE || !p->arch) {
			others += p->seconds;
			if (p->peak_kb > others_peak)
				others_peak = p->peak_kb;
			continue;
		}
		ap->archs[ap->n++] = (struct arch_share){ p->arch, p->seconds,
							 b->jobs_sum > 0 ? p->seconds / b->jobs_sum : 0, p->peak_kb };
		longest = p->seconds > longest ? p->seconds : longest;
		known &= p->peak_kb >= 0;
		archs_peak += p->peak_kb;
	}
	ap->side_by_side_s = others + longest;
	if (known)
		ap->side_by_side_peak_kb = archs_peak > others_peak ? archs_peak : others_peak;
	return true;
}

void arch_plan_free(struct arch_plan *ap)
{
	free(ap->archs);
	*ap = (struct arch_plan){ 0 };
}
