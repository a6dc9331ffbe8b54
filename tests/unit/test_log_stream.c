/* log at scale: the streamed --json and --trace against a reference built
 * with jansson the way log built them before it streamed (kept here as the
 * oracle, like pp_ref.awk for the markers), event for event, on the
 * fixtures' logs and on generated logs; json_escape against jansson on
 * every character class; and weighted times that add up, to the
 * millisecond, on generated logs with ties, zero-length steps,
 * multi-output edges and idle gaps. Extra logs to compare (the demo's, in
 * the e2e tests): LOG_STREAM_EXTRA="a b". */
#include "unit.h"
#include "json_stream.h"
#include "log_view.h"
#include "out_json.h"
#include "version.h"

#include <jansson.h>
#include <math.h>

/* ---- the oracle: log's documents as jansson trees ---- */

static json_t *ref_seconds(double s)
{
	return json_real(round(s * 1000) / 1000);
}

/* A name as jansson takes it (the line read again is valid until the next). */
static json_t *ref_output(const struct timeline *tl, const struct step *s, size_t o)
{
	return json_string(step_line(tl, s, o).output);
}

static json_t *ref_step(const struct timeline *tl, const struct step *s)
{
	json_t *outputs = json_array();
	for (size_t o = 0; o < s->noutputs; o++)
		json_array_append_new(outputs, ref_output(tl, s, o));
	json_t *output = ref_output(tl, s, 0), *hash = json_string(step_line(tl, s, 0).hash);
	return json_pack("{s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:i}", "output", output, "outputs", outputs,
			 "hash", hash, "kind", step_kind_names[s->kind], "start_s", ref_seconds(step_start(tl, s)),
			 "end_s", ref_seconds(step_end(tl, s)), "duration_s", ref_seconds(step_duration(tl, s)),
			 "weighted_s", ref_seconds(s->weighted), "slot", (int)s->slot);
}

static int ref_heavier(const void *a, const void *b)
{
	const struct step *x = *(const struct step *const *)a, *y = *(const struct step *const *)b;
	if (x->weighted != y->weighted)
		return x->weighted < y->weighted ? 1 : -1;
	return (x > y) - (x < y);
}

static json_t *ref_document(const struct log_view *v)
{
	const struct timeline *tl = &v->tl;
	json_t *doc = json_pack("{s:s, s:i, s:s, s:s, s:n, s:i, s:[]}", "schema", BUILDWALL_SCHEMA, "version",
				BUILDWALL_SCHEMA_VERSION, "buildwall_version", BUILDWALL_VERSION, "command", "log",
				"build_dir", "failures", 0, "warnings");
	json_object_set_new(doc, "log", json_string(v->path));
	json_object_set_new(doc, "build", json_pack("{s:I, s:I, s:I, s:I, s:I}", "back", (json_int_t)v->back,
		"builds_in_file", (json_int_t)v->nbuilds, "first_line", (json_int_t)v->build.first_line, "lines",
		(json_int_t)v->build.n, "log_version", (json_int_t)v->build.version));
	json_object_set_new(doc, "wall_s", ref_seconds(tl->wall));
	json_object_set_new(doc, "busy_s", ref_seconds(tl->busy));
	json_object_set_new(doc, "parallelism", json_real(tl->wall > 0 ? round(tl->busy / tl->wall * 1000) / 1000 : 0));
	json_object_set_new(doc, "max_running", json_integer(tl->slots));
	json_t *profile = json_array();
	for (int b = 0; b < TIMELINE_BUCKETS; b++)
		json_array_append_new(profile, json_real(round(tl->profile[b] * 1000) / 1000));
	json_object_set_new(doc, "parallelism_profile", profile);
	json_t *kinds = json_object();
	for (int k = 0; k < NKINDS; k++)
		json_object_set_new(kinds, step_kind_names[k], json_pack("{s:I, s:o, s:o}", "steps",
			(json_int_t)tl->count_by_kind[k], "seconds", ref_seconds(tl->by_kind[k]), "weighted_s",
			ref_seconds(tl->weighted_by_kind[k])));
	json_object_set_new(doc, "by_kind", kinds);
	const struct step **order = xcalloc(tl->n ? tl->n : 1, sizeof(*order));
	for (size_t i = 0; i < tl->n; i++)
		order[i] = &tl->steps[i];
	qsort(order, tl->n, sizeof(*order), ref_heavier);
	json_t *steps = json_array();
	for (size_t i = 0; i < tl->n; i++)
		json_array_append_new(steps, ref_step(tl, order[i]));
	free(order);
	json_object_set_new(doc, "steps", steps);
	json_object_set_new(doc, "critical_path", json_null());
	json_object_set_new(doc, "note", json_string("the critical path needs the build dir (-C)"));
	json_object_set_new(doc, "cluster", json_null());
	return doc;
}

static json_t *ref_trace(const struct log_view *v)
{
	const struct timeline *tl = &v->tl;
	json_t *events = json_array();
	json_array_append_new(events, json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name", "ph", "M", "pid", 1,
						"args", "name", "ninja build"));
	for (int s = 0; s < tl->slots; s++) {
		char name[32];
		snprintf(name, sizeof(name), "slot %d", s);
		json_array_append_new(events, json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", "thread_name", "ph", "M",
							"pid", 1, "tid", s, "args", "name", name));
	}
	for (size_t i = 0; i < tl->n; i++) {
		const struct step *s = &tl->steps[i];
		const struct log_entry *e = step_entry(tl, s);
		json_array_append_new(events, json_pack("{s:o, s:s, s:s, s:I, s:I, s:i, s:i, s:{s:o, s:o, s:i}}",
			"name", ref_output(tl, s, 0), "cat", step_kind_names[s->kind], "ph", "X", "ts",
			(json_int_t)e->start_ms * 1000, "dur", (json_int_t)(e->end_ms - e->start_ms) * 1000,
			"pid", 1, "tid", (int)s->slot, "args", "duration_s", ref_seconds(step_duration(tl, s)), "weighted_s",
			ref_seconds(s->weighted), "outputs", (int)s->noutputs));
	}
	return json_pack("{s:o, s:s}", "traceEvents", events, "displayTimeUnit", "ms");
}

/* ---- the streamed documents, read back ---- */

static json_t *streamed(const struct log_view *v, bool indent, void (*write)(const struct log_view *, struct json_stream *))
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	assert_non_null(f);
	struct json_stream *s = xmalloc(sizeof(*s));
	json_stream_init(s, f, indent);
	write(v, s);
	assert_int_equal(json_stream_flush(s), 0);
	free(s);
	fclose(f);
	json_error_t e;
	json_t *doc = json_loadb(text, size, 0, &e);
	if (!doc)
		fail_msg("the streamed document does not read: %s at %d:%d", e.text, e.line, e.column);
	free(text);
	return doc;
}

/* The names are read again from the file, a few steps' worth a block so
 * that blocks meet, or (`held`) held from the start. */
static void compare_log_with(const char *path, bool held)
{
	struct log_view v;
	char *e = NULL;
	if (!log_view_load(&v, NULL, path, 0, &e))
		fail_msg("%s", e);
	v.names_block = 7;
	if (held)
		ninja_log_load_names(&v.build);
	json_t *want = ref_document(&v), *got = streamed(&v, true, log_view_write);
	if (!json_equal(want, got))
		fail_msg("%s: --json differs from the jansson reference (names %s)", path, held ? "held" : "read again");
	json_t *compact = streamed(&v, false, log_view_write);
	assert_true(json_equal(want, compact));
	json_decref(want);
	json_decref(got);
	json_decref(compact);
	want = ref_trace(&v);
	got = streamed(&v, false, log_view_write_trace);
	if (!json_equal(want, got))
		fail_msg("%s: --trace differs from the jansson reference", path);
	json_decref(want);
	json_decref(got);
	log_view_free(&v);
}

static void compare_log(const char *path)
{
	compare_log_with(path, false);
	compare_log_with(path, true);
}

/* A log of one build of `steps` steps on `slots` slots, seeded: durations
 * that tie often (multiples of 100 ms), 5 % zero-length, 3 % two-output
 * edges, idle gaps; names with spaces, quotes, <script> and UTF-8. Each
 * slot's steps run back to back; *idle gets the ms when nothing ran. */
static char *generate_log(unsigned seed, size_t steps, int slots, long *idle)
{
	srand(seed);
	long *free_at = xcalloc((size_t)slots, sizeof(long));
	struct { long start, end; int outputs; size_t id; } *v = xcalloc(steps, sizeof(*v));
	for (size_t i = 0; i < steps; i++) {
		int s = (int)(i % (size_t)slots);
		long start = free_at[s] + (rand() % 50 == 0 ? 100 * (rand() % 30) : 0);
		long dur = rand() % 20 == 0 ? 0 : 100 * (1 + rand() % 20);
		v[i].start = start;
		v[i].end = start + dur;
		v[i].outputs = rand() % 33 == 0 ? 2 : 1;
		v[i].id = i;
		free_at[s] = v[i].end;
	}
	/* completion order, as ninja writes: by end, stable */
	for (size_t i = 1; i < steps; i++)
		for (size_t j = i; j > 0 && v[j - 1].end > v[j].end; j--) {
			__typeof__(*v) t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	/* the time nothing ran: walk the steps by start */
	long covered = 0, *starts = xcalloc(steps, 2 * sizeof(long));
	for (size_t i = 0; i < steps; i++) {
		starts[2 * i] = v[i].start;
		starts[2 * i + 1] = v[i].end;
	}
	for (size_t i = 1; i < steps; i++)
		for (size_t j = i; j > 0 && starts[2 * (j - 1)] > starts[2 * j]; j--) {
			long a = starts[2 * j], b = starts[2 * j + 1];
			starts[2 * j] = starts[2 * (j - 1)];
			starts[2 * j + 1] = starts[2 * (j - 1) + 1];
			starts[2 * (j - 1)] = a;
			starts[2 * (j - 1) + 1] = b;
		}
	long reach = 0, wall = 0;
	for (size_t i = 0; i < steps; i++) {
		long a = starts[2 * i], b = starts[2 * i + 1];
		if (b > wall)
			wall = b;
		if (b <= reach)
			continue;
		covered += b - (a > reach ? a : reach);
		reach = b;
	}
	*idle = wall - covered;
	struct strvec lines = { 0 };
	strvec_push(&lines, "# ninja log v5\n");
	static const char *const dirs[] = { "obj/a b/", "obj/q\"uote/", "gen/<script>/", "lib/caf\xc3\xa9/", "out/",
					    "obj/tab\tin/" };
	static const char *const exts[] = { ".o", ".o", ".stamp", ".so", "", ".o" };
	for (size_t i = 0; i < steps; i++)
		for (int o = 0; o < v[i].outputs; o++) {
			char name[64];
			snprintf(name, sizeof(name), "%s%zu%s", dirs[v[i].id % 6], v[i].id * 2 + (size_t)o, exts[v[i].id % 6]);
			strvec_pushf(&lines, "%ld\t%ld\t%zu\t%s\t%zx\n", v[i].start, v[i].end, v[i].id, name, v[i].id * 7919 + 1);
		}
	char *text = strvec_join(&lines, "");
	strvec_clear(&lines);
	free(v);
	free(free_at);
	free(starts);
	return text;
}

static void test_matches_the_jansson_reference(void **state)
{
	(void)state;
	const char *fixtures[] = { "ninja/hip_gfx90a_ninja_log_after_run3", "ninja/cuda_sm80_sm90_ninja_log_after_run3",
				   "ninja/hip_clang19_gfx90a_gfx942_ninja_log_after_run2", "ninja/torch211_ninja_log" };
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++) {
		char *path = xasprintf("%s/fixtures/%s", TESTS_DIR, fixtures[i]);
		compare_log(path);
		free(path);
	}
	for (unsigned seed = 1; seed <= 4; seed++) {
		long idle;
		char *text = generate_log(seed, 400, 7, &idle);
		char *path = write_temp(text);
		compare_log(path);
		unlink(path);
		free(path);
		free(text);
	}
	const char *extra = getenv("LOG_STREAM_EXTRA");
	char *copy = extra ? xstrdup(extra) : NULL, *save = NULL;
	for (char *p = copy ? strtok_r(copy, " ", &save) : NULL; p; p = strtok_r(NULL, " ", &save))
		compare_log(p);
	free(copy);
}

/* Weighted times add up to the time something ran (the wall less its idle
 * gaps), to the millisecond, on every generated build; zero-length steps
 * weigh nothing. */
static void test_weights_add_up(void **state)
{
	(void)state;
	for (unsigned seed = 10; seed < 40; seed++) {
		long idle;
		char *text = generate_log(seed, 50 + seed * 7, 1 + (int)seed % 9, &idle);
		char *path = write_temp(text);
		struct log_view v;
		assert_ok(log_view_load(&v, NULL, path, 0, &unit_err));
		double sum = 0;
		for (size_t i = 0; i < v.tl.n; i++) {
			sum += v.tl.steps[i].weighted;
			if (step_duration(&v.tl, &v.tl.steps[i]) == 0)
				assert_true(v.tl.steps[i].weighted == 0);
		}
		if (fabs(sum - (v.tl.wall - idle / 1000.0)) >= 0.0005)
			fail_msg("seed %u: weights sum to %.6f s, something ran %.6f s", seed, sum, v.tl.wall - idle / 1000.0);
		log_view_free(&v);
		unlink(path);
		free(path);
		free(text);
	}
	/* the three lines: b.stamp, at 1.5 s inside a and c, weighs 0 */
	char *path = write_temp("# ninja log v5\n0\t1000\t1\ta.o\t1\n1500\t1500\t1\tb.stamp\t2\n0\t2000\t1\tc.o\t3\n");
	struct log_view v;
	assert_ok(log_view_load(&v, NULL, path, 0, &unit_err));
	assert_string_equal(step_line(&v.tl, &v.tl.steps[1], 0).output, "b.stamp");
	assert_true(v.tl.steps[1].weighted == 0);
	assert_float_equal(v.tl.steps[0].weighted + v.tl.steps[2].weighted, 2, 1e-9);
	log_view_free(&v);
	unlink(path);
	free(path);
}

/* json_escape writes what jansson writes, class by class; for bytes that
 * are no UTF-8, jansson refuses the string, and the escape writes U+FFFD
 * where jansson, given the repaired string, writes the same. */
static void test_escape_like_jansson(void **state)
{
	(void)state;
	char all[0x80 + 1];
	for (int c = 1; c < 0x80; c++)
		all[c - 1] = (char)c;
	all[0x7f] = 0;
	const char *cases[] = { all, "quote \" backslash \\ slash /", "</script><!--", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
				"\x7f del", "", "tab\tnew\nline\r\b\f" };
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		json_t *s = json_string(cases[i]);
		assert_non_null(s);
		char *want = json_dumps(s, JSON_ENCODE_ANY), *got = json_escape(cases[i], strlen(cases[i]));
		assert_string_equal(got, want);
		free(want);
		free(got);
		json_decref(s);
	}
	/* a NUL inside (a length, not a terminator), and invalid UTF-8 */
	json_t *nul = json_stringn("a\0b", 3);
	char *want = json_dumps(nul, JSON_ENCODE_ANY), *got = json_escape("a\0b", 3);
	assert_string_equal(got, want);
	free(want);
	free(got);
	json_decref(nul);
	struct { const char *bad, *repaired; } invalid[] = {
		{ "lone \x80 continuation", "lone \xef\xbf\xbd continuation" },
		{ "cut \xc3", "cut \xef\xbf\xbd" },
		{ "overlong \xc0\xaf", "overlong \xef\xbf\xbd\xef\xbf\xbd" },
		{ "surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "latin-1 \xe9t\xe9", "latin-1 \xef\xbf\xbdt\xef\xbf\xbd" },
	};
	for (size_t i = 0; i < sizeof(invalid) / sizeof(*invalid); i++) {
		assert_null(json_string(invalid[i].bad));	/* jansson refuses it */
		json_t *s = json_string(invalid[i].repaired);
		assert_non_null(s);
		want = json_dumps(s, JSON_ENCODE_ANY);
		got = json_escape(invalid[i].bad, strlen(invalid[i].bad));
		assert_string_equal(got, want);
		free(got);
		free(want);
		json_decref(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_the_jansson_reference),
		cmocka_unit_test(test_weights_add_up),
		cmocka_unit_test(test_escape_like_jansson),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	tmpdir_remove();
	return failed;
}
