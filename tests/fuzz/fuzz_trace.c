/* The streaming trace reader and the trace model, checked against jansson
 * on the same bytes. Invariants: when jansson reads a document whose
 * traceEvents (or top level) is an array of objects, the scanner reads it
 * too, with as many events; when the scanner calls a file malformed,
 * jansson rejects it as well (the scanner passes invalid UTF-8 on, so that
 * direction is not checked). jansson is asked to reject what the scanner
 * rejects by design: a \u0000 (its default) and a key given twice (for
 * a second traceEvents). The model's self times add up per pass. */
#include "fuzz.h"
#include "trace_model.h"
#include "trace_scan.h"

#include <jansson.h>

static void count(const struct trace_event *e, void *ctx)
{
	(void)e;
	++*(size_t *)ctx;
}

static bool all_objects(json_t *a)
{
	for (size_t i = 0; i < json_array_size(a); i++)
		if (!json_is_object(json_array_get(a, i)))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	char *path = fuzz_path(fd);
	size_t events = 0;
	struct trace_scan_info info;
	enum trace_scan_result r = trace_scan_file(path, count, &events, &info);
	INVARIANT(events == info.events);
	INVARIANT((r == TRACE_SCAN_MALFORMED) == (info.error != NULL));
	json_error_t err;
	json_t *doc = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &err);
	json_t *list = json_is_array(doc) ? doc : json_is_object(doc) ? json_object_get(doc, "traceEvents") : NULL;
	if (doc && json_is_array(list) && all_objects(list) && (json_is_object(doc) || json_array_size(list) == 0 ||
							       json_object_get(json_array_get(list, 0), "ph"))) {
		INVARIANT(r == TRACE_SCAN_OK);
		INVARIANT(events == json_array_size(list));
	}
	/* jansson reads "2\0" as 2: a NUL byte after a number ends its input */
	if (r == TRACE_SCAN_MALFORMED && !memchr(data, 0, size))
		INVARIANT(doc == NULL);
	json_decref(doc);
	free(info.error);

	struct trace_model m;
	struct trace_input in = { .path = path };
	trace_model_init(&m);
	trace_model_read(&m, &in, 1, 1);
	trace_input_clear(&in);
	trace_model_finish(&m);
	for (size_t p = 0; p < m.npasses; p++) {
		int64_t self = 0;
		for (size_t i = 0; i < m.nrows[TRACE_HEADERS]; i++)
			self += m.rows[TRACE_HEADERS][i].pass == p ? m.rows[TRACE_HEADERS][i].self_us : 0;
		INVARIANT(self == m.passes[p].source_us);
	}
	trace_model_free(&m);
	free(path);
	close(fd);
	return 0;
}
