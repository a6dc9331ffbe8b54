/* advise's load curve: how much a compile slows beside others here,
 * measured on the build's own heaviest host TU (or a header probe), and
 * the recorded durations isolated by it. */
#define _GNU_SOURCE
#include "walk.h"
#include "rule.h"
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

/* The heavy compile steps of the build that can run at once: the job
 * count, the CPUs and the TUs bound it. */
static size_t load_levels(const struct advise *ad)
{
	long top = ad->jobs < cpu_count() ? ad->jobs : cpu_count();
	return top < (long)ad->ntus ? (size_t)(top > 0 ? top : 1) : ad->ntus;
}

/* The heaviest host TU, -1: none, or none that takes a quarter of the
 * heaviest compile (a few-second glue TU beside minute-long kernels says
 * little of how they slow each other). A dispatcher or binding is what
 * the fixes leave to set the wall (they take the framework out of the
 * kernel TUs and move the glue into host TUs), and its compile is the
 * build's own: front end and back end. A header probe, parsing alone,
 * read 1.01 with 8 at once where the binding TU it stood for slowed by
 * 1.1-1.2. *of_all: it is the heaviest compile of all. */
static long load_subject(const struct advise *ad, bool *of_all)
{
	long heaviest = -1;
	double most = 0;
	for (size_t i = 0; i < ad->ntus; i++) {
		double s = ad->base.seconds[ad->tus[i].f.edge];
		if (isnan(s))
			continue;
		most = s > most ? s : most;
		if (!ad->tus[i].f.kernel && (heaviest < 0 || s > ad->base.seconds[ad->tus[heaviest].f.edge]))
			heaviest = (long)i;
	}
	*of_all = heaviest >= 0 && ad->base.seconds[ad->tus[heaviest].f.edge] >= most;
	return heaviest >= 0 && ad->base.seconds[ad->tus[heaviest].f.edge] >= most / 4 ? heaviest : -1;
}

/* Copies of the load curve's compile, outputs apart: the heaviest host
 * TU as the build compiles it (with a proven edit, below), else a header
 * probe (the framework parsed with a TU's own command; the group whose TU
 * is quickest, for the time it takes). Returns how many were made; *what says what they compile
 * (owned), NULL when none could be. */
static size_t load_commands(struct advise *ad, size_t levels, struct compile_command *cmds, char **what)
{
	*what = NULL;
	bool of_all;
	long subject = load_subject(ad, &of_all);
	/* With a proven edit the TU as the fix leaves it, where it is the
	 * build's heaviest compile (a torch extension's host TUs): what sets
	 * the wall after the fix, and half the compile. Beside heavier kernel
	 * TUs the edited TU is a short compile unlike theirs; the TU as it is
	 * stands for them as before. */
	for (int id = 0; subject >= 0 && of_all && id < NFIXES; id++) {
		const struct rule_walk *w = fix_rules[id]->walk;
		if (w && w->edited && ad->evidence[id] &&
		    w->edited(ad, ad->evidence[id], (size_t)subject, levels, "load", cmds)) {
			ad->load.shared_by = ad->evidence[id];
			*what = xasprintf("%s compiled as the build does with %s's proven edit (the heaviest host TU as "
					  "the fix leaves it: what sets the wall after it)",
					  ad->tus[subject].f.name, fix_rules[id]->name);
			return levels;
		}
	}
	if (subject >= 0) {
		const struct advise_tu *t = &ad->tus[subject];
		for (size_t n = 0; n < levels; n++) {
			char *sub = xasprintf("load-%zu", n);
			steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmds[n], &ad->stripped);
			free(sub);
		}
		*what = xasprintf("%s compiled as the build does (the heaviest host TU: what the fixes leave to set "
				  "the wall)", t->f.name);
		return levels;
	}
	long quickest = -1;
	for (size_t g = 0; g < ad->probes.ngroups; g++)
		if (ad->probes.groups[g].source && (quickest < 0 || ad->base.seconds[ad->tus[ad->probes.groups[g].donor].f.edge] <
								 ad->base.seconds[ad->tus[ad->probes.groups[quickest].donor].f.edge]))
			quickest = (long)g;
	if (quickest < 0)
		return 0;
	const struct probe_group *pg = &ad->probes.groups[quickest];
	size_t n = 0;
	for (; n < levels; n++) {
		char *sub = xasprintf("load-%zu", n);
		bool ok = probe_command(ad, &ad->tus[pg->donor], sub, pg->source, &cmds[n]);
		free(sub);
		if (!ok)
			break;
	}
	char *headers = strvec_join(&pg->headers, ", ");
	*what = xasprintf("the header probe (%s) compiled with %s's command", headers, ad->tus[pg->donor].f.name);
	free(headers);
	return n;
}

/* The recorded builds' durations isolated by the curve, at its middle
 * and at either end of its spread. */
static void isolate_baseline(struct advise *ad)
{
	if (ad->base.recent.n)
		recent_builds_durations(&ad->base.recent, &ad->load.curve, ad->base.seconds, NULL, NULL);
	for (int steep = 0; steep < 2; steep++) {
		struct curve_end_input *end = &ad->load.ends[steep];
		ad->load.spread |= load_curve_end(&ad->load.curve, steep, &end->curve);
		double *seconds = ad->load.end_seconds[steep] = xcalloc(ad->build.n ? ad->build.n : 1, sizeof(double));
		memcpy(seconds, ad->base.seconds, ad->build.n * sizeof(double));
		if (ad->base.recent.n)
			recent_builds_durations(&ad->base.recent, &end->curve, seconds, NULL, NULL);
		end->seconds = seconds;
	}
}

static char *settled_words(const struct advise *ad)
{
	if (!ad->settle)
		return xasprintf("at least %ld walls a level", ad->repeats);
	char *settled = xasprintf("%ld walls a level or two that agree within %.0f %%", ad->repeats, 100 * WALLS_AGREE);
	if (!ad->load.unsettled)
		return settled;
	char *words = xasprintf("%s, or two that did not where another round would have taken advise past %d "
				"recorded builds", settled, ADVISE_BUDGET_BUILDS);
	free(settled);
	return words;
}

/* From this many heavy compiles at once the build runs, the curve's
 * at-once level runs among the probes: the probes run as many at once as
 * the build runs its compiles, the curve's copies first, beside the
 * probes that run anyway (their neighbours compiles as a build's are),
 * and two copies at once stand for alone, a round giving two walls that
 * can agree. Of advise's cost on 16 CPUs the curve's rounds of their own
 * were 81 s of 202. The width is the build's the whole phase through, so
 * that a probe that starts late (a narrow header probe) and one that
 * starts first (the umbrella's, expected to take longer) see the same
 * contention: a difference of the two is a saving. */
#define LOAD_AMONG_PROBES_FROM 4
/* The at-once level must run this many compiles more than the pair's to
 * give the line a slope. */
#define LOAD_LEVELS_APART 0.5

/* The load curve before the probes: on a few CPUs one compile run alone
 * and n at once (load_commands), the rounds interleaved, and the recorded
 * builds' durations isolated by it; on many, two copies at once now, and
 * copies to run among the probes (finish_load_curve reads them). */
void load_calibrate(struct advise *ad)
{
	size_t levels = load_levels(ad);
	if (ad->cluster.launcher) {
		ad->load.curve = (struct load_curve){ .cores = 0 };	/* nor do they share the CPUs here */
		ad->load.source = xasprintf("none: the compiles run on the cluster's hosts (--launcher %s), not beside "
					    "each other here", ad->cluster.launcher);
		return;
	}
	if (ad->base.measured) {
		load_curve_linear(&ad->load.curve, ad->base.m.contention.share, ad->base.m.contention.cores);
		ad->load.source = contention_text(&ad->base.m.contention);
		return;
	}
	/* The walls run the build's own load, before and after the edit: the
	 * recorded durations stand as they ran, and the curve's rounds (on 16
	 * CPUs a third of advise's cost on pytorch_scatter) would say nothing
	 * the walls do not. */
	if (ad->load.timed_as_built) {
		ad->load.curve = (struct load_curve){ .cores = (double)cpu_count() };
		ad->load.source = xstrdup("none: a proven edit's walls ran every TU at once as the recorded builds did, "
					  "their durations taken as recorded");
		isolate_baseline(ad);
		return;
	}
	struct compile_command *cmds = xcalloc(levels, sizeof(*cmds));
	size_t n = levels < 2 ? 0 : load_commands(ad, levels, cmds, &ad->load.what);
	size_t declined = ad->budget.declined;
	if (n < 2) {
		ad->load.curve = (struct load_curve){ .cores = (double)cpu_count() };
		ad->load.source = xstrdup(levels < 2 ? "none: one job at a time" : "none: no TU to run side by side");
	} else if (n >= LOAD_AMONG_PROBES_FROM && ad->parallel >= (long)n) {
		ad->load.pair = load_probe_level("load curve", ad->dir, cmds, 2, ad->repeats, advise_settling(ad), ad->timeout, &ad->load.npair,
						 &ad->failures);
		ad->load.unsettled = ad->budget.declined > declined;
		if (ad->load.shared_by && ad->load.npair) {
			ad->load.shared = xcalloc(ad->load.npair, sizeof(double));
			memcpy(ad->load.shared, ad->load.pair, ad->load.npair * sizeof(double));
			ad->load.nshared = ad->load.npair;
		}
		if (!ad->load.npair) {
			ad->load.curve = (struct load_curve){ .cores = (double)cpu_count() };
			ad->load.source = xstrdup("none: its compile failed (its output above)");
		}
		size_t ready = 0;	/* probes that can start beside the copies */
		for (size_t i = 0; i < ad->probes.pass.ntus; i++)
			ready += ad->probes.pass.tus[i].fallback_for < 0;
		size_t copies = n - (ready < n / 2 ? ready : n / 2);
		ad->load.first = (long)ad->probes.pass.ntus;
		for (size_t i = 0; ad->load.npair && i < copies; i++) {
			char *name = xasprintf("load curve copy %zu of %zu", i + 1, copies);
			struct pass_tu *copy = pass_probe_add(&ad->probes.pass, name, 0, &cmds[i]);
			copy->leads = true;
			copy->expect_s = median_of(ad->load.pair, ad->load.npair);
			free(name);
		}
		ad->load.copies = ad->load.npair ? (long)copies : 0;
		ad->probes.pass.parallel = (long)n;
	} else {
		double *top = NULL;
		size_t ntop = 0;
		load_probe_measure(ad->dir, cmds, n, ad->repeats, advise_settling(ad), ad->timeout, &ad->load.curve, &ad->failures,
				   &top, &ntop);
		ad->load.unsettled = ad->budget.declined > declined;
		if (ad->load.shared_by && n == 2) {
			ad->load.shared = top, ad->load.nshared = ntop;
			top = NULL;
		}
		free(top);
		ad->load.curve.cores = (double)cpu_count();
		char *settled = settled_words(ad);
		ad->load.source = xasprintf("%s, 1 to %zu at once, %s", ad->load.what, n, settled);
		free(settled);
	}
	for (size_t i = 0; i < n; i++)
		compile_command_clear(&cmds[i]);
	free(cmds);
	if (!ad->load.npair)
		isolate_baseline(ad);
}

/* The curve from the two copies at once and the copies run among the
 * probes (the level their median of compiles at once, itself included),
 * then the recorded durations isolated by it. */
void load_finish(struct advise *ad)
{
	if (!ad->load.npair)
		return;
	double *walls = xcalloc((size_t)ad->load.copies + 1, sizeof(double));
	double *running = xcalloc((size_t)ad->load.copies + 1, sizeof(double));
	size_t nwalls = 0;
	for (long i = ad->load.first; i < ad->load.first + ad->load.copies; i++) {
		const struct pass_tu *t = &ad->probes.pass.tus[i];
		if (t->failed || !t->nwalls)
			continue;
		walls[nwalls] = t->walls[0];
		running[nwalls++] = pass_probe_running(&ad->probes.pass, (size_t)i);
	}
	double at_once = nwalls ? median_of(running, nwalls) : 0;
	ad->load.curve = (struct load_curve){ 0 };
	if (at_once >= 2 + LOAD_LEVELS_APART && load_curve_from_two(&ad->load.curve, 2, ad->load.pair, ad->load.npair, at_once, walls, nwalls)) {
		char *settled = settled_words(ad);
		ad->load.source = xasprintf("%s: 2 at once in rounds of their own (%s), %zu copies among the probes "
					    "(%.1f compiles at once, the median over their runs); alone where the line "
					    "through the two levels meets one job", ad->load.what, settled, nwalls,
					    at_once);
		free(settled);
	} else {
		ad->load.source = xasprintf("none: its copies among the probes ran %s", nwalls ? "too few beside them"
											 : "nowhere (they failed)");
	}
	ad->load.curve.cores = (double)cpu_count();
	free(walls);
	free(running);
	isolate_baseline(ad);
}

void load_free(struct advise_load *l)
{
	free(l->end_seconds[0]);
	free(l->end_seconds[1]);
	free(l->source);
	free(l->what);
	free(l->pair);
	free(l->shared);
}
