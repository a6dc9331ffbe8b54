/* The report's renderer: the diagnosis as one self-contained HTML page
 * (inline CSS and SVG, a few lines of script for sorting; no request to
 * any other file or host; readable with JavaScript off), drawn from the
 * commands' JSON documents (docs/json.md), whether report gathered them
 * in-process or read them with --from. Every name from a build is
 * escaped (out_html.h). Only formats; measures and decides nothing. */
#ifndef BUILDWALL_REPORT_HTML_H
#define BUILDWALL_REPORT_HTML_H

#include <jansson.h>
#include <stdio.h>

/* Borrowed documents; any may be NULL. */
struct report_docs {
	json_t *advise, *log, *passes, *sim;
	json_t **trials;	/* wall and ab documents */
	size_t ntrials;
	json_t *machine;	/* {cpus, system, ninja}: where report ran; NULL */
	json_t *history;	/* a history document: the walls over time; NULL */
	const char *dir_name;	/* the build dir's own name ("demo" for -C .); NULL:
				 * the documents' build_dir as they give it */
};

/* Steps drawn one bar each at most; the rest are summed per slot and
 * stretch of time (a 100k-step build stays a page of a few MB). */
#define REPORT_MAX_BARS 5000

void report_html_write(FILE *f, const struct report_docs *d);
/* The page of a survey document: every module's wall and what sets it,
 * the sources they share, the framework lines, the skipped ones. */
void report_html_write_survey(FILE *f, const json_t *survey);

#endif
