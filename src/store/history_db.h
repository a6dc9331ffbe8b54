/* The history: every recorded build of every module in one SQLite file
 * (docs/db.md). The schema carries its version (PRAGMA user_version) and
 * buildwall's mark (PRAGMA application_id); opening an older file migrates
 * it, one step a transaction; a newer one, or a file that is not ours, is
 * refused and left as it is. WAL journaling lets a CI job write while a
 * user reads; a writer waits for another (busy timeout), and each build is
 * one transaction, so a killed record leaves whole builds only.
 *
 * Errors are returned (owned strings, "PATH: what"), never printed. */
#ifndef BUILDWALL_HISTORY_DB_H
#define BUILDWALL_HISTORY_DB_H

#include "build_record.h"

#include <stdbool.h>
#include <stdint.h>

#define HISTORY_SCHEMA_VERSION 4
#define HISTORY_APPLICATION_ID 0x6277616c	/* "bwal" */

/* Step k takes a file from version k to k + 1 (docs/db.md). */
extern const char *const history_migrations[HISTORY_SCHEMA_VERSION];

struct sqlite3;
struct history_db {
	struct sqlite3 *db;
	char *path;
};

/* --db PATH, else $BUILDWALL_DB, else $XDG_DATA_HOME/buildwall/history.db
 * (~/.local/share/...). Owned. */
char *history_db_path(const char *given);
/* Open the file, creating it (and its directory) when `create`; migrate it
 * to HISTORY_SCHEMA_VERSION. False, with *err set to what is wrong (owned). */
bool history_db_open(struct history_db *h, const char *path, bool create, char **err);
/* The schema version of the open file (before any migration it ran: the
 * caller sees the current one). */
int history_db_version(struct history_db *h);
void history_db_close(struct history_db *h);

/* Add one build of ctx's module, in one transaction; *added false when a
 * build with its identity is there already (nothing changes). */
bool history_db_add(struct history_db *h, const struct record_context *ctx, const struct build_record *r,
		     bool *added, char **err);

/* The id of the build with this identity, or 0. */
int64_t history_db_find(struct history_db *h, const char *identity);
/* The control compile's seconds recorded with that build, or 0; *by the
 * compiler that ran it (owned), or NULL. */
double history_db_control(struct history_db *h, const char *identity, char **by);

/* A recorded build as the queries return it. Owned strings. */
struct history_build {
	int64_t id;
	char *identity, *module, *commit, *labels, *model, *source;	/* labels "K=V, K=V" or NULL */
	bool dirty, complete;
	long cpus, jobs;
	int64_t recorded_at;
	double wall, critical;	/* critical NaN when unknown */
	long steps;
	double control;		/* the control compile's seconds in its sitting, 0: none */
	char *control_by;	/* the compiler that ran it, or NULL */
};

/* Which builds: every field optional (NULL / 0). */
struct history_filter {
	const char *module;
	long cpus;			/* with model: one machine */
	const char *model;
	const char *label;		/* "K=V" */
	const char *commit;		/* a prefix of the commit */
	int64_t since;			/* recorded at or after (Unix seconds) */
	bool complete;			/* only builds that ran every compile */
	long limit;			/* the newest `limit` (0: all) */
};
/* Matching builds, oldest first. */
bool history_db_builds(struct history_db *h, const struct history_filter *f, struct history_build **out,
			size_t *n, char **err);
void history_builds_free(struct history_build *v, size_t n);
/* One build's strings (it stays in its array). */
void history_build_clear(struct history_build *b);

/* Per target over a set of builds: the median of its seconds (the builds
 * without it do not count), and its kind. Sorted by target name. */
struct history_step {
	char *target, *kind;
	double seconds;
	size_t builds;
};
bool history_db_steps(struct history_db *h, const int64_t *ids, size_t n, struct history_step **out,
		       size_t *count, char **err);
void history_steps_free(struct history_step *v, size_t n);

/* A build's lines per TU, pass and header group (record --pp); none when
 * it was recorded without. */
bool history_db_lines(struct history_db *h, int64_t id, struct record_lines **out, size_t *n, char **err);
void history_lines_free(struct record_lines *v, size_t n);

/* Modules and machines the history holds, with how many builds each. */
struct history_series {
	char *module, *model;
	long cpus;
	size_t builds;
};
bool history_db_series(struct history_db *h, const char *module, struct history_series **out, size_t *n, char **err);
void history_series_free(struct history_series *v, size_t n);

#endif
