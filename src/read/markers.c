#include "markers.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads are this big; a marker line may be at most MAX_MARKER long (a
 * longer line that is not a marker is fine: only its first byte matters). */
#define READ_CHUNK (1u << 20)
#define MAX_MARKER (64u << 10)
#define MAX_DEPTH 100000

/* A byte as an error message shows it: 'x', or \xB2 for one that is not
 * printable ASCII (a raw byte would garble the terminal). */
struct quoted {
	char s[8];
};

static struct quoted quoted_char(char c)
{
	struct quoted q;
	unsigned char u = (unsigned char)c;
	if (u >= 0x20 && u < 0x7f)
		snprintf(q.s, sizeof(q.s), "'%c'", c);
	else
		snprintf(q.s, sizeof(q.s), "\\x%02X", u);
	return q;
}

static const char bundle_prefix[] = "// __CLANG_OFFLOAD_BUNDLE__";
static const char bundle_start[] = "// __CLANG_OFFLOAD_BUNDLE____START__";
static const char bundle_end[] = "// __CLANG_OFFLOAD_BUNDLE____END__";

const char *bundle_pass(const char *target)
{
	return has_prefix(target, "host-") ? "host" : "device";
}

const char *bundle_arch(const char *target)
{
	const char *dash = strrchr(target, '-');
	return has_prefix(target, "host-") || !dash || !dash[1] ? NULL : dash + 1;
}

static struct pp_section *new_section(struct markers *m, const char *target)
{
	m->sections = xrealloc(m->sections, (m->nsections + 1) * sizeof(*m->sections));
	struct pp_section *s = &m->sections[m->nsections++];
	*s = (struct pp_section){ .target = target ? xstrdup(target) : NULL, .main_file = STRMAP_NONE };
	return s;
}

static size_t file_index(struct pp_section *s, const char *name, size_t len)
{
	size_t i = strmap_get(&s->index, name, len);
	if (i != STRMAP_NONE)
		return i;
	if (s->nfiles == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 256;
		s->files = xrealloc(s->files, s->alloc * sizeof(*s->files));
	}
	i = s->nfiles++;
	s->files[i] = (struct pp_file){ .name = xstrndup(name, len) };
	strmap_put(&s->index, s->files[i].name, len, i);
	return i;
}

/* Give the code lines read since the last marker to the file on top; lines
 * before any marker belong to an unnamed file. */
static void flush(struct markers *m)
{
	if (!m->pending)
		return;
	if (!m->depth) {
		static const char unnamed[] = "(no line marker)";
		m->unnamed = file_index(m->cur, unnamed, strlen(unnamed));
		m->stack[m->depth++] = (struct pp_frame){ .file = m->unnamed };
		m->cur->files[m->unnamed].entries++;
		if (m->cur->main_file == STRMAP_NONE)
			m->cur->main_file = m->stack[0].file;
	}
	struct pp_frame *top = &m->stack[m->depth - 1];
	m->cur->files[top->file].lines += m->pending;
	top->line += m->pending;
	m->pending = 0;
}

static void push(struct markers *m, size_t file, unsigned long line)
{
	if (m->depth == m->stack_alloc) {
		m->stack_alloc *= 2;
		m->stack = xrealloc(m->stack, m->stack_alloc * sizeof(*m->stack));
	}
	unsigned long include_line = m->depth ? m->stack[m->depth - 1].line : 0;
	m->stack[m->depth++] = (struct pp_frame){ file, line, include_line, m->cur->code_lines };
	m->cur->files[file].entries++;
	if (m->depth > m->cur->max_depth)
		m->cur->max_depth = m->depth;
	if (m->cur->main_file == STRMAP_NONE)
		m->cur->main_file = file;
	if (m->hooks && m->hooks->enter && m->depth > 1)
		m->hooks->enter(m->hooks->ctx, m);
}

static void pop(struct markers *m)
{
	if (m->hooks && m->hooks->leave)
		m->hooks->leave(m->hooks->ctx, m);
	m->depth--;
}

/* The section for lines outside offload bundles (created when needed). */
static struct pp_section *outside(struct markers *m)
{
	if (m->outside == STRMAP_NONE) {
		new_section(m, NULL);
		m->outside = m->nsections - 1;
	}
	return &m->sections[m->outside];
}

/* Close the section being read: files still open are left (the TU is not
 * counted as open). */
static void end_section(struct markers *m)
{
	if (!m->cur)
		return;
	flush(m);
	if (m->depth > 1)
		m->cur->open_at_end += m->depth - 1;
	while (m->depth > 1)
		pop(m);
	m->depth = 0;
	m->cur = NULL;
	m->unnamed = STRMAP_NONE;
}

/* Lines outside any section wait in m->loose: they are the blank lines
 * between offload bundles, unless a marker (or the end of a file without
 * any) shows they are a plain output's. */
static void take_loose_lines(struct markers *m)
{
	if (!m->cur)
		m->cur = outside(m);
	m->cur->lines += m->loose;
	m->cur->code_lines += m->loose;
	m->pending += m->loose;
	m->loose = 0;
}

static void count_code(struct markers *m, size_t n)
{
	m->lines += n;
	if (!m->cur) {
		m->loose += n;
		return;
	}
	m->cur->lines += n;
	m->cur->code_lines += n;
	m->pending += n;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Does the line look like a marker ("# 12", "#line 12")? Decides whether
 * a '#' line is one; a marker that then does not parse is malformed. */
static const char *marker_body(const char *p, const char *end, bool *keyword)
{
	p++;
	while (p < end && is_space(*p))
		p++;
	*keyword = end - p >= 5 && !memcmp(p, "line", 4) && is_space(p[4]);
	if (*keyword) {
		p += 4;
		while (p < end && is_space(*p))
			p++;
		return p;
	}
	return p < end && *p >= '0' && *p <= '9' ? p : NULL;
}

/* Parse and apply a line marker; NULL or what is wrong with it. */
static char *marker(struct markers *m, const char *p, const char *end)
{
	bool keyword;
	p = marker_body(p, end, &keyword);
	if (p >= end || *p < '0' || *p > '9')
		return xstrdup("#line without a line number");
	unsigned long line = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (line > (ULONG_MAX - 9) / 10)
			return xstrdup("line marker: line number out of range");
		line = line * 10 + (unsigned long)(*p - '0');
	}
	if (p < end && !is_space(*p))
		return xasprintf("line marker: unexpected %s after the line number", quoted_char(*p).s);
	while (p < end && is_space(*p))
		p++;
	size_t len = 0;
	bool named = p < end;
	if (named) {
		if (*p != '"')
			return xstrdup("line marker: the file name does not start with '\"'");
		for (p++; p < end && *p != '"'; p++) {
			char c = *p;
			if (c == '\\' && p + 1 < end) {
				c = *++p;
				if (c >= '0' && c <= '7') {	/* \ooo */
					int v = c - '0';
					for (int k = 0; k < 2 && p + 1 < end && p[1] >= '0' && p[1] <= '7'; k++)
						v = v * 8 + (*++p - '0');
					c = (char)v;
				}
			}
			if (!c)
				return xstrdup("line marker: NUL in the file name");
			m->scratch[len++] = c;
		}
		if (p >= end)
			return xstrdup("line marker: the file name has no closing '\"'");
		p++;
	}
	bool enter = false, leave = false, system = false;
	while (p < end) {
		if (!is_space(*p))
			return xasprintf("line marker: unexpected %s after the file name", quoted_char(*p).s);
		while (p < end && is_space(*p))
			p++;
		if (p == end)
			break;
		if (*p < '1' || *p > '4' || (p + 1 < end && !is_space(p[1])))
			return xstrdup("line marker: flags are 1 to 4");
		enter |= *p == '1';
		leave |= *p == '2';
		system |= *p == '3';
		p++;
	}
	if (enter && leave)
		return xstrdup("line marker: both enters (1) and returns (2)");

	take_loose_lines(m);
	flush(m);
	m->cur->markers++;
	m->cur->lines++;
	m->lines++;
	if (!named) {	/* "# 12": the line number only */
		if (m->depth)
			m->stack[m->depth - 1].line = line;
		return NULL;
	}
	size_t known = m->cur->nfiles, file = file_index(m->cur, m->scratch, len);
	/* A system header is one entered (or first named) with flag 3; a 3 on
	 * a later marker marks a macro expansion from one, not the file. */
	if (enter || file == known)
		m->cur->files[file].system |= system;
	if (leave) {
		if (m->depth < 2)
			return xasprintf("line marker returns to \"%s\" but no #include is open", m->cur->files[file].name);
		pop(m);
		if (m->stack[m->depth - 1].file != file)
			m->cur->renamed_returns++;
	} else if (enter || !m->depth) {
		push(m, file, line);
		return NULL;
	}
	struct pp_frame *top = &m->stack[m->depth - 1];
	if (m->depth == 1 && top->file == m->cur->main_file && top->file == m->unnamed)
		m->cur->main_file = file;	/* lines came before the first marker */
	top->file = file;	/* the includer, or a rename (#line, gcc's "<built-in>") */
	top->line = line;
	return NULL;
}

/* One line that starts with '#' or '/' (without its '\n'); after_blank:
 * the line before it was empty. */
static char *special_line(struct markers *m, const char *p, const char *end, bool after_blank)
{
	if (end > p && end[-1] == '\r')
		end--;
	size_t n = (size_t)(end - p);
	if (*p == '/') {
		bool start = n >= sizeof(bundle_start) - 1 && !memcmp(p, bundle_start, sizeof(bundle_start) - 1);
		bool stop = n >= sizeof(bundle_end) - 1 && !memcmp(p, bundle_end, sizeof(bundle_end) - 1);
		if (!start && !stop) {
			count_code(m, 1);
			return NULL;
		}
		if (stop && after_blank && m->cur && m->pending) {
			/* The bundler's own '\n' after the pass's output: not the
			 * pass's line (so a bundle counts as the pass alone). */
			m->cur->lines--;
			m->cur->code_lines--;
			m->pending--;
		}
		end_section(m);
		m->lines++;
		m->loose = 0;	/* the blank lines between bundles */
		if (start) {
			const char *t = p + sizeof(bundle_start) - 1;
			while (t < end && is_space(*t))
				t++;
			char *target = xstrndup(t, (size_t)(end - t));
			m->cur = new_section(m, target);
			free(target);
		}
		return NULL;
	}
	bool keyword;
	if (!marker_body(p, end, &keyword)) {
		count_code(m, 1);	/* #pragma and other directives kept by -E */
		return NULL;
	}
	return marker(m, p, end);
}

static bool looks_like_marker(const char *p, const char *end)
{
	bool keyword;
	if (*p == '#')
		return marker_body(p, end, &keyword) != NULL;
	return (size_t)(end - p) >= sizeof(bundle_prefix) - 1 && !memcmp(p, bundle_prefix, sizeof(bundle_prefix) - 1);
}

/* Bit i of *newlines is set when p[i] is '\n', of *special when it is '#'
 * or '/': for 64 bytes at once. */
#if defined(__SSE2__) && !defined(MARKERS_PORTABLE)
#include <emmintrin.h>
static inline void block_masks(const char *p, uint64_t *newlines, uint64_t *special)
{
	const __m128i nl = _mm_set1_epi8('\n'), hash = _mm_set1_epi8('#'), slash = _mm_set1_epi8('/');
	uint64_t n = 0, s = 0;
	for (int k = 0; k < 4; k++) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
		n |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, nl)) << (16 * k);
		s |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, hash),
									 _mm_cmpeq_epi8(v, slash))) << (16 * k);
	}
	*newlines = n;
	*special = s;
}
#else
static inline void block_masks(const char *p, uint64_t *newlines, uint64_t *special)
{
	uint64_t n = 0, s = 0;
	for (int i = 0; i < 64; i++) {
		n |= (uint64_t)(p[i] == '\n') << i;
		s |= (uint64_t)(p[i] == '#' || p[i] == '/') << i;
	}
	*newlines = n;
	*special = s;
}
#endif

/* Set bits, without needing a popcount instruction (not in baseline x86-64). */
static inline size_t count_bits(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ull;
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (size_t)((x * 0x0101010101010101ull) >> 56);
}

/* From p, a line start, to the first line that starts with '#' or '/' (or
 * end); *lines = the '\n's passed. 64 bytes at a time: this loop is where
 * a scan spends its time. */
static char *skip_code_lines(char *p, char *end, size_t *lines)
{
	size_t n = 0;
	uint64_t line_start = 1;	/* bit 0: the block's first byte starts a line */
	for (; end - p >= 64; p += 64) {
		uint64_t newlines, special;
		block_masks(p, &newlines, &special);
		uint64_t starts = ((newlines << 1) | line_start) & special;
		if (starts) {
			int at = __builtin_ctzll(starts);
			*lines = n + count_bits(at ? newlines & (~0ull >> (64 - at)) : 0);
			return p + at;
		}
		n += count_bits(newlines);
		line_start = newlines >> 63;
	}
	for (bool at_start = line_start; p < end; p++) {
		if (at_start && (*p == '#' || *p == '/'))
			break;
		at_start = *p == '\n';
		n += at_start;
	}
	*lines = n;
	return p;
}

/* Before buf[0..n) is dropped: remember its last two bytes. */
static void keep_last_bytes(char before[2], const char *buf, size_t n)
{
	if (n >= 2) {
		before[0] = buf[n - 2];
		before[1] = buf[n - 1];
	} else if (n == 1) {
		before[0] = before[1];
		before[1] = buf[0];
	}
}

/* Read into buf[have..cap); false at the end of input. */
static bool fill(int fd, char *buf, size_t *have, size_t cap, char **err)
{
	ssize_t r;
	do
		r = read(fd, buf + *have, cap - *have);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		*err = xasprintf("read error: %s", strerror(errno));
		return false;
	}
	*have += (size_t)r;
	return r > 0;
}

static void section_free(struct pp_section *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i].name);
	free(s->files);
	free(s->target);
	strmap_free(&s->index);
}

bool markers_scan(int fd, const struct pp_hooks *hooks, struct markers *m, size_t *bad_line, char **err)
{
	*m = (struct markers){ .hooks = hooks, .outside = STRMAP_NONE, .unnamed = STRMAP_NONE, .stack_alloc = 64 };
	*bad_line = 0;
	m->stack = xmalloc(m->stack_alloc * sizeof(*m->stack));
	m->scratch = xmalloc(MAX_MARKER);
	size_t cap = READ_CHUNK + MAX_MARKER;
	char *buf = xmalloc(cap), *why = NULL;
	size_t have = 0, pos = 0;
	bool in_code_line = false;	/* inside a code line whose start was counted on */
	char before[2] = { 0, 0 };	/* the two bytes read before buf[0] */
	for (;;) {
		if (pos == have) {
			keep_last_bytes(before, buf, have);
			pos = have = 0;
			if (!fill(fd, buf, &have, READ_CHUNK, &why))
				break;
		}
		char *p = buf + pos, *end = buf + have;
		if (in_code_line) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			pos = nl ? (size_t)(nl + 1 - buf) : have;
			if (nl) {
				count_code(m, 1);
				in_code_line = false;
			}
			continue;
		}
		size_t n;
		p = skip_code_lines(p, end, &n);
		if (n)
			count_code(m, n);
		if (p == end && end[-1] != '\n')
			in_code_line = true;
		pos = (size_t)(p - buf);
		if (p == end)
			continue;
		/* A line that may be a marker: it is needed whole. */
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			size_t len = (size_t)(end - p);
			if (len >= MAX_MARKER) {
				if (looks_like_marker(p, end)) {
					*bad_line = m->lines + 1;
					why = xasprintf("line marker longer than %u KiB", MAX_MARKER >> 10);
					break;
				}
				in_code_line = true;	/* a long #pragma: only its start mattered */
				pos = have;
				continue;
			}
			keep_last_bytes(before, buf, (size_t)(p - buf));
			memmove(buf, p, len);
			have = len;
			pos = 0;
			if (fill(fd, buf, &have, cap, &why))
				continue;
			if (why)
				break;
			nl = buf + have;	/* the last line has no '\n' */
			p = buf;
		}
		if ((size_t)(nl - p) > MAX_MARKER && looks_like_marker(p, nl)) {
			*bad_line = m->lines + 1;
			why = xasprintf("line marker longer than %u KiB", MAX_MARKER >> 10);
			break;
		}
		size_t at = m->lines + 1;
		size_t off = (size_t)(p - buf);
		bool after_blank = (off >= 1 ? p[-1] : before[1]) == '\n' &&
				   (off >= 2 ? p[-2] : off == 1 ? before[1] : before[0]) == '\n';
		if ((why = special_line(m, p, nl, after_blank))) {
			*bad_line = at;
			break;
		}
		if (m->depth > MAX_DEPTH) {
			*bad_line = m->lines;
			why = xasprintf("#include nesting deeper than %d", MAX_DEPTH);
			break;
		}
		pos = nl < buf + have ? (size_t)(nl + 1 - buf) : have;
	}
	free(buf);
	if (why)
		return ok_unless(err, why);
	if (in_code_line)
		count_code(m, 1);	/* the last line, without '\n' */
	if (m->loose && !m->nsections)
		take_loose_lines(m);	/* output without a single marker (-P) */
	end_section(m);
	return true;
}

void markers_free(struct markers *m)
{
	for (size_t s = 0; s < m->nsections; s++)
		section_free(&m->sections[s]);
	free(m->sections);
	free(m->stack);
	free(m->scratch);
	*m = (struct markers){ 0 };
}
