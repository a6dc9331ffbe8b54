/* -ftime-report of clang (both formats) and gcc. Invariant: every phase is
 * a number or NaN, never infinite, and the heaviest passes stay sorted,
 * largest first, within their bound. */
#include "fuzz.h"
#include "timereport.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	char *path = fuzz_path(fd);
	struct time_report r = { 0 };
	char *err = NULL;
	timereport_read(path, &r, &err);
	if (!err) {
		for (size_t g = 0; g < r.n; g++) {
			const struct time_group *tg = &r.groups[g];
			for (int p = 0; p < NPHASES; p++)
				INVARIANT(!isinf(tg->phase[p]));
			INVARIANT(tg->nheaviest <= TIMEREPORT_HEAVIEST);
			for (size_t k = 1; k < tg->nheaviest; k++)
				INVARIANT(tg->heaviest[k - 1].seconds >= tg->heaviest[k].seconds);
		}
	}
	free(err);
	time_report_free(&r);
	free(path);
	close(fd);
	return 0;
}
