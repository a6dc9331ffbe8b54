/* Job lists: clang/gcc -### and nvcc --dryrun, the same text fed to both.
 * Invariant: every job listed has a program to run and a known pass. */
#include "fuzz.h"
#include "jobs.h"

static void check(const struct job_list *jobs)
{
	for (size_t i = 0; i < jobs->n; i++) {
		INVARIANT(jobs->v[i].argv.n >= 1 && jobs->v[i].argv.v[0] != NULL);
		INVARIANT(jobs->v[i].pass == PASS_HOST || jobs->v[i].pass == PASS_DEVICE ||
			  jobs->v[i].pass == PASS_OTHER);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	struct job_list jobs = { 0 };
	char *err = NULL;
	jobs_parse_dashdashdash(text, &jobs, &err);
	if (!err)
		check(&jobs);
	free(err);
	job_list_free(&jobs);
	err = NULL;
	jobs_parse_dryrun(text, &jobs, &err);
	if (!err)
		check(&jobs);
	free(err);
	job_list_free(&jobs);
	free(text);
	return 0;
}
