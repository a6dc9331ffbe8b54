#define _GNU_SOURCE
#include "ninja_log.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const step_kind_names[NKINDS] = { "kernel TU", "host TU", "compile", "link", "other" };

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && !memcmp(s + len - n, suffix, n);
}

enum step_kind step_kind_of(const char *output, size_t len)
{
	/* The last byte decides most names at once: a million of them a log. */
	char last = len ? output[len - 1] : 0;
	if ((last == 'o' && ends_with(output, len, ".o")) || (last == 'j' && ends_with(output, len, ".obj")))
		return KIND_COMPILE;
	static const char *const links[] = { ".so", ".a", ".lib", ".dll", ".dylib", ".pyd", ".exe", NULL };
	for (const char *const *l = links; *l; l++)
		if (ends_with(output, len, *l))
			return KIND_LINK;
	if (memmem(output, len, ".so.", 4))
		return KIND_LINK;
	const char *slash = memrchr(output, '/', len), *base = slash ? slash + 1 : output;
	return memchr(base, '.', len - (size_t)(base - output)) ? KIND_OTHER : KIND_LINK;
}

/* A field of digits and its tab, as ninja writes its times (no sign, no
 * spaces), by hand: three per line of a million-line log. The byte after
 * the tab, or NULL when the field is not a number that fits. */
static const char *parse_number(const char *p, const char *stop, long long *out)
{
	const char *start = p;
	unsigned long long v = 0;	/* 19 digits fit, the check follows */
	while (p < stop && (unsigned)(*p - '0') <= 9 && p - start < 19)
		v = v * 10 + (unsigned)(*p++ - '0');
	if (p == start || p == stop || *p != '\t' || v > LLONG_MAX)
		return NULL;
	*out = (long long)v;
	return p + 1;
}

struct fields {
	long long start, end, mtime;
	const char *output, *hash;
	size_t output_len, hash_len;
};

/* Split a line as ninja writes it: start, end and mtime up to the first
 * three tabs, the hash after the last one, and the output in between
 * (ninja writes the path raw, so it may hold tabs itself). */
static bool split_fields(const char *line, size_t len, struct fields *f)
{
	const char *p = line, *stop = line + len;
	if (!(p = parse_number(p, stop, &f->start)) || !(p = parse_number(p, stop, &f->end)) ||
	    !(p = parse_number(p, stop, &f->mtime)))
		return false;
	const char *last = memrchr(p, '\t', (size_t)(stop - p));
	if (!last || last == p)
		return false;
	f->output = p;
	f->output_len = (size_t)(last - p);
	f->hash = last + 1;
	f->hash_len = (size_t)(stop - last - 1);
	return true;
}

/* The entries and names arrays grow together: 64, doubled when full. */
static void reserve(struct ninja_log *log, size_t *alloc, bool names)
{
	if (log->n < *alloc)
		return;
	*alloc = *alloc ? 2 * *alloc : 64;
	log->entries = xrealloc(log->entries, *alloc * sizeof(*log->entries));
	if (names)
		log->names = xrealloc(log->names, *alloc * sizeof(*log->names));
}

static struct log_name name_copy(struct arena *a, const char *output, size_t output_len, const char *hash,
			       size_t hash_len)
{
	return (struct log_name){ arena_copy(a, output, output_len), arena_copy(a, hash, hash_len), (uint32_t)output_len,
				  (uint32_t)hash_len };
}

/* One edge's outputs are logged one after the other, with its times and
 * command hash. */
static bool same_edge(const struct ninja_log *log, long long start, long long end)
{
	const struct log_entry *prev = log->n ? &log->entries[log->n - 1] : NULL;
	return prev && prev->start_ms == start && prev->end_ms == end;
}

void ninja_log_add(struct ninja_log *log, long start_ms, long end_ms, const char *output, const char *hash)
{
	size_t alloc = 0;	/* what reserve gave: 64, then the powers of two */
	while (alloc < log->n || (alloc == 0 && log->n))
		alloc = alloc ? 2 * alloc : 64;
	reserve(log, &alloc, true);
	bool joins = same_edge(log, start_ms, end_ms) && !strcmp(log->names[log->n - 1].hash, hash);
	log->names[log->n] = name_copy(&log->strings, output, strlen(output), hash, strlen(hash));
	log->entries[log->n++] = (struct log_entry){ (uint32_t)start_ms, (uint32_t)end_ms, 0,
						     step_kind_of(output, strlen(output)), joins };
}

/* ---- reading lines again ---- */

struct log_reread {
	char *name;
	char *buf;		/* file bytes from base */
	size_t cap, len;
	uint64_t base;
	char *copy;		/* the last line's names, NUL-terminated */
	size_t copy_cap;
};

static struct log_reread *reread_new(const char *name)
{
	struct log_reread *r = xcalloc(1, sizeof(*r));
	r->name = xstrdup(name);
	r->cap = 1 << 20;
	r->buf = xmalloc(r->cap);
	return r;
}

static void reread_free(struct log_reread *r)
{
	if (!r)
		return;
	free(r->name);
	free(r->buf);
	free(r->copy);
	free(r);
}

/* The line at `off`, from the buffer or from a read of the file there. */
static const char *line_at(FILE *f, struct log_reread *r, uint64_t off, size_t *len)
{
	for (;;) {
		if (off >= r->base && off < r->base + r->len) {
			const char *p = r->buf + (off - r->base), *nl = memchr(p, '\n', r->len - (off - r->base));
			if (nl) {
				*len = (size_t)(nl - p);
				return p;
			}
			if (off == r->base && r->len < r->cap)
				return NULL;	/* no newline to the end of the file */
			if (off == r->base) {	/* a line longer than the buffer */
				r->cap *= 2;
				r->buf = xrealloc(r->buf, r->cap);
			}
		}
		if (fseeko(f, (off_t)off, SEEK_SET))
			return NULL;
		r->base = off;
		r->len = fread(r->buf, 1, r->cap, f);
		if (!r->len)
			return NULL;
	}
}

struct log_name ninja_log_line(const struct ninja_log *log, size_t i)
{
	if (log->names)
		return log->names[i];
	const struct log_entry *e = &log->entries[i];
	struct log_reread *r = log->reread;
	size_t len;
	const char *line = r ? line_at(log->source, r, e->line, &len) : NULL;
	struct fields f;
	if (!line || !split_fields(line, len - (len && line[len - 1] == '\r'), &f) || f.start != e->start_ms ||
	    f.end != e->end_ms)
		die(EXIT_BAD_INPUT, "%s: changed while buildwall read it (the line at byte %llu is not what it was)",
		    r ? r->name : "the log", (unsigned long long)e->line);
	size_t need = f.output_len + f.hash_len + 2;
	if (need > r->copy_cap) {
		r->copy_cap = need * 2;
		r->copy = xrealloc(r->copy, r->copy_cap);
	}
	memcpy(r->copy, f.output, f.output_len);
	r->copy[f.output_len] = 0;
	memcpy(r->copy + f.output_len + 1, f.hash, f.hash_len);
	r->copy[need - 1] = 0;
	return (struct log_name){ r->copy, r->copy + f.output_len + 1, (uint32_t)f.output_len, (uint32_t)f.hash_len };
}

void ninja_log_load_names(struct ninja_log *log)
{
	if (log->names || !log->n)
		return;
	struct log_name *names = xcalloc(log->n, sizeof(*names));
	for (size_t i = 0; i < log->n; i++) {
		struct log_name l = ninja_log_line(log, i);
		names[i] = name_copy(&log->strings, l.output, l.output_len, l.hash, l.hash_len);
	}
	log->names = names;
}

/* ---- the scan ---- */

struct scan {
	struct ninja_log cur;
	size_t alloc;
	bool names;
	const char *name;
	char *prev_hash;	/* the line before's, to tell one edge's outputs */
	size_t prev_hash_len, prev_hash_cap;
	ninja_log_visit visit;
	void *ctx;
};

static void drop_entries(struct ninja_log *log)
{
	arena_free(&log->strings);
	log->n = 0;
	log->newest_mtime = 0;
	free(log->by_output);	/* a visitor's lookups index this stretch only */
	log->by_output = NULL;
}

static bool rewritten(const struct ninja_log *b)
{
	uint32_t earliest = b->n ? b->entries[0].start_ms : 0;
	for (size_t i = 1; i < b->n; i++)
		if (b->entries[i].start_ms < earliest)
			earliest = b->entries[i].start_ms;
	return earliest > LOG_RUN_START_MS;
}

/* Hand the stretch to the visitor; when it took the stretch, the reader
 * starts fresh arrays. */
static void emit(struct scan *s)
{
	struct ninja_log *cur = &s->cur;
	if (!cur->n)
		return;
	s->visit(cur, rewritten(cur), s->ctx);
	if (!cur->entries) {
		s->alloc = 0;
		cur->names = NULL;
	}
	drop_entries(cur);
}

/* One line of the file (without its newline), which starts at byte `off`:
 * the header, or an entry added to the stretch. Returns NULL or what is
 * wrong. */
static char *add_line(struct scan *s, long lineno, uint64_t off, const char *line, size_t len)
{
	struct ninja_log *cur = &s->cur;
	while (len && line[len - 1] == '\r')
		len--;
	if (lineno == 1) {
		char *header = xstrndup(line, len);
		char *err = NULL;
		if (sscanf(header, "# ninja log v%d", &cur->version) != 1)
			err = xasprintf("%s:1: not a .ninja_log (no '# ninja log vN' header)", s->name);
		else if (cur->version < 4 || cur->version > 7)
			err = xasprintf("%s:1: .ninja_log version %d is not supported (4 to 7 are)", s->name, cur->version);
		free(header);
		return err;
	}
	if (!len)
		return NULL;
	struct fields f;
	if (!split_fields(line, len, &f))
		return xasprintf("%s:%ld: malformed .ninja_log entry (want start, end, mtime, output, hash "
				 "separated by tabs)", s->name, lineno);
	if (f.end < f.start)
		return xasprintf("%s:%ld: step ends (%lld ms) before it starts (%lld ms)", s->name, lineno, f.end, f.start);
	if (f.output_len > UINT32_MAX || f.hash_len > UINT32_MAX)
		return xasprintf("%s:%ld: a name of 4 GB or more", s->name, lineno);
	if (f.end > UINT32_MAX)	/* ninja's clock restarts every run: 49 days of one build */
		return xasprintf("%s:%ld: step ends %lld ms into its build, past 2^32 ms", s->name, lineno, f.end);
	if (cur->n && f.end < cur->entries[cur->n - 1].end_ms)
		emit(s);	/* end times fell: a new run began */
	if (!cur->n)
		cur->first_line = lineno;
	if (cur->n == UINT32_MAX)	/* steps name their first line in 32 bits: 400 GB of one build */
		return xasprintf("%s:%ld: more than 2^32 lines in one build", s->name, lineno);
	reserve(cur, &s->alloc, s->names);
	bool joins = same_edge(cur, f.start, f.end) && f.hash_len == s->prev_hash_len &&
		     (!f.hash_len || !memcmp(f.hash, s->prev_hash, f.hash_len));
	if (f.hash_len > s->prev_hash_cap) {
		s->prev_hash_cap = 2 * f.hash_len;
		s->prev_hash = xrealloc(s->prev_hash, s->prev_hash_cap);
	}
	if (f.hash_len)	/* an empty hash: no buffer yet, maybe */
		memcpy(s->prev_hash, f.hash, f.hash_len);
	s->prev_hash_len = f.hash_len;
	if (s->names)
		cur->names[cur->n] = name_copy(&cur->strings, f.output, f.output_len, f.hash, f.hash_len);
	if (f.mtime > cur->newest_mtime)
		cur->newest_mtime = f.mtime;
	cur->entries[cur->n++] = (struct log_entry){ (uint32_t)f.start, (uint32_t)f.end, off,
						     step_kind_of(f.output, f.output_len), joins };
	return NULL;
}

bool ninja_log_scan(FILE *f, const char *name, bool names, ninja_log_visit visit, void *ctx, char **err)
{
	struct scan s = { .names = names, .name = name, .visit = visit, .ctx = ctx };
	s.cur.source = f;
	char *why = NULL;
	size_t cap = 1 << 20, len = 0;
	char *buf = xmalloc(cap);
	long lineno = 0;
	off_t at = ftello(f);
	uint64_t base = at > 0 ? (uint64_t)at : 0;	/* where buf[0] is in the file */
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
		while (!why && (nl = memchr(p, '\n', (size_t)(stop - p)))) {
			why = add_line(&s, ++lineno, base + (uint64_t)(p - buf), p, (size_t)(nl - p));
			p = nl + 1;
		}
		base += (uint64_t)(p - buf);
		len = (size_t)(stop - p);
		memmove(buf, p, len);
		if (why || !got)
			break;
	}
	/* ninja writes whole lines; a last line without newline was cut off
	 * by a killed build, so it is dropped, not trusted. */
	if (!why && ferror(f))
		why = xasprintf("%s: %s", name, strerror(errno));
	if (!why)
		emit(&s);
	drop_entries(&s.cur);
	free(buf);
	free(s.prev_hash);
	free(s.cur.entries);
	free(s.cur.names);
	return ok_unless(err, why);	/* an empty file is a log with no builds yet */
}

/* NULL when the log cannot be opened: *err NULL when it does not exist. */
static FILE *open_log(const char *path, char **err)
{
	*err = NULL;
	FILE *f = fopen(path, "r");
	if (!f && errno != ENOENT)
		*err = xasprintf("%s: %s", path, strerror(errno));
	return f;
}

bool ninja_log_each(const char *path, bool names, ninja_log_visit visit, void *ctx, char **err)
{
	FILE *f = open_log(path, err);
	if (!f)
		return false;
	*err = NULL;
	ninja_log_scan(f, path, names, visit, ctx, err);
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
						.newest_mtime = b->newest_mtime, .entries = b->entries, .names = b->names,
						.strings = b->strings };
	b->entries = NULL;
	b->names = NULL;
	b->n = 0;
	b->strings = (struct arena){ 0 };
}

bool ninja_log_read_build(const char *path, long back, struct ninja_log *log, long *nbuilds, char **err)
{
	struct ring r = { .keep = (size_t)back + 1 };
	memset(log, 0, sizeof(*log));
	FILE *f = open_log(path, err);
	if (f) {
		*err = NULL;
		ninja_log_scan(f, path, false, keep_build, &r, err);
	}
	if (nbuilds)
		*nbuilds = r.total;
	log->version = r.version;
	bool found = f && !*err && r.n == r.keep;
	if (found) {
		const struct ninja_log *b = &r.builds[0];
		*log = (struct ninja_log){ .version = b->version, .entries = b->entries, .n = b->n,
					   .first_line = b->first_line, .newest_mtime = b->newest_mtime, .source = f, .owns_source = true,
					   .reread = reread_new(path) };
		r.builds[0] = (struct ninja_log){ 0 };
	} else if (f) {
		fclose(f);
	}
	for (size_t i = 0; i < r.n; i++)
		ninja_log_free(&r.builds[i]);
	free(r.builds);
	return found;
}

bool ninja_log_read_latest(const char *path, struct ninja_log *log, char **err)
{
	long n;
	if (ninja_log_read_build(path, 0, log, &n, err)) {
		ninja_log_load_names(log);
		return true;
	}
	/* No file: false. A file without builds: an empty, valid log. */
	return !*err && n == 0 && file_exists(path);
}

static const char *output_of(const struct ninja_log *log, const struct log_entry *e)
{
	return log->names[e - log->entries].output;
}

/* By output, then by position: the last line for an output sorts last. */
static int cmp_by_output(const void *a, const void *b, void *log)
{
	const struct log_entry *x = *(const struct log_entry *const *)a, *y = *(const struct log_entry *const *)b;
	int c = strcmp(output_of(log, x), output_of(log, y));
	return c ? c : (x > y) - (x < y);
}

const struct log_entry *ninja_log_find(struct ninja_log *log, const char *output)
{
	if (!log->names)
		die(EXIT_INTERNAL, "internal error: ninja_log_find without the names");
	if (!log->by_output) {
		log->by_output = xcalloc(log->n ? log->n : 1, sizeof(*log->by_output));
		for (size_t i = 0; i < log->n; i++)
			log->by_output[i] = &log->entries[i];
		qsort_r(log->by_output, log->n, sizeof(*log->by_output), cmp_by_output, log);
	}
	size_t lo = 0, hi = log->n;	/* first index whose output sorts after `output` */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(output_of(log, log->by_output[mid]), output) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && !strcmp(output_of(log, log->by_output[lo - 1]), output) ? log->by_output[lo - 1] : NULL;
}

void ninja_log_take(struct ninja_log *to, struct ninja_log *build)
{
	*to = (struct ninja_log){ .version = build->version, .n = build->n, .first_line = build->first_line,
				  .newest_mtime = build->newest_mtime, .entries = build->entries, .names = build->names,
				  .strings = build->strings };
	build->entries = NULL;
	build->names = NULL;
	build->n = 0;
	build->strings = (struct arena){ 0 };
}

void ninja_log_free(struct ninja_log *log)
{
	drop_entries(log);
	free(log->entries);
	free(log->names);
	reread_free(log->reread);
	if (log->owns_source)
		fclose(log->source);
	memset(log, 0, sizeof(*log));
}

int64_t ninja_log_when(const struct ninja_log *log)
{
	/* Nanoseconds since 1970 pass 1e15 in its first 12 days; seconds
	 * never will. Before 2000 it is no clock (a touched or restored file). */
	int64_t m = log->newest_mtime, s = m > 1000000000000000LL ? m / 1000000000 : m;
	return s >= 946684800 ? s : 0;
}
