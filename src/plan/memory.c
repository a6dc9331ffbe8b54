/* The steps' peak memory for the jobs rule, and the job counts held to
 * the memory there is. */
#include "walk.h"
#include "meminfo.h"
#include "measure.h"
#include "memory_plan.h"
#include "util.h"

#include <stdlib.h>

static void keep_peak(struct advise *ad, size_t edge, double kb)
{
	if (kb > ad->peaks[edge])
		ad->peaks[edge] = kb;
}

/* The peaks of what advise compiled as the build does: every TU where the
 * baseline re-ran them, else the TUs the probes compiled whole; with
 * --memory the rest compiled once each, P at once, for theirs. */
void memory_collect(struct advise *ad, double memory_kb)
{
	size_t n = ad->build.n;
	ad->peaks = xcalloc(n ? n : 1, sizeof(double));
	if (ad->base.measured)
		for (size_t i = 0; i < ad->base.m.ntus; i++)
			keep_peak(ad, ad->base.m.tus[i].edge, (double)ad->base.m.tus[i].peak_kb);
	for (size_t i = 0; i < ad->ntus; i++) {
		const struct pass_tu *p = probed(ad, ad->tus[i].probe_tu);
		if (p)
			keep_peak(ad, ad->tus[i].f.edge, (double)p->peak_kb);
	}
	if (memory_kb > 0) {
		bool *missing = xcalloc(n ? n : 1, sizeof(bool));
		size_t nmissing = 0;
		for (size_t i = 0; i < ad->ntus; i++)
			if (!(ad->peaks[ad->tus[i].f.edge] > 0))
				nmissing += missing[ad->tus[i].f.edge] = true;
		if (nmissing) {
			note("--memory: %zu TU%s compiled once more for %s peak memory", nmissing, nmissing == 1 ? "" : "s",
			     nmissing == 1 ? "its" : "their");
			const struct measure_options mo = { .repeats = 1, .parallel = ad->parallel, .timeout = ad->timeout,
							    .contention = CONTENTION_NONE };
			struct measurement m;
			measure_tus(ad->dir, &ad->build, missing, &mo, &m);
			ad->failures += m.failures;
			for (size_t i = 0; i < m.ntus; i++)
				keep_peak(ad, m.tus[i].edge, (double)m.tus[i].peak_kb);
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
		ad->npeaks += ad->peaks[i] > 0;
}

/* The baseline at -j 1 to the most of the CPUs and the build's -j, each
 * with its peak, against the limit. */
void memory_plan_jobs(struct advise *ad, const struct sched_options *sched)
{
	if (!ad->npeaks || !(ad->memory_kb > 0) || ad->cluster.launcher || ad->cluster.remote.slots)
		return;
	struct model m;
	model_from_build(&m, &ad->build, ad->base.seconds);
	model_set_peaks(&m, ad->peaks, ad->build.n);
	if (!memory_plan_make(&m, sched, ad->cpus > ad->jobs ? ad->cpus : ad->jobs, ad->memory_kb, &ad->memory))
		memory_plan_free(&ad->memory);
	model_free(&m);
}
