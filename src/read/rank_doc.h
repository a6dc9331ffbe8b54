/* A saved 'buildwall rank --json' document read back: each TU's target
 * its measured median wall and its peak memory, checked where they enter (a duration that
 * is not a number, negative or absurd is an error, not a time). */
#ifndef BUILDWALL_RANK_DOC_H
#define BUILDWALL_RANK_DOC_H

#include <stdbool.h>
#include <stddef.h>

/* Past this a "duration" is a broken document, not a compile (a year). */
#define RANK_DOC_MAX_SECONDS (365.0 * 24 * 3600)

#define RANK_DOC_SHAPE_BINS 16
/* Past this a peak is a broken document, not a compile's (1 PiB). */
#define RANK_DOC_MAX_KIB (1024.0 * 1024 * 1024 * 1024)

struct rank_time {
	char *target;
	double wall_s;		/* NaN: the TU was not timed (it failed) */
	double peak_kb;		/* its process tree's peak memory; 0: unknown */
	float shape[RANK_DOC_SHAPE_BINS];	/* how its run held it (shares of the peak) */
	bool has_shape;
};

struct rank_doc {
	struct rank_time *tus;
	size_t n;
	/* The contention rank calibrated (prediction.contention); samples 0
	 * when the document has none. */
	double contention_share, contention_cores, contention_concurrency;
	size_t contention_samples;
};

/* Parse a document held in memory; `name` is how errors name it. Returns
 * NULL, or "NAME:LINE:COLUMN: what" / "NAME: tus[3].wall_s: what" (owned by
 * the caller). */
bool rank_doc_parse(const char *text, size_t len, const char *name, struct rank_doc *doc, char **err);
/* The same from a file; a file that cannot be read is an error too. */
bool rank_doc_read(const char *path, struct rank_doc *doc, char **err);
void rank_doc_free(struct rank_doc *doc);

#endif
