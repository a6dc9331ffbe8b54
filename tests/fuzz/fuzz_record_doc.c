/* record --from: saved log, wall and advise documents. Invariant: what it takes
 * is a whole build (an identity of 32 hex digits, a wall and every step's
 * seconds within [0, a week]); what it refuses leaves nothing behind. */
#include "fuzz.h"
#include "build_record.h"

#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, 0, NULL);
	if (!doc)
		return 0;
	struct build_record *r;
	size_t n;
	char *err = NULL;
	build_records_from_document(doc, "fuzz", &r, &n, &err);
	INVARIANT(!err || (!r && !n));
	for (size_t i = 0; i < n; i++) {
		INVARIANT(strlen(r[i].identity) == 32 && strspn(r[i].identity, "0123456789abcdef") == 32);
		INVARIANT(r[i].wall >= 0 && r[i].wall < RECORD_MAX_SECONDS);
		for (size_t k = 0; k < r[i].nsteps; k++)
			INVARIANT(r[i].steps[k].seconds >= 0 && r[i].steps[k].seconds < RECORD_MAX_SECONDS);
		build_record_free(&r[i]);
	}
	free(r);
	free(err);
	json_decref(doc);
	return 0;
}
