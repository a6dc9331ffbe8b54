/* jobs: more jobs, up to the CPUs and held to the memory there is (the
 * fastest -j whose predicted peak fits, fewer jobs first where the build's
 * own -j does not); with --remote, the compiles sent to a cluster's slots
 * (distcc, icecream), each compile's share there on them. */
#include "rule.h"
#include "rule_kit.h"
#include "out_table.h"
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

/* The -j the rule moves to: the CPUs', or the fastest that fits the
 * memory where the peaks are known (1 where none fits). */
static long jobs_to(const struct advice_input *in)
{
	const struct memory_plan *mp = in->memory;
	if (!mp)
		return in->cpus;
	return mp->best >= 0 ? mp->rows[mp->best].jobs : 1;
}

/* The row of -j `jobs` in the memory plan, or NULL. */
static const struct jobs_row *row_at(const struct memory_plan *mp, long jobs)
{
	return mp && jobs >= 1 && (size_t)jobs <= mp->n ? &mp->rows[jobs - 1] : NULL;
}

/* "1.1 GiB usable (MemAvailable in /proc/meminfo less 10 %)" (owned). */
static char *usable_words(const struct advice_input *in)
{
	char *usable = format_kib((long)in->memory->usable_kb);
	char *s = xasprintf("%s usable (%s less %.0f %%)", usable, in->memory_from, MEMORY_MARGIN * 100);
	free(usable);
	return s;
}

/* How the memory was predicted (owned). */
static char *memory_measured_by(const struct advice_input *in, long jobs)
{
	size_t unknown = in->memory->unknown;
	return xasprintf("the same durations scheduled at -j %ld, each step holding its process tree's measured peak "
			 "from its start to its end%s%s", jobs, unknown ? "; steps without a measured peak counted as none: " : "",
			 unknown ? "advise --memory SIZE measures them" : "");
}

/* The build's own -j needs more than there is: fewer jobs, said first. */
static bool does_not_fit(const struct advice_input *in, struct fix *f)
{
	const struct jobs_row *now = row_at(in->memory, in->sched.jobs);
	if (!now || now->fits)
		return false;
	char *need = format_kib((long)now->p.peak_kb), *usable = usable_words(in);
	long to = jobs_to(in);
	const struct jobs_row *then = row_at(in->memory, to);
	char *then_need = format_kib((long)then->p.peak_kb);
	f->title = "run fewer jobs: the build's -j needs more memory than there is";
	f->evidence = xasprintf("-j %d needs %s at its predicted peak, more than the %s: %s%ld, whose peak is %s", in->sched.jobs,
				need, usable, in->memory->best >= 0 ? "the fastest that fits is -j " : "not even one job fits; -j ",
				to, then_need);
	f->measured_by = memory_measured_by(in, to);
	free(need);
	free(usable);
	free(then_need);
	return true;
}

/* Where memory holds -j below the CPUs: what the next faster needs (owned). */
static char *held_by_memory(const struct advice_input *in)
{
	const struct memory_plan *mp = in->memory;
	if (!mp || mp->faster < 0)
		return xstrdup("");
	const struct jobs_row *f = &mp->rows[mp->faster];
	char *need = format_kib((long)f->p.peak_kb), *usable = usable_words(in);
	char *s = xasprintf("; -j %ld would be faster (%.1f s) and needs %s at its peak, more than the %s", f->jobs,
			    f->p.wall, need, usable);
	free(need);
	free(usable);
	return s;
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
	if (does_not_fit(in, f))
		return;
	long to = jobs_to(in);
	char *held = held_by_memory(in);
	if (in->sched.jobs >= to || in->ntus <= (size_t)in->sched.jobs) {
		f->not_applicable = xasprintf("-j %d for %zu compile steps on %ld CPUs%s", in->sched.jobs, in->ntus, in->cpus,
					      held);
		free(held);
		return;
	}
	f->evidence = xasprintf("-j %d runs fewer jobs than the %ld CPUs, with %zu compile steps to run%s", in->sched.jobs,
				in->cpus, in->ntus, held);
	f->measured_by = in->memory ? memory_measured_by(in, to) : xasprintf("the same durations scheduled at -j %ld", to);
	free(held);
}

/* The CPUs here, or the cluster: each compile's share there on its slots,
 * ninja running a job for every slot and core. */
static void more_jobs(struct fix_edit *e)
{
	const struct advice_input *in = e->in;
	if (!in->remote.slots) {
		e->o->jobs = (int)jobs_to(in);
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
