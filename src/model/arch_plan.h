/* A TU's device archs as a choice (from its pass breakdown): each arch's
 * share of the TU's jobs and the TU without it (TORCH_CUDA_ARCH_LIST,
 * --offload-arch, aiter's GPU_ARCHS name fewer), and its archs compiled
 * side by side (nvcc --threads N, hipcc -parallel-jobs=N): its wall its
 * other jobs and then its longest arch, its memory the archs' peaks
 * summed. Jobs that run one after another hold one job's memory at a
 * time; archs side by side hold theirs together.
 *
 * Ownership: arch_plan_make fills a plan that owns its array until
 * arch_plan_free; the arch names are the breakdown's. */
#ifndef BUILDWALL_ARCH_PLAN_H
#define BUILDWALL_ARCH_PLAN_H

#include "passes.h"

#include <stdbool.h>

struct arch_share {
	const char *arch;
	double seconds;		/* its device pass's jobs */
	double share;		/* of the TU's jobs */
	long peak_kb;		/* the most one of its jobs held; -1: not measured */
};

struct arch_plan {
	struct arch_share *archs;	/* in job order */
	size_t n;
	double serial_s;	/* the TU's jobs one after another, as timed */
	double side_by_side_s;	/* its other jobs, then every arch at once */
	long serial_peak_kb;	/* the most one job held; -1: unknown */
	long side_by_side_peak_kb;	/* the most of: one other job's, the archs' together; -1: unknown */
};

/* False (and nothing to free) for a TU with fewer than two device archs. */
bool arch_plan_make(const struct breakdown *b, struct arch_plan *ap);
void arch_plan_free(struct arch_plan *ap);

#endif
