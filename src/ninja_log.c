#define _GNU_SOURCE
#include "ninja_log.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void drop_entries(struct ninja_log *log)
{
	arena_free(&log->strings);
	log->n = 0;
	free(log->by_output);	/* a visitor's lookups index this stretch only */
	log->by_output = NULL;
}

/* A field of digits as ninja writes its times (no sign, no spaces), by
 * hand: three per line of a million-line log. */
static bool parse_number(const char *s, const char *end, long long *out)
{
	if (s == end || end - s > 19)
		return false;
	long long v = 0;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9' || v > (LLONG_MAX - (*s - '0')) / 10)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return true;
}

struct fields {
	const char *start, *end, *mtime, *output, *hash, *stop;	/* each field runs to the next's tab */
	size_t output_len, hash_len;
};

/* Split a line as ninja writes it: start, end and mtime up to the first
 * three tabs, the hash after the last one, and the output in between
 * (ninja writes the path raw, so it may hold tabs itself). */
static bool split_fields(const char *line, size_t len, struct fields *f, const char **ends)
{
	const char *p = line, *stop = line + len, *starts[3];
	for (int i = 0; i < 3; i++) {
		starts[i] = p;
		const char *tab = memchr(p, '\t', (size_t)(stop - p));
		if (!tab)
			return false;
		ends[i] = tab;
		p = tab + 1;
	}
	const char *last = memrchr(p, '\t', (size_t)(stop - p));
	if (!last)
		return false;
	*f = (struct fields){ starts[0], starts[1], starts[2], p, last + 1, stop, (size_t)(last - p),
			      (size_t)(stop - last - 1) };
	return true;
}

void ninja_log_add(struct ninja_log *log, long start_ms, long end_ms, const char *output, const char *hash)
{
	/* the capacity: 64, doubled whenever n reaches it */
	if (log->n == 0 || (log->n >= 64 && !(log->n & (log->n - 1))))
		log->entries = xrealloc(log->entries, (log->n ? 2 * log->n : 64) * sizeof(*log->entries));
	log->entries[log->n++] = (struct log_entry){ start_ms, end_ms, arena_copy(&log->strings, output, strlen(output)),
						      arena_copy(&log->strings, hash, strlen(hash)) };
}

static bool rewritten(const struct ninja_log *b)
{
	long earliest = b->n ? b->entries[0].start_ms : 0;
	for (size_t i = 1; i < b->n; i++)
		if (b->entries[i].start_ms < earliest)
			earliest = b->entries[i].start_ms;
	return earliest > LOG_RUN_START_MS;
}

/* Hand the stretch to the visitor; returns false when it took the
 * entries, so the reader starts a fresh array. */
static bool emit(struct ninja_log *cur, ninja_log_visit visit, void *ctx)
{
	if (!cur->n)
		return true;
	visit(cur, rewritten(cur), ctx);
	if (!cur->entries) {
		free(cur->by_output);
		cur->by_output = NULL;
		return false;
	}
	drop_entries(cur);
	return true;
}

/* One line of the file (without its newline): the header, or an entry
 * added to the stretch. Returns NULL or what is wrong. */
static char *add_line(struct ninja_log *cur, size_t *alloc, const char *name, long lineno, const char *line,
		      size_t len, ninja_log_visit visit, void *ctx)
{
	while (len && line[len - 1] == '\r')
		len--;
	if (lineno == 1) {
		char *header = xstrndup(line, len);
		char *err = NULL;
		if (sscanf(header, "# ninja log v%d", &cur->version) != 1)
			err = xasprintf("%s:1: not a .ninja_log (no '# ninja log vN' header)", name);
		else if (cur->version < 4 || cur->version > 7)
			err = xasprintf("%s:1: .ninja_log version %d is not supported (4 to 7 are)", name, cur->version);
		free(header);
		return err;
	}
	if (!len)
		return NULL;
	struct fields f;
	const char *ends[3];
	long long start, end, mtime;
	if (!split_fields(line, len, &f, ends) || !parse_number(f.start, ends[0], &start) ||
	    !parse_number(f.end, ends[1], &end) || !parse_number(f.mtime, ends[2], &mtime) || !f.output_len ||
	    start > LONG_MAX || end > LONG_MAX)
		return xasprintf("%s:%ld: malformed .ninja_log entry (want start, end, mtime, output, hash "
				 "separated by tabs)", name, lineno);
	if (end < start)
		return xasprintf("%s:%ld: step ends (%lld ms) before it starts (%lld ms)", name, lineno, end, start);
	if (cur->n && end < cur->entries[cur->n - 1].end_ms && !emit(cur, visit, ctx))
		*alloc = 0;	/* end times fell: a new run began */
	if (!cur->n)
		cur->first_line = lineno;
	if (cur->n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 64;
		cur->entries = xrealloc(cur->entries, *alloc * sizeof(*cur->entries));
	}
	cur->entries[cur->n++] = (struct log_entry){ (long)start, (long)end,
						     arena_copy(&cur->strings, f.output, f.output_len),
						     arena_copy(&cur->strings, f.hash, f.hash_len) };
	return NULL;
}

char *ninja_log_scan(FILE *f, const char *name, ninja_log_visit visit, void *ctx)
{
	struct ninja_log cur = { 0 };
	char *err = NULL;
	size_t alloc = 0, cap = 1 << 20, len = 0;
	char *buf = xmalloc(cap);
	long lineno = 0;
	/* Whole chunks read, each complete line handled in place; a partial
	 * line moves to the front for the next chunk. */
	for (;;) {
		if (len == cap) {	/* a line longer than the buffer */
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + len, 1, cap - len, f);
		len += got;
		const char *p = buf, *stop = buf + len;
		const char *nl;
		while (!err && (nl = memchr(p, '\n', (size_t)(stop - p)))) {
			err = add_line(&cur, &alloc, name, ++lineno, p, (size_t)(nl - p), visit, ctx);
			p = nl + 1;
		}
		len = (size_t)(stop - p);
		memmove(buf, p, len);
		if (err || !got)
			break;
	}
	/* ninja writes whole lines; a last line without newline was cut off
	 * by a killed build, so it is dropped, not trusted. */
	if (!err && ferror(f))
		err = xasprintf("%s: %s", name, strerror(errno));
	if (!err)
		emit(&cur, visit, ctx);
	drop_entries(&cur);
	free(buf);
	free(cur.entries);
	return err;	/* an empty file is a log with no builds yet */
}

bool ninja_log_each(const char *path, ninja_log_visit visit, void *ctx, char **err)
{
	*err = NULL;
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno != ENOENT)
			*err = xasprintf("%s: %s", path, strerror(errno));
		return false;
	}
	*err = ninja_log_scan(f, path, visit, ctx);
	fclose(f);
	return !*err;
}

/* Keep the last `keep` builds seen, oldest first; the array grows with
 * the builds the file really has, whatever `keep` asks for. */
struct ring {
	struct ninja_log *builds;
	size_t keep, n, alloc;
	long total;
	int version;
};

static void keep_build(struct ninja_log *b, bool is_rewritten, void *ctx)
{
	struct ring *r = ctx;
	r->version = b->version;
	if (is_rewritten)
		return;
	r->total++;
	if (r->n == r->keep) {
		ninja_log_free(&r->builds[0]);
		memmove(&r->builds[0], &r->builds[1], (r->n - 1) * sizeof(r->builds[0]));
		r->n--;
	}
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 4;
		r->builds = xrealloc(r->builds, r->alloc * sizeof(*r->builds));
	}
	/* Take the entries and their strings rather than copy them. */
	r->builds[r->n++] = (struct ninja_log){ .version = b->version, .n = b->n, .first_line = b->first_line,
						.entries = b->entries, .strings = b->strings };
	b->entries = NULL;
	b->n = 0;
	b->strings = (struct arena){ 0 };
}

bool ninja_log_read_build(const char *path, long back, struct ninja_log *log, long *nbuilds, char **err)
{
	struct ring r = { .keep = (size_t)back + 1 };
	memset(log, 0, sizeof(*log));
	bool exists = ninja_log_each(path, keep_build, &r, err);
	if (nbuilds)
		*nbuilds = r.total;
	log->version = r.version;
	bool found = exists && r.n == r.keep;
	if (found) {
		*log = r.builds[0];
		r.builds[0] = (struct ninja_log){ 0 };
	}
	for (size_t i = 0; i < r.n; i++)
		ninja_log_free(&r.builds[i]);
	free(r.builds);
	return found;
}

bool ninja_log_read_latest(const char *path, struct ninja_log *log, char **err)
{
	long n;
	if (ninja_log_read_build(path, 0, log, &n, err))
		return true;
	/* No file: false. A file without builds: an empty, valid log. */
	return !*err && n == 0 && file_exists(path);
}

/* By output, then by position: the last line for an output sorts last. */
static int cmp_by_output(const void *a, const void *b)
{
	const struct log_entry *x = *(const struct log_entry *const *)a, *y = *(const struct log_entry *const *)b;
	int c = strcmp(x->output, y->output);
	return c ? c : (x > y) - (x < y);
}

const struct log_entry *ninja_log_find(struct ninja_log *log, const char *output)
{
	if (!log->by_output) {
		log->by_output = xcalloc(log->n, sizeof(*log->by_output));
		for (size_t i = 0; i < log->n; i++)
			log->by_output[i] = &log->entries[i];
		qsort(log->by_output, log->n, sizeof(*log->by_output), cmp_by_output);
	}
	size_t lo = 0, hi = log->n;	/* first index whose output sorts after `output` */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(log->by_output[mid]->output, output) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && !strcmp(log->by_output[lo - 1]->output, output) ? log->by_output[lo - 1] : NULL;
}

void ninja_log_free(struct ninja_log *log)
{
	drop_entries(log);
	free(log->entries);
	memset(log, 0, sizeof(*log));
}
