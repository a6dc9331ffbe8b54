/* advise's baseline: each step's duration from the last builds in
 * .ninja_log that ran every TU, else measured as rank measures it, and
 * the spread the builds and the machine show. */
#define _GNU_SOURCE
#include "walk.h"
#include "cluster.h"
#include "advice.h"
#include "dispatch_table.h"
#include "leak.h"
#include "load_probe.h"
#include "local_probe.h"
#include "measure.h"
#include "narrow.h"
#include "net_probe.h"
#include "ninja.h"
#include "ninja_log.h"
#include "nvcc_report.h"
#include "pass_probe.h"
#include "preprocess.h"
#include "progress.h"
#include "snapshot.h"
#include "source_facts.h"
#include "stats.h"
#include "steps.h"
#include "strmap.h"
#include "tmpdir.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The baseline: the last builds in .ninja_log that ran every TU (each
 * step's median as recorded until the load curve is known, then isolated
 * by it), else rank's measurement. */
void baseline_measure(struct advise *ad, const bool *selected)
{
	struct ninja_build *b = &ad->build;
	ad->base.seconds = xcalloc(b->n, sizeof(double));
	char *err = NULL;
	size_t builds = ad->cluster.launcher ? 0 : recent_builds_read(ad->dir, b, selected, ADVISE_BUILDS, &ad->base.recent, &err);
	if (err)
		warn("%s; measuring the TUs instead", err);
	free(err);
	if (builds) {
		recent_builds_durations(&ad->base.recent, NULL, ad->base.seconds, NULL, NULL);
		ad->base.recorded_wall = recent_builds_wall(&ad->base.recent);
		struct summary walls = summarize(ad->base.recent.walls, ad->base.recent.n);
		ad->base.spread_lo = walls.min / walls.median;
		ad->base.spread_hi = walls.max / walls.median;
		ad->base.source = builds == 1 ? xstrdup(".ninja_log: the latest build that ran every TU")
			: xasprintf(".ninja_log: each step's median over the last %zu builds that ran every TU", builds);
		return;
	}
	/* Here one at a time, the contention measured apart; through the
	 * launcher P at once and R runs each (the hosts' slots make repeats
	 * cheap, and they give the spread), with no contention here to measure. */
	struct measure_options o = { .repeats = 1, .parallel = 1, .timeout = ad->timeout,
				     .contention = CONTENTION_MEASURE };
	if (ad->cluster.launcher) {
		o = (struct measure_options){ .repeats = ad->repeats, .parallel = ad->parallel, .timeout = ad->timeout,
					      .contention = CONTENTION_NONE, .launcher = ad->cluster.launcher };
		ad->base.source = xasprintf("every TU timed on the cluster as rank --launcher %s does: sent through "
						"it, %ld at once, %ld run%s each (the probes ran here: each saving is "
						"scaled by its TU's time there over its time here)", ad->cluster.launcher,
						o.parallel, o.repeats, o.repeats == 1 ? "" : "s");
	} else {
		note("no build in .ninja_log ran every TU; measuring them as rank does");
		ad->base.source = xstrdup("rank's measurement: every TU re-run in isolation, contention measured side "
					      "by side");
	}
	measure_tus(ad->dir, b, selected, &o, &ad->base.m);
	ad->base.measured = true;
	ad->failures += ad->base.m.failures;
	size_t here = cluster_runs(ad).kept_here;
	if (here)
		warn("%zu of the baseline's runs compiled here, not on the cluster (distcc compiles here a source it does "
		     "not know, such as a .cu, and what a failed host gave back): their times carry this machine's load, %ld at once",
		     here, o.parallel);
	free(ad->base.seconds);
	ad->base.seconds = measurement_seconds(&ad->base.m);
	ad->base.recorded_wall = NAN;
	ad->base.spread_lo = ad->base.spread_hi = 1;
	for (size_t i = 0; i < ad->base.m.ntus; i++)
		if (ad->base.m.tus[i].wall.n && ad->base.m.tus[i].wall.median > 0) {
			double lo = ad->base.m.tus[i].wall.min / ad->base.m.tus[i].wall.median, hi = ad->base.m.tus[i].wall.max / ad->base.m.tus[i].wall.median;
			ad->base.spread_lo = lo < ad->base.spread_lo ? lo : ad->base.spread_lo;
			ad->base.spread_hi = hi > ad->base.spread_hi ? hi : ad->base.spread_hi;
		}
}

/* A range must carry the spread the machine shows, not only the builds
 * recorded: two builds that happen to agree gave a range of 3 % where the
 * same step moved by 13 % in the next sitting. Every probe repeated in this
 * run (the header, empty, table and narrow probes) of a second or more
 * shows how far one compile moves here; the widest of them widens the
 * builds'. A shorter one moves by its start-up's noise, not the
 * machine's: an empty probe of 17 ms moved by 58 % on 16 CPUs, and the
 * ranges of minute-long builds took it. */
#define MACHINE_PROBE_SECONDS 1.0

void baseline_widen_to_machine(struct advise *ad)
{
	ad->base.builds_lo = ad->base.spread_lo > 0 ? ad->base.spread_lo : 1;
	ad->base.builds_hi = ad->base.spread_hi > 0 ? ad->base.spread_hi : 1;
	ad->base.machine_lo = ad->base.machine_hi = 1;
	for (size_t i = 0; i < ad->probes.pass.ntus; i++) {
		const struct pass_tu *p = probed(ad, (long)i);
		if (!p || p->wall.n < 2 || p->wall.median < MACHINE_PROBE_SECONDS)
			continue;
		double lo = p->wall.min / p->wall.median, hi = p->wall.max / p->wall.median;
		ad->base.machine_lo = lo < ad->base.machine_lo ? lo : ad->base.machine_lo;
		ad->base.machine_hi = hi > ad->base.machine_hi ? hi : ad->base.machine_hi;
	}
	ad->base.spread_lo = ad->base.machine_lo < ad->base.builds_lo ? ad->base.machine_lo : ad->base.builds_lo;
	ad->base.spread_hi = ad->base.machine_hi > ad->base.builds_hi ? ad->base.machine_hi : ad->base.builds_hi;
}

void baseline_free(struct advise_baseline *b)
{
	if (b->measured)
		measurement_free(&b->m);
	free(b->seconds);
	free(b->source);
	recent_builds_free(&b->recent);
}
