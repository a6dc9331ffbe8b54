#define _GNU_SOURCE
#include "tmpdir.h"
#include "guardian.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define PREFIX "buildwall."
/* Less room than this in TMPDIR is as good as none: compiler outputs,
 * ninja's answers and the captured logs would be cut short. */
#define MIN_ROOM_KIB 256
/* A temp dir without its lock file is another run's only this early. */
#define UNLOCKED_GRACE_S 60

static char *tmp_root;
static const char *tmp_base;
static pid_t tmp_owner;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st; (void)flag; (void)ftw;
	if (remove(path) && errno != ENOENT)
		warn("cannot remove %s: %s", path, strerror(errno));
	return 0;
}

void remove_tree(const char *path)
{
	nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void tmpdir_remove(void)
{
	/* A forked child that fails to exec must not delete the parent's tree. */
	if (!tmp_root || getpid() != tmp_owner)
		return;
	remove_tree(tmp_root);
	free(tmp_root);
	tmp_root = NULL;
	guardian_release();
}

static _Noreturn void no_room(const char *base, const char *what)
{
	die(EXIT_INTERNAL, "no space left in TMPDIR %s (%s); free some, or point TMPDIR elsewhere", base, what);
}

void tmpdir_check_room(void)
{
	struct statvfs vfs;
	if (!tmp_root || statvfs(tmp_root, &vfs))
		return;
	unsigned long long kib = (unsigned long long)vfs.f_bavail * vfs.f_frsize / 1024;
	if (kib < MIN_ROOM_KIB || (vfs.f_files && vfs.f_favail == 0)) {
		char *what = vfs.f_favail == 0 && vfs.f_files ? xstrdup("no free inodes")
							      : xasprintf("%llu KiB free", kib);
		tmpdir_remove();
		no_room(tmp_base, what);
	}
}

/* Is `name` in `base` the temp dir of a run that has died? Its lock is
 * free (a live run and its guardian hold it), or it never got one and is
 * old. Only our own directories are considered. */
static bool is_stale(const char *base, const char *name)
{
	if (strncmp(name, PREFIX, strlen(PREFIX)) || strlen(name) != strlen(PREFIX) + 6)
		return false;
	char *dir = xasprintf("%s/%s", base, name);
	struct stat st;
	bool stale = false;
	if (!lstat(dir, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
		char *lock = xasprintf("%s/.lock", dir);
		int fd = open(lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd >= 0) {
			stale = flock(fd, LOCK_EX | LOCK_NB) == 0;
			close(fd);
		} else {
			stale = errno == ENOENT && time(NULL) - st.st_mtime > UNLOCKED_GRACE_S;
		}
		free(lock);
	}
	free(dir);
	return stale;
}

/* Remove what runs killed before they could clean up left behind. */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!is_stale(base, de->d_name))
			continue;
		char *dir = xasprintf("%s/%s", base, de->d_name);
		remove_tree(dir);
		note("removed %s, left behind by a buildwall run that was killed", dir);
		free(dir);
	}
	closedir(d);
}

const char *tmpdir_path(void)
{
	if (tmp_root)
		return tmp_root;
	const char *base = getenv("TMPDIR");
	if (base && !*base)
		base = NULL;
	if (base && !is_directory(base))
		die(EXIT_INTERNAL, "TMPDIR=%s is not a directory; create it, or unset TMPDIR to use /tmp", base);
	tmp_base = base ? base : "/tmp";
	remove_stale(tmp_base);
	char *templ = xasprintf("%s/" PREFIX "XXXXXX", tmp_base);
	if (!mkdtemp(templ)) {
		int err = errno;
		free(templ);
		if (err == ENOSPC || err == EDQUOT)
			no_room(tmp_base, strerror(err));
		die(EXIT_INTERNAL, "cannot create a temporary directory in %s: %s", tmp_base, strerror(err));
	}
	tmp_root = templ;
	tmp_owner = getpid();
	atexit(tmpdir_remove);
	/* The lock says "a live run owns this"; the guardian inherits it. It
	 * is taken under another name and renamed into place: a run sweeping
	 * stale dirs that found .lock created but not yet locked would take
	 * this live dir for a dead one (two records at once lost theirs). */
	char *taking = xasprintf("%s/.lock-taking", tmp_root), *lock = xasprintf("%s/.lock", tmp_root);
	int fd = open(taking, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	bool locked = fd >= 0 && !flock(fd, LOCK_EX) && !rename(taking, lock);
	free(taking);
	free(lock);
	if (!locked) {
		int err = errno;
		tmpdir_remove();
		if (err == ENOSPC || err == EDQUOT)
			no_room(tmp_base, strerror(err));
		die(EXIT_INTERNAL, "cannot lock a temporary directory in %s: %s", tmp_base, strerror(err));
	}
	guardian_start(tmp_root);
	tmpdir_check_room();
	return tmp_root;
}

char *tmpdir_subdir(const char *name)
{
	char *path = xasprintf("%s/%s", tmpdir_path(), name);
	if (mkdir(path, 0700) && errno != EEXIST) {
		int err = errno;
		if (err == ENOSPC || err == EDQUOT)
			no_room(tmp_base, strerror(err));
		die(EXIT_INTERNAL, "cannot create %s: %s", path, strerror(err));
	}
	return path;
}
