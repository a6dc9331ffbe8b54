#include "settle_budget.h"

bool settle_budget_allows(struct settle_budget *b, double now, double round_s, double own)
{
	if (!b->until)
		return true;
	double kept = b->ahead ? b->ahead(b->ctx) : 0;
	if (now + round_s + own + kept <= b->until)
		return true;
	b->declined++;
	return false;
}
