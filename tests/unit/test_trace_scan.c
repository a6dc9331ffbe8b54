/* The streaming trace reader against jansson, event for event: on real
 * traces (clang 15's driver, clang 19's replayed cc1 jobs, nvcc 13's
 * -fdevice-time-trace), on escapes of every kind, across chunk boundaries
 * and with an event larger than the buffer; and what it says of a
 * truncated file, of JSON that is no trace, of broken JSON, of deep
 * nesting and of a second event list. */
#include "unit.h"
#include "trace_scan.h"

#include <jansson.h>

struct seen {
	char ph;
	char *name, *detail, *arg_name;
	long long pid, tid;
	double ts, dur;
};

struct collected {
	struct seen *v;
	size_t n;
};

static char *copy(struct trace_str s)
{
	return s.s ? xstrndup(s.s, s.len) : NULL;
}

static void collect(const struct trace_event *e, void *ctx)
{
	struct collected *c = ctx;
	c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
	c->v[c->n++] = (struct seen){ e->ph, copy(e->name), copy(e->detail), copy(e->arg_name), e->pid, e->tid, e->ts,
				      e->dur };
}

static void collected_free(struct collected *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].name);
		free(c->v[i].detail);
		free(c->v[i].arg_name);
	}
	free(c->v);
	*c = (struct collected){ 0 };
}

static void assert_same_string(const char *want, const char *got)
{
	if (!want)
		assert_null(got);
	else
		assert_string_equal(want, got);
}

static const char *string_or_null(json_t *obj, const char *key)
{
	json_t *v = obj ? json_object_get(obj, key) : NULL;
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Scan path and load it with jansson: the same events, field for field. */
static size_t check_against_jansson(const char *path)
{
	struct collected c = { 0 };
	struct trace_scan_info info;
	assert_int_equal(trace_scan_file(path, collect, &c, &info), TRACE_SCAN_OK);
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err);
	assert_non_null(doc);
	json_t *events = json_is_array(doc) ? doc : json_object_get(doc, "traceEvents");
	assert_int_equal(json_array_size(events), c.n);
	assert_int_equal(info.events, c.n);
	for (size_t i = 0; i < c.n; i++) {
		json_t *e = json_array_get(events, i);
		const struct seen *s = &c.v[i];
		const char *ph = string_or_null(e, "ph");
		assert_int_equal(s->ph, ph ? ph[0] : 0);
		assert_same_string(string_or_null(e, "name"), s->name);
		assert_same_string(string_or_null(json_object_get(e, "args"), "detail"), s->detail);
		assert_same_string(string_or_null(json_object_get(e, "args"), "name"), s->arg_name);
		json_t *pid = json_object_get(e, "pid"), *ts = json_object_get(e, "ts"), *dur = json_object_get(e, "dur");
		assert_true(s->pid == (pid ? (long long)json_number_value(pid) : 0));
		assert_true(s->ts == (ts ? json_number_value(ts) : 0));
		assert_true(s->dur == (dur ? json_number_value(dur) : -1));
	}
	size_t n = c.n;
	json_decref(doc);
	collected_free(&c);
	return n;
}

static void test_real_traces(void **state)
{
	(void)state;
	assert_int_equal(check_against_jansson(FIXTURE("traces/clang15_driver_kern.json")), 425);
	assert_int_equal(check_against_jansson(FIXTURE("traces/clang15_driver_kern-gfx940.json")), 472);
	assert_int_equal(check_against_jansson(FIXTURE("traces/clang19_replay-gfx90a.json")), 1110);
	assert_int_equal(check_against_jansson(FIXTURE("traces/clang19_replay-host.json")), 973);
	/* nvcc: an object with otherData first, and a first event that is {} */
	assert_int_equal(check_against_jansson(FIXTURE("timereport/cuda_nvcc13_fdevice-time-trace.json")), 3482);
}

static void test_escapes(void **state)
{
	(void)state;
	/* every escape JSON has, a surrogate pair, raw UTF-8, </script> */
	const char *text =
		"[{\"ph\":\"X\",\"name\":\"q\\\"b\\\\s\\/n\\n\\r\\t\\b\\f\",\"ts\":1.5e3,\"dur\":-0,"
		"\"args\":{\"detail\":\"\\u00e9\\u20ac\\ud83d\\ude00 caf\xc3\xa9 </script>\",\"x\":[1,{\"y\":null}]}},"
		" {\"ph\":\"M\",\"name\":\"process_name\",\"pid\":\"str\",\"args\":{\"name\":\"\"}} ]\n";
	char *path = write_temp(text);
	assert_int_equal(check_against_jansson(path), 2);
	remove(path);
	free(path);
}

/* Events straddling the reader's chunks, and one larger than its buffer. */
static void test_chunks_and_a_huge_event(void **state)
{
	(void)state;
	size_t cap = 10u << 20;
	char *text = xmalloc(cap), *o = text;
	o += sprintf(o, "{\"beginningOfTime\":1,\n\"traceEvents\":[\n");
	for (int i = 0; i < 30000; i++)
		o += sprintf(o, "%s{\"pid\":%d,\"tid\":1,\"ph\":\"X\",\"ts\":%d,\"dur\":%d,\"name\":\"Source\",\"args\":{\"detail\":\"/usr/include/h%05d.h\"}}\n",
			     i ? "," : "", i % 7, i * 10, i % 1000, i);
	o += sprintf(o, ",{\"ph\":\"X\",\"name\":\"big\",\"args\":{\"detail\":\"");
	for (int i = 0; i < (3 << 20); i++)
		*o++ = (char)('a' + i % 26);
	o += sprintf(o, "\\n\"}}]}\n");
	char *path = write_temp(text);
	assert_int_equal(check_against_jansson(path), 30001);
	remove(path);
	free(path);
	free(text);
}

static enum trace_scan_result scan_text(const char *text, struct trace_scan_info *info)
{
	struct collected c = { 0 };
	char *path = write_temp(text);
	enum trace_scan_result r = trace_scan_file(path, collect, &c, info);
	remove(path);
	free(path);
	collected_free(&c);
	return r;
}

static void test_truncated(void **state)
{
	(void)state;
	char *text = read_text_file(FIXTURE("traces/clang19_replay-gfx90a.json"));
	assert_non_null(text);
	struct trace_scan_info info;
	text[100000] = '\0';
	/* cut in the middle of an event: the end of the file is the error */
	assert_int_equal(scan_text(text, &info), TRACE_SCAN_MALFORMED);
	assert_string_equal(info.error, "unexpected end of file (a truncated trace?)");
	assert_int_equal(info.line, 1);
	assert_int_equal(info.column, 100001);
	free(info.error);
	free(text);
}

static void test_malformed_has_line_and_column(void **state)
{
	(void)state;
	struct trace_scan_info info;
	const char *text = "{\"traceEvents\": [\n  {\"ph\": \"X\", \"ts\": 1,\n   \"dur\": 2x}]}";
	assert_int_equal(scan_text(text, &info), TRACE_SCAN_MALFORMED);
	assert_string_equal(info.error, "expected ',' or '}'");
	assert_int_equal(info.line, 3);
	assert_int_equal(info.column, 12);
	free(info.error);
	const char *raw = "[{\"ph\":\"X\",\"name\":\"a\tb\"}]";
	assert_int_equal(scan_text(raw, &info), TRACE_SCAN_MALFORMED);
	assert_string_equal(info.error, "control character in a string");
	assert_int_equal(info.column, 21);
	free(info.error);
	assert_int_equal(scan_text("", &info), TRACE_SCAN_MALFORMED);
	assert_string_equal(info.error, "empty file");
	free(info.error);
	const char *trailing = "{\"traceEvents\":[]} {}";
	assert_int_equal(scan_text(trailing, &info), TRACE_SCAN_MALFORMED);
	assert_string_equal(info.error, "text after the end of the JSON value");
	free(info.error);
}

static void test_not_a_trace(void **state)
{
	(void)state;
	struct trace_scan_info info;
	const char *compile_commands = "[{\"directory\": \"/src\", \"command\": \"cc -c a.c\", \"file\": \"a.c\"}]";
	assert_int_equal(scan_text(compile_commands, &info), TRACE_SCAN_NOT_TRACE);
	const char *object = "{\"name\": \"package\", \"version\": 1}";
	assert_int_equal(scan_text(object, &info), TRACE_SCAN_NOT_TRACE);
	assert_int_equal(scan_text("5", &info), TRACE_SCAN_NOT_TRACE);
	assert_null(info.error);
	/* an empty trace is a trace */
	assert_int_equal(scan_text("{\"traceEvents\":[]}", &info), TRACE_SCAN_OK);
	assert_int_equal(scan_text("[]", &info), TRACE_SCAN_OK);
}

/* Nesting as deep as jansson reads (2048) is read; a second traceEvents is
 * an error, also when the first one's value runs past a chunk and its unit
 * is parsed twice. */
static void test_depth_and_a_second_event_list(void **state)
{
	(void)state;
	struct trace_scan_info info;
	size_t depth = 1500, cap = 2 * depth + 100;
	char *deep = xmalloc(cap);
	int n = snprintf(deep, cap, "{\"traceEvents\":[{\"ph\":\"X\",\"a\":");
	memset(deep + n, '[', depth);
	memset(deep + n + depth, ']', depth);
	strcpy(deep + n + 2 * depth, "}]}");
	assert_int_equal(scan_text(deep, &info), TRACE_SCAN_OK);
	assert_int_equal(info.events, 1);
	json_error_t err;
	json_t *doc = json_loads(deep, 0, &err);
	assert_non_null(doc);
	json_decref(doc);
	free(deep);

	const char *twice = "{\"traceEvents\":[{\"ph\":\"X\"}],\n\"traceEvents\":[]}";
	assert_int_equal(scan_text(twice, &info), TRACE_SCAN_MALFORMED);
	assert_string_equal(info.error, "a second traceEvents in one file");
	assert_int_equal(info.line, 2);
	free(info.error);
	const char *null_first = "{\"traceEvents\":null,\"traceEvents\":[{\"ph\":\"X\"}]}";
	assert_int_equal(scan_text(null_first, &info), TRACE_SCAN_MALFORMED);
	free(info.error);

	size_t pad = 70000;
	char *late = xmalloc(pad + 100);
	n = sprintf(late, "{\"other\":1,\"traceEvents\":");
	memset(late + n, ' ', pad);
	strcpy(late + n + pad, "[{\"ph\":\"X\"}]}");
	assert_int_equal(scan_text(late, &info), TRACE_SCAN_OK);
	assert_int_equal(info.events, 1);
	assert_null(info.error);
	free(late);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_traces),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_chunks_and_a_huge_event),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_malformed_has_line_and_column),
		cmocka_unit_test(test_not_a_trace),
		cmocka_unit_test(test_depth_and_a_second_event_list),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	tmpdir_remove();
	return failed;
}
