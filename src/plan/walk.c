/* advise's walk: the evidence gathered part by part (baseline.c, tus.c,
 * probes.c, load.c, cluster.c), then the advice model (model/advice.c)
 * over it: the fixes, the predicted walls and the plan. advise and report
 * call it in-process; the build directory is only read. What a walk
 * gathers: the baseline durations (the latest builds in .ninja_log, else
 * rank's measurement), every TU's host and device passes preprocessed
 * with their include chains (pp, leak), the pass probe on the slowest
 * kernel TU and one instance of each family, and probe TUs compiled with
 * the TUs' own commands: the framework's headers against an empty TU, a
 * dispatch table against a flat one, the generated instances in one TU
 * (the fused probe). */
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


void advise_free(struct advise *ad)
{
	tus_free(ad->tus, ad->ntus);
	probes_free(&ad->probes);
	baseline_free(&ad->base);
	load_free(&ad->load);
	cluster_free(&ad->cluster);
	for (int id = 0; id < NFIXES; id++)
		if (ad->evidence[id])
			fix_rules[id]->walk->free(ad->evidence[id]);
	advice_free(&ad->advice);
	strvec_clear(&ad->stripped);
	free(ad->curve);
	free(ad->step_memory);
	memory_plan_free(&ad->memory);
	strmap_free(&ad->file_index);
	strvec_clear(&ad->file_names);
	strvec_clear(&ad->project_files);
	for (size_t i = 0; i < ad->npatches; i++)
		free(ad->patches[i].path);
	free(ad->patches);
	free(ad->file_facts);
	free(ad->policy_why);
	ninja_build_free(&ad->build);
	json_decref(ad->saved);	/* last: dir and the launchers may be its strings */
	free(ad);
}

/* The phase under way ends: its wall is added to `what`. */
static void phase_done(struct advise *ad, enum spent what)
{
	double now = monotonic_seconds();
	ad->spent[what] += now - ad->spent_at;
	ad->spent_at = now;
}

struct settle_budget *advise_settling(struct advise *ad)
{
	return ad->settle ? &ad->budget : NULL;
}

/* What the budget keeps: the first rounds still to come of the rules'
 * own timings and of the pass probe. */
static double first_rounds_ahead(void *ctx)
{
	const struct advise *ad = ctx;
	double ahead = probes_ahead(ad);
	for (int id = 0; id < NFIXES; id++)
		if (ad->evidence[id] && fix_rules[id]->walk->ahead)
			ahead += fix_rules[id]->walk->ahead(ad->evidence[id]);
	return ahead;
}

/* The settling rounds' budget: ADVISE_BUDGET_BUILDS recorded builds from
 * advise's start. A baseline measured here has no recorded build to hold
 * to (its own runs cost more than one): no limit. */
static void budget_from(struct advise *ad, double started)
{
	if (!isnan(ad->base.recorded_wall) && ad->base.recorded_wall > 0)
		ad->budget = (struct settle_budget){ .until = started + ADVISE_BUDGET_BUILDS * ad->base.recorded_wall,
						     .ahead = first_rounds_ahead, .ctx = ad };
}

/* The baseline predicted at -j 1 up to twice the CPUs (at least 8), the
 * jobs the build asks for included: where more jobs stop paying. */
static void jobs_curve(struct advise *ad, const struct sched_options *base)
{
	long top = 2 * ad->cpus > 8 ? 2 * ad->cpus : 8;
	if (ad->jobs > top)
		top = ad->jobs;
	struct model m;
	model_from_build(&m, &ad->build, ad->base.seconds);
	if (ad->step_memory)
		model_set_memory(&m, ad->step_memory, ad->build.n);
	ad->curve = xcalloc((size_t)top, sizeof(*ad->curve));
	for (long j = 1; j <= top; j++) {
		struct sched_options o = *base;
		o.jobs = (int)j;
		if (!model_predict(&m, &o, &ad->curve[ad->ncurve]))
			break;
		ad->ncurve++;
	}
	model_free(&m);
}

/* The advice model over the evidence, measured or saved (advise_from):
 * the fixes, the plan and the jobs curve. */
void advise_model(struct advise *ad)
{
	struct tu_facts *facts = advise_facts(ad);
	const struct sched_options sched = { .jobs = (int)ad->jobs, .policy = ad->policy, .cores = ad->load.curve.cores,
					     .curve = &ad->load.curve };
	memory_plan_jobs(ad, &sched);
	const struct advice_input in = { .build = &ad->build, .seconds = ad->base.seconds, .tus = facts, .ntus = ad->ntus,
					 .sched = sched,
					 .cpus = ad->cpus, .spread_lo = ad->base.spread_lo, .spread_hi = ad->base.spread_hi,
					 .remote = ad->cluster.remote, .remote_share = ad->cluster.share,
					 .remote_from = ad->cluster.distcc_path, .local_probed = ad->cluster.local_probed,
					 .remote_network = ad->cluster.network, .network = ad->cluster.network ? &ad->cluster.net : NULL,
					 .launcher = ad->cluster.build_launcher,
					 .fused = ad->probes.fused_measured ? &ad->probes.fused : NULL,
					 .fused_narrow = ad->probes.fused_narrow_group >= 0 && ad->probes.groups[ad->probes.fused_narrow_group].measured
						? &ad->probes.groups[ad->probes.fused_narrow_group].cost : NULL,
					 .curve_ends = ad->load.spread ? ad->load.ends : NULL,
					 .step_memory = ad->step_memory, .memory = ad->memory.rows ? &ad->memory : NULL,
					 .memory_from = ad->memory_from,
					 .rules = fix_rules, .evidence = (const void *const *)ad->evidence };
	advice_build(&in, &ad->advice);
	free(facts);
	jobs_curve(ad, &in.sched);
}

struct tu_facts *advise_facts(const struct advise *ad)
{
	struct tu_facts *facts = xcalloc(ad->ntus + 1, sizeof(*facts));
	for (size_t i = 0; i < ad->ntus; i++)
		facts[i] = ad->tus[i].f;
	return facts;
}

bool walk_edit_proves(const struct advise *ad, size_t tu)
{
	for (int id = 0; id < NFIXES; id++) {
		const struct rule_walk *w = fix_rules[id]->walk;
		if (w && w->proves && ad->evidence[id] && w->proves(ad->evidence[id], tu))
			return true;
	}
	return false;
}

struct advise *advise_collect(const struct advise_options *o)
{
	struct advise *ad = xcalloc(1, sizeof(*ad));
	ad->dir = o->dir;
	ad->cpus = cpu_count();
	ad->jobs = o->jobs;
	ad->parallel = o->parallel < PROC_MAX_RUNNING ? o->parallel : PROC_MAX_RUNNING;
	ad->timeout = o->timeout;
	ad->repeats = o->repeats > 0 ? o->repeats : ADVISE_REPEATS;
	ad->settle = o->repeats <= 0;
	ad->kernels = o->kernels;
	ad->cluster.remote = o->remote;
	ad->probes.fused_tu = ad->probes.fused_apart_tu = ad->probes.fused_one_tu = ad->probes.fused_narrow_group = -1;
	ad->cluster.distcc_path = o->distcc_log;
	ad->cluster.probe_net = o->probe_net;
	ad->cluster.launcher = o->launcher;
	ad->spent_at = monotonic_seconds();
	ad->project = o->project;
	snapshot_guard(ad->dir);
	if (ad->cluster.distcc_path) {	/* bad input before any probe */
		char *err = NULL;
		if (!distcc_log_read(ad->cluster.distcc_path, &ad->cluster.distcc, &err))
			die(EXIT_BAD_INPUT, "%s", err);
	}
	ninja_load(ad->dir, &ad->build);
	if (o->policy.given) {
		ad->policy = o->policy.policy;
		ad->policy_why = xstrdup("--policy");
	} else {
		ad->policy = ninja_policy(&ad->policy_why);
	}
	bool *selected = xcalloc(ad->build.n, sizeof(bool));
	steps_select(o->cmd, &ad->build, o->targets, o->ntargets, selected);
	ad->tus = xcalloc(ad->build.n, sizeof(*ad->tus));
	for (size_t i = 0; i < ad->build.n; i++) {
		if (!selected[i])
			continue;
		steps_check_built(ad->dir, &ad->build.edges[i]);
		ad->tus[ad->ntus++] = (struct advise_tu){ .f = { .edge = i, .name = ad->build.edges[i].outputs.v[0],
							       .glue = NAN, .table_saving = NAN },
							.group = -1, .probe_tu = -1, .table_tu = -1, .flat_tu = -1,
							.narrow_group = -1 };
	}
	double started = ad->spent_at;
	baseline_measure(ad, selected);
	free(selected);
	budget_from(ad, started);
	phase_done(ad, SPENT_BASELINE);

	tus_preprocess(ad);
	tus_mark_generated(ad);
	tus_read_sources(ad);
	phase_done(ad, SPENT_PREPROCESS);
	/* The probes run here: at most one a CPU when P counts the cluster's slots. */
	long here = ad->cluster.launcher && ad->parallel > cpu_count() ? cpu_count() : ad->parallel;
	ad->probes.pass = (struct pass_probe){ .dir = ad->dir, .build = &ad->build, .repeats = ad->repeats,
					.settle = advise_settling(ad), .parallel = here, .timeout = ad->timeout, .th = { 5.0, 0.7 } };
	probes_plan_headers(ad);
	for (size_t i = 0; i < ad->ntus; i++)
		if (!ad->tus[i].f.kernel)
			probes_plan_tables(ad, &ad->tus[i], i);
	probes_plan_fused(ad);
	probes_plan_tus(ad);
	probes_plan_narrow(ad);
	for (int id = 0; id < NFIXES; id++)
		if (fix_rules[id]->walk)
			ad->evidence[id] = fix_rules[id]->walk->ask(ad);
	probes_drop_unread(ad);
	steps_note_stripped(&ad->stripped);
	phase_done(ad, SPENT_TABLES);
	probes_warm_up(ad);
	load_calibrate(ad);
	phase_done(ad, SPENT_LOAD_CURVE);
	for (int id = 0; id < NFIXES; id++)
		if (ad->evidence[id] && fix_rules[id]->walk->time)
			fix_rules[id]->walk->time(ad, ad->evidence[id]);
	pass_probe_run(&ad->probes.pass);
	ad->failures += ad->probes.pass.failures;
	load_finish(ad);
	probes_read(ad);
	for (int id = 0; id < NFIXES; id++)
		if (ad->evidence[id])
			fix_rules[id]->walk->read(ad, ad->evidence[id]);
	baseline_widen_to_machine(ad);
	if (ad->kernels)
		probes_find_kernels(ad);
	memory_collect(ad, o->memory_kb);
	phase_done(ad, SPENT_PROBES);
	if (ad->budget.declined)
		note("%zu settling round%s not run, to end within %d recorded builds (a level, a side or a probe keeps the "
		     "two walls it has, their spread in its range; --repeats %d runs every round)", ad->budget.declined,
		     ad->budget.declined == 1 ? "" : "s", ADVISE_BUDGET_BUILDS, ADVISE_REPEATS);

	if (ad->cluster.remote.slots)
		ad->cluster.share = cluster_remote_shares(ad);
	ad->cluster.build_launcher = cluster_baseline_launcher(ad);
	advise_hold_inputs(ad);
	advise_model(ad);
	proc_exit_if_interrupted();
	phase_done(ad, SPENT_MODEL);
	return ad;
}

size_t advise_failures(const struct advise *ad)
{
	return ad->failures;
}
