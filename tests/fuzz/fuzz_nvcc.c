/* nvcc's --time CSV and its -fdevice-time-trace JSON, the same bytes fed
 * to both. Invariant: every time read is a finite number, and every run of
 * the CSV has at least one job. */
#include "fuzz.h"
#include "nvcc_report.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	char *path = fuzz_path(fd);
	struct nvcc_time t = { 0 };
	char *err = NULL;
	nvcc_time_read(path, &t, &err);
	if (!err)
		for (size_t r = 0; r < t.n; r++) {
			INVARIANT(t.runs[r].n >= 1);
			for (size_t j = 0; j < t.runs[r].n; j++)
				INVARIANT(isfinite(t.runs[r].jobs[j].seconds));
		}
	free(err);
	nvcc_time_free(&t);
	struct nvcc_trace tr = { 0 };
	err = NULL;
	nvcc_trace_read(path, &tr, &err);
	if (!err)
		for (size_t a = 0; a < tr.n; a++) {
			INVARIANT(tr.archs[a].arch != NULL);
			INVARIANT(!isinf(tr.archs[a].ptxas));
		}
	free(err);
	nvcc_trace_free(&tr);
	free(path);
	close(fd);
	return 0;
}
