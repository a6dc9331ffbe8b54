/* Preprocessed output as pp, leak, advise and record read it: one scanned
 * -E output per TU and pass (or per preprocessed file given), and what
 * each of its sections is: its pass, its TU, the header context it is
 * read in. The runs that make them are probe/preprocess.h's.
 *
 * Ownership: a pp_sources owns its sources, their strings and scans, until
 * pp_sources_free; `data` is the command's own. */
#ifndef BUILDWALL_PP_SOURCE_H
#define BUILDWALL_PP_SOURCE_H

#include "headers.h"
#include "markers.h"
#include "util.h"

#include <stdbool.h>

/* What pp and leak read: one scanned -E output per TU and pass, or per
 * preprocessed file given. */
struct pp_source {
	char *tu;		/* the target ("x.o"), or the file as given */
	char *pass;		/* "host", "device gfx90a"; NULL for a file (its sections say) */
	char *cwd;		/* where it was compiled: relative marker names start here */
	struct strvec user_dirs, system_dirs;
	struct markers scan;
	bool scanned, failed;
	void *data;		/* the command's own, e.g. a chain finder */
};

struct pp_sources {
	struct pp_source *v;
	size_t n;
	size_t failures;	/* TUs that failed to preprocess */
	bool from_files;
};

/* A source's passes are its scan's sections: one for a target's pass, one
 * per offload bundle of a file. "host", "device gfx90a", or "input" for a
 * plain file; is_device says whether the pass compiles for a GPU. */
char *pp_section_name(const struct pp_source *src, size_t section, bool *is_device);
/* Does the section have a pass name (not a plain file's "input")? */
bool pp_pass_named(const struct pp_source *src, size_t section);
/* The header context of one section (its TU is the section's main file). */
void pp_section_context(const struct pp_source *src, size_t section, const char *project_dir,
			struct header_context *ctx);

/* The section's TU as shown (relative to its project), or NULL if no
 * marker named one. */
char *pp_section_tu(const struct pp_source *src, size_t section, const struct header_context *ctx);

/* Is this argument preprocessed input ("-", *.i, *.ii) rather than a target? */
bool pp_is_file_arg(const char *arg);
/* How many passes (scanned sections) the sources hold. */
size_t pp_sources_passes(const struct pp_sources *s);
void pp_sources_free(struct pp_sources *s);

#endif
