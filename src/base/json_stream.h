/* JSON written as it is produced, for documents too large to build as a
 * tree first (log's --json and --trace of a million steps): values go
 * straight into a buffer flushed to a FILE, commas and indentation are
 * kept by the writer. Strings are escaped as jansson escapes them (its
 * output and this writer's are compared in the tests); a string that is
 * not valid UTF-8, which jansson would refuse, gets U+FFFD (as UTF-8) for
 * each byte that does not belong to a valid sequence. jansson stays for reading JSON
 * and for small documents. */
#ifndef BUILDWALL_JSON_STREAM_H
#define BUILDWALL_JSON_STREAM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSON_STREAM_DEPTH 32

struct json_stream {
	FILE *f;
	bool indent;		/* two spaces per level, as json_print; else compact */
	int depth;
	bool has_items[JSON_STREAM_DEPTH];
	bool after_key;
	char buf[1 << 16];
	size_t len;
	int error;		/* the first failed write's errno; 0 while all went through */
};

void json_stream_init(struct json_stream *s, FILE *f, bool indent);
void json_stream_object(struct json_stream *s);
void json_stream_array(struct json_stream *s);
void json_stream_end_object(struct json_stream *s);
void json_stream_end_array(struct json_stream *s);
/* A member's key: one of buildwall's own names (plain ASCII, written as
 * it is); JSON_KEY takes a literal and spares the strlen. */
void json_stream_key(struct json_stream *s, const char *key);
void json_stream_keyn(struct json_stream *s, const char *key, size_t len);
#define JSON_KEY(s, literal) json_stream_keyn((s), literal, sizeof(literal) - 1)
/* The commonest members, key and value in one line. */
#define JSON_STRING_MEMBER(s, literal, v) (JSON_KEY((s), literal), json_stream_string((s), (v)))
#define JSON_INT_MEMBER(s, literal, v) (JSON_KEY((s), literal), json_stream_int((s), (v)))
#define JSON_SECONDS_MEMBER(s, literal, v) (JSON_KEY((s), literal), json_stream_seconds((s), (v)))
void json_stream_string(struct json_stream *s, const char *v);	/* NULL: null */
void json_stream_stringn(struct json_stream *s, const char *v, size_t len);
void json_stream_int(struct json_stream *s, long long v);
/* Seconds rounded to the millisecond, as json_seconds (NaN: null). */
void json_stream_seconds(struct json_stream *s, double v);
/* A number rounded to three decimals (ratios, profiles). */
void json_stream_milli(struct json_stream *s, double v);
void json_stream_bool(struct json_stream *s, bool v);
void json_stream_null(struct json_stream *s);
/* The envelope every document starts with (docs/json.md), the object left
 * open for the command's fields; warnings are those seen so far. */
void json_stream_envelope(struct json_stream *s, const char *command, const char *build_dir, size_t failures);
/* Flush what is buffered; returns 0, or the errno of the first failed write. */
int json_stream_flush(struct json_stream *s);
/* What `write` writes, as a string in memory (its length in *len). */
char *json_stream_to_memory(void (*write)(struct json_stream *s, const void *ctx), const void *ctx, bool indent,
			    size_t *len);
/* A copy of s that is valid UTF-8: U+FFFD for each byte outside a valid
 * sequence, as the writer escapes it (for names bound for jansson). */
char *utf8_repaired(const char *s);
/* The escaped form of a string, quotes included, appended to out (what
 * json_stream_stringn writes): a new string. */
char *json_escape(const char *v, size_t len);
#endif
