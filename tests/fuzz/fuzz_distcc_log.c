/* distcc's client log (log, sim, wall, rank --launcher read it).
 * Invariants: every job's times are NaN or non-negative, a remote job
 * names its host, a summary's counts add up to the compiles, and every
 * compile with an output is found by it. */
#include "fuzz.h"
#include "distcc_log.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	char *path = fuzz_path(fd);
	struct distcc_log log;
	char *err = NULL;
	distcc_log_read(path, &log, &err);
	if (!err) {
		size_t compiles = 0;
		for (size_t i = 0; i < log.n; i++) {
			const struct distcc_job *j = &log.jobs[i];
			INVARIANT(isnan(j->remote_s) || (j->remote_s >= 0 && j->remote_s < 1e7));
			INVARIANT(isnan(j->elapsed_s) || (j->elapsed_s >= 0 && j->elapsed_s < 1e7));
			INVARIANT(j->wait_s >= 0);
			INVARIANT(!j->remote || j->host);
			compiles += j->compile;
			if (j->compile && j->output)
				INVARIANT(distcc_log_find(&log, j->output) != NULL);
		}
		struct distcc_summary s;
		distcc_summarize(&log, &s);
		INVARIANT(s.remote + s.fell_back + s.local == compiles);
		INVARIANT(compiles > 0);
		distcc_log_free(&log);
	}
	free(err);
	free(path);
	close(fd);
	return 0;
}
