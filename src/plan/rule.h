/* A fix rule's side of the walk: the probes it asks for beyond the ones
 * every rule shares (the header, table, fused and narrow probes, which
 * the walk runs for all), what it makes of them, and its evidence saved
 * in advise --json's model_input and read back by advise --from. A rule
 * is one file, src/plan/rules/<name>.c, that defines a struct fix_rule
 * (model/advice.h) and, with probes of its own, a struct rule_walk; one
 * line of FIX_RULES registers it.
 *
 * Ownership: the evidence ask() returns is the walk's until the rule's
 * free() frees it; save() returns a new reference. */
#ifndef BUILDWALL_RULE_H
#define BUILDWALL_RULE_H

#include "advice.h"
#include "util.h"

#include <jansson.h>
#include <stdbool.h>

struct advise;
struct compile_command;

struct rule_walk {
	/* Before the probes run: what it needs compiled, planned into the
	 * walk's pass probe (ad->probes.pass) or run now; its evidence. */
	void *(*ask)(struct advise *ad);
	/* After they ran: their walls made into the evidence. */
	void (*read)(struct advise *ad, void *evidence);
	/* The evidence as model_input.rules.<name> holds it. */
	json_t *(*save)(const void *evidence);
	/* And read back: false with *err (owned) saying what is wrong in it.
	 * A document with none (NULL `saved`) gives NULL evidence. */
	bool (*load)(const json_t *saved, const struct advise *ad, void **evidence, char **err);
	/* Optional: its facts for its entry of advise --json's fixes. */
	json_t *(*document)(const void *evidence, const struct advise *ad);
	/* Optional, for a fix that is an edit of the sources made and proven:
	 * each edit as a unified diff (`diffs`) and a name for its file
	 * (`names`: "include_opus_tensor_args.h-13"), appended. */
	void (*patches)(const void *evidence, struct strvec *names, struct strvec *diffs);
	/* Optional, for the same: whether its edit, proven, timed what the
	 * framework's headers cost TU tu (index into the walk's TUs), so that
	 * no header probe need say it again. */
	bool (*proves)(const void *evidence, size_t tu);
	/* Optional, for the same: n copies of TU tu's compile as its proven
	 * edit leaves it (outputs apart, their names from `sub`), for the
	 * load curve to run what sets the wall once the fix is made; false:
	 * none for tu. The curve's rounds of two then stand for the TU's
	 * edited walls (ad->load.shared), which time() reads. */
	bool (*edited)(struct advise *ad, void *evidence, size_t tu, size_t n, const char *sub,
		       struct compile_command *cmds);
	/* Optional: what it times of its own, right after the load curve
	 * and before the pass probe. */
	void (*time)(struct advise *ad, void *evidence);
	/* Optional, with time(): the seconds its first rounds still to come
	 * are expected to take (what advise's settle budget keeps for them). */
	double (*ahead)(const void *evidence);
	void (*free)(void *evidence);
};

/* What a rule's load() reads its evidence with (saved.c): a number or
 * null (NaN), in seconds, lines or MB, none below 0 or past 1e9; three
 * of them (a median, least and most); a string or null (NULL, else a
 * copy the caller owns). */
bool saved_number(const json_t *v, double *x);
bool saved_triple(const json_t *v, double *a, double *b, double *c);
char *saved_text(const json_t *v);
/* A triple as save() writes it: [median, least, most], null for NaN;
 * a string or null. */
json_t *saved_triple_json(double a, double b, double c);
json_t *saved_text_json(const char *s);

/* The rules by id, from FIX_RULES. */
extern const struct fix_rule *const fix_rules[NFIXES];

#endif
