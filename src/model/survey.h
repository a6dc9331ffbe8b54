/* Every JIT module at once (survey's model). Where the build dirs are
 * (aiter's <jit>/build/<module>/build, torch's <extensions>/<py_cu>/<name>,
 * or any dir holding build dirs), and for each, from its .ninja_log and
 * ninja's graph alone, its latest clean build: the wall, the critical path
 * and the step that sets it, the steps by role (kernel, dispatcher,
 * binding, link) and each compile's source by path and content hash; with
 * pp, the framework lines its TUs parse per pass. Across modules: the
 * sources compiled in several, and the framework lines parsed again in
 * each.
 *
 * A module is read by survey_read_module, which dies on a bad tree as
 * every reader does: survey runs it in a child per module (cmd_survey.c),
 * so a bad tree becomes a row with the reason, never the end of the run.
 *
 * Ownership: a survey owns its module documents (json_t, one reference
 * each) and everything else in it; survey_free. */
#ifndef BUILDWALL_SURVEY_H
#define BUILDWALL_SURVEY_H

#include "build_record.h"
#include "util.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A dir to read, or one that was found and cannot be (reason set). */
struct survey_place {
	char *dir;
	char *skipped;		/* NULL: to read */
};

struct survey_places {
	struct survey_place *v;
	size_t n;
};

/* The places survey looks by default that exist: $AITER_JIT_DIR/build,
 * ./aiter/jit/build, $TORCH_EXTENSIONS_DIR, else ~/.cache/torch_extensions. */
void survey_default_roots(struct strvec *roots);
/* Every build dir under roots: a build dir itself, a dir holding build
 * dirs up to SURVEY_DEPTH levels down, or a glob pattern of either. A root
 * that is none of these, a dir with a log and no manifest or the other
 * way round, and a build dir a ninja is building now are kept with the
 * reason. */
#define SURVEY_DEPTH 4
void survey_find(const struct strvec *roots, struct survey_places *places);
void survey_places_free(struct survey_places *p);

/* One module, in this process, written to out: its document on the
 * first line (docs/json.md, survey's modules[]), then a line per compile
 * step's source, "HASH<tab>SECONDS<tab>PATH" (HASH of its content, "-"
 * when it cannot be read; a tab, newline or backslash in PATH escaped as
 * \t, \n, \\): what survey_add reads back, what the cache keeps. cache:
 * ninja's graph from the user's cache (cache.h); pp_lines (NULL: none):
 * also the framework lines of each TU, each preprocessed, never compiled
 * (the probe layer's build_record_pp_lines). Dies on a bad tree. */
void survey_read_module(const char *dir, bool cache, record_lines_fn *pp_lines, FILE *out);

/* A source compiled in more than one module (same content, or the same
 * path when it cannot be read). */
struct survey_shared {
	const char *path;		/* as the first module names it */
	size_t nmodules;
	json_t **modules;		/* their documents (the survey's) */
	double *seconds;		/* in each */
	double total_s, once_s;		/* in all; the most in one */
};

struct survey_source;

struct survey {
	json_t **modules;		/* after survey_finish: read ones by wall, heaviest first, then the skipped */
	size_t n, nread;
	struct survey_shared *shared;	/* after survey_finish: most seconds compiled again first */
	size_t nshared;
	bool have_lines;		/* modules were read with pp */
	size_t framework_host, framework_device, framework_passes, framework_modules;
	/* While adding: every source seen, by content */
	struct survey_source *sources;
	size_t nsources;
	struct strmap *source_at;
	struct arena *names;
};

/* Add a module read by survey_read_module into the file at path, its
 * document's "dir" set to dir; False, with *err set to what is wrong with the file
 * (owned). */
bool survey_add(struct survey *s, const char *path, const char *dir, char **err);
/* Add a module that was not read (one reference to doc taken). */
void survey_add_doc(struct survey *s, json_t *doc);
/* Order the modules and find what they share. */
void survey_finish(struct survey *s);
/* survey --json's fields beside the envelope's. */
void survey_document(const struct survey *s, json_t *doc);
void survey_free(struct survey *s);

#endif
