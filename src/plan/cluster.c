/* advise's cluster: the launcher the baseline's durations went through,
 * and the share of each compile a cluster's remote slots would take. */
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

/* The baseline's runs through the launcher: sent, kept here, and the
 * hosts that failed some (their runs compiled here instead). */
struct cluster_runs cluster_runs(const struct advise *ad)
{
	struct cluster_runs c = { 0 };
	if (ad->saved) {
		json_t *saved = json_object_get(json_object_get(ad->saved, "baseline"), "cluster");
		return (struct cluster_runs){ (size_t)json_integer_value(json_object_get(saved, "sent")),
					      (size_t)json_integer_value(json_object_get(saved, "kept_here")),
					      (size_t)json_integer_value(json_object_get(saved, "cluster_failed")) };
	}
	for (size_t i = 0; ad->cluster.launcher && i < ad->base.m.ntus; i++) {
		c.sent += ad->base.m.tus[i].sent;
		c.kept_here += ad->base.m.tus[i].kept_here;
		c.fell_back += ad->base.m.tus[i].fell_back;
	}
	return c;
}

/* The launcher the baseline's durations went through, if any: --launcher's
 * (timed through it here), else the one the build's compiles run behind
 * (recorded through it). Such durations hold the network already. */
const char *cluster_baseline_launcher(const struct advise *ad)
{
	if (ad->cluster.launcher)
		return ad->cluster.launcher;
	const struct ninja_build *b = &ad->build;
	for (size_t i = 0; i < b->n; i++) {
		const char *l = ninja_edge_is_compile(&b->edges[i]) ? cluster_launcher(b->edges[i].command, b->dir) : NULL;
		if (l)
			return l;
	}
	return NULL;
}

/* Per edge, the share of its baseline time a cluster takes: what the
 * distcc log shows held there, else each sent compile's time less its
 * preprocessing, timed here (a distcc client's part); with probe_net the
 * network's cost of each sent compile besides (net_probe_build), for a
 * baseline timed here: one timed through the cluster holds it already. */
double *cluster_remote_shares(struct advise *ad)
{
	struct local_probe lp = { 0 };
	if (!ad->cluster.distcc_path) {
		bool *sent = cluster_sent(&ad->build);
		local_probe_run(&ad->build, ad->dir, sent, cpu_count(), ad->timeout, &lp);
		proc_exit_if_interrupted();
		ad->failures += lp.failed;
		ad->cluster.local_probed = lp.probed;
		const char *launcher = cluster_baseline_launcher(ad);
		if (ad->cluster.probe_net && launcher)
			warn("--probe-net: the baseline's durations were timed through %s and hold the network already; "
			     "nothing added", launcher);
		else if (ad->cluster.probe_net) {
			char *err = NULL;
			if (!net_probe_build(&ad->build, ad->dir, sent, lp.bytes, &ad->cluster.net, &ad->cluster.network, &err))
				die(EXIT_BAD_INPUT, "--probe-net: %s", err);
		}
		free(sent);
	}
	struct cluster_split cs;
	cluster_split(&ad->build, ad->base.seconds, ad->cluster.distcc_path ? &ad->cluster.distcc : NULL, lp.seconds, NULL, 1, &cs);
	local_probe_free(&lp);
	double *share = xcalloc(ad->build.n, sizeof(double));
	for (size_t i = 0; i < ad->build.n; i++)
		share[i] = cs.there[i] > 0 ? cs.there[i] / (cs.here[i] + cs.there[i]) : 0;
	cluster_split_free(&cs);
	return share;
}

void cluster_free(struct advise_cluster *c)
{
	free(c->share);
	free(c->network);
	distcc_log_free(&c->distcc);
}
