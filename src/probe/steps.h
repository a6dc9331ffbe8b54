/* The compile steps a probe re-runs: chosen from ninja's graph by the
 * TARGET rule, checked to be built, and rewritten so that everything they
 * write lands in buildwall's temp dir. Shared by rank and passes. */
#ifndef BUILDWALL_STEPS_H
#define BUILDWALL_STEPS_H

#include "driver.h"
#include "ninja.h"

/* Mark the compile steps the patterns name (every compile step when there
 * are none). Dies (exit 2) when a pattern names a step that is not a
 * compile, or when nothing is selected. */
void steps_select(const char *cmd, const struct ninja_build *b, char **patterns, size_t npatterns, bool *selected);
/* --top K: keep selected only the K slowest of the selected steps by
 * `seconds` (per edge; NaN: unknown, ranked last; equals in manifest
 * order); order (when not NULL, room for K) gets the edges kept, slowest
 * first. Returns how many selected steps had no seconds. */
size_t steps_keep_slowest(const struct ninja_build *b, const double *seconds, size_t k, bool *selected, size_t *order);
/* Die (exit 2) unless every input of e exists: probes need a built tree. */
void steps_check_built(const char *dir, const struct ninja_edge *e);
/* Parse e's command and point its outputs into a fresh temp subdir; dies
 * (exit 2) when that is impossible. Launchers stripped are added, once
 * each, to `stripped`. */
void steps_prepare(const char *dir, const struct ninja_edge *e, const char *subdir, struct compile_command *cmd,
		   struct strvec *stripped);
/* Compile `source` instead of e's own source in its prepared command;
 * false when the command does not name the source as ninja does. */
bool steps_replace_source(const struct ninja_edge *e, struct compile_command *cmd, const char *source);
/* The note that says which launchers were stripped, once for each in a run. */
void steps_note_stripped(const struct strvec *stripped);

#endif
