#define _GNU_SOURCE
#include "snapshot.h"
#include "tmpdir.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

struct snapshot_entry {
	char *path;	/* relative to the snapshot's root */
	mode_t mode;
	off_t size;
	struct timespec mtime;
	uint64_t content;	/* ninja's logs: a hash of their bytes; else 0 */
};

/* ninja rewrites its logs in place (recompaction keeps no mtime promise
 * we could lean on), so their bytes are compared, not just their stat. */
static bool is_ninja_log(const char *path)
{
	const char *base = base_name(path);
	return !strcmp(base, ".ninja_log") || !strcmp(base, ".ninja_deps");
}

/* A 64-bit hash of a file's bytes, 8 at a time; 1 when it cannot be read. */
static uint64_t hash_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	uint64_t h = 0x9e3779b97f4a7c15ull;
	static unsigned char buf[1 << 16];
	ssize_t got;
	while ((got = read(fd, buf, sizeof(buf))) > 0) {
		size_t i = 0;
		for (; i + 8 <= (size_t)got; i += 8) {
			uint64_t w;
			memcpy(&w, buf + i, 8);
			h = (h ^ w) * 0xff51afd7ed558ccdull;
			h ^= h >> 32;
		}
		for (; i < (size_t)got; i++)
			h = (h ^ buf[i]) * 0x100000001b3ull;
	}
	close(fd);
	return h;
}

/* nftw has no user pointer: the walk in progress. */
static struct snapshot *walking;
static size_t root_len;

static int add_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag;
	if (ftw->level == 0)
		return 0;
	struct snapshot *s = walking;
	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 256;
		s->entries = xrealloc(s->entries, s->alloc * sizeof(*s->entries));
	}
	s->entries[s->n++] = (struct snapshot_entry){
		.path = xstrdup(path + root_len + 1), .mode = st->st_mode, .size = st->st_size, .mtime = st->st_mtim,
		.content = S_ISREG(st->st_mode) && is_ninja_log(path) ? hash_file(path) : 0,
	};
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct snapshot_entry *)a)->path, ((const struct snapshot_entry *)b)->path);
}

void snapshot_take(const char *dir, struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	walking = s;
	root_len = strlen(dir);
	while (root_len > 1 && dir[root_len - 1] == '/')
		root_len--;
	nftw(dir, add_entry, 32, FTW_PHYS);
	walking = NULL;
	if (s->n)	/* an empty dir has no array to sort */
		qsort(s->entries, s->n, sizeof(*s->entries), cmp_entry);
}

static bool same(const struct snapshot_entry *a, const struct snapshot_entry *b)
{
	return a->mode == b->mode && (S_ISDIR(a->mode) ||
		(a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
		 a->content == b->content));
}

size_t snapshot_diff(const struct snapshot *before, const struct snapshot *after, struct strvec *out, size_t max)
{
	size_t i = 0, j = 0, count = 0;
	while (i < before->n || j < after->n) {
		int c = i == before->n ? 1 : j == after->n ? -1 : strcmp(before->entries[i].path, after->entries[j].path);
		const char *what = NULL, *path = c <= 0 ? before->entries[i].path : after->entries[j].path;
		if (c < 0)
			what = "removed";
		else if (c > 0)
			what = "new";
		else if (!same(&before->entries[i], &after->entries[j]))
			what = "changed";
		if (what && count++ < max)
			strvec_pushf(out, "%s (%s)", path, what);
		i += c <= 0;
		j += c >= 0;
	}
	return count;
}

void snapshot_free(struct snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->entries[i].path);
	free(s->entries);
	memset(s, 0, sizeof(*s));
}

static struct snapshot guarded;
static char *guarded_dir;
static pid_t guard_owner;

static void verify_guarded(void)
{
	if (!guarded_dir || getpid() != guard_owner)
		return;
	struct snapshot after;
	snapshot_take(guarded_dir, &after);
	struct strvec changes = { 0 };
	size_t n = snapshot_diff(&guarded, &after, &changes, 5);
	if (n) {
		flush_stdout();
		fprintf(stderr, "buildwall: %s changed while buildwall was probing it (%zu entr%s, first: %s); a compile "
			"wrote outside its redirected outputs, or something else is writing there\n",
			guarded_dir, n, n == 1 ? "y" : "ies", changes.v[0]);
		for (size_t i = 1; i < changes.n; i++)
			fprintf(stderr, "  %s\n", changes.v[i]);
		tmpdir_remove();
		_exit(EXIT_INTERNAL);
	}
	strvec_clear(&changes);
	snapshot_free(&after);
	snapshot_free(&guarded);
	free(guarded_dir);
	guarded_dir = NULL;
}

void snapshot_guard_release(void)
{
	verify_guarded();
}

void snapshot_guard(const char *dir)
{
	if (guarded_dir || !is_directory(dir))
		return;	/* a missing dir is reported by whoever reads it */
	snapshot_take(dir, &guarded);
	guarded_dir = xstrdup(dir);
	guard_owner = getpid();
	atexit(verify_guarded);
}
