/* The report's page, drawn from documents: a real ninja log's timeline
 * (one bar per step), names escaped, a 20k-step build capped at
 * REPORT_MAX_BARS bars with the rest summed, and the advice rows. */
#include "unit.h"
#include "log_view.h"
#include "out_html.h"
#include "report_html.h"

static char *render(const struct report_docs *d, size_t *len)
{
	char *page = NULL;
	FILE *f = open_memstream(&page, len);
	report_html_write(f, d);
	fclose(f);
	return page;
}

static size_t count(const char *page, const char *what)
{
	size_t n = 0;
	for (const char *p = page; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void test_escaping(void **state)
{
	(void)state;
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	html_text(f, "<script>alert('x') & \"y\"</script>");
	html_textf(f, " %d<%d", 1, 2);
	fclose(f);
	assert_string_equal(out, "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt; 1&lt;2");
	free(out);
}

static void test_timeline_of_a_real_log(void **state)
{
	(void)state;
	struct log_view v;
	char *err = NULL;
	log_view_load(&v, NULL, FIXTURE("ninja/torch211_ninja_log"), 0, &err);
	assert_null(err);
	json_t *log = log_view_document(&v);
	struct report_docs d = { .log = log };
	size_t len;
	char *page = render(&d, &len);
	/* Every step of the build one bar; nothing aggregated at this size. */
	assert_int_equal(count(page, "<rect class=\"step "), v.tl.n);
	assert_int_equal(count(page, "<rect class=\"agg\""), 0);
	assert_non_null(strstr(page, "default-src 'none'"));
	/* Without an advise document the sections say what they need. */
	assert_non_null(strstr(page, "No advice: give an advise document."));
	free(page);
	json_decref(log);
	log_view_free(&v);
}

static json_t *step(const char *output, double start, double dur, int slot)
{
	return json_pack("{s:s, s:s, s:f, s:f, s:f, s:i}", "output", output, "kind", "host TU", "start_s", start,
			 "duration_s", dur, "weighted_s", dur, "slot", slot);
}

static void test_names_escaped(void **state)
{
	(void)state;
	json_t *steps = json_array();
	json_array_append_new(steps, step("<script>alert(1)</script>.o", 0, 2, 0));
	json_t *log = json_pack("{s:s, s:f, s:i, s:o, s:[{s:s, s:f}], s:f}", "command", "log", "wall_s", 2.0,
				"max_running", 1, "steps", steps, "critical_path", "output", "<script>alert(1)</script>.o",
				"duration_s", 2.0, "critical_path_s", 2.0);
	json_t *advise = json_pack("{s:s, s:i, s:{s:{s:f}, s:f, s:s}, s:[{s:s, s:s, s:[{s:s, s:f}], s:s, s:s, s:{s:f}}],"
				   " s:[], s:[{s:s, s:o, s:[]}]}", "build_dir", "<b>dir</b>", "jobs", 2, "baseline",
				   "predicted", "wall_s", 2.0, "recorded_wall_s", 2.0, "durations", ".ninja_log", "fixes",
				   "fix", "leak", "title", "remove it", "tus", "target", "<script>alert(1)</script>.o",
				   "saving_s", 1.0, "evidence", "<img src=x onerror=alert(1)>", "measured_by", "a probe",
				   "predicted", "wall_s", 1.0, "plan", "tus", "target", "<script>alert(1)</script>.o",
				   "passes", json_null(), "lines");
	struct report_docs d = { .log = log, .advise = advise };
	size_t len;
	char *page = render(&d, &len);
	assert_null(strstr(page, "<script>alert"));
	assert_null(strstr(page, "<img"));
	assert_null(strstr(page, "<b>dir"));
	assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;.o"));
	assert_int_equal(count(page, "<script>"), 1);	/* the page's own */
	assert_int_equal(count(page, "<tr class=\"fix\" data-fix=\"leak\">"), 1);
	assert_int_equal(count(page, "class=\"step k-host crit\""), 1);
	free(page);
	json_decref(log);
	json_decref(advise);
}

static void test_many_steps_capped(void **state)
{
	(void)state;
	json_t *steps = json_array();
	char name[32];
	/* 20,000 steps of 1 to 10 s on 16 slots over 5,000 s. */
	for (int i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "obj/f%d.o", i);
		json_array_append_new(steps, step(name, (i / 16) * 4.0, 1 + i % 10, i % 16));
	}
	json_t *log = json_pack("{s:s, s:f, s:i, s:o}", "command", "log", "wall_s", 5010.0, "max_running", 16, "steps", steps);
	struct report_docs d = { .log = log };
	size_t len;
	char *page = render(&d, &len);
	size_t bars = count(page, "<rect class=\"step ");
	assert_true(bars <= REPORT_MAX_BARS && bars >= REPORT_MAX_BARS / 2);
	assert_true(count(page, "<rect class=\"agg\"") > 0);
	assert_non_null(strstr(page, "data-steps=\"20000\""));
	assert_true(len < 5000000);
	free(page);
	json_decref(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_timeline_of_a_real_log),
		cmocka_unit_test(test_names_escaped),
		cmocka_unit_test(test_many_steps_capped),
	};
	return cmocka_run_group_tests_name("report_html", tests, NULL, NULL);
}
