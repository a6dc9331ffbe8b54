/* The steps' peak memory for the jobs rule, and the job counts held to
 * the memory there is. */
#include "walk.h"
#include "meminfo.h"
#include "measure.h"
#include "memory_plan.h"
#include "util.h"

#include <stdlib.h>

/* Each TU measured: its peak and shape where larger than one kept. */
static void keep_measured(struct advise *ad, const struct measurement *m)
{
	for (size_t i = 0; i < m->ntus; i++)
		step_memory_of(&ad->step_memory[m->tus[i].edge], (double)m->tus[i].peak_kb,
			       m->tus[i].has_shape ? m->tus[i].shape : NULL);
}

/* The peaks of what advise compiled as the build does: every TU where the
 * baseline re-ran them, else the TUs the probes compiled whole; with
 * --memory the rest compiled once each, P at once, for theirs. */
void memory_collect(struct advise *ad, double memory_kb)
{
	size_t n = ad->build.n;
	ad->step_memory = xcalloc(n ? n : 1, sizeof(*ad->step_memory));
	if (ad->base.measured)
		keep_measured(ad, &ad->base.m);
	for (size_t i = 0; i < ad->ntus; i++) {
		const struct pass_tu *p = probed(ad, ad->tus[i].probe_tu);
		if (p)	/* its peak, held throughout: a probe keeps no shape */
			step_memory_of(&ad->step_memory[ad->tus[i].f.edge], (double)p->peak_kb, NULL);
	}
	if (memory_kb > 0) {
		bool *missing = xcalloc(n ? n : 1, sizeof(bool));
		size_t nmissing = 0;
		for (size_t i = 0; i < ad->ntus; i++)
			if (!(ad->step_memory[ad->tus[i].f.edge].peak_kb > 0))
				nmissing += missing[ad->tus[i].f.edge] = true;
		if (nmissing) {
			note("--memory: %zu TU%s compiled once more for %s peak memory", nmissing, nmissing == 1 ? "" : "s",
			     nmissing == 1 ? "its" : "their");
			const struct measure_options mo = { .repeats = 1, .parallel = ad->parallel, .timeout = ad->timeout,
							    .contention = CONTENTION_NONE };
			struct measurement m;
			measure_tus(ad->dir, &ad->build, missing, &mo, &m);
			ad->failures += m.failures;
			keep_measured(ad, &m);
			ad->memory_peaks_measured = nmissing;
			measurement_free(&m);
		}
		free(missing);
		ad->memory_kb = memory_kb;
		ad->memory_from = "--memory";
	} else {
		ad->memory_kb = memory_available_kb(&ad->memory_from);
	}
	for (size_t i = 0; i < n; i++)
		ad->npeaks += ad->step_memory[i].peak_kb > 0;
}

/* The baseline at -j 1 to the most of the CPUs and the build's -j, each
 * with its peak, against the limit. */
void memory_plan_jobs(struct advise *ad, const struct sched_options *sched)
{
	if (!ad->npeaks || !(ad->memory_kb > 0) || ad->cluster.launcher || ad->cluster.remote.slots)
		return;
	struct model m;
	model_from_build(&m, &ad->build, ad->base.seconds);
	model_set_memory(&m, ad->step_memory, ad->build.n);
	if (!memory_plan_make(&m, sched, ad->cpus > ad->jobs ? ad->cpus : ad->jobs, ad->memory_kb, &ad->memory))
		memory_plan_free(&ad->memory);
	model_free(&m);
}
