/* The --from reader of saved 'rank --json' documents. Invariant: every
 * duration it hands on is NaN (not timed) or within [0, the bound]. */
#include "fuzz.h"
#include "rank_doc.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rank_doc doc;
	char *err = NULL;
	rank_doc_parse((const char *)data, size, "fuzz", &doc, &err);
	if (!err)
		for (size_t i = 0; i < doc.n; i++) {
			double s = doc.tus[i].wall_s;
			INVARIANT(isnan(s) || (s >= 0 && s <= RANK_DOC_MAX_SECONDS));
			INVARIANT(doc.tus[i].target != NULL);
		}
	free(err);
	rank_doc_free(&doc);
	return 0;
}
