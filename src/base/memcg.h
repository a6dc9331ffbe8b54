/* A memory cgroup of its own for one child, so that its process tree's
 * peak memory (every process it runs at once: nvcc's cicc and ptxas side
 * by side, hipcc's -parallel-jobs) is the kernel's count, not a sample:
 * cgroup v2's memory.peak, v1's memory.max_usage_in_bytes. The counts
 * include the page cache the compile fills (its temp and output files),
 * as the kernel counts against a memory limit.
 *
 * The cgroup is made inside buildwall's own memory cgroup, named
 * buildwall-<pid>-<n>, where buildwall may (root on v1, or a v2 subtree
 * delegated to it with the memory controller on); elsewhere memcg_open
 * fails and the caller samples /proc instead, as it does with
 * BUILDWALL_MEMCG=0 in the environment.
 * What a killed run leaves is removed by its guardian, else by the next
 * run (memcg_sweep). */
#ifndef BUILDWALL_MEMCG_H
#define BUILDWALL_MEMCG_H

#include <stdbool.h>
#include <sys/types.h>

struct memcg {
	char *dir;	/* owned; NULL: none */
	int version;	/* 1 or 2 */
};

/* Make a cgroup for one child. False (cg->dir NULL) where none can be made. */
bool memcg_open(struct memcg *cg);
/* Move buildwall itself into it, so that a child it starts now is born
 * there (with every process that child starts, however soon), and back
 * home afterwards: false when the kernel refuses. */
bool memcg_enter(const struct memcg *cg);
void memcg_leave(void);
/* The peak of its memory in KiB since it was made, or -1. */
long memcg_peak_kb(const struct memcg *cg);
/* Its memory in KiB now, or -1. */
long memcg_usage_kb(const struct memcg *cg);
/* Remove it (its processes gone); one still busy is left to memcg_sweep. */
void memcg_close(struct memcg *cg);
/* Remove the cgroups of run `owner` (0: of every run no longer alive),
 * waiting up to wait_s for their last processes to go. */
void memcg_sweep(pid_t owner, double wait_s);
/* The room left under buildwall's own cgroup's limit (v2 memory.max less
 * memory.current, v1 memory.limit_in_bytes less memory.usage_in_bytes),
 * in KiB; -1 where it has no limit or none can be read. */
double memcg_room_kb(void);
/* How a peak was measured, for the documents: "cgroup v2 memory.peak",
 * "cgroup v1 memory.max_usage_in_bytes". */
const char *memcg_words(int version);

#endif
