/* What grew between check's reference and its candidate (check's model):
 * the steps whose median duration grew most and, for the first, the pass
 * and header groups whose preprocessed lines grew most (recorded with
 * --pp): what check names beside its verdict.
 *
 * Ownership: a grown owns its strings; grown_clear frees them. */
#ifndef BUILDWALL_GROWTH_H
#define BUILDWALL_GROWTH_H

#include "build_record.h"
#include "history_db.h"

#define GROWTH_STEPS 3

struct grown {
	char *target;
	double ref_s, cand_s;	/* the reference's median, the candidates' median */
	char *pass, *group;	/* the lines that grew most ("host", "torch/ATen/c10, pybind11"), or NULL */
	size_t ref_lines, cand_lines;
};

/* The GROWTH_STEPS steps (at most) whose median over the candidate builds
 * grew most over the reference's (ref: a median per step, any order; it
 * is sorted), largest first, into out; how many. The candidates' steps
 * are sorted by target (a 100k-step build stays n log n). */
size_t growth_steps(struct history_step *ref, size_t nref, struct build_record *cand, size_t ncand, struct grown *out);
/* The pass of g's target whose lines grew most (heavy frameworks first,
 * the host pass on a tie within 5 %), and the groups that grew. */
void growth_lines(struct grown *g, const struct record_lines *ref, size_t nref, const struct record_lines *cand,
		  size_t ncand);
void grown_clear(struct grown *g);

#endif
