#include "unit.h"
#include "rank_doc.h"
#include "util.h"

#include <math.h>

/* What is wrong with text as a rank document, or NULL. */
static char *parse(const char *text, struct rank_doc *doc)
{
	char *err = NULL;
	rank_doc_parse(text, strlen(text), "r.json", doc, &err);
	return err;
}

static void test_good(void **state)
{
	(void)state;
	struct rank_doc doc;
	char *err = parse("{\"schema\": \"buildwall/1\", \"command\": \"rank\", \"tus\": ["
			  "{\"target\": \"a.o\", \"wall_s\": 1.5}, {\"target\": \"b.o\", \"wall_s\": null},"
			  "{\"target\": \"c.o\"}]}", &doc);
	assert_null(err);
	assert_int_equal(doc.n, 3);
	assert_string_equal(doc.tus[0].target, "a.o");
	assert_true(doc.tus[0].wall_s == 1.5);
	assert_true(isnan(doc.tus[1].wall_s));	/* a failed TU: not timed */
	assert_true(isnan(doc.tus[2].wall_s));
	rank_doc_free(&doc);
	/* Each TU's peak and its shape; rank --contention none: no calibration. */
	err = parse("{\"schema\": \"buildwall/1\", \"command\": \"rank\", \"prediction\": {\"contention\": "
		    "{\"share\": 0, \"cores\": 0, \"samples\": 0}}, \"tus\": [{\"target\": \"a.o\", \"wall_s\": 1, "
		    "\"peak_kib\": 2048, \"peak_shape\": [0, 0.5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0.25]}, "
		    "{\"target\": \"b.o\", \"wall_s\": 1, \"peak_kib\": null}]}", &doc);
	assert_null(err);
	assert_int_equal(doc.contention_samples, 0);
	assert_true(doc.tus[0].peak_kb == 2048 && doc.tus[0].has_shape && doc.tus[0].shape[1] == 0.5f);
	assert_true(doc.tus[1].peak_kb == 0 && !doc.tus[1].has_shape);
	rank_doc_free(&doc);
}

static void expect_error(const char *text, const char *want)
{
	struct rank_doc doc;
	char *err = parse(text, &doc);
	assert_non_null(err);
	if (strcmp(err, want))
		fail_msg("got '%s', want '%s'", err, want);
	assert_int_equal(doc.n, 0);
	free(err);
}

static void test_errors(void **state)
{
	(void)state;
#define DOC(tus) "{\"schema\": \"buildwall/1\", \"command\": \"rank\", \"tus\": [" tus "]}"
	expect_error(DOC("{\"target\": \"a.o\", \"wall_s\": -5}"),
		     "r.json: tus[0].wall_s (a.o): -5 is not a duration (0 to 31536000 s)");
	expect_error(DOC("{\"target\": \"a.o\", \"wall_s\": 1}, {\"target\": \"b.o\", \"wall_s\": \"fast\"}"),
		     "r.json: tus[1].wall_s (b.o): not a number of seconds");
	expect_error(DOC("{\"target\": \"a.o\", \"wall_s\": 1e300}"),
		     "r.json: tus[0].wall_s (a.o): 1e+300 is not a duration (0 to 31536000 s)");
	expect_error(DOC("{\"wall_s\": 1}"), "r.json: tus[0]: no target");
	expect_error(DOC("{\"target\": \"a.o\", \"peak_kib\": -3}"),
		     "r.json: tus[0].peak_kib (a.o): not a memory size in KiB (0 to 1099511627776)");
	expect_error(DOC("{\"target\": \"a.o\", \"peak_kib\": 9, \"peak_shape\": [1, 2]}"),
		     "r.json: tus[0].peak_shape (a.o): not 16 shares of the peak");
	expect_error("{\"schema\": \"buildwall/1\", \"command\": \"sim\", \"tus\": []}",
		     "r.json:1: not a 'buildwall rank --json' document: command is not rank");
	expect_error("{\"schema\": \"x\"}", "r.json:1: not a 'buildwall rank --json' document: schema is not buildwall/1");
	expect_error("{\"schema\": ", "r.json:1:11: unexpected token near end of file");
	struct rank_doc doc;
	char *err = NULL;
	rank_doc_read("/nonexistent/rank.json", &doc, &err);
	assert_string_equal(err, "/nonexistent/rank.json: No such file or directory");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests_name("rank_doc", tests, NULL, NULL);
}
