/* Line markers of preprocessed output (`# N "file" flags`, `#line N
 * "file"`): a streaming scanner that keeps the include stack and counts
 * where the lines come from, without holding the output in memory.
 *
 * Counting rule: a section's total is every line in it; a file's own
 * lines are the non-marker lines emitted while it is on top of the stack.
 * So the own lines of all files plus the marker lines give the total.
 * Flags: 1 a file is entered, 2 the scan returns to its includer, 3 a
 * system header, 4 extern "C". A marker without 1 or 2 renames the file on
 * top (gcc's "# 0 "<built-in>"", #line). clang's offload bundles (-E of a
 * HIP or CUDA file without --cuda-host-only/--cuda-device-only) become one
 * section each. */
#ifndef BUILDWALL_MARKERS_H
#define BUILDWALL_MARKERS_H

#include "strmap.h"

#include <stdbool.h>
#include <stddef.h>

struct pp_file {
	char *name;		/* as the markers spell it */
	size_t lines;		/* own lines */
	size_t entries;		/* times entered (flag 1) */
	bool system;		/* entered (or first named) as a system header (3) */
};

struct pp_frame {
	size_t file;			/* index into the section's files */
	unsigned long line;		/* the number the file's next line has */
	unsigned long include_line;	/* the includer's line of the #include; 0 for the TU */
	size_t code_at_enter;		/* the section's code lines when it was entered */
};

struct pp_section {
	char *target;		/* offload bundle target ("hip-amdgcn-amd-amdhsa--gfx90a"), or NULL */
	size_t lines;		/* every line of the section, markers included */
	size_t markers;		/* line-marker lines */
	size_t code_lines;	/* lines - markers */
	struct pp_file *files;
	size_t nfiles, alloc;
	struct strmap index;	/* name -> files[] */
	size_t main_file;	/* the first file named: the TU; STRMAP_NONE if none */
	size_t renamed_returns;	/* returns that named a file other than the includer */
	size_t open_at_end;	/* files still open when the section ended (cut off?) */
	size_t max_depth;
};

struct markers;

/* Called after a file is entered (it is on top of the stack) and before
 * one is left (still on top; also for files open when a section ends). */
struct pp_hooks {
	void (*enter)(void *ctx, const struct markers *m);
	void (*leave)(void *ctx, const struct markers *m);
	void *ctx;
};

struct markers {
	size_t lines;		/* every line; a last line without '\n' counts, as in awk */
	struct pp_section *sections;
	size_t nsections;
	/* While scanning: the section being read and its include stack. */
	struct pp_section *cur;
	struct pp_frame *stack;
	size_t depth, stack_alloc;
	/* private */
	const struct pp_hooks *hooks;
	size_t pending;		/* code lines not yet given to the file on top */
	size_t outside;		/* the section for lines outside offload bundles */
	size_t loose;		/* lines read outside any section, not yet placed */
	size_t unnamed;		/* the file of lines before any marker, in cur */
	char *scratch;		/* a decoded file name */
};

/* Scan fd to its end. False, with *err set to what is wrong (owned by the
 * caller) with *bad_line set to its line number (0: a read error). */
bool markers_scan(int fd, const struct pp_hooks *hooks, struct markers *m, size_t *bad_line, char **err);
/* "host" for a host bundle, "device" otherwise; the arch after the
 * target's last '-' ("gfx90a", "sm_80"), or NULL. */
const char *bundle_pass(const char *target);
const char *bundle_arch(const char *target);
void markers_free(struct markers *m);

#endif
