#define _GNU_SOURCE
#include "history_db.h"
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Each step takes the schema one version up; a file at version k runs
 * steps k.. in order. Never edit a step that has shipped: add one. */
const char *const history_migrations[HISTORY_SCHEMA_VERSION] = {
	/* 1: modules, machines, builds with their labels, steps */
	"CREATE TABLE modules (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);"
	"CREATE TABLE machines (id INTEGER PRIMARY KEY, cpus INTEGER NOT NULL, model TEXT NOT NULL,"
	" UNIQUE (cpus, model));"
	"CREATE TABLE targets (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, kind TEXT NOT NULL);"
	"CREATE TABLE builds (id INTEGER PRIMARY KEY, identity TEXT NOT NULL UNIQUE,"
	" module_id INTEGER NOT NULL REFERENCES modules (id), machine_id INTEGER NOT NULL REFERENCES machines (id),"
	" commit_id TEXT, dirty INTEGER NOT NULL, recorded_at INTEGER NOT NULL, build_dir TEXT, source TEXT NOT NULL,"
	" jobs INTEGER, compilers TEXT, wall_s REAL NOT NULL, critical_s REAL, critical_path TEXT,"
	" steps INTEGER NOT NULL, complete INTEGER NOT NULL);"
	"CREATE INDEX builds_by_module ON builds (module_id, recorded_at);"
	"CREATE TABLE labels (build_id INTEGER NOT NULL REFERENCES builds (id), key TEXT NOT NULL,"
	" value TEXT NOT NULL, PRIMARY KEY (build_id, key)) WITHOUT ROWID;"
	"CREATE INDEX labels_by_value ON labels (key, value);"
	"CREATE TABLE steps (build_id INTEGER NOT NULL REFERENCES builds (id),"
	" target_id INTEGER NOT NULL REFERENCES targets (id), seconds REAL NOT NULL,"
	" PRIMARY KEY (build_id, target_id)) WITHOUT ROWID;",
	/* 2: lines per TU, pass and header group (record --pp) */
	"CREATE TABLE header_lines (build_id INTEGER NOT NULL REFERENCES builds (id),"
	" target_id INTEGER NOT NULL REFERENCES targets (id), pass TEXT NOT NULL, grp TEXT NOT NULL,"
	" lines INTEGER NOT NULL, PRIMARY KEY (build_id, target_id, pass, grp)) WITHOUT ROWID;",
	/* 3: seconds per TU and pass (host, device per arch), from advise documents */
	"CREATE TABLE pass_seconds (build_id INTEGER NOT NULL REFERENCES builds (id),"
	" target_id INTEGER NOT NULL REFERENCES targets (id), pass TEXT NOT NULL, seconds REAL NOT NULL,"
	" PRIMARY KEY (build_id, target_id, pass)) WITHOUT ROWID;",
	/* 4: the control compile timed in each build's sitting (probe/control.h) */
	"ALTER TABLE builds ADD COLUMN control_s REAL; ALTER TABLE builds ADD COLUMN control_by TEXT;",
};

char *history_db_path(const char *given)
{
	if (given && *given)
		return xstrdup(given);
	const char *env = getenv("BUILDWALL_DB");
	if (env && *env)
		return xstrdup(env);
	const char *data = getenv("XDG_DATA_HOME");
	if (data && *data)
		return xasprintf("%s/buildwall/history.db", data);
	const char *home = getenv("HOME");
	return xasprintf("%s/.local/share/buildwall/history.db", home && *home ? home : ".");
}

static char *db_error(struct history_db *h, const char *what)
{
	return xasprintf("%s: %s: %s", h->path, what, sqlite3_errmsg(h->db));
}

static char *exec(struct history_db *h, const char *sql, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return NULL;
	char *err = xasprintf("%s: %s: %s", h->path, what, msg ? msg : sqlite3_errmsg(h->db));
	sqlite3_free(msg);
	return err;
}

/* One integer a query returns (a PRAGMA, a count); *err set on failure. */
static long long query_int(struct history_db *h, const char *sql, char **err)
{
	sqlite3_stmt *st;
	long long v = 0;
	*err = NULL;
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK) {
		*err = db_error(h, "cannot read it");
		return 0;
	}
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		*err = db_error(h, "cannot read it");
	sqlite3_finalize(st);
	return v;
}

/* Bring the file to HISTORY_SCHEMA_VERSION under a write lock: another
 * process may have done it since we looked. */
static char *migrate(struct history_db *h)
{
	char *err = exec(h, "BEGIN IMMEDIATE", "cannot lock it to set up its schema");
	if (err)
		return err;
	long long version = query_int(h, "PRAGMA user_version", &err);
	for (long long v = version; !err && v < HISTORY_SCHEMA_VERSION; v++)
		err = exec(h, history_migrations[v], "cannot migrate its schema");
	if (!err && version < HISTORY_SCHEMA_VERSION) {
		char *sql = xasprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", HISTORY_APPLICATION_ID,
				      HISTORY_SCHEMA_VERSION);
		err = exec(h, sql, "cannot mark its schema");
		free(sql);
	}
	if (err) {
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		return err;
	}
	return exec(h, "COMMIT", "cannot write its schema");
}

/* The journal mode a pragma answers ("wal"), or NULL (owned). */
static char *journal_mode(struct history_db *h, const char *sql)
{
	char *mode = NULL;
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(h->db, sql, -1, &q, NULL) == SQLITE_OK) {
		if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
			mode = xstrdup((const char *)sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
	}
	return mode;
}

/* WAL is set once per file, and setting it needs the file to itself: the
 * busy timeout does not wait for that, so a second process creating the
 * file at the same moment retries, for as long as the timeout would. */
static bool switch_to_wal(struct history_db *h)
{
	for (int tries = 0; tries < 6000; tries++) {
		char *mode = journal_mode(h, tries ? "PRAGMA journal_mode = WAL" : "PRAGMA journal_mode");
		bool wal = mode && !strcmp(mode, "wal");
		free(mode);
		if (wal)
			return true;
		if (tries)
			nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	return false;
}

bool history_db_open(struct history_db *h, const char *path, bool create, char **err)
{
	*h = (struct history_db){ .path = xstrdup(path) };
	struct stat st;
	if (stat(path, &st)) {
		if (errno != ENOENT || !create)
			return fail_with(err, xasprintf("%s: %s", path, errno == ENOENT ? "no history there yet (buildwall record writes it)"
									 : strerror(errno)));
		make_parent_dirs(path, 0755);
	} else if (!S_ISREG(st.st_mode)) {
		return fail_with(err, xasprintf("%s: not a file", path));
	}
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK)
		return ok_unless(err, db_error(h, "cannot open it"));
	sqlite3_busy_timeout(h->db, 60000);
	/* The mark, the version and the tables in one read: another process
	 * may be creating the schema right now. */
	char *why;
	long long app = 0, version = 0, tables = 0;
	int code = 0;
	if (sqlite3_exec(h->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK) {
		app = query_int(h, "PRAGMA application_id", &why);
		if (!why)
			version = query_int(h, "PRAGMA user_version", &why);
		if (!why)
			tables = query_int(h, "SELECT count(*) FROM sqlite_master", &why);
		code = why ? sqlite3_errcode(h->db) : 0;
		sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL);
	} else {
		why = db_error(h, "cannot read it");
		code = sqlite3_errcode(h->db);
	}
	if (why) {
		if (code != SQLITE_NOTADB && code != SQLITE_CORRUPT)
			return ok_unless(err, why);
		free(why);	/* "file is not a database": said plainly; the file is left as it is */
		return fail_with(err, xasprintf("%s: not a buildwall history (%s); left as it is", path, sqlite3_errmsg(h->db)));
	}
	if (app != HISTORY_APPLICATION_ID && (app != 0 || tables))
		return fail_with(err, xasprintf("%s: an SQLite database, but not a buildwall history; left as it is", path));
	if (version > HISTORY_SCHEMA_VERSION)
		return fail_with(err, xasprintf("%s: schema version %lld is newer than this buildwall's (%d): use a newer buildwall",
				 path, version, HISTORY_SCHEMA_VERSION));
	if (!switch_to_wal(h))
		return ok_unless(err, db_error(h, "cannot switch it to WAL journaling"));
	if ((why = exec(h, "PRAGMA synchronous = NORMAL", "cannot set it up")))
		return ok_unless(err, why);
	return ok_unless(err, version < HISTORY_SCHEMA_VERSION ? migrate(h) : NULL);
}

int history_db_version(struct history_db *h)
{
	char *err;
	long long v = query_int(h, "PRAGMA user_version", &err);
	free(err);
	return (int)v;
}

void history_db_close(struct history_db *h)
{
	if (h->db)
		sqlite3_close(h->db);
	free(h->path);
	*h = (struct history_db){ 0 };
}

/* ---- writing ---- */

static sqlite3_stmt *prepare(struct history_db *h, const char *sql, char **err)
{
	sqlite3_stmt *st = NULL;
	if (!*err && sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		*err = db_error(h, "cannot query it");
	return st;
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* Step a bound statement that returns nothing, and reset it. */
static void step_done(struct history_db *h, sqlite3_stmt *st, char **err)
{
	if (!*err && sqlite3_step(st) != SQLITE_DONE)
		*err = db_error(h, "cannot write to it");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

/* The id of the row `find` (bound) finds, after `insert` (bound) added it
 * if it was missing. */
static int64_t interned(struct history_db *h, sqlite3_stmt *insert, sqlite3_stmt *find, char **err)
{
	step_done(h, insert, err);
	int64_t id = 0;
	if (!*err && sqlite3_step(find) == SQLITE_ROW)
		id = sqlite3_column_int64(find, 0);
	else if (!*err)
		*err = db_error(h, "cannot read back what it wrote");
	sqlite3_reset(find);
	sqlite3_clear_bindings(find);
	return id;
}

static int64_t target_id(struct history_db *h, sqlite3_stmt *insert, sqlite3_stmt *find, const char *name,
			 const char *kind, char **err)
{
	if (*err)
		return 0;
	bind_text(insert, 1, name);
	bind_text(insert, 2, kind ? kind : "other");
	bind_text(find, 1, name);
	return interned(h, insert, find, err);
}

bool history_db_add(struct history_db *h, const struct record_context *ctx, const struct build_record *r,
		     bool *added, char **err)
{
	*added = false;
	char *why = exec(h, "BEGIN IMMEDIATE", "cannot lock it for writing");
	if (why)
		return ok_unless(err, why);
	sqlite3_stmt *seen = prepare(h, "SELECT 1 FROM builds WHERE identity = ?", &why);
	bool there = false;
	if (!why) {
		bind_text(seen, 1, r->identity);
		there = sqlite3_step(seen) == SQLITE_ROW;
	}
	sqlite3_finalize(seen);
	if (why || there) {
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		return ok_unless(err, why);
	}
	sqlite3_stmt *mod_ins = prepare(h, "INSERT OR IGNORE INTO modules (name) VALUES (?1)", &why);
	sqlite3_stmt *mod_find = prepare(h, "SELECT id FROM modules WHERE name = ?1", &why);
	sqlite3_stmt *mach_ins = prepare(h, "INSERT OR IGNORE INTO machines (model, cpus) VALUES (?1, ?2)", &why);
	sqlite3_stmt *mach_find = prepare(h, "SELECT id FROM machines WHERE model = ?1 AND cpus = ?2", &why);
	sqlite3_stmt *tgt_ins = prepare(h, "INSERT OR IGNORE INTO targets (name, kind) VALUES (?1, ?2)", &why);
	sqlite3_stmt *tgt_find = prepare(h, "SELECT id FROM targets WHERE name = ?1", &why);
	sqlite3_stmt *build = prepare(h,
		"INSERT INTO builds (identity, module_id, machine_id, commit_id, dirty, recorded_at, build_dir, source,"
		" jobs, compilers, wall_s, critical_s, critical_path, steps, complete, control_s, control_by)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)", &why);
	sqlite3_stmt *label = prepare(h, "INSERT OR REPLACE INTO labels (build_id, key, value) VALUES (?1, ?2, ?3)", &why);
	sqlite3_stmt *step = prepare(h, "INSERT OR REPLACE INTO steps (build_id, target_id, seconds) VALUES (?1, ?2, ?3)",
				     &why);
	sqlite3_stmt *lines = prepare(h,
		"INSERT OR REPLACE INTO header_lines (build_id, target_id, pass, grp, lines) VALUES (?1, ?2, ?3, ?4, ?5)",
		&why);
	int64_t module = 0, machine = 0, id = 0;
	if (!why) {
		const char *name = ctx->module ? ctx->module : "unnamed", *model = ctx->model ? ctx->model : "unknown";
		bind_text(mod_ins, 1, name);
		bind_text(mod_find, 1, name);
		module = interned(h, mod_ins, mod_find, &why);
		bind_text(mach_ins, 1, model);
		sqlite3_bind_int64(mach_ins, 2, ctx->cpus);
		bind_text(mach_find, 1, model);
		sqlite3_bind_int64(mach_find, 2, ctx->cpus);
		machine = interned(h, mach_ins, mach_find, &why);
	}
	if (!why) {
		bind_text(build, 1, r->identity);
		sqlite3_bind_int64(build, 2, module);
		sqlite3_bind_int64(build, 3, machine);
		bind_text(build, 4, ctx->commit);
		sqlite3_bind_int(build, 5, ctx->dirty);
		sqlite3_bind_int64(build, 6, r->recorded_at);
		bind_text(build, 7, ctx->build_dir);
		bind_text(build, 8, r->source);
		if (r->jobs > 0)
			sqlite3_bind_int64(build, 9, r->jobs);
		bind_text(build, 10, ctx->compilers);
		bind_real(build, 11, r->wall);
		bind_real(build, 12, r->critical);
		bind_text(build, 13, r->critical_path);
		sqlite3_bind_int64(build, 14, (sqlite3_int64)r->nsteps);
		sqlite3_bind_int(build, 15, r->complete);
		if (r->control > 0) {
			sqlite3_bind_double(build, 16, r->control);
			bind_text(build, 17, r->control_by);
		}
		step_done(h, build, &why);
		id = sqlite3_last_insert_rowid(h->db);
	}
	for (size_t i = 0; !why && i < ctx->labels.n; i++) {
		const char *kv = ctx->labels.v[i], *eq = strchr(kv, '=');
		char *key = xstrndup(kv, eq ? (size_t)(eq - kv) : strlen(kv));
		sqlite3_bind_int64(label, 1, id);
		bind_text(label, 2, key);
		bind_text(label, 3, eq ? eq + 1 : "");
		step_done(h, label, &why);
		free(key);
	}
	for (size_t i = 0; !why && i < r->nsteps; i++) {
		int64_t t = target_id(h, tgt_ins, tgt_find, r->steps[i].target, r->steps[i].kind, &why);
		sqlite3_bind_int64(step, 1, id);
		sqlite3_bind_int64(step, 2, t);
		bind_real(step, 3, r->steps[i].seconds);
		step_done(h, step, &why);
	}
	for (size_t i = 0; !why && i < r->nlines; i++) {
		int64_t t = target_id(h, tgt_ins, tgt_find, r->lines[i].target, NULL, &why);
		sqlite3_bind_int64(lines, 1, id);
		sqlite3_bind_int64(lines, 2, t);
		bind_text(lines, 3, r->lines[i].pass);
		bind_text(lines, 4, r->lines[i].group);
		sqlite3_bind_int64(lines, 5, (sqlite3_int64)r->lines[i].lines);
		step_done(h, lines, &why);
	}
	sqlite3_stmt *pass = prepare(h,
		"INSERT OR REPLACE INTO pass_seconds (build_id, target_id, pass, seconds) VALUES (?1, ?2, ?3, ?4)", &why);
	for (size_t i = 0; !why && i < r->npasses; i++) {
		int64_t t = target_id(h, tgt_ins, tgt_find, r->passes[i].target, NULL, &why);
		sqlite3_bind_int64(pass, 1, id);
		sqlite3_bind_int64(pass, 2, t);
		bind_text(pass, 3, r->passes[i].pass);
		bind_real(pass, 4, r->passes[i].seconds);
		step_done(h, pass, &why);
	}
	sqlite3_stmt *all[] = { mod_ins, mod_find, mach_ins, mach_find, tgt_ins, tgt_find, build, label, step, lines, pass };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		sqlite3_finalize(all[i]);
	if (!why)
		why = exec(h, "COMMIT", "cannot commit the build");
	if (why) {
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
		return ok_unless(err, why);
	}
	*added = true;
	return true;
}

/* ---- reading ---- */

int64_t history_db_find(struct history_db *h, const char *identity)
{
	char *err = NULL;
	sqlite3_stmt *st = prepare(h, "SELECT id FROM builds WHERE identity = ?1", &err);
	int64_t id = 0;
	if (!err) {
		bind_text(st, 1, identity);
		if (sqlite3_step(st) == SQLITE_ROW)
			id = sqlite3_column_int64(st, 0);
	}
	free(err);
	sqlite3_finalize(st);
	return id;
}

static char *column_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? xstrdup((const char *)s) : NULL;
}

double history_db_control(struct history_db *h, const char *identity, char **by)
{
	char *err = NULL;
	sqlite3_stmt *st = prepare(h, "SELECT control_s, control_by FROM builds WHERE identity = ?1", &err);
	double seconds = 0;
	*by = NULL;
	if (!err) {
		bind_text(st, 1, identity);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			seconds = sqlite3_column_double(st, 0);
			*by = column_text(st, 1);
		}
	}
	free(err);
	sqlite3_finalize(st);
	return seconds;
}

static double column_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

bool history_db_builds(struct history_db *h, const struct history_filter *f, struct history_build **out,
			size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	char *why = NULL;
	sqlite3_stmt *st = prepare(h,
		"SELECT b.id, b.identity, m.name, b.commit_id,"
		" (SELECT group_concat(key || '=' || value, ', ') FROM labels l WHERE l.build_id = b.id),"
		" mc.model, b.source, b.dirty, b.complete, mc.cpus, b.jobs, b.recorded_at, b.wall_s, b.critical_s, b.steps,"
		" b.control_s, b.control_by"
		" FROM builds b JOIN modules m ON m.id = b.module_id JOIN machines mc ON mc.id = b.machine_id"
		" WHERE (?1 IS NULL OR m.name = ?1) AND (?2 = 0 OR mc.cpus = ?2) AND (?3 IS NULL OR mc.model = ?3)"
		" AND (?4 IS NULL OR EXISTS (SELECT 1 FROM labels l WHERE l.build_id = b.id AND l.key = ?4 AND l.value = ?5))"
		" AND (?6 IS NULL OR substr(b.commit_id, 1, length(?6)) = ?6) AND b.recorded_at >= ?7"
		" AND (?8 = 0 OR b.complete = 1)"
		" ORDER BY b.recorded_at DESC, b.id DESC LIMIT ?9", &why);
	if (why)
		return ok_unless(err, why);
	bind_text(st, 1, f->module);
	sqlite3_bind_int64(st, 2, f->cpus);
	bind_text(st, 3, f->model);
	if (f->label) {
		const char *eq = strchr(f->label, '=');
		sqlite3_bind_text(st, 4, f->label, eq ? (int)(eq - f->label) : -1, SQLITE_TRANSIENT);
		bind_text(st, 5, eq ? eq + 1 : "");
	}
	bind_text(st, 6, f->commit);
	sqlite3_bind_int64(st, 7, f->since);
	sqlite3_bind_int(st, 8, f->complete);
	sqlite3_bind_int64(st, 9, f->limit > 0 ? f->limit : -1);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[(*n)++] = (struct history_build){
			.id = sqlite3_column_int64(st, 0), .identity = column_text(st, 1), .module = column_text(st, 2),
			.commit = column_text(st, 3), .labels = column_text(st, 4), .model = column_text(st, 5),
			.source = column_text(st, 6), .dirty = sqlite3_column_int(st, 7),
			.complete = sqlite3_column_int(st, 8), .cpus = sqlite3_column_int(st, 9),
			.jobs = sqlite3_column_int(st, 10), .recorded_at = sqlite3_column_int64(st, 11),
			.wall = column_real(st, 12), .critical = column_real(st, 13), .steps = sqlite3_column_int(st, 14),
			.control = sqlite3_column_double(st, 15), .control_by = column_text(st, 16),
		};
	}
	if (rc != SQLITE_DONE)
		why = db_error(h, "cannot read its builds");
	sqlite3_finalize(st);
	for (size_t i = 0; i < *n / 2; i++) {	/* newest first from the query: oldest first out */
		struct history_build t = (*out)[i];
		(*out)[i] = (*out)[*n - 1 - i];
		(*out)[*n - 1 - i] = t;
	}
	return ok_unless(err, why);
}

void history_build_clear(struct history_build *b)
{
	free(b->identity);
	free(b->module);
	free(b->commit);
	free(b->labels);
	free(b->model);
	free(b->source);
	free(b->control_by);
	*b = (struct history_build){ 0 };
}

void history_builds_free(struct history_build *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		history_build_clear(&v[i]);
	free(v);
}

struct timed_target {
	int64_t target;
	double seconds;
};

static int by_target(const void *a, const void *b)
{
	const struct timed_target *x = a, *y = b;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return (x->seconds > y->seconds) - (x->seconds < y->seconds);
}

static int by_step_name(const void *a, const void *b)
{
	return strcmp(((const struct history_step *)a)->target, ((const struct history_step *)b)->target);
}

bool history_db_steps(struct history_db *h, const int64_t *ids, size_t n, struct history_step **out,
		       size_t *count, char **err)
{
	*out = NULL;
	*count = 0;
	char *why = NULL;
	sqlite3_stmt *rows = prepare(h, "SELECT target_id, seconds FROM steps WHERE build_id = ?1", &why);
	sqlite3_stmt *name = prepare(h, "SELECT name, kind FROM targets WHERE id = ?1", &why);
	struct timed_target *all = NULL;
	size_t nall = 0, cap = 0;
	for (size_t i = 0; !why && i < n; i++) {
		sqlite3_bind_int64(rows, 1, ids[i]);
		while (sqlite3_step(rows) == SQLITE_ROW) {
			if (nall == cap) {
				cap = cap ? 2 * cap : 1024;
				all = xrealloc(all, cap * sizeof(*all));
			}
			all[nall++] = (struct timed_target){ sqlite3_column_int64(rows, 0), column_real(rows, 1) };
		}
		sqlite3_reset(rows);
	}
	if (nall)
		qsort(all, nall, sizeof(*all), by_target);
	size_t groups = 0;
	for (size_t i = 0; i < nall; i++)
		groups += !i || all[i].target != all[i - 1].target;
	*out = xcalloc(groups ? groups : 1, sizeof(**out));
	double *values = xmalloc((nall ? nall : 1) * sizeof(double));
	for (size_t i = 0; !why && i < nall;) {
		size_t j = i;
		while (j < nall && all[j].target == all[i].target) {
			values[j - i] = all[j].seconds;
			j++;
		}
		struct history_step *s = &(*out)[(*count)++];
		*s = (struct history_step){ .seconds = median_of(values, j - i), .builds = j - i };
		sqlite3_bind_int64(name, 1, all[i].target);
		if (sqlite3_step(name) == SQLITE_ROW) {
			s->target = column_text(name, 0);
			s->kind = column_text(name, 1);
		} else {
			why = db_error(h, "a step names a target it does not hold");
		}
		sqlite3_reset(name);
		i = j;
	}
	free(values);
	free(all);
	sqlite3_finalize(rows);
	sqlite3_finalize(name);
	if (!why && *count)
		qsort(*out, *count, sizeof(**out), by_step_name);
	return ok_unless(err, why);
}

void history_steps_free(struct history_step *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].target);
		free(v[i].kind);
	}
	free(v);
}

bool history_db_lines(struct history_db *h, int64_t id, struct record_lines **out, size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	char *why = NULL;
	sqlite3_stmt *st = prepare(h,
		"SELECT t.name, l.pass, l.grp, l.lines FROM header_lines l JOIN targets t ON t.id = l.target_id"
		" WHERE l.build_id = ?1 ORDER BY t.name, l.pass, l.grp", &why);
	if (why)
		return ok_unless(err, why);
	sqlite3_bind_int64(st, 1, id);
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[(*n)++] = (struct record_lines){ column_text(st, 0), column_text(st, 1), column_text(st, 2),
							(size_t)sqlite3_column_int64(st, 3) };
	}
	sqlite3_finalize(st);
	return true;
}

void history_lines_free(struct record_lines *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].target);
		free(v[i].pass);
		free(v[i].group);
	}
	free(v);
}

bool history_db_series(struct history_db *h, const char *module, struct history_series **out, size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	char *why = NULL;
	sqlite3_stmt *st = prepare(h,
		"SELECT m.name, mc.model, mc.cpus, count(*) FROM builds b JOIN modules m ON m.id = b.module_id"
		" JOIN machines mc ON mc.id = b.machine_id WHERE ?1 IS NULL OR m.name = ?1"
		" GROUP BY b.module_id, b.machine_id ORDER BY m.name, mc.cpus, mc.model", &why);
	if (why)
		return ok_unless(err, why);
	bind_text(st, 1, module);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		(*out)[(*n)++] = (struct history_series){ column_text(st, 0), column_text(st, 1), sqlite3_column_int(st, 2),
							  (size_t)sqlite3_column_int64(st, 3) };
	}
	if (rc != SQLITE_DONE)
		why = db_error(h, "cannot read its modules");
	sqlite3_finalize(st);
	return ok_unless(err, why);
}

void history_series_free(struct history_series *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].module);
		free(v[i].model);
	}
	free(v);
}
