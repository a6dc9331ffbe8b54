#define _GNU_SOURCE
#include "busy.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "cpu  user nice system idle iowait irq softirq steal ...": the ticks
 * spent idle (idle, iowait) and in all. */
static bool ticks(const char *line, double *idle, double *total)
{
	if (strncmp(line, "cpu ", 4))
		return false;
	*idle = *total = 0;
	const char *p = line + 4;
	int n = 0;
	for (char *end;; p = end, n++) {
		unsigned long long v = strtoull(p, &end, 10);
		if (end == p)
			break;
		if (n < 8) {	/* guest time is counted in user already */
			*total += (double)v;
			if (n == 3 || n == 4)
				*idle += (double)v;
		}
	}
	return n >= 4;
}

bool busy_share(const char *before, const char *after, double *share)
{
	double idle0, total0, idle1, total1;
	if (!ticks(before, &idle0, &total0) || !ticks(after, &idle1, &total1) || total1 <= total0)
		return false;
	double busy = (total1 - total0) - (idle1 - idle0);
	*share = busy < 0 ? 0 : busy / (total1 - total0);
	return true;
}

static char *cpu_line(void)
{
	FILE *f = fopen("/proc/stat", "r");
	if (!f)
		return NULL;
	char *line = NULL;
	size_t cap = 0;
	if (getline(&line, &cap, f) < 0) {
		free(line);
		line = NULL;
	}
	fclose(f);
	return line;
}

void warn_if_busy(void)
{
	char *before = cpu_line();
	nanosleep(&(struct timespec){ .tv_nsec = 250000000 }, NULL);
	char *after = cpu_line();
	double share;
	int cpus = cpu_count();
	if (before && after && busy_share(before, after, &share)) {
		double busy = share * cpus, most = cpus / 4.0 > 1 ? cpus / 4.0 : 1;
		if (busy > most)
			warn("the machine is busy (%.1f of %d CPUs in use by other processes right now): timings will be "
			     "inflated", busy, cpus);
	}
	free(before);
	free(after);
}
