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
	for (size_t i = 0; i < log->n; i++) {
		free(log->entries[i].output);
		free(log->entries[i].hash);
	}
	log->n = 0;
	free(log->by_output);	/* a visitor's lookups index this stretch only */
	log->by_output = NULL;
}

static bool parse_long(const char *s, long long *out)
{
	char *end;
	if (!*s)
		return false;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno || v < 0)
		return false;
	*out = v;
	return true;
}

/* Split a line in place as ninja writes it: start, end and mtime up to
 * the first three tabs, the hash after the last one, and the output in
 * between (ninja writes the path raw, so it may hold tabs itself). */
static bool split_fields(char *line, char **fields)
{
	for (int i = 0; i < 3; i++) {
		fields[i] = line;
		char *tab = strchr(line, '\t');
		if (!tab)
			return false;
		*tab = '\0';
		line = tab + 1;
	}
	char *last = strrchr(line, '\t');
	if (!last)
		return false;
	*last = '\0';
	fields[3] = line;
	fields[4] = last + 1;
	return true;
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

char *ninja_log_scan(FILE *f, const char *name, ninja_log_visit visit, void *ctx)
{
	struct ninja_log cur = { 0 };
	char *line = NULL, *err = NULL;
	size_t cap = 0, alloc = 0;
	long lineno = 0;
	ssize_t len;
	while (!err && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		bool complete = len > 0 && line[len - 1] == '\n';
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (lineno == 1) {
			if (sscanf(line, "# ninja log v%d", &cur.version) != 1)
				err = xasprintf("%s:1: not a .ninja_log (no '# ninja log vN' header)", name);
			else if (cur.version < 4 || cur.version > 7)
				err = xasprintf("%s:1: .ninja_log version %d is not supported (4 to 7 are)", name,
						cur.version);
			continue;
		}
		if (!len)
			continue;
		/* ninja writes whole lines; a last line without newline was cut
		 * off by a killed build, so it is dropped, not trusted. */
		if (!complete)
			break;
		char *fields[5];
		long long start, end, mtime;
		if (!split_fields(line, fields) || !parse_long(fields[0], &start) || !parse_long(fields[1], &end) ||
		    !parse_long(fields[2], &mtime) || !*fields[3] || start > LONG_MAX || end > LONG_MAX) {
			err = xasprintf("%s:%ld: malformed .ninja_log entry (want start, end, mtime, output, hash "
					"separated by tabs)", name, lineno);
			break;
		}
		if (end < start) {
			err = xasprintf("%s:%ld: step ends (%lld ms) before it starts (%lld ms)", name, lineno, end, start);
			break;
		}
		if (cur.n && end < cur.entries[cur.n - 1].end_ms && !emit(&cur, visit, ctx))
			alloc = 0;	/* end times fell: a new run began */
		if (!cur.n)
			cur.first_line = lineno;
		if (cur.n == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			cur.entries = xrealloc(cur.entries, alloc * sizeof(*cur.entries));
		}
		cur.entries[cur.n++] = (struct log_entry){
			.start_ms = (long)start, .end_ms = (long)end, .mtime = mtime,
			.output = xstrdup(fields[3]), .hash = xstrdup(fields[4]),
		};
	}
	if (!err && ferror(f))
		err = xasprintf("%s: %s", name, strerror(errno));
	if (!err)
		emit(&cur, visit, ctx);
	drop_entries(&cur);
	free(line);
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
	/* Take the entries rather than copy them. */
	r->builds[r->n++] = (struct ninja_log){ .version = b->version, .n = b->n, .first_line = b->first_line,
						.entries = b->entries };
	b->entries = NULL;
	b->n = 0;
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
