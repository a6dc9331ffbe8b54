/* One build as the history keeps it (record's model): where it ran (the
 * module, the sources' commit, the machine, the compilers), what it took
 * (its wall, critical path and every step's duration) and, when asked,
 * each TU's preprocessed lines per header group and pass, and from an
 * advise document each TU's seconds per pass. Its identity is
 * a hash of the build's own lines (outputs, times, command hashes), so the
 * same build recorded twice, from the log or from a saved log document,
 * is one build.
 *
 * Ownership: a build_record owns every string and array in it;
 * build_record_free frees them. Kinds are static strings. */
#ifndef BUILDWALL_BUILD_RECORD_H
#define BUILDWALL_BUILD_RECORD_H

#include "identity.h"
#include "log_view.h"
#include "ninja.h"
#include "util.h"

#include <jansson.h>
#include <stdint.h>

struct record_step {
	char *target;
	const char *kind;	/* step_kind_names */
	double seconds;
};

struct record_pass {
	char *target, *pass;	/* "x.cuda.o", "host" or "device sm_80" */
	double seconds;
};

struct record_lines {
	char *target, *pass, *group;	/* "x.cuda.o", "host", "torch/ATen/c10" */
	size_t lines;
};

/* What every build recorded from one place shares. */
struct record_context {
	char *module;		/* the module's name: its one linked output, else the build dir's */
	char *commit;		/* the sources' git HEAD, or NULL */
	bool dirty;		/* tracked files changed since it */
	long cpus;
	char *model;		/* the CPU's model name */
	char *compilers;	/* "nvcc 13.0.48; gcc 12.2.0", or NULL */
	char *build_dir;	/* absolute, or NULL for a document */
	char *source_dir;	/* where the first compile step's source is, or NULL */
	struct strvec labels;	/* "K=V", sorted */
};

struct build_record {
	char *identity;		/* 32 hex digits */
	const char *source;	/* ".ninja_log", "log document", "wall document" */
	int64_t recorded_at;	/* Unix seconds */
	long jobs;		/* the most steps that ran at once (0: unknown) */
	double wall, critical;	/* critical: NaN when unknown */
	char *critical_path;	/* targets joined by " > ", or NULL */
	bool complete;		/* it ran every compile step of the graph */
	struct record_step *steps;
	size_t nsteps;
	struct record_lines *lines;
	size_t nlines;
	struct record_pass *passes;	/* the host/device split (advise documents) */
	size_t npasses;
	int64_t built_at;	/* Unix seconds its steps' outputs carry in the log, 0: unknown */
	double control;		/* the control compile's seconds in its sitting (probe/control.h), 0: none */
	char *control_by;	/* the compiler that ran it, or NULL */
};

/* What a build of the tree is measured against, from `ninja -t targets
 * all` alone (no graph): every compile output (sorted), and the module's
 * name: its last linked output's in the manifest (a library or program
 * whose rule is named for linking: "link", CMake's *_LINKER__*) without
 * the extension (opus_demo.so: opus_demo), else the build dir's. */
struct build_outputs {
	struct strvec compiles;
	char *module;
};
void build_outputs_load(struct build_outputs *o, const char *dir);
/* The same from a graph already loaded (no second question to ninja). */
void build_outputs_of(struct build_outputs *o, const struct ninja_build *b);
void build_outputs_free(struct build_outputs *o);
/* Whether output is one of o's compiles. */
bool build_outputs_compiles(const struct build_outputs *o, const char *output);
/* Whether a build that ran `seen` of o's compiles ran them all (a clean
 * build). */
bool build_outputs_all_seen(const struct build_outputs *o, size_t seen);

/* The module (named), commit, machine and (with `compilers`) the compilers'
 * versions of the build dir; commit and compilers need its graph b (NULL:
 * none). dir NULL: a document alone, only the machine. */
void record_context_init(struct record_context *c, const char *dir, const struct ninja_build *b, const char *module,
			 bool compilers);
void record_context_free(struct record_context *c);
/* The compilers the build's compile rules run (one step a rule asked),
 * in the graph's order, each once, appended to programs. */
void build_compilers(const char *dir, const struct ninja_build *b, struct strvec *programs);
/* The first line of what argv prints on stdout run in cwd (the first that
 * holds `pattern`, when not NULL), or NULL when it fails; git runs with
 * GIT_OPTIONAL_LOCKS=0, so a status does not rewrite the index. */
char *record_first_line(char *const *argv, const char *cwd, const char *pattern);

/* The build a log_view loaded: every step, the wall, the critical path
 * (with its graph), the most jobs at once; complete when every compile
 * output of the tree ran in it. */
void build_record_from_view(struct build_record *r, const struct log_view *v, const struct build_outputs *o,
			    const char *module);
/* The longest time a document may give (a week): more is not a build. */
#define RECORD_MAX_SECONDS (7 * 86400.0)
/* The builds a saved log, wall or advise document holds (one for a log
 * document, one per trial of a wall document; an advise document's
 * baseline: the recorded builds' median wall, each TU's isolated seconds,
 * its lines per group and its seconds per pass). False, with *err set to what is wrong
 * (owned); nothing is left of a document refused. */
bool build_records_from_document(json_t *doc, const char *module, struct build_record **out, size_t *n, char **err);
/* The same from a file: false with *err "PATH:LINE: what" (owned), or
 * "PATH: what" when the file cannot be read. */
bool build_records_from_file(const char *path, const char *module, struct build_record **out, size_t *n, char **err);
/* What adds a build's preprocessed lines to its record (the probe layer's
 * build_record_pp_lines, handed down by the command that measures). */
typedef void record_lines_fn(const char *cmd_name, const char *dir, const struct ninja_build *b,
			     struct build_record *r);
/* Append a TU's lines of a header group in one pass. */
void build_record_add_lines(struct build_record *r, const char *target, const char *pass, const char *group,
			    size_t lines);
void build_record_free(struct build_record *r);

#endif
