#include "meminfo.h"
#include "memcg.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

double memory_available_kb(const char **source)
{
	double kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");
	if (f) {
		char line[256];
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
				break;
		fclose(f);
	}
	*source = "MemAvailable in /proc/meminfo";
	double room = memcg_room_kb();
	if (room >= 0 && (kb < 0 || room < kb)) {
		kb = room;
		*source = "the room under this process's memory cgroup's limit";
	}
	return kb;
}

bool parse_memory_size(const char *text, double *kb)
{
	char *end;
	double n = strtod(text, &end);
	if (end == text || !(n > 0) || n > 1e15)
		return false;
	static const char units[] = "KMGT";
	double bytes = n;
	if (*end) {
		const char *u = strchr(units, end[0] & ~0x20);
		if (!u)
			return false;
		for (int k = 0; k <= (int)(u - units); k++)
			bytes *= 1024;
		const char *rest = end + 1;
		if (*rest && strcasecmp(rest, "iB") && strcasecmp(rest, "B"))
			return false;
	}
	*kb = bytes / 1024;
	return *kb >= 1;
}
