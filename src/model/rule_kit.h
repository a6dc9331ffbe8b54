/* What the fix rules (src/plan/rules/) share to read a TU's facts: the
 * parts a TU has to give, their seconds in its baseline, the TUs a fix
 * lists, and the words of a header probe. The advice model (advice.c)
 * takes the same parts out of the TUs it predicts.
 *
 * Ownership: the strings returned are the caller's to free. */
#ifndef BUILDWALL_RULE_KIT_H
#define BUILDWALL_RULE_KIT_H

#include "advice.h"

/* The parts (PART_*) t has measured and a fix could take out of it. */
int rule_parts_present(const struct tu_facts *t);
/* Baseline seconds that `parts` take out of t (at the median). */
double rule_part_seconds(const struct tu_facts *t, int parts);
/* f lists TU `tu` (an index into the input's tus), saving `saving` s. */
void rule_add_tu(struct fix *f, size_t tu, double saving);
/* The same, a saving timed with the fix made (f becomes measured). */
void rule_add_proven(struct fix *f, size_t tu, double saving);
/* The first three TUs f lists, "and N more" past them. */
char *rule_tu_list(const struct advice_input *in, const struct fix *f);
/* The first TU f lists. */
const struct tu_facts *rule_first_tu(const struct advice_input *in, const struct fix *f);
/* How a header cost was measured, for `side` ("host pass", …). */
char *rule_cost_words(const struct header_cost *c, const char *side);
/* The binding TU (PYBIND11_MODULE, TORCH_LIBRARY), else the first host TU
 * that includes the framework itself: where moved tensor glue goes; -1:
 * none. */
long rule_binding_tu(const struct advice_input *in);
/* What the framework's headers cost a host compiler: the header probe of
 * a host TU that parses them (the binding TU first), or NULL. */
const struct header_cost *rule_host_compiler_cost(const struct advice_input *in);
/* reads_cost (struct fix_rule) for a rule that reads no header probe;
 * and for one that reads every TU's where the module has a kernel TU
 * (the kernel TUs' own, and the host TU's their glue joins). */
bool rule_reads_no_cost(const struct tu_facts *tus, size_t ntus, size_t tu);
bool rule_reads_cost_with_kernels(const struct tu_facts *tus, size_t ntus, size_t tu);
/* "s" for a count other than one. */
const char *rule_plural(size_t n);

#endif
