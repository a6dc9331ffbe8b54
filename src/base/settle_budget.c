#include "settle_budget.h"

size_t settle_first_walls(long repeats)
{
	return repeats < 2 ? (repeats > 0 ? (size_t)repeats : 0) : 2;
}

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
