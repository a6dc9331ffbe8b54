#include "json_stream.h"
#include "out_json.h"
#include "util.h"
#include "version.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

void json_stream_init(struct json_stream *s, FILE *f, bool indent)
{
	s->f = f;
	s->indent = indent;
	s->depth = 0;
	s->after_key = false;
	s->len = 0;
	s->error = 0;
	memset(s->has_items, 0, sizeof(s->has_items));
}

int json_stream_flush(struct json_stream *s)
{
	if (s->len && !s->error && fwrite(s->buf, 1, s->len, s->f) != s->len)
		s->error = errno ? errno : EIO;
	s->len = 0;
	return s->error;
}

static void put(struct json_stream *s, const char *p, size_t n)
{
	if (s->len + n > sizeof(s->buf)) {
		json_stream_flush(s);
		if (n > sizeof(s->buf)) {
			if (!s->error && fwrite(p, 1, n, s->f) != n)
				s->error = errno ? errno : EIO;
			return;
		}
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_char(struct json_stream *s, char c)
{
	if (s->len == sizeof(s->buf))
		json_stream_flush(s);
	s->buf[s->len++] = c;
}

static void newline(struct json_stream *s)
{
	if (!s->indent)
		return;
	static const char spaces[2 * JSON_STREAM_DEPTH + 1] =
		"                                                                ";
	put_char(s, '\n');
	put(s, spaces, 2 * (size_t)s->depth);
}

/* Before a value: the comma and line break of an array element (an
 * object's member had them before its key). */
static void before_value(struct json_stream *s)
{
	if (s->after_key) {
		s->after_key = false;
		return;
	}
	if (s->depth > 0) {
		if (s->has_items[s->depth])
			put_char(s, ',');
		s->has_items[s->depth] = true;
		newline(s);
	}
}

static void open(struct json_stream *s, char c)
{
	before_value(s);
	put_char(s, c);
	if (s->depth + 1 >= JSON_STREAM_DEPTH)
		die(EXIT_INTERNAL, "internal error: JSON nested deeper than %d", JSON_STREAM_DEPTH);
	s->has_items[++s->depth] = false;
}

static void close_(struct json_stream *s, char c)
{
	bool items = s->has_items[s->depth--];
	if (items)
		newline(s);
	put_char(s, c);
}

void json_stream_object(struct json_stream *s)
{
	open(s, '{');
}

void json_stream_array(struct json_stream *s)
{
	open(s, '[');
}

void json_stream_end_object(struct json_stream *s)
{
	close_(s, '}');
}

void json_stream_end_array(struct json_stream *s)
{
	close_(s, ']');
}

/* The length of the valid UTF-8 sequence at p (at most n bytes), 0 when
 * the bytes there are not one: no overlong forms, no surrogates, nothing
 * past U+10FFFF (jansson's rules). */
static size_t utf8_sequence(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
	if (!len || len > n)
		return 0;
	uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void put_escaped(struct json_stream *s, const char *v, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";	/* as jansson writes them */
	const unsigned char *p = (const unsigned char *)v, *end = p + len, *run = p;
	put_char(s, '"');
	while (p < end) {
		/* Eight bytes at a time while none needs a look (control, quote,
		 * backslash, or not ASCII): paths are almost all plain. */
		while (end - p >= 8) {
			uint64_t x;
			memcpy(&x, p, 8);
			const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
			uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
			if (((x - ones * 0x20) & ~x & highs) | ((quote - ones) & ~quote & highs) |
			    ((backslash - ones) & ~backslash & highs) | (x & highs))
				break;
			p += 8;
		}
		if (p == end)
			break;
		unsigned c = *p;
		if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
			p++;
			continue;
		}
		size_t seq = c >= 0x80 ? utf8_sequence(p, (size_t)(end - p)) : 0;
		if (seq) {
			p += seq;
			continue;
		}
		put(s, (const char *)run, (size_t)(p - run));
		switch (c) {
		case '"': put(s, "\\\"", 2); break;
		case '\\': put(s, "\\\\", 2); break;
		case '\b': put(s, "\\b", 2); break;
		case '\f': put(s, "\\f", 2); break;
		case '\n': put(s, "\\n", 2); break;
		case '\r': put(s, "\\r", 2); break;
		case '\t': put(s, "\\t", 2); break;
		default:
			if (c < 0x20) {
				char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
				put(s, u, 6);
			} else {
				put(s, "\xef\xbf\xbd", 3);	/* U+FFFD for a byte of no valid UTF-8 sequence */
			}
		}
		run = ++p;
	}
	put(s, (const char *)run, (size_t)(p - run));
	put_char(s, '"');
}

void json_stream_keyn(struct json_stream *s, const char *key, size_t len)
{
	/* Eleven keys a step of a million: written straight into the buffer,
	 * which a key of buildwall's own (short) always fits after a flush. */
	size_t depth = 2 * (size_t)s->depth;
	if (s->len + len + depth + 6 > sizeof(s->buf))
		json_stream_flush(s);
	char *p = s->buf + s->len;
	if (s->has_items[s->depth])
		*p++ = ',';
	s->has_items[s->depth] = true;
	if (s->indent) {
		*p++ = '\n';
		memset(p, ' ', depth);
		p += depth;
	}
	*p++ = '"';
	memcpy(p, key, len);
	p += len;
	*p++ = '"';
	*p++ = ':';
	if (s->indent)
		*p++ = ' ';
	s->len = (size_t)(p - s->buf);
	s->after_key = true;
}

void json_stream_key(struct json_stream *s, const char *key)
{
	json_stream_keyn(s, key, strlen(key));
}

void json_stream_stringn(struct json_stream *s, const char *v, size_t len)
{
	before_value(s);
	put_escaped(s, v, len);
}

void json_stream_string(struct json_stream *s, const char *v)
{
	if (!v) {
		json_stream_null(s);
		return;
	}
	json_stream_stringn(s, v, strlen(v));
}

static void put_uint(struct json_stream *s, unsigned long long v)
{
	char digits[24], *p = digits + sizeof(digits);
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put(s, p, (size_t)(digits + sizeof(digits) - p));
}

void json_stream_int(struct json_stream *s, long long v)
{
	before_value(s);
	if (v < 0) {
		put_char(s, '-');
		put_uint(s, 0ull - (unsigned long long)v);
	} else {
		put_uint(s, (unsigned long long)v);
	}
}

/* round(v * 1000) / 1000 as jansson prints it at 10 digits ("1.5",
 * "2.0", "0.001"), written by hand: a million of them must be cheap.
 * Beyond 10 significant digits jansson would round; such values fall back
 * to its format. */
void json_stream_milli(struct json_stream *s, double v)
{
	if (isnan(v)) {
		json_stream_null(s);
		return;
	}
	double r = round(v * 1000);
	before_value(s);
	if (fabs(r) >= 1e9 || isinf(v)) {
		char text[32];
		int n = snprintf(text, sizeof(text), "%.10g", r / 1000);
		put(s, text, (size_t)n);
		if (!strpbrk(text, ".eEin"))
			put(s, ".0", 2);
		return;
	}
	long long m = (long long)r;
	if (m < 0) {
		put_char(s, '-');
		m = -m;
	}
	put_uint(s, (unsigned long long)(m / 1000));
	int frac = (int)(m % 1000);
	char f[4] = { '.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10) };
	size_t n = 4;
	while (n > 2 && f[n - 1] == '0')
		n--;
	put(s, f, n);
}

void json_stream_seconds(struct json_stream *s, double v)
{
	json_stream_milli(s, v);
}

void json_stream_bool(struct json_stream *s, bool v)
{
	before_value(s);
	put(s, v ? "true" : "false", v ? 4 : 5);
}

void json_stream_null(struct json_stream *s)
{
	before_value(s);
	put(s, "null", 4);
}

void json_stream_envelope(struct json_stream *s, const char *command, const char *build_dir, size_t failures)
{
	json_stream_object(s);
	JSON_KEY(s, "schema");
	json_stream_string(s, BUILDWALL_SCHEMA);
	JSON_KEY(s, "version");
	json_stream_int(s, BUILDWALL_SCHEMA_VERSION);
	JSON_KEY(s, "buildwall_version");
	json_stream_string(s, BUILDWALL_VERSION);
	JSON_KEY(s, "command");
	json_stream_string(s, command);
	JSON_KEY(s, "build_dir");
	json_stream_string(s, build_dir);
	JSON_KEY(s, "failures");
	json_stream_int(s, (long long)failures);
	JSON_KEY(s, "warnings");
	json_stream_array(s);
	const struct strvec *seen = warnings_seen();
	for (size_t i = 0; i < seen->n; i++)
		json_stream_string(s, seen->v[i]);
	json_stream_end_array(s);
}

char *utf8_repaired(const char *s)
{
	size_t len = strlen(s);
	char *out = xmalloc(3 * len + 1), *o = out;
	for (const unsigned char *p = (const unsigned char *)s, *end = p + len; p < end;) {
		size_t seq = *p < 0x80 ? 1 : utf8_sequence(p, (size_t)(end - p));
		if (seq) {
			memcpy(o, p, seq);
			o += seq;
			p += seq;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}

char *json_stream_to_memory(void (*write)(struct json_stream *s, const void *ctx), const void *ctx, bool indent,
			    size_t *len)
{
	char *out = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&out, &size);
	if (!f)
		die(EXIT_INTERNAL, "out of memory");
	struct json_stream *s = xmalloc(sizeof(*s));
	json_stream_init(s, f, indent);
	write(s, ctx);
	int err = json_stream_flush(s);
	free(s);
	if (fclose(f) || err)
		die(EXIT_INTERNAL, "cannot write JSON to memory: %s", strerror(err ? err : errno));
	if (len)
		*len = size;
	return out;
}

struct escape_input {
	const char *v;
	size_t len;
};

static void write_escaped(struct json_stream *s, const void *ctx)
{
	const struct escape_input *in = ctx;
	put_escaped(s, in->v, in->len);
}

char *json_escape(const char *v, size_t len)
{
	const struct escape_input in = { v, len };
	return json_stream_to_memory(write_escaped, &in, false, NULL);
}
