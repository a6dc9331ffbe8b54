/* The memory this machine offers a build now: /proc/meminfo's
 * MemAvailable (free memory and the cache the kernel can drop), or the
 * room under buildwall's memory cgroup's limit where that is less (a
 * container's, a CI runner's). */
#ifndef BUILDWALL_MEMINFO_H
#define BUILDWALL_MEMINFO_H

#include <stdbool.h>

/* KiB, and *source what it is (static); -1 where neither can be read. */
double memory_available_kb(const char **source);
/* "16G", "800M", "1.5GiB", "2T" (powers of 1024; a bare number is bytes)
 * into KiB; false for anything else, or zero. */
bool parse_memory_size(const char *text, double *kb);

#endif
