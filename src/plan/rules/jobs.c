/* jobs: more jobs, up to the CPUs; with --remote, the compiles sent to a
 * cluster's slots (distcc, icecream), each compile's share there on them. */
#include "rule.h"
#include "rule_kit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the cluster rule knows of the network (owned). */
static char *network_words(const struct advice_input *in)
{
	if (in->network)
		return xasprintf("the network %.3f s a compile + %.3f s a MiB preprocessed (probes through distcc less the "
				 "same compile here)", in->network->fixed_s, in->network->per_byte_s * 1048576);
	if (in->launcher)
		return xasprintf("the network in the baseline's durations (timed through %s)", in->launcher);
	return xstrdup("the network not timed (--probe-net times it)");
}

static void rule_cluster(const struct advice_input *in, struct fix *f)
{
	size_t sent = 0;
	for (size_t i = 0; i < in->build->n; i++)
		sent += in->remote_share[i] > 0;
	if (!sent) {
		f->not_applicable = xasprintf("no compile to send to the %ld remote slots (%s)", in->remote.slots,
					      in->remote_from ? "the distcc log shows none sent" : "none found");
		return;
	}
	f->title = "send the compiles to the cluster's remote slots (distcc, icecream)";
	f->evidence = xasprintf("%ld remote slot%s offered (--remote) for %zu compile%s, -j %ld (the slots and the %ld CPUs)",
				in->remote.slots, in->remote.slots == 1 ? "" : "s", sent, sent == 1 ? "" : "s",
				in->remote.slots + in->cpus, in->cpus);
	if (in->remote_from) {
		f->measured_by = xasprintf("each compile's remote hold from %s (at %.2gx), its part here and the links on "
					   "the CPUs here", in->remote_from, in->remote.speed);
	} else if (in->local_probed) {
		char *network = network_words(in);
		f->measured_by = xasprintf("each sent compile's time less its preprocessing on a remote slot (at %.2gx); its "
					   "preprocessing (timed here for %zu of %zu: distcc's client runs it) and the links "
					   "on the CPUs here; %s", in->remote.speed, in->local_probed, sent, network);
		free(network);
	} else {
		f->measured_by = xasprintf("each sent compile's whole time on a remote slot (at %.2gx; no --distcc-log to "
					   "split off its preprocessing here)", in->remote.speed);
	}
}

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	(void)evidence;
	if (in->remote.slots) {
		rule_cluster(in, f);
		return;
	}
	/* Behind a cluster more jobs than CPUs is the point: this machine's
	 * CPUs say nothing of the slots. */
	if (in->launcher) {
		f->not_applicable = xasprintf("the compiles run behind %s: --remote N (the cluster's slots) and --distcc-log "
					      "FILE price more jobs on the cluster", in->launcher);
		return;
	}
	if (in->sched.jobs >= in->cpus || in->ntus <= (size_t)in->sched.jobs) {
		f->not_applicable = xasprintf("-j %d for %zu compile steps on %ld CPUs", in->sched.jobs, in->ntus, in->cpus);
		return;
	}
	f->evidence = xasprintf("-j %d runs fewer jobs than the %ld CPUs, with %zu compile steps to run", in->sched.jobs,
				in->cpus, in->ntus);
	f->measured_by = xasprintf("the same durations scheduled at -j %ld", in->cpus);
}

/* The CPUs here, or the cluster: each compile's share there on its slots,
 * ninja running a job for every slot and core. */
static void more_jobs(struct fix_edit *e)
{
	const struct advice_input *in = e->in;
	if (!in->remote.slots) {
		e->o->jobs = (int)in->cpus;
		return;
	}
	for (size_t i = 0; i < in->build->n; i++) {
		double there = e->m->nodes[i].duration * in->remote_share[i];
		bool sent = there > 0 && in->remote_network && !isnan(in->remote_network[i]);
		e->m->nodes[i].duration -= there;
		e->m->nodes[i].remote = there / in->remote.speed + (sent ? in->remote_network[i] : 0);
	}
	e->o->remote_slots = (int)in->remote.slots;
	e->o->jobs = (int)(in->remote.slots + in->cpus);
}

/* With a cluster: which step sets the wall then. */
static void conclude(const struct advice_input *in, struct advice *a, struct fix *f)
{
	(void)a;
	if (!in->remote.slots || f->alone.gate >= in->build->n)
		return;
	char *with = xasprintf("%s; with them the wall is %.1f s and %s sets it", f->measured_by, f->alone.wall,
			       in->build->edges[f->alone.gate].outputs.v[0]);
	free(f->measured_by);
	f->measured_by = with;
}

const struct fix_rule rule_jobs = {
	.name = "jobs",
	.title = "run as many jobs as there are CPUs",
	.apply = apply,
	.edit_graph = more_jobs,
	.conclude = conclude,
};
