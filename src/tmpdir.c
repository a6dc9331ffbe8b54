#define _GNU_SOURCE
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp_root;
static pid_t tmp_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	if (remove(path) && errno != ENOENT)
		warn("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

void tmpdir_remove(void)
{
	/* A forked child that fails to exec must not delete the parent's tree. */
	if (!tmp_root || getpid() != tmp_owner)
		return;
	nftw(tmp_root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(tmp_root);
	tmp_root = NULL;
}

const char *tmpdir_path(void)
{
	if (tmp_root)
		return tmp_root;
	const char *base = getenv("TMPDIR");
	if (!base || !*base || !is_directory(base))
		base = "/tmp";
	char *templ = xasprintf("%s/buildwall.XXXXXX", base);
	if (!mkdtemp(templ))
		die(EXIT_BUILD_FAILED, "cannot create a temporary directory in %s: %s", base, strerror(errno));
	tmp_root = templ;
	tmp_owner = getpid();
	atexit(tmpdir_remove);
	return tmp_root;
}

char *tmpdir_subdir(const char *name)
{
	char *path = xasprintf("%s/%s", tmpdir_path(), name);
	if (mkdir(path, 0700) && errno != EEXIST)
		die(EXIT_BUILD_FAILED, "cannot create %s: %s", path, strerror(errno));
	return path;
}
