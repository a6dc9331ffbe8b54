/* The table of fix rules: FIX_RULES (model/advice.h) lists them, one line
 * each, and each file of src/plan/rules/ defines its own. */
#include "rule.h"

#define FIX_RULE_DECLARE(id, rule) extern const struct fix_rule rule;
FIX_RULES(FIX_RULE_DECLARE)
#undef FIX_RULE_DECLARE

const struct fix_rule *const fix_rules[NFIXES] = {
#define FIX_RULE_ENTRY(id, rule) [id] = &rule,
	FIX_RULES(FIX_RULE_ENTRY)
#undef FIX_RULE_ENTRY
};
