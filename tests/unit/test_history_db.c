#include "unit.h"
#include "build_record.h"
#include "history_db.h"
#include "log_view.h"

#include <math.h>
#include <sqlite3.h>

/* Two TUs and a link; the log holds two builds (times restart at 0). */
static const char manifest[] =
	"rule cc\n  command = gcc -c $in -o $out\n"
	"rule link\n  command = gcc $in -o $out\n"
	"build a.o: cc a.c\nbuild b.o: cc b.c\nbuild mod.so: link a.o b.o\n";
static const char two_builds[] = "# ninja log v5\n"
	"0\t3000\t0\ta.o\t1\n0\t5000\t0\tb.o\t2\n5000\t6000\t0\tmod.so\t3\n"
	"0\t3500\t0\ta.o\t1\n0\t5200\t0\tb.o\t2\n5200\t6100\t0\tmod.so\t3\n";

/* A version-1 file with one build: the first migration alone. */
static const char v1_rows[] =
	"INSERT INTO modules VALUES (1, 'old');"
	"INSERT INTO machines VALUES (1, 2, 'cpu');"
	"INSERT INTO builds VALUES (1, 'feed', 1, 1, NULL, 0, 100, NULL, '.ninja_log', 2, NULL, 9.5, NULL, NULL, 0, 1);"
	"PRAGMA application_id = 1651990892; PRAGMA user_version = 1;";

static char *db_file(const char *name)
{
	char *dir = tmpdir_subdir(name);
	char *path = xasprintf("%s/history.db", dir);
	free(dir);
	return path;
}

static long long scalar(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	long long v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void run_sql(const char *path, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_new_file(void **state)
{
	(void)state;
	char *path = db_file("hist-new");
	struct history_db h;
	char *err = NULL;
	history_db_open(&h, path, false, &err);
	assert_non_null(strstr(err, "no history there yet"));
	free(err);
	history_db_close(&h);
	assert_ok(history_db_open(&h, path, true, &unit_err));
	assert_int_equal(history_db_version(&h), HISTORY_SCHEMA_VERSION);
	history_db_close(&h);
	assert_int_equal(scalar(path, "PRAGMA application_id"), HISTORY_APPLICATION_ID);
	assert_int_equal(scalar(path, "SELECT count(*) FROM sqlite_master WHERE name = 'header_lines'"), 1);
	assert_int_equal(scalar(path, "SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
	/* Opening it again migrates nothing and keeps it. */
	assert_ok(history_db_open(&h, path, false, &unit_err));
	history_db_close(&h);
	free(path);
}

static void test_migration_keeps_builds(void **state)
{
	(void)state;
	char *path = db_file("hist-v1");
	run_sql(path, history_migrations[0]);
	run_sql(path, v1_rows);
	struct history_db h;
	assert_ok(history_db_open(&h, path, false, &unit_err));
	assert_int_equal(history_db_version(&h), HISTORY_SCHEMA_VERSION);
	struct history_filter f = { .module = "old" };
	struct history_build *b;
	size_t n;
	assert_ok(history_db_builds(&h, &f, &b, &n, &unit_err));
	assert_int_equal(n, 1);
	assert_string_equal(b[0].identity, "feed");
	assert_true(b[0].wall == 9.5);
	history_builds_free(b, n);
	history_db_close(&h);
	assert_int_equal(scalar(path, "SELECT count(*) FROM header_lines"), 0);
	assert_int_equal(scalar(path, "SELECT count(*) FROM pass_seconds"), 0);
	free(path);
}

static char *file_bytes(const char *path)
{
	char *text = read_text_file(path);
	assert_non_null(text);
	return text;
}

static void test_refused_files_left_alone(void **state)
{
	(void)state;
	struct history_db h;
	/* A newer schema. */
	char *newer = db_file("hist-newer");
	run_sql(newer, "CREATE TABLE t (x); PRAGMA application_id = 1651990892; PRAGMA user_version = 99;");
	char *err = NULL;
	history_db_open(&h, newer, true, &err);
	assert_non_null(strstr(err, "schema version 99 is newer than this buildwall's (4)"));
	free(err);
	history_db_close(&h);
	assert_int_equal(scalar(newer, "PRAGMA user_version"), 99);
	/* Not a database at all. */
	char *junk = db_file("hist-junk");
	FILE *f = fopen(junk, "w");
	for (int i = 0; i < 200; i++)
		fputs("not a database, a text file someone pointed --db at\n", f);
	fclose(f);
	char *before = file_bytes(junk);
	err = NULL;
	history_db_open(&h, junk, true, &err);
	assert_non_null(strstr(err, "not a buildwall history"));
	assert_non_null(strstr(err, "left as it is"));
	free(err);
	history_db_close(&h);
	char *after = file_bytes(junk);
	assert_string_equal(before, after);
	free(before);
	free(after);
	/* Someone else's SQLite database. */
	char *other = db_file("hist-other");
	run_sql(other, "CREATE TABLE notes (x TEXT)");
	err = NULL;
	history_db_open(&h, other, true, &err);
	assert_non_null(strstr(err, "an SQLite database, but not a buildwall history"));
	free(err);
	history_db_close(&h);
	free(newer);
	free(junk);
	free(other);
}

/* The view borrows *log: freed after it. */
static void load_view(struct log_view *v, struct ninja_build *b, char **dir, char **log, long back)
{
	*dir = manifest_dir("hist-tree", manifest);
	*log = xasprintf("%s/.ninja_log", *dir);
	FILE *f = fopen(*log, "w");
	fputs(two_builds, f);
	fclose(f);
	ninja_load(*dir, b);
	assert_ok(log_view_load(v, *dir, *log, back, &unit_err));
}

static void test_record_is_idempotent(void **state)
{
	(void)state;
	struct log_view v;
	struct ninja_build b;
	char *dir, *log;
	load_view(&v, &b, &dir, &log, 0);
	struct build_outputs o;
	build_outputs_load(&o, dir);
	assert_string_equal(o.module, "mod");
	assert_int_equal(o.compiles.n, 2);
	struct build_record r;
	build_record_from_view(&r, &v, &o, "mod");
	assert_int_equal(r.nsteps, 3);
	assert_true(r.complete);
	assert_true(fabs(r.wall - 6.1) < 1e-9);
	assert_true(fabs(r.critical - 6.1) < 1e-9);
	assert_string_equal(r.critical_path, "b.o > mod.so");
	assert_int_equal(r.jobs, 2);
	assert_int_equal(strlen(r.identity), 32);

	char *path = db_file("hist-idem");
	struct history_db h;
	assert_ok(history_db_open(&h, path, true, &unit_err));
	struct record_context ctx = { .module = "mod", .cpus = 2, .model = "cpu", .commit = "0123456789abcdef" };
	strvec_push(&ctx.labels, "variant=base");
	bool added;
	assert_ok(history_db_add(&h, &ctx, &r, &added, &unit_err));
	assert_true(added);
	assert_ok(history_db_add(&h, &ctx, &r, &added, &unit_err));
	assert_false(added);

	/* The same build from a saved log document is the same build. */
	json_t *doc = log_view_document(&v);
	struct build_record *from_doc;
	size_t n;
	assert_ok(build_records_from_document(doc, "mod", &from_doc, &n, &unit_err));
	assert_int_equal(n, 1);
	assert_string_equal(from_doc[0].identity, r.identity);
	assert_ok(history_db_add(&h, &ctx, &from_doc[0], &added, &unit_err));
	assert_false(added);
	/* The build before it is another. */
	struct log_view older;
	assert_ok(log_view_load(&older, dir, log, 1, &unit_err));
	struct build_record r1;
	build_record_from_view(&r1, &older, &o, "mod");
	assert_string_not_equal(r1.identity, r.identity);
	assert_ok(history_db_add(&h, &ctx, &r1, &added, &unit_err));
	assert_true(added);
	history_db_close(&h);
	assert_int_equal(scalar(path, "SELECT count(*) FROM builds"), 2);
	assert_int_equal(scalar(path, "SELECT count(*) FROM steps"), 6);
	assert_int_equal(scalar(path, "SELECT count(*) FROM labels WHERE key = 'variant' AND value = 'base'"), 2);

	build_record_free(&from_doc[0]);
	free(from_doc);
	json_decref(doc);
	build_record_free(&r);
	build_record_free(&r1);
	log_view_free(&v);
	log_view_free(&older);
	ninja_build_free(&b);
	build_outputs_free(&o);
	strvec_clear(&ctx.labels);
	free(log);
	free(dir);
	free(path);
}

struct seen_builds {
	const struct build_outputs *o;
	char *identity[4];
	long back[4];
	size_t n;
};

static void see_build(struct log_view *v, void *ctx)
{
	struct seen_builds *s = ctx;
	assert_true(s->n < 4);
	struct build_record r;
	build_record_from_view(&r, v, s->o, "mod");
	s->identity[s->n] = xstrdup(r.identity);
	s->back[s->n++] = v->back;
	build_record_free(&r);
}

/* Every build in one read of the file, oldest first: the same records as
 * each build loaded alone (as record --all and check read them). */
static void test_each_build(void **state)
{
	(void)state;
	struct log_view latest, older;
	struct ninja_build b;
	char *dir, *log;
	load_view(&latest, &b, &dir, &log, 0);
	assert_ok(log_view_load(&older, dir, log, 1, &unit_err));
	struct build_outputs o;
	build_outputs_load(&o, dir);
	struct build_record r0, r1;
	build_record_from_view(&r0, &latest, &o, "mod");
	build_record_from_view(&r1, &older, &o, "mod");
	for (int graph = 0; graph < 2; graph++) {
		struct seen_builds s = { .o = &o };
		long n;
		assert_ok(log_view_each(graph ? &b : NULL, log, see_build, &s, &n, &unit_err));
		assert_int_equal(n, 2);
		assert_int_equal(s.n, 2);
		assert_string_equal(s.identity[0], r1.identity);
		assert_string_equal(s.identity[1], r0.identity);
		assert_true(s.back[0] == 0 && s.back[1] == 1);	/* counted from the oldest */
		for (size_t i = 0; i < s.n; i++)
			free(s.identity[i]);
	}
	char *missing = xasprintf("%s/no-log", dir), *err;
	struct seen_builds none = { .o = &o };
	long n;
	assert_false(log_view_each(NULL, missing, see_build, &none, &n, &err));
	assert_non_null(strstr(err, "no such file"));
	assert_int_equal(none.n, 0);
	free(err);
	free(missing);
	build_record_free(&r0);
	build_record_free(&r1);
	log_view_free(&latest);
	log_view_free(&older);
	ninja_build_free(&b);
	build_outputs_free(&o);
	free(log);
	free(dir);
}

static struct build_record synthetic(const char *identity, double wall, double a, bool complete)
{
	struct build_record r = { .identity = xstrdup(identity), .source = "test", .recorded_at = 1000, .wall = wall,
				  .critical = NAN, .complete = complete, .nsteps = 2 };
	r.steps = xcalloc(2, sizeof(*r.steps));
	r.steps[0] = (struct record_step){ xstrdup("a.o"), "compile", a };
	r.steps[1] = (struct record_step){ xstrdup("mod.so"), "link", 1 };
	return r;
}

static void test_queries(void **state)
{
	(void)state;
	char *path = db_file("hist-query");
	struct history_db h;
	assert_ok(history_db_open(&h, path, true, &unit_err));
	struct record_context base = { .module = "mod", .cpus = 2, .model = "cpu", .commit = "aaaa1111" };
	struct record_context next = { .module = "mod", .cpus = 2, .model = "cpu", .commit = "bbbb2222" };
	struct record_context other = { .module = "mod", .cpus = 64, .model = "big", .commit = "bbbb2222" };
	strvec_push(&next.labels, "branch=topic");
	const struct { const char *id; double wall, a; bool complete; struct record_context *ctx; } rows[] = {
		{ "b1", 10, 4, true, &base }, { "b2", 11, 6, true, &base }, { "b3", 12, 5, true, &base },
		{ "n1", 20, 14, true, &next }, { "n2", 3, 1, false, &next }, { "o1", 5, 2, true, &other },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct build_record r = synthetic(rows[i].id, rows[i].wall, rows[i].a, rows[i].complete);
		build_record_add_lines(&r, "a.o", "host", "torch/ATen/c10", 1000 * (i + 1));
		if (rows[i].ctx == &next) {	/* a sitting with its control */
			r.control = 0.5;
			r.control_by = xstrdup("g++");
		}
		bool added;
		assert_ok(history_db_add(&h, rows[i].ctx, &r, &added, &unit_err));
		assert_true(added);
		build_record_free(&r);
	}
	struct history_build *b;
	size_t n;
	struct history_filter by_commit = { .module = "mod", .commit = "aaaa", .cpus = 2, .model = "cpu", .complete = true };
	assert_ok(history_db_builds(&h, &by_commit, &b, &n, &unit_err));
	assert_int_equal(n, 3);
	assert_string_equal(b[0].identity, "b1");	/* oldest first */
	assert_string_equal(b[2].identity, "b3");
	int64_t ids[3] = { b[0].id, b[1].id, b[2].id };
	history_builds_free(b, n);
	struct history_filter by_label = { .module = "mod", .label = "branch=topic" };
	assert_ok(history_db_builds(&h, &by_label, &b, &n, &unit_err));
	assert_int_equal(n, 2);
	assert_string_equal(b[1].labels, "branch=topic");
	history_builds_free(b, n);
	by_label.complete = true;
	assert_ok(history_db_builds(&h, &by_label, &b, &n, &unit_err));
	assert_int_equal(n, 1);
	assert_int_equal(history_db_find(&h, "n1"), b[0].id);
	assert_true(b[0].control == 0.5);
	assert_string_equal(b[0].control_by, "g++");
	history_builds_free(b, n);
	char *by;
	assert_true(history_db_control(&h, "n1", &by) == 0.5);
	assert_string_equal(by, "g++");
	free(by);
	assert_true(history_db_control(&h, "b1", &by) == 0 && !by);	/* recorded without one */
	struct history_filter limited = { .module = "mod", .limit = 2 };
	assert_ok(history_db_builds(&h, &limited, &b, &n, &unit_err));
	assert_int_equal(n, 2);
	assert_string_equal(b[0].identity, "n2");	/* the newest two, oldest first */
	assert_string_equal(b[1].identity, "o1");
	history_builds_free(b, n);

	struct history_step *steps;
	assert_ok(history_db_steps(&h, ids, 3, &steps, &n, &unit_err));
	assert_int_equal(n, 2);
	assert_string_equal(steps[0].target, "a.o");
	assert_true(steps[0].seconds == 5);	/* the median of 4, 6, 5 */
	assert_int_equal(steps[0].builds, 3);
	assert_string_equal(steps[1].kind, "link");
	history_steps_free(steps, n);

	struct record_lines *lines;
	assert_ok(history_db_lines(&h, ids[1], &lines, &n, &unit_err));
	assert_int_equal(n, 1);
	assert_int_equal(lines[0].lines, 2000);
	history_lines_free(lines, n);

	struct history_series *series;
	assert_ok(history_db_series(&h, "mod", &series, &n, &unit_err));
	assert_int_equal(n, 2);
	assert_int_equal(series[0].cpus, 2);
	assert_int_equal(series[0].builds, 5);
	history_series_free(series, n);
	history_db_close(&h);
	strvec_clear(&next.labels);
	free(path);
}

/* An advise document's baseline: its wall, each TU's seconds, lines and
 * seconds per pass; the same document twice is one build. */
static void test_advise_document(void **state)
{
	(void)state;
	const char text[] = "{\"schema\": \"buildwall/1\", \"command\": \"advise\", \"jobs\": 2,"
		"\"baseline\": {\"recorded_wall_s\": 38.3},"
		"\"tus\": [{\"target\": \"k.cuda.o\", \"kind\": \"kernel TU\", \"baseline_s\": 12.5,"
		"  \"lines\": [{\"pass\": \"host\", \"lines\": 150000, \"groups\": [{\"group\": \"torch/ATen/c10\", \"lines\": 90000},"
		"  {\"group\": \"project\", \"lines\": 60}]}],"
		"  \"passes\": [{\"pass\": \"host\", \"arch\": null, \"seconds\": 8.5}, {\"pass\": \"device\", \"arch\": \"sm_80\", \"seconds\": 4}]},"
		" {\"target\": \"d.o\", \"kind\": \"host TU\", \"baseline_s\": 6, \"lines\": [], \"passes\": null}]}";
	json_t *doc = json_loads(text, 0, NULL);
	assert_non_null(doc);
	struct build_record *r;
	size_t n;
	assert_ok(build_records_from_document(doc, "mod", &r, &n, &unit_err));
	assert_int_equal(n, 1);
	assert_true(r[0].wall == 38.3);
	assert_int_equal(r[0].jobs, 2);
	assert_int_equal(r[0].nsteps, 2);
	assert_string_equal(r[0].steps[0].kind, "kernel TU");
	assert_true(r[0].steps[1].seconds == 6);
	assert_int_equal(r[0].nlines, 2);
	assert_int_equal(r[0].lines[0].lines, 90000);
	assert_int_equal(r[0].npasses, 2);
	assert_string_equal(r[0].passes[1].pass, "device sm_80");
	char *path = db_file("hist-advise");
	struct history_db h;
	assert_ok(history_db_open(&h, path, true, &unit_err));
	struct record_context ctx = { .module = "mod", .cpus = 2, .model = "cpu" };
	bool added;
	assert_ok(history_db_add(&h, &ctx, &r[0], &added, &unit_err));
	assert_true(added);
	assert_ok(history_db_add(&h, &ctx, &r[0], &added, &unit_err));
	assert_false(added);
	history_db_close(&h);
	assert_int_equal(scalar(path, "SELECT count(*) FROM pass_seconds"), 2);
	assert_int_equal(scalar(path, "SELECT lines FROM header_lines WHERE grp = 'torch/ATen/c10'"), 90000);
	build_record_free(&r[0]);
	free(r);
	/* No recorded wall: refused, nothing left. */
	json_object_set_new(json_object_get(doc, "baseline"), "recorded_wall_s", json_null());
	char *err = NULL;
	build_records_from_document(doc, "mod", &r, &n, &err);
	assert_non_null(strstr(err, "baseline.recorded_wall_s"));
	assert_null(r);
	assert_int_equal(n, 0);
	free(err);
	json_decref(doc);
	free(path);
}

static void test_path(void **state)
{
	(void)state;
	char *p = history_db_path("/x/given.db");
	assert_string_equal(p, "/x/given.db");
	free(p);
	setenv("BUILDWALL_DB", "/x/env.db", 1);
	p = history_db_path(NULL);
	assert_string_equal(p, "/x/env.db");
	free(p);
	unsetenv("BUILDWALL_DB");
	setenv("XDG_DATA_HOME", "/x/data", 1);
	p = history_db_path(NULL);
	assert_string_equal(p, "/x/data/buildwall/history.db");
	free(p);
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/u", 1);
	p = history_db_path(NULL);
	assert_string_equal(p, "/home/u/.local/share/buildwall/history.db");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_file),
		cmocka_unit_test(test_migration_keeps_builds),
		cmocka_unit_test(test_refused_files_left_alone),
		cmocka_unit_test(test_record_is_idempotent),
		cmocka_unit_test(test_each_build),
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_advise_document),
		cmocka_unit_test(test_path),
	};
	int rc = cmocka_run_group_tests_name("history_db", tests, NULL, NULL);
	tmpdir_remove();
	return rc;
}
