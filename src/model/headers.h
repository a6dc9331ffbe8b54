/* Where a preprocessed TU's lines come from: every file a line marker
 * names is put in a group (torch/ATen/c10, pybind11, Python, the C++
 * standard library, the HIP/CUDA runtime, compiler builtins, the project's
 * own headers, other), shown by the name an #include would spell, and the
 * lines are summed per group. Shared by pp and leak. */
#ifndef BUILDWALL_HEADERS_H
#define BUILDWALL_HEADERS_H

#include "markers.h"
#include "util.h"

#include <regex.h>

struct header_group {
	char *name;		/* "torch": what --group NAME= refers to */
	char *title;		/* "torch/ATen/c10" */
	char *regex;		/* POSIX ERE on the path; NULL for project and other */
	regex_t re;
	bool heavy;		/* a host-only framework: torch, pybind11, Python */
};

/* Groups in match order: --group additions, the defaults, then project
 * and other (the last two). */
struct header_groups {
	struct header_group *v;
	size_t n;
};

/* Per TU: what paths are relative to and what counts as the project. */
struct header_context {
	char *cwd;			/* the compile's directory: relative marker names start here */
	struct strvec project;		/* project root directories */
	struct strvec include_dirs;	/* the command's include dirs, to spell names by */
};

void header_groups_init(struct header_groups *g);
/* --group NAME=REGEX: replace the regex of group NAME, or add a group
 * (tried before the defaults). False, with *err set to what is wrong. */
bool header_groups_add(struct header_groups *g, const char *spec, char **err);
size_t header_group_project(const struct header_groups *g);
size_t header_group_other(const struct header_groups *g);
void header_groups_free(struct header_groups *g);

/* The context of a TU whose main file is `tu` (as its markers name it),
 * compiled in `cwd` with the given include dirs (either may be NULL). The
 * project is `project_dir` when given, else the git work tree that holds
 * the TU, else the TU's directory and the command's -I directories outside
 * /usr. */
void header_context_init(struct header_context *ctx, const char *cwd, const char *tu, const char *project_dir,
			 const struct strvec *user_dirs, const struct strvec *system_dirs);
void header_context_free(struct header_context *ctx);

/* The work tree (a directory holding .git) at or above dir, or NULL;
 * the caller frees it. */
char *header_git_work_tree(const char *dir);

/* Is the file one of the project's own (never a system header)? */
bool header_in_project(const struct header_context *ctx, const char *name, bool system);
/* The group of a file; system headers (flag 3) are never the project's. */
size_t header_classify(const struct header_groups *g, const struct header_context *ctx, const char *name, bool system);
/* How to show a file: "<torch/extension.h>" for a system header found in
 * an include dir, "opus/tensor_args.h" for a user one, the TU relative to
 * its project. */
char *header_display(const struct header_context *ctx, const char *name, bool system, bool is_tu);

/* One section of preprocessed output, summed by group. */
struct group_total {
	size_t lines, files;
};

struct header_summary {
	size_t *group_of;		/* per file of the section */
	struct group_total *groups;	/* per group */
	size_t *by_lines;		/* file indexes, most own lines first */
};

void header_summarize(const struct pp_section *sec, const struct header_groups *g, const struct header_context *ctx,
		      struct header_summary *s);
void header_summary_free(struct header_summary *s);

/* The playbook's calibration of a TU's total lines. */
enum weight { WEIGHT_LEAN, WEIGHT_MIDDLE, WEIGHT_HEAVY };
struct weight_limits {
	size_t lean;		/* under this: lean (150K) */
	size_t heavy;		/* over this: heavy (400K) */
};
/* The playbook's marks: a lean dispatcher is under 150K lines; over 400K
 * a framework leaked in. */
#define PLAYBOOK_LEAN_LINES 150000
#define PLAYBOOK_HEAVY_LINES 400000
enum weight weigh(size_t lines, const struct weight_limits *w);
const char *weight_name(enum weight w);

#endif
