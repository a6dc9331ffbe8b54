/* The edit probe: a fix that is an edit of the sources proven by making
 * it. For each project line that brings a framework's header into host
 * TUs (a site), on a private copy of the project's sources
 * (source_copy.h): the candidates (the line removed, or its header
 * replaced by a narrower one of the same framework: torch's known entry
 * headers and those the header itself includes, cheapest first by their
 * preprocessed lines with the site's command), each compiled with every
 * TU that reaches the line until one compiles for all (in one pool, the
 * compiles of one that can no longer win stopped; one whose header opens
 * only files the line removed opened before it failed fails as that did,
 * not compiled); then the
 * heaviest TUs timed with it and without, as copies side by side after
 * the load curve (whose compile may be the heaviest edited: its rounds
 * of two are then that TU's edited walls). The winner is handed back as a patch (line_patch.h).
 *
 * Ownership: the evidence owns everything in it; edit_probe_free frees
 * it and removes its copies. */
#ifndef BUILDWALL_EDIT_PROBE_H
#define BUILDWALL_EDIT_PROBE_H

#include "advice.h"
#include "source_copy.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct advise;
struct advise_tu;
struct include_site;

/* Candidates compiled at most, a site (the line removed, the known entry
 * headers, then the tree's; each cheapest first); TUs of a site
 * timed with and without the edit (the heaviest; all of them where its
 * build ran them all at once, plan_walls); the rest of its TUs carry
 * what those saved: between their median share and their median seconds
 * (edit_apply). */
#define EDIT_TRIALS_MAX 6
#define EDIT_MEASURED 2
/* At most this many sites, and TUs a site, in a saved document. */
#define EDIT_SITES_MAX 64
#define EDIT_TUS_MAX 4096

struct edit_candidate {
	char *header;		/* the narrower header, as spelled ("<torch/types.h>"); NULL: the line removed */
	double lines;		/* what it preprocesses to alone with the site's command; 0 removed */
	bool tried;		/* compiled to a verdict */
	char *error;		/* failed: "TU: the compiler's first error line", or why
				 * it fails as the line removed did (not tried) */
	bool entry;		/* the line removed or a known entry header: tried before the tree's */
	struct strvec opens;	/* during the walk: the files its header opens alone (-H), sorted */
};

struct edit_wall {
	size_t tu;		/* index into the walk's TUs */
	bool measured;		/* timed with and without; else it carries the median */
	/* Until timed: `copies` commands of the TU as it is and as many edited,
	 * each copy's outputs apart. */
	struct compile_command *plain, *edited;
	size_t copies;
	double plain_s, plain_lo, plain_hi, edited_s, edited_lo, edited_hi;	/* median, least, most; NaN: none */
	bool load_curve;	/* its edited walls are the load curve's rounds of two
				 * (its compile: this TU edited) */
	size_t at_once;		/* compiles each round ran side by side (1: alone) */
	bool alone_in_build;	/* the recorded builds compiled it with no other TU
				 * beside it (a one-TU module, -j 1) */
	bool as_built;		/* timed as its build ran it, one wall a side: alone
				 * where it ran alone, else all at once with the
				 * site's other TUs, its only neighbours there */
	double recorded_s;	/* its median in the recorded builds, as they ran
				 * it; NaN: not said (the baseline stands in) */
	/* Until each side's first round starts: the seconds its first rounds
	 * are expected to take (advise's settle budget keeps them). */
	double plain_ahead_s, edited_ahead_s;
};

struct edit_site {
	char *file;		/* from the project's root */
	unsigned long line;
	char *text;		/* the line as it is */
	char *header;		/* what it includes, as spelled */
	size_t *tus;		/* every TU whose host pass reaches the framework through it */
	size_t ntus;
	struct edit_candidate *cands;
	size_t ncands;
	long chosen;		/* the candidate that compiled with all its TUs, -1: none */
	struct edit_wall *walls;
	size_t nwalls;
	char *patch;		/* the chosen edit as a unified diff; NULL: none */
	struct source_copy edited;	/* during the walk: the copy with it */
	size_t fails_first;	/* during the walk: the TU (of tus) that failed the last candidate */
	struct strvec removed_opened;	/* during the walk: the files the line removed opened
					 * before it failed on TU removed_on (-H), sorted */
	size_t removed_on;
};

struct edit_evidence {
	const char *rule;	/* during the walk: whose ("leak") */
	char *root;		/* the project's root the edits are made in */
	char *why_not;		/* no proof was made: why; NULL: it was */
	size_t copied;		/* files in the copy */
	struct edit_site *sites;
	size_t nsites;
	struct source_copy pristine;	/* during the walk */
};

/* The sites of the walk's TUs that line_of gives a line to edit (NULL:
 * none), each proven for `rule` (static: it names the probes and the
 * temp dirs): the copy made, the candidates tried now, the winner's walls
 * planned. */
struct edit_evidence *edit_probe_ask(struct advise *ad, const char *rule,
				     const struct include_site *(*line_of)(const struct advise_tu *t));
/* After the load curve: the winners' walls timed. */
void edit_probe_time(struct advise *ad, struct edit_evidence *ev);
/* After the pass probe ran: the patches written out of the copy, the
 * user's sources checked as copied (exit 4 if not). */
void edit_probe_read(struct edit_evidence *ev);
/* The least and most of the timed walls' shares (1 - edited/plain) over
 * their median (0: no spread). */
void edit_spread(const struct edit_site *s, double *lo, double *hi);
/* "<ATen/core/Tensor.h> in place of <torch/extension.h>", "the line removed" */
char *edit_words(const struct edit_site *s);

/* What a rule proven by edits (leak, narrow) makes of them: each proven
 * site's TUs added to f with the seconds of their baseline the edit took
 * out (rule_add_proven: a timed TU its own share; the rest between the
 * timed ones' median share and median seconds), f's spread from the
 * walls' ends widened by that bracket; in *said, per
 * site "FILE:LINE: <edit> compiles with its N TUs (<walls>)" (NULL: no
 * winner) and every site with no winner, with what each candidate's
 * compile said (NULL: none). */
struct edit_said {
	char **sites;
	char *failed;
};
void edit_apply(const struct advice_input *in, const struct edit_evidence *ev, struct fix *f, struct edit_said *said);
void edit_said_free(struct edit_said *said, const struct edit_evidence *ev);
/* "proven on a copy of the sources (N files under ROOT): …" */
char *edit_measured_by(const struct edit_evidence *ev);

/* A rule_walk (rule.h) whose evidence is an edit_evidence: `ask` picks
 * the TUs and their lines (edit_probe_ask); the rest is shared. */
void edit_walk_read(struct advise *ad, void *evidence);
void edit_walk_time(struct advise *ad, void *evidence);
/* The sides of the walls still to time: what their first rounds are
 * expected to take (rule_walk.ahead). */
double edit_walk_ahead(const void *evidence);
/* The copies of a timed TU edited, for the load curve (rule_walk.edited);
 * the wall is marked to take the curve's rounds of two. */
bool edit_walk_edited(struct advise *ad, void *evidence, size_t tu, size_t n, const char *sub,
		      struct compile_command *cmds);
json_t *edit_walk_save(const void *evidence);
bool edit_walk_load(const json_t *saved, const struct advise *ad, void **evidence, char **err);
json_t *edit_walk_document(const void *evidence, const struct advise *ad);
void edit_walk_patches(const void *evidence, struct strvec *names, struct strvec *diffs);
void edit_walk_free(void *evidence);
/* TU tu is of a site whose edit compiled (its walls timed, or carrying
 * the timed ones' share). */
bool edit_walk_proves(const void *evidence, size_t tu);
#define EDIT_RULE_WALK(ask_fn)                                                                              \
	{ .ask = (ask_fn), .read = edit_walk_read, .save = edit_walk_save, .load = edit_walk_load,          \
	  .document = edit_walk_document, .patches = edit_walk_patches, .proves = edit_walk_proves,         \
	  .edited = edit_walk_edited, .time = edit_walk_time, .ahead = edit_walk_ahead, .free = edit_walk_free }

json_t *edit_probe_save(const struct edit_evidence *ev);
bool edit_probe_load(const json_t *saved, size_t ntus, struct edit_evidence **ev, char **err);
void edit_probe_free(struct edit_evidence *ev);

#endif
