/* Settling, and a time limit on it: a probe that settles stops a level
 * at two walls that agree (walls_agree) short of its repeats, and takes
 * a round that only settles walls already taken (a third where two
 * disagree) where it ends, with the first rounds still to come, before
 * the limit. advise holds its own to two recorded builds
 * (docs/advise.md).
 *
 * Ownership: `ctx` is the caller's. */
#ifndef BUILDWALL_SETTLE_BUDGET_H
#define BUILDWALL_SETTLE_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

struct settle_budget {
	double until;	/* monotonic seconds; 0: no limit */
	/* The seconds the first rounds still to come elsewhere are expected
	 * to take (what the limit keeps for them); NULL: none. */
	double (*ahead)(void *ctx);
	void *ctx;
	size_t declined;	/* settling rounds not run for the limit */
};

/* The walls a level takes before a round only settles them: two, which
 * can agree, or the repeats where fewer. */
size_t settle_first_walls(long repeats);

/* Whether a settling round expected to take round_s seconds, begun at
 * `now`, fits beside `own` seconds of its probe's first rounds still to
 * come and what `ahead` keeps; a round that does not is counted in
 * `declined`. */
bool settle_budget_allows(struct settle_budget *b, double now, double round_s, double own);

#endif
