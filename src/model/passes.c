#include "passes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *verdict_name(enum verdict_kind v)
{
	return v == VERDICT_HOST ? "host" : v == VERDICT_DEVICE ? "device" : "mixed";
}

/* nvcc names one device pass twice: compute_80 (cicc) and sm_80 (ptxas). */
static const char *arch_key(const char *arch)
{
	if (has_prefix(arch, "sm_"))
		return arch + 3;
	if (has_prefix(arch, "compute_"))
		return arch + 8;
	return arch;
}

static struct pass *pass_for(struct breakdown *b, const struct job *j)
{
	for (size_t i = 0; i < b->n; i++) {
		struct pass *p = &b->passes[i];
		if (p->kind != j->pass)
			continue;
		if (j->pass != PASS_DEVICE)
			return p;
		if (p->arch && j->arch && !strcmp(arch_key(p->arch), arch_key(j->arch))) {
			if (has_prefix(j->arch, "sm_"))
				p->arch = j->arch;	/* name the pass by the real GPU */
			return p;
		}
	}
	b->passes = xrealloc(b->passes, (b->n + 1) * sizeof(*b->passes));
	struct pass *p = &b->passes[b->n++];
	*p = (struct pass){ .kind = j->pass, .arch = j->pass == PASS_DEVICE ? j->arch : NULL };
	for (int k = 0; k < NPHASES; k++)
		p->phase[k] = NAN;
	return p;
}

/* The pass's heaviest rows, names borrowed from its jobs. */
static void add_heavy(struct pass *p, const struct named_seconds *h)
{
	struct named_seconds dropped;
	long at = heaviest_make_room(p->heaviest, &p->nheaviest, h->seconds, &dropped);
	if (at >= 0)
		p->heaviest[at] = *h;
}

static void judge(struct breakdown *b, const struct thresholds *t)
{
	struct verdict *v = &b->verdict;
	*v = (struct verdict){ .host_front_end = NAN, .device_codegen_share = NAN };
	for (size_t i = 0; i < b->n; i++) {
		const struct pass *p = &b->passes[i];
		if (!v->heaviest || p->seconds > v->heaviest->seconds)
			v->heaviest = p;
		if (p->kind == PASS_HOST) {
			v->host_front_end = p->phase[PHASE_FRONT_END];
		} else if (p->kind == PASS_DEVICE) {
			double share = p->seconds > 0 ? p->phase[PHASE_CODEGEN] / p->seconds : NAN;
			if (!isnan(share) && (isnan(v->device_codegen_share) || share > v->device_codegen_share)) {
				v->device_codegen_share = share;
				v->device_pass = p;
			}
		}
	}
	v->heaviest_share = b->jobs_sum > 0 && v->heaviest ? v->heaviest->seconds / b->jobs_sum : NAN;
	v->host_crossed = !isnan(v->host_front_end) && v->host_front_end > t->front_end_s;
	v->device_crossed = !isnan(v->device_codegen_share) && v->device_codegen_share > t->codegen_share;
	v->kind = VERDICT_MIXED;
	v->phase = -1;
	v->phase_share = NAN;
	/* The host pass against the device passes together (two archs split
	 * a kernel's device time in halves); the verdict names the heaviest
	 * pass of the side that holds the majority. */
	double side[2] = { 0, 0 };
	const struct pass *top[2] = { NULL, NULL };
	for (size_t i = 0; i < b->n; i++) {
		const struct pass *p = &b->passes[i];
		int k = p->kind == PASS_HOST ? 0 : p->kind == PASS_DEVICE ? 1 : -1;
		if (k < 0)
			continue;
		side[k] += p->seconds;
		if (!top[k] || p->seconds > top[k]->seconds)
			top[k] = p;
	}
	int win = side[0] >= side[1] ? 0 : 1;
	if (!(b->jobs_sum > 0) || side[win] / b->jobs_sum < VERDICT_MAJORITY)
		return;
	v->kind = win == 0 ? VERDICT_HOST : VERDICT_DEVICE;
	v->heaviest = top[win];
	v->heaviest_share = side[win] / b->jobs_sum;
	for (int k = 0; k < NPHASES; k++) {
		double s = v->heaviest->phase[k];
		if (!isnan(s) && (v->phase < 0 || s > v->heaviest->phase[v->phase]))
			v->phase = k;
	}
	if (v->phase >= 0 && v->heaviest->seconds > 0)
		v->phase_share = v->heaviest->phase[v->phase] / v->heaviest->seconds;
}

void breakdown_build(const struct job_list *jobs, const struct job_time *times, const struct thresholds *t,
		     struct breakdown *b)
{
	*b = (struct breakdown){ 0 };
	for (size_t i = 0; i < jobs->n; i++) {
		const struct job_time *jt = &times[i];
		struct pass *p = pass_for(b, &jobs->v[i]);
		if (!p->njobs)
			p->peak_kb = -1;
		p->seconds += jt->wall;
		if (jt->maxrss_kb > p->peak_kb)
			p->peak_kb = jt->maxrss_kb;
		p->njobs++;
		b->jobs_sum += jt->wall;
		for (int k = 0; k < NPHASES; k++)
			if (!isnan(jt->phase[k]))
				p->phase[k] = (isnan(p->phase[k]) ? 0 : p->phase[k]) + jt->phase[k];
		p->backend_combined |= jt->backend_combined;
		for (size_t h = 0; h < jt->nheaviest; h++)
			add_heavy(p, &jt->heaviest[h]);
	}
	for (size_t i = 0; i < b->n; i++) {
		struct pass *p = &b->passes[i];
		double in_phases = 0;
		for (int k = 0; k < NPHASES; k++)
			if (!isnan(p->phase[k]))
				in_phases += p->phase[k];
		p->other = p->seconds > in_phases ? p->seconds - in_phases : 0;
	}
	/* Host, devices, other; insertion sort keeps the devices in job order. */
	for (size_t i = 1; i < b->n; i++)
		for (size_t k = i; k > 0 && b->passes[k - 1].kind > b->passes[k].kind; k--) {
			struct pass tmp = b->passes[k];
			b->passes[k] = b->passes[k - 1];
			b->passes[k - 1] = tmp;
		}
	judge(b, t);
}

void breakdown_free(struct breakdown *b)
{
	free(b->passes);
	*b = (struct breakdown){ 0 };
}
