/* A streaming reader of Chrome trace files (clang's -ftime-trace, nvcc's
 * -fdevice-time-trace, any tool's JSON Object or JSON Array format): the
 * file is read in chunks and each event handed to a callback as it is
 * parsed, so memory is bounded by the largest event, not by the file. The
 * JSON is checked as strictly as jansson checks it, except that strings are
 * not checked for valid UTF-8 (their bytes are passed on as they are).
 *
 * Ownership: an event's strings point into the reader's buffers and are
 * valid only during the callback; copy what you keep. */
#ifndef BUILDWALL_TRACE_SCAN_H
#define BUILDWALL_TRACE_SCAN_H
#include <stdbool.h>
#include <stddef.h>

struct trace_str {
	const char *s;	/* not NUL-terminated; NULL when absent */
	size_t len;
};

struct trace_event {
	char ph;		/* 'X', 'b', 'e', 'B', 'E', 'M', …; 0 when absent */
	struct trace_str name, cat;
	struct trace_str detail;	/* args.detail */
	struct trace_str arg_name;	/* args.name (metadata events, ptxas) */
	long long pid, tid;	/* 0 when absent or not numbers */
	double ts, dur;		/* microseconds; dur < 0 when absent */
};

/* Times past 2^40 us (12 days) are clamped, so that sums of millions of
 * them stay within 64 bits whatever a file holds. */
#define TRACE_TIME_LIMIT_US (1ll << 40)

/* A number of the trace as an integer, clamped to +-limit (NaN: 0): the
 * JSON may hold any number, a conversion must not overflow. */
long long trace_integer(double v, long long limit);

/* s is the string `word` (an absent string is no word). */
bool trace_str_is(struct trace_str s, const char *word);

typedef void (*trace_event_fn)(const struct trace_event *e, void *ctx);

enum trace_scan_result {
	TRACE_SCAN_OK,
	TRACE_SCAN_NOT_TRACE,	/* valid JSON, but no traceEvents (or an array of non-events) */
	TRACE_SCAN_MALFORMED,	/* info->error, at info->line:info->column */
	TRACE_SCAN_UNREADABLE,	/* info->error: the system's reason */
};

struct trace_scan_info {
	unsigned long long bytes, events;
	long line, column;	/* of a malformed file's first error, from 1 */
	char *error;		/* owned by the caller; NULL when OK */
};

/* Scan path, calling fn for every element of its traceEvents. */
enum trace_scan_result trace_scan_file(const char *path, trace_event_fn fn, void *ctx, struct trace_scan_info *info);

#endif
