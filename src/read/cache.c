#define _GNU_SOURCE
#include "cache.h"
#include "driver.h"
#include "identity.h"
#include "ninja.h"
#include "util.h"
#include "version.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *cache_root(void)
{
	const char *own = getenv("BUILDWALL_CACHE_DIR");
	if (own && *own)
		return xstrdup(own);
	const char *xdg = getenv("XDG_CACHE_HOME");
	if (xdg && *xdg)
		return xasprintf("%s/buildwall", xdg);
	const char *home = getenv("HOME");
	return home && *home ? xasprintf("%s/.cache/buildwall", home) : NULL;
}

/* Whether the manifest reads other files: a line that starts with
 * ninja's include or subninja keyword. */
static bool includes_others(const char *manifest)
{
	FILE *f = fopen(manifest, "r");
	if (!f)
		return true;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	while (!found && getline(&line, &cap, f) >= 0)
		found = has_prefix(line, "include ") || has_prefix(line, "subninja ");
	free(line);
	fclose(f);
	return found;
}

static bool add_file(struct identity_hash *h, const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return false;
	char *fields = xasprintf("%s\n%llu %llu %lld %lld.%09ld %lld.%09ld", path, (unsigned long long)st.st_dev,
				 (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
				 st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
	identity_add(h, fields, strlen(fields));
	free(fields);
	return true;
}

/* The installed ninja, found once a run. */
static const char *ninja_path(void)
{
	static char *path;
	static bool looked;
	if (!looked) {
		path = driver_find_program(ninja_program());
		looked = true;
	}
	return path;
}

char *cache_path(const char *kind, const char *dir, const char *const *files)
{
	char real[PATH_MAX], *root = NULL, *entry = NULL;
	char *manifest = path_in(dir, "build.ninja");
	const char *ninja = ninja_path();
	struct identity_hash where, what;
	identity_init(&where);
	identity_init(&what);
	identity_add(&what, BUILDWALL_VERSION, strlen(BUILDWALL_VERSION));
	bool ok = realpath(dir, real) && ninja && add_file(&what, ninja) && !includes_others(manifest) &&
		  (root = cache_root());
	for (const char *const *f = files; ok && *f; f++) {
		char *path = path_in(real, *f);
		ok = add_file(&what, path);
		free(path);
	}
	if (ok) {
		identity_add(&where, real, strlen(real));
		char *a = identity_hex(&where), *b = identity_hex(&what);
		entry = xasprintf("%s/%s/%.16s-%s", root, kind, a, b);
		free(a);
		free(b);
	}
	free(root);
	free(manifest);
	return entry;
}

static bool copy_to(const char *from, const char *to)
{
	FILE *in = fopen(from, "r"), *out = NULL;
	int fd = in ? open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
	if (fd >= 0)
		out = fdopen(fd, "w");
	bool ok = in && out;
	char buf[1 << 16];
	size_t n;
	while (ok && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		ok = fwrite(buf, 1, n, out) == n;
	ok = ok && !ferror(in);
	if (in)
		fclose(in);
	if (out)
		ok = !fclose(out) && ok;
	else if (fd >= 0)
		close(fd);
	return ok;
}

void cache_store(const char *from, const char *entry)
{
	make_parent_dirs(entry, 0700);
	char *aside = xasprintf("%s.%ld.tmp", entry, (long)getpid());
	if (!copy_to(from, aside) || rename(aside, entry)) {
		remove(aside);
		free(aside);
		return;
	}
	free(aside);
	/* The same dir's older entries: what they were made from has changed. */
	const char *slash = strrchr(entry, '/'), *dash = strchr(slash + 1, '-');
	char *dir = xstrndup(entry, (size_t)(slash - entry));
	size_t prefix = (size_t)(dash - slash);
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, slash + 1, prefix) || !strcmp(de->d_name, slash + 1) || has_suffix(de->d_name, ".tmp"))
			continue;
		char *old = xasprintf("%s/%s", dir, de->d_name);
		remove(old);
		free(old);
	}
	if (d)
		closedir(d);
	free(dir);
}
