#define _GNU_SOURCE
#include "snapshot.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct snapshot_entry {
	char *path;	/* relative to the snapshot's root */
	mode_t mode;
	off_t size;
	struct timespec mtime;
};

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
	qsort(s->entries, s->n, sizeof(*s->entries), cmp_entry);
}

static bool same(const struct snapshot_entry *a, const struct snapshot_entry *b)
{
	return a->mode == b->mode && (S_ISDIR(a->mode) ||
		(a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec));
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

void snapshot_check(const char *dir, struct snapshot *before)
{
	struct snapshot after;
	snapshot_take(dir, &after);
	struct strvec changes = { 0 };
	size_t n = snapshot_diff(before, &after, &changes, 5);
	if (n) {
		warn("%s changed while buildwall was probing it (%zu entr%s, first: %s); a compile wrote outside "
		     "its redirected outputs, or something else is writing there",
		     dir, n, n == 1 ? "y" : "ies", changes.v[0]);
		for (size_t i = 1; i < changes.n; i++)
			fprintf(stderr, "  %s\n", changes.v[i]);
	}
	strvec_clear(&changes);
	snapshot_free(before);
	snapshot_free(&after);
}
