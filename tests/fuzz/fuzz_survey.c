/* A module's reading as survey reads it back (a child's output, a cache
 * entry a disk may have garbled). Invariants: the same file added as two
 * modules is taken or refused both times; taken, every source it names is
 * shared by the two, compiled again for exactly what it took once. */
#include "fuzz.h"
#include "survey.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	char *path = fuzz_path(fd);
	struct survey s = { 0 };
	char *first = NULL, *second = NULL;
	bool first_ok = survey_add(&s, path, "a", &first), second_ok = survey_add(&s, path, "b", &second);
	INVARIANT(first_ok == second_ok && first_ok == !first);
	survey_finish(&s);
	INVARIANT(s.n == (first ? 0u : 2u));
	for (size_t k = 0; k < s.nshared; k++) {
		const struct survey_shared *sh = &s.shared[k];
		INVARIANT(sh->nmodules == 2);
		INVARIANT(isfinite(sh->total_s) && sh->once_s >= 0);
		INVARIANT(fabs(sh->total_s - 2 * sh->once_s) <= 1e-9 * (1 + sh->total_s));
	}
	free(first);
	free(second);
	survey_free(&s);
	free(path);
	close(fd);
	return 0;
}
