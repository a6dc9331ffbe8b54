/* The --from reader of saved 'advise --json' documents (model_input).
 * Invariant: what it accepts the model can run on: every TU names a step
 * of the graph, every step's dependencies are other steps, every duration
 * NaN or within [0, a year]; a small one is planned, which must not crash. */
#include "walk.h"
#include "fuzz.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct advise *ad;
	char *err = NULL;
	if (!advise_saved_parse((const char *)data, size, "fuzz", &ad, &err)) {
		INVARIANT(err != NULL);
		free(err);
		return 0;
	}
	const struct ninja_build *b = &ad->build;
	for (size_t i = 0; i < b->n; i++) {
		INVARIANT(isnan(ad->base.seconds[i]) || (ad->base.seconds[i] >= 0 && ad->base.seconds[i] <= 365.0 * 24 * 3600));
		for (size_t k = 0; k < b->edges[i].ndeps; k++)
			INVARIANT(b->edges[i].deps[k] < b->n && b->edges[i].deps[k] != i);
	}
	for (size_t i = 0; i < ad->ntus; i++)
		INVARIANT(ad->tus[i].f.edge < b->n);
	INVARIANT(ad->load.curve.n <= LOAD_CURVE_LEVELS);
	/* The model on what was read: small graphs, a few job counts. */
	if (b->n <= 32 && ad->cpus <= 16 && ad->jobs <= 16)
		advise_model(ad);
	advise_free(ad);
	return 0;
}
