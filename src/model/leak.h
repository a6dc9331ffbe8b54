/* Which include lets a heavy header (torch, pybind11, Python, or a
 * pattern) into a TU: a chain finder over the TU's preprocessed passes
 * (pp_request hooks), and per pass the chains it found and the line to
 * fix: the #include in the nearest header of the project above the first
 * match. Used by leak and advise.
 *
 * Ownership: a rule is the caller's (its groups and regex too); a scan
 * lives in its pp_source's `data` until leak_scan_free; a view borrows
 * its source and scan. */
#ifndef BUILDWALL_LEAK_H
#define BUILDWALL_LEAK_H

#include "chains.h"
#include "headers.h"
#include "pp_source.h"

#include <regex.h>

struct leak_rule {
	struct header_groups groups;	/* the heavy groups to find (without a pattern) */
	char *project;			/* --project (absolute), or NULL */
	const char *pattern;		/* NULL: the heavy groups */
	regex_t re;			/* the pattern, compiled */
};

/* pp_request.hooks for a rule (ctx); the scan goes into src->data. */
struct pp_hooks leak_hooks(void *rule, struct pp_source *src);
void leak_scan_free(void *scan);

/* One pass of a source and its chains (the finder's, in first-seen order). */
struct leak_view {
	const struct pp_source *src;
	size_t section;
	char *name;
	const struct header_context *ctx;	/* the scan's, for this section */
	const struct chain **chains;
	size_t nchains;
	/* The chain whose line to fix is a project header's: the first that
	 * reaches its match through one (a TU's own #include <Python.h> on
	 * line 1 does not hide the header that brings torch in after it),
	 * else the first chain; and the link of that header (or the TU)
	 * whose #include is the line, -1: none in the project. */
	const struct chain *fix_chain;
	long fix;
};

void leak_view_init(struct leak_view *v, const struct pp_source *src, size_t section);
void leak_view_free(struct leak_view *v);
const struct pp_section *leak_view_section(const struct leak_view *v);
/* Link i of a chain as the #includes spell it ("opus/tensor_args.h",
 * "<torch/extension.h>"); "a.cpp -> b.h -> <torch/extension.h>"; the
 * line to fix on fix_chain, "opus/tensor_args.h:13" (needs v->fix >= 0); what the rule
 * looks for. All owned by the caller. */
char *leak_link_name(const struct leak_view *v, const struct chain *ch, size_t i);
char *leak_chain_text(const struct leak_view *v, const struct chain *ch);
char *leak_fix_text(const struct leak_view *v);
char *leak_rule_text(const struct leak_rule *rule);

#endif
