#define _GNU_SOURCE
#include "memcg.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "buildwall-"

/* Where buildwall's own memory cgroup is, found once: its directory and
 * its version, or none (no memory controller we can reach). */
static struct {
	bool looked;
	char *dir;
	int version;
} home;

/* The mount point of the hierarchy that holds the memory controller, from
 * /proc/self/mountinfo ("... ROOT MOUNT_POINT ... - FSTYPE SOURCE OPTIONS"):
 * a v1 "cgroup" mount with "memory" among its options, else the v2
 * "cgroup2" mount. Its root within the hierarchy goes to *root. Owned. */
static char *memory_mount(int *version, char **root)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	if (!f)
		return NULL;
	char *line = NULL, *v1 = NULL, *v1_root = NULL, *v2 = NULL, *v2_root = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		char *dash = strstr(line, " - ");
		if (!dash)
			continue;
		char fields_root[4096], point[4096], fstype[64], source[256], options[1024];
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", fields_root, point) != 2 ||
		    sscanf(dash + 3, "%63s %255s %1023s", fstype, source, options) != 3)
			continue;
		bool has_memory = false;
		for (char *save = NULL, *o = strtok_r(options, ",", &save); o; o = strtok_r(NULL, ",", &save))
			has_memory |= !strcmp(o, "memory");
		if (!strcmp(fstype, "cgroup") && has_memory && !v1) {
			v1 = xstrdup(point);
			v1_root = xstrdup(fields_root);
		} else if (!strcmp(fstype, "cgroup2") && !v2) {
			v2 = xstrdup(point);
			v2_root = xstrdup(fields_root);
		}
	}
	free(line);
	fclose(f);
	/* A v1 memory hierarchy holds the controller even where a v2 one is
	 * mounted beside it (the hybrid layout). */
	*version = v1 ? 1 : 2;
	*root = v1 ? v1_root : v2_root;
	free(v1 ? v2_root : v1_root);
	free(v1 ? v2 : v1);
	return v1 ? v1 : v2;
}

/* buildwall's path in that hierarchy, from /proc/self/cgroup: the v1 line
 * whose controllers include memory ("4:memory:/a/b"), or v2's "0::/a/b". */
static char *own_path(int version)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	if (!f)
		return NULL;
	char *line = NULL, *found = NULL;
	size_t cap = 0;
	while (!found && getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = 0;
		const char *controllers = c1 + 1;
		bool match = false;
		if (version == 2) {
			match = !strcmp(line, "0") && !*controllers;
		} else {
			char *list = xstrdup(controllers);
			for (char *save = NULL, *c = strtok_r(list, ",", &save); c; c = strtok_r(NULL, ",", &save))
				match |= !strcmp(c, "memory");
			free(list);
		}
		if (match)
			found = xstrdup(c2 + 1);
	}
	free(line);
	fclose(f);
	return found;
}

static void find_home(void)
{
	if (home.looked)
		return;
	home.looked = true;
	int version = 0;
	char *root = NULL;
	char *mount = memory_mount(&version, &root);
	char *path = mount ? own_path(version) : NULL;
	if (path) {
		/* A namespaced mount shows the hierarchy from its own root. */
		const char *rel = path;
		if (root && strcmp(root, "/") && has_prefix(path, root))
			rel = path + strlen(root);
		home.dir = xasprintf("%s%s%s", mount, *rel == '/' || !*rel ? "" : "/", rel);
		home.version = version;
	}
	free(mount);
	free(root);
	free(path);
}

static bool write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text);
}

static const char *peak_file(int version)
{
	return version == 2 ? "memory.peak" : "memory.max_usage_in_bytes";
}

static bool sweep_once(pid_t owner);

bool memcg_open(struct memcg *cg)
{
	static unsigned long made;
	*cg = (struct memcg){ 0 };
	/* BUILDWALL_MEMCG=0: sample /proc instead (the bench compares the two). */
	const char *use = getenv("BUILDWALL_MEMCG");
	if (use && !strcmp(use, "0"))
		return false;
	find_home();
	if (!home.dir)
		return false;
	if (!made)
		sweep_once(0);	/* what runs killed before their guardian could act left */
	char *dir = xasprintf("%s/" PREFIX "%ld-%lu", home.dir, (long)getpid(), made++);
	if (mkdir(dir, 0755)) {
		free(dir);
		return false;
	}
	/* v2 makes the file only where the parent hands the controller down. */
	char *peak = xasprintf("%s/%s", dir, peak_file(home.version));
	bool counts = access(peak, R_OK) == 0;
	free(peak);
	if (!counts) {
		rmdir(dir);
		free(dir);
		return false;
	}
	cg->dir = dir;
	cg->version = home.version;
	return true;
}

static bool move_self(const char *dir)
{
	char *procs = xasprintf("%s/cgroup.procs", dir);
	char pid_text[32];
	snprintf(pid_text, sizeof(pid_text), "%ld\n", (long)getpid());
	bool ok = write_text(procs, pid_text);
	free(procs);
	return ok;
}

bool memcg_enter(const struct memcg *cg)
{
	return cg->dir && move_self(cg->dir);
}

void memcg_leave(void)
{
	if (home.dir && !move_self(home.dir))
		die(EXIT_INTERNAL, "cannot move back to %s: %s", home.dir, strerror(errno));
}

/* The number a cgroup file dir/file holds; -1: none (unreadable, "max"). */
static double cgroup_number(const char *dir, const char *file)
{
	if (!dir)
		return -1;
	char *path = xasprintf("%s/%s", dir, file);
	FILE *f = fopen(path, "r");
	free(path);
	if (!f)
		return -1;
	unsigned long long n;
	bool ok = fscanf(f, "%llu", &n) == 1;
	fclose(f);
	return ok ? (double)n : -1;
}

static long read_kb(const struct memcg *cg, const char *file)
{
	double bytes = cgroup_number(cg->dir, file);
	return bytes < 0 ? -1 : (long)(bytes / 1024);
}

long memcg_peak_kb(const struct memcg *cg)
{
	return read_kb(cg, peak_file(cg->version));
}

long memcg_usage_kb(const struct memcg *cg)
{
	return read_kb(cg, cg->version == 2 ? "memory.current" : "memory.usage_in_bytes");
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

void memcg_close(struct memcg *cg)
{
	/* Busy (a descendant of the child still exiting): the guardian's
	 * sweep when the run ends, else the next run's. */
	if (cg->dir)
		rmdir(cg->dir);
	free(cg->dir);
	*cg = (struct memcg){ 0 };
}

/* rmdir what is ours to remove; true when nothing of it is left. */
static bool sweep_once(pid_t owner)
{
	DIR *d = opendir(home.dir);
	if (!d)
		return true;
	bool left = false;
	struct dirent *de;
	while ((de = readdir(d))) {
		long pid;
		unsigned long n;
		if (sscanf(de->d_name, PREFIX "%ld-%lu", &pid, &n) != 2)
			continue;
		if (owner ? pid != owner : kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char *dir = xasprintf("%s/%s", home.dir, de->d_name);
		if (rmdir(dir) && errno != ENOENT)
			left = true;
		free(dir);
	}
	closedir(d);
	return !left;
}

void memcg_sweep(pid_t owner, double wait_s)
{
	find_home();
	if (!home.dir)
		return;
	for (long waited = 0; !sweep_once(owner) && waited < (long)(wait_s * 1000); waited += 50)
		pause_ms(50);
}

const char *memcg_words(int version)
{
	return version == 2 ? "cgroup v2 memory.peak" : "cgroup v1 memory.max_usage_in_bytes";
}

double memcg_room_kb(void)
{
	find_home();
	if (!home.dir)
		return -1;
	double limit = cgroup_number(home.dir, home.version == 2 ? "memory.max" : "memory.limit_in_bytes");
	double used = cgroup_number(home.dir, home.version == 2 ? "memory.current" : "memory.usage_in_bytes");
	/* v1 writes "no limit" as the largest page-aligned number. */
	if (limit < 0 || used < 0 || limit >= 0x7ffffffffffff000ULL / 2)
		return -1;
	return limit > used ? (limit - used) / 1024 : 0;
}
