/* The reader parses one "unit" at a time — the file's opening bracket, one
 * key and value of the outer object, one event, a comma or a closing
 * bracket — from a buffer holding a chunk of the file. A unit that runs
 * past the buffer's end is parsed again from its start once the buffer has
 * been refilled (and grown, for a unit larger than the buffer): units are
 * small, so the retries are rare and the parsing code never has to stop in
 * the middle of a token. Running out of input, and a syntax error, unwind
 * the unit's parse with longjmp: the parsers hold no resources. */
#define _GNU_SOURCE
#include "trace_scan.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (64u << 10)	/* under malloc's mmap threshold: reused, not mapped per file */
#define MAX_DEPTH 2048	/* jansson's: a file it reads is never too deep here */

struct scanner {
	int fd;
	char *buf;
	size_t cap, len;	/* buf[0..len) holds the file from offset `base` */
	unsigned long long base;
	bool eof;
	const char *p, *end;	/* the cursor of the unit being parsed */
	char *scratch;		/* unescaped strings; as large as buf, so never moved mid-unit */
	size_t scratch_len;
	size_t unit_start;	/* offset in buf of the unit being parsed */
	jmp_buf fail;
	const char *error;	/* NULL: the unit ran out of input */
	size_t error_at;	/* offset in buf */
};

static _Noreturn void need_more(struct scanner *s)
{
	s->error = NULL;
	longjmp(s->fail, 1);
}

static _Noreturn void malformed(struct scanner *s, const char *what)
{
	s->error = what;
	s->error_at = (size_t)(s->p - s->buf);
	longjmp(s->fail, 1);
}

/* Inlined: the parser calls these for every token. */
static inline __attribute__((always_inline)) char peek(struct scanner *s)
{
	if (s->p < s->end && (unsigned char)*s->p > ' ')	/* traces are mostly written without white space */
		return *s->p;
	const char *p = s->p;
	while (p < s->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	s->p = p;
	if (p == s->end)
		need_more(s);
	return *p;
}

static inline __attribute__((always_inline)) void expect(struct scanner *s, char c, const char *what)
{
	if (peek(s) != c)
		malformed(s, what);
	s->p++;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned read_hex4(struct scanner *s)
{
	if (s->end - s->p < 4)
		need_more(s);
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit(s->p[i]);
		if (d < 0)
			malformed(s, "bad \\u escape in a string");
		v = v << 4 | (unsigned)d;
	}
	s->p += 4;
	return v;
}

static void put_utf8(char **o, unsigned cp)
{
	char *q = *o;
	if (cp < 0x80) {
		*q++ = (char)cp;
	} else if (cp < 0x800) {
		*q++ = (char)(0xc0 | cp >> 6);
		*q++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*q++ = (char)(0xe0 | cp >> 12);
		*q++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*q++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*q++ = (char)(0xf0 | cp >> 18);
		*q++ = (char)(0x80 | (cp >> 12 & 0x3f));
		*q++ = (char)(0x80 | (cp >> 6 & 0x3f));
		*q++ = (char)(0x80 | (cp & 0x3f));
	}
	*o = q;
}

/* The rest of a string after a backslash, unescaped into scratch. A \u
 * escape takes at most 6 input bytes for at most 3 output bytes (a pair, 12
 * for 4), so the output never outgrows the input. */
static struct trace_str unescape(struct scanner *s, const char *start)
{
	char *out = s->scratch + s->scratch_len, *o = out;
	memcpy(o, start, (size_t)(s->p - start));
	o += s->p - start;
	for (;;) {
		if (s->p == s->end)
			need_more(s);
		unsigned char c = (unsigned char)*s->p;
		if (c == '"')
			break;
		if (c < 0x20)
			malformed(s, "control character in a string");
		if (c != '\\') {
			*o++ = (char)c;
			s->p++;
			continue;
		}
		if (s->end - s->p < 2)
			need_more(s);
		char e = s->p[1];
		s->p += 2;
		switch (e) {
		case '"': case '\\': case '/': *o++ = e; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			unsigned cp = read_hex4(s);
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (s->end - s->p < 2)
					need_more(s);
				if (s->p[0] != '\\' || s->p[1] != 'u')
					malformed(s, "lone surrogate in a \\u escape");
				s->p += 2;
				unsigned lo = read_hex4(s);
				if (lo < 0xdc00 || lo >= 0xe000)
					malformed(s, "bad surrogate pair in a \\u escape");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				malformed(s, "lone surrogate in a \\u escape");
			} else if (cp == 0) {
				malformed(s, "\\u0000 in a string");
			}
			put_utf8(&o, cp);
			break;
		}
		default:
			s->p -= 1;
			malformed(s, "bad escape in a string");
		}
	}
	s->p++;
	s->scratch_len += (size_t)(o - out);
	return (struct trace_str){ out, (size_t)(o - out) };
}

/* The high bit of each byte of w that is '"', '\\' or below 0x20, eight
 * bytes at once. Borrows only run upwards, so the lowest bit set marks the
 * first such byte exactly (bits above it may be false alarms). */
static uint64_t special_bytes(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t quote = w ^ (ones * '"'), backslash = w ^ (ones * '\\');
	return (((w - ones * 0x20) & ~w) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash)) & highs;
}

static struct trace_str read_string(struct scanner *s)
{
	expect(s, '"', "expected a string");
	const char *start = s->p, *p = start;
	for (; p + 8 <= s->end; p += 8) {
		uint64_t w;
		memcpy(&w, p, 8);
		uint64_t hits = special_bytes(w);
		if (hits) {
			p += __builtin_ctzll(hits) / 8;	/* little-endian: the lowest byte comes first */
			break;
		}
	}
	for (; p < s->end; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '"') {
			s->p = p + 1;
			return (struct trace_str){ start, (size_t)(p - start) };
		}
		if (c == '\\') {
			s->p = p;
			return unescape(s, start);
		}
		if (c < 0x20) {
			s->p = p;
			malformed(s, "control character in a string");
		}
	}
	need_more(s);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A JSON number. Integers (all that clang and nvcc write) are parsed here;
 * a fraction or an exponent goes to strtod once the grammar is checked. */
static double read_number(struct scanner *s)
{
	const char *p = s->p, *start = p;
	bool negative = p < s->end && *p == '-';
	p += negative;
	if (p == s->end)
		need_more(s);
	if (!is_digit(*p)) {
		s->p = p;
		malformed(s, "expected a value");
	}
	uint64_t v = 0;
	int digits = 0;
	if (*p == '0') {
		p++;
	} else {
		for (; p < s->end && is_digit(*p); p++, digits++)
			v = v * 10 + (uint64_t)(*p - '0');
	}
	bool simple = true;
	if (p < s->end && *p == '.') {
		simple = false;
		p++;
		if (p < s->end && !is_digit(*p)) {
			s->p = p;
			malformed(s, "expected a digit after '.'");
		}
		while (p < s->end && is_digit(*p))
			p++;
	}
	if (p < s->end && (*p == 'e' || *p == 'E')) {
		simple = false;
		p++;
		if (p < s->end && (*p == '+' || *p == '-'))
			p++;
		if (p < s->end && !is_digit(*p)) {
			s->p = p;
			malformed(s, "expected a digit in an exponent");
		}
		while (p < s->end && is_digit(*p))
			p++;
	}
	if (p == s->end && !s->eof)	/* the number may go on in the next chunk */
		need_more(s);
	s->p = p;
	if (simple && digits < 19)
		return negative ? -(double)v : (double)v;
	char copy[64];
	size_t n = (size_t)(p - start) < sizeof(copy) - 1 ? (size_t)(p - start) : sizeof(copy) - 1;
	memcpy(copy, start, n);
	copy[n] = 0;
	return strtod(copy, NULL);
}

static void read_literal(struct scanner *s, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(s->end - s->p) < n)
		need_more(s);
	if (memcmp(s->p, word, n))
		malformed(s, "expected a value");
	s->p += n;
}

static void skip_value(struct scanner *s, int depth);

static void skip_container(struct scanner *s, char close, int depth)
{
	if (depth > MAX_DEPTH)
		malformed(s, "nested too deeply");
	s->p++;
	if (peek(s) == close) {
		s->p++;
		return;
	}
	for (;;) {
		if (close == '}') {
			read_string(s);
			expect(s, ':', "expected ':' after a key");
		}
		skip_value(s, depth + 1);
		char c = peek(s);
		s->p++;
		if (c == close)
			return;
		if (c != ',') {
			s->p--;
			malformed(s, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		}
	}
}

static void skip_value(struct scanner *s, int depth)
{
	switch (peek(s)) {
	case '{': skip_container(s, '}', depth); break;
	case '[': skip_container(s, ']', depth); break;
	case '"': read_string(s); break;
	case 't': read_literal(s, "true"); break;
	case 'f': read_literal(s, "false"); break;
	case 'n': read_literal(s, "null"); break;
	default: read_number(s); break;
	}
}

static bool key_is(struct trace_str k, const char *word)
{
	size_t n = strlen(word);
	return k.len == n && !memcmp(k.s, word, n);
}

/* A number, or (Chrome allows it for ids) a string: 0 then. */
static double read_number_or_skip(struct scanner *s)
{
	char c = peek(s);
	if (c == '-' || is_digit(c))
		return read_number(s);
	skip_value(s, 1);
	return 0;
}

/* A string, or anything else skipped: absent then. */
static struct trace_str read_string_or_skip(struct scanner *s)
{
	if (peek(s) == '"')
		return read_string(s);
	skip_value(s, 1);
	return (struct trace_str){ 0 };
}

static void read_args(struct scanner *s, struct trace_event *e)
{
	if (peek(s) != '{') {
		skip_value(s, 1);
		return;
	}
	s->p++;
	if (peek(s) == '}') {
		s->p++;
		return;
	}
	for (;;) {
		struct trace_str k = read_string(s);
		expect(s, ':', "expected ':' after a key");
		if (key_is(k, "detail"))
			e->detail = read_string_or_skip(s);
		else if (key_is(k, "name"))
			e->arg_name = read_string_or_skip(s);
		else
			skip_value(s, 2);
		char c = peek(s);
		s->p++;
		if (c == '}')
			return;
		if (c != ',') {
			s->p--;
			malformed(s, "expected ',' or '}'");
		}
	}
}

bool trace_str_is(struct trace_str s, const char *word)
{
	size_t n = strlen(word);
	return s.s && s.len == n && !memcmp(s.s, word, n);
}

long long trace_integer(double v, long long limit)
{
	if (!(v == v))
		return 0;
	return v > (double)limit ? limit : v < -(double)limit ? -limit : (long long)v;
}

enum event_key { KEY_OTHER, KEY_PH, KEY_NAME, KEY_CAT, KEY_TS, KEY_DUR, KEY_PID, KEY_TID, KEY_ARGS };

/* An event's key by its length first: a few compares, not a list. */
static enum event_key event_key(struct trace_str k)
{
	switch (k.len) {
	case 2:
		return !memcmp(k.s, "ph", 2) ? KEY_PH : !memcmp(k.s, "ts", 2) ? KEY_TS : KEY_OTHER;
	case 3:
		return !memcmp(k.s, "pid", 3) ? KEY_PID : !memcmp(k.s, "tid", 3) ? KEY_TID : !memcmp(k.s, "dur", 3) ? KEY_DUR
			: !memcmp(k.s, "cat", 3) ? KEY_CAT : KEY_OTHER;
	case 4:
		return !memcmp(k.s, "name", 4) ? KEY_NAME : !memcmp(k.s, "args", 4) ? KEY_ARGS : KEY_OTHER;
	default:
		return KEY_OTHER;
	}
}

/* One element of traceEvents. Returns false for an element that is not an
 * object (skipped). */
static bool read_event(struct scanner *s, struct trace_event *e)
{
	*e = (struct trace_event){ .dur = -1 };
	if (peek(s) != '{') {
		skip_value(s, 1);
		return false;
	}
	s->p++;
	if (peek(s) == '}') {
		s->p++;
		return true;
	}
	for (;;) {
		struct trace_str k = read_string(s);
		expect(s, ':', "expected ':' after a key");
		switch (event_key(k)) {
		case KEY_PH: {
			struct trace_str ph = read_string_or_skip(s);
			e->ph = ph.len ? ph.s[0] : 0;
			break;
		}
		case KEY_NAME: e->name = read_string_or_skip(s); break;
		case KEY_CAT: e->cat = read_string_or_skip(s); break;
		case KEY_TS: e->ts = read_number_or_skip(s); break;
		case KEY_DUR: e->dur = read_number_or_skip(s); break;
		case KEY_PID: e->pid = trace_integer(read_number_or_skip(s), 1ll << 62); break;
		case KEY_TID: e->tid = trace_integer(read_number_or_skip(s), 1ll << 62); break;
		case KEY_ARGS: read_args(s, e); break;
		case KEY_OTHER: skip_value(s, 1); break;
		}
		char c = peek(s);
		s->p++;
		if (c == '}')
			return true;
		if (c != ',') {
			s->p--;
			malformed(s, "expected ',' or '}'");
		}
	}
}

/* Keep buf[from..len), read more behind it; false at the end of the file. */
static bool refill(struct scanner *s, size_t from)
{
	if (s->eof)
		return false;
	memmove(s->buf, s->buf + from, s->len - from);
	s->len -= from;
	s->base += from;
	if (s->cap - s->len < CHUNK / 4) {	/* a unit larger than the buffer */
		s->cap *= 2;
		s->buf = xrealloc(s->buf, s->cap);
		free(s->scratch);
		s->scratch = xmalloc(s->cap);
	}
	ssize_t got;
	do
		got = read(s->fd, s->buf + s->len, s->cap - s->len);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		die(EXIT_BAD_INPUT, "cannot read a trace: %s", strerror(errno));
	if (got == 0)
		s->eof = true;
	s->len += (size_t)got;
	return true;
}

/* Line and column of byte `at` of the file, counted from its start again:
 * only a malformed file pays for it. */
static void locate(const char *path, unsigned long long at, struct trace_scan_info *info)
{
	info->line = 1;
	info->column = 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[65536];
	unsigned long long pos = 0;
	ssize_t got;
	while (pos < at && (got = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < got && pos < at; i++, pos++) {
			if (buf[i] == '\n') {
				info->line++;
				info->column = 1;
			} else {
				info->column++;
			}
		}
	}
	close(fd);
}

enum unit {
	UNIT_TOP,		/* the opening bracket */
	UNIT_OUTER_KEY,		/* a key of the outer object, or its end */
	UNIT_OUTER_NEXT,	/* ',' or '}' after an outer value */
	UNIT_EVENT_FIRST,	/* the first event, or ']' */
	UNIT_EVENT,		/* an event */
	UNIT_EVENT_NEXT,	/* ',' or ']' after an event */
	UNIT_TRAILER,		/* nothing but white space to the end */
	UNIT_DONE,
};

struct scan_state {
	enum unit unit;
	bool outer_object, have_events, events_key_seen;
	enum trace_scan_result result;
};

/* Parse one unit; returns the next. */
static enum unit parse_unit(struct scanner *s, struct scan_state *st, trace_event_fn fn, void *ctx,
			    struct trace_scan_info *info)
{
	switch (st->unit) {
	case UNIT_TOP: {
		char c = peek(s);
		s->p++;
		if (c == '{') {
			st->outer_object = true;
			return UNIT_OUTER_KEY;
		}
		if (c == '[') {
			st->have_events = true;
			return UNIT_EVENT_FIRST;
		}
		s->p--;
		skip_value(s, 0);
		st->result = TRACE_SCAN_NOT_TRACE;
		return UNIT_TRAILER;
	}
	case UNIT_OUTER_KEY: {
		if (peek(s) == '}') {
			s->p++;
			return UNIT_TRAILER;
		}
		struct trace_str k = read_string(s);
		expect(s, ':', "expected ':' after a key");
		/* A DOM reader keeps the last of two; a stream has read the first.
		 * The flag is set once the unit is whole: a unit may be parsed twice. */
		bool events = key_is(k, "traceEvents");
		if (events && st->events_key_seen)
			malformed(s, "a second traceEvents in one file");
		if (events && peek(s) == '[') {
			s->p++;
			st->have_events = st->events_key_seen = true;
			return UNIT_EVENT_FIRST;
		}
		skip_value(s, 1);
		st->events_key_seen |= events;
		return UNIT_OUTER_NEXT;
	}
	case UNIT_OUTER_NEXT: {
		char c = peek(s);
		s->p++;
		if (c == '}')
			return UNIT_TRAILER;
		if (c != ',') {
			s->p--;
			malformed(s, "expected ',' or '}'");
		}
		return UNIT_OUTER_KEY;
	}
	case UNIT_EVENT_FIRST:
	case UNIT_EVENT: {
		bool first = st->unit == UNIT_EVENT_FIRST;
		if (first && peek(s) == ']') {
			s->p++;
			return st->outer_object ? UNIT_OUTER_NEXT : UNIT_TRAILER;
		}
		struct trace_event e;
		bool object = read_event(s, &e);
		if (first && !st->outer_object && (!object || !e.ph)) {
			/* A bare array of something else (compile_commands.json, say). */
			st->have_events = false;
			return UNIT_DONE;
		}
		if (object) {
			info->events++;
			fn(&e, ctx);
		}
		return UNIT_EVENT_NEXT;
	}
	case UNIT_EVENT_NEXT: {
		char c = peek(s);
		s->p++;
		if (c == ']')
			return st->outer_object ? UNIT_OUTER_NEXT : UNIT_TRAILER;
		if (c != ',') {
			s->p--;
			malformed(s, "expected ',' or ']' between events");
		}
		return UNIT_EVENT;
	}
	case UNIT_TRAILER: {
		const char *p = s->p;
		while (p < s->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
			p++;
		s->p = p;
		if (p < s->end)
			malformed(s, "text after the end of the JSON value");
		if (!s->eof)
			need_more(s);
		return UNIT_DONE;
	}
	case UNIT_DONE:
		break;
	}
	return UNIT_DONE;
}

enum trace_scan_result trace_scan_file(const char *path, trace_event_fn fn, void *ctx, struct trace_scan_info *info)
{
	*info = (struct trace_scan_info){ 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		info->error = xstrdup(strerror(errno));
		return TRACE_SCAN_UNREADABLE;
	}
	/* On the heap: what a longjmp returns to must not live in registers. */
	struct scanner *s = xcalloc(1, sizeof(*s));
	struct scan_state *st = xcalloc(1, sizeof(*st));
	*s = (struct scanner){ .fd = fd, .cap = CHUNK, .buf = xmalloc(CHUNK), .scratch = xmalloc(CHUNK) };
	st->unit = UNIT_TOP;
	refill(s, 0);
	/* One setjmp per buffer-full: a unit that runs out of input lands here,
	 * the buffer is refilled from the unit's start, and parsing goes on. */
	if (setjmp(s->fail)) {
		if (s->error)
			goto done;
		if (!refill(s, s->unit_start)) {
			s->error = st->unit == UNIT_TOP ? "empty file" : "unexpected end of file (a truncated trace?)";
			s->error_at = s->len;
			goto done;
		}
		s->unit_start = 0;
	}
	s->end = s->buf + s->len;
	while (st->unit != UNIT_DONE) {
		s->p = s->buf + s->unit_start;
		s->scratch_len = 0;
		st->unit = parse_unit(s, st, fn, ctx, info);
		s->unit_start = (size_t)(s->p - s->buf);
	}
done:
	info->bytes = s->base + s->len;
	enum trace_scan_result r = st->result;
	if (s->error) {
		locate(path, s->base + s->error_at, info);
		info->error = xstrdup(s->error);
		r = TRACE_SCAN_MALFORMED;
	} else if (!st->have_events) {
		r = TRACE_SCAN_NOT_TRACE;
	}
	close(fd);
	free(s->buf);
	free(s->scratch);
	free(s);
	free(st);
	return r;
}
