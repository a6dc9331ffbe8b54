/* jobs: more jobs, up to the CPUs and held to the memory there is (the
 * fastest -j whose predicted peak fits, fewer jobs first where the build's
 * own -j does not); with --remote, the compiles sent to a cluster's slots
 * (distcc, icecream), each compile's share there on them.
 * A TU compiled for several device archs can compile them side by side
 * (nvcc --threads N, hipcc -parallel-jobs=N): its wall nearer its longest
 * arch, its memory their sum, N cores busy. The walk times the heaviest
 * such TUs both ways (TIMED_MAX), and the model weighs -j with the archs
 * side by side against -j alone, each held to the memory there is; the
 * other TUs of as many archs take the heaviest one's ratios, said so. */
#include "rule.h"
#include "rule_kit.h"
#include "jobs.h"
#include "memory_plan.h"
#include "out_table.h"
#include "steps.h"
#include "tmpdir.h"
#include "util.h"
#include "walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TIMED_MAX 2

/* A TU timed with its archs one after another and side by side. */
struct side_tu {
	size_t tu;		/* index into the walk's TUs */
	size_t archs;
	char *flag;		/* "--threads 2" */
	long plain, with;	/* its probes; -1: read back */
	double plain_s, with_s;	/* median walls; NaN: unknown */
	double plain_kb, with_kb;	/* process trees' peaks; 0: unknown */
	char *error;		/* side by side it failed: the compiler's first error line */
};

struct jobs_evidence {
	size_t *archs;		/* per TU: the device archs it compiles for (0: not listed) */
	size_t ntus;
	struct side_tu *timed;
	size_t ntimed;
};

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

/* ---- the archs side by side, in the model ---- */

/* The timed TU whose ratios a TU of `archs` archs takes: the heaviest
 * timed one of as many that compiled both ways; NULL: none. */
static const struct side_tu *ratios_for(const struct jobs_evidence *ev, size_t archs)
{
	for (size_t k = 0; archs >= 2 && k < ev->ntimed; k++) {
		const struct side_tu *u = &ev->timed[k];
		if (u->archs == archs && !u->error && u->plain_s > 0 && u->with_s > 0)
			return u;
	}
	return NULL;
}

/* Every TU of several archs with a timed ratio: its duration and peak at
 * that ratio (its peak the archs' sum where the peaks were not timed),
 * keeping busy the cores its work over its wall says (its archs run side
 * by side for part of it only: nvcc's host passes stay one after another),
 * one to as many as archs. The TUs changed. */
static size_t put_side_by_side(const struct advice_input *in, const struct jobs_evidence *ev, struct model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < in->ntus && i < ev->ntus; i++) {
		const struct side_tu *u = ratios_for(ev, ev->archs[i]);
		if (!u)
			continue;
		struct graph_node *node = &m->nodes[in->tus[i].edge];
		node->duration *= u->with_s / u->plain_s;
		node->peak_kb *= u->plain_kb > 0 && u->with_kb > 0 ? u->with_kb / u->plain_kb : (double)u->archs;
		double busy = u->plain_s / u->with_s;
		node->cores = busy < 1 ? 1 : busy > (double)u->archs ? (double)u->archs : busy;
		n++;
	}
	return n;
}

/* A setting: -j and the wall and peak there. */
struct setting {
	long jobs;
	struct prediction p;
	size_t side_tus;	/* TUs with their archs side by side; 0: none */
};

/* The fastest -j that fits (memory_plan's: the fewest jobs of equal
 * walls), over -j 1 to the memory plan's most, else to the CPUs with no
 * limit; the archs side by side or not. False: none fits, or none to put. */
static bool fastest(const struct advice_input *in, const struct jobs_evidence *ev, bool side, struct setting *s)
{
	*s = (struct setting){ 0 };
	if (!side && in->memory) {	/* the plan the walk made of the build as it is */
		if (in->memory->best < 0)
			return false;
		s->jobs = in->memory->rows[in->memory->best].jobs;
		s->p = in->memory->rows[in->memory->best].p;
		return true;
	}
	struct model m;
	model_from_build(&m, in->build, in->seconds);
	if (in->step_memory)
		model_set_memory(&m, in->step_memory, in->build->n);
	s->side_tus = side ? put_side_by_side(in, ev, &m) : 0;
	struct memory_plan mp = { 0 };
	bool found = (!side || s->side_tus) &&
		     memory_plan_make(&m, &in->sched, in->memory ? (long)in->memory->n : in->cpus,
				      in->memory ? in->memory->limit_kb : INFINITY, &mp) &&
		     mp.best >= 0;
	if (found) {
		s->jobs = mp.rows[mp.best].jobs;
		s->p = mp.rows[mp.best].p;
	}
	memory_plan_free(&mp);
	model_free(&m);
	return found;
}

/* The archs side by side pay: their fastest setting that fits is faster
 * than the fastest without by more than 1 %. */
static bool side_by_side_wins(const struct advice_input *in, const struct jobs_evidence *ev, struct setting *side,
			      struct setting *apart)
{
	if (!ev || !ev->ntimed || in->remote.slots || in->launcher || !fastest(in, ev, true, side))
		return false;
	return !fastest(in, ev, false, apart) || side->p.wall < 0.99 * apart->p.wall;
}

/* What the timed TUs showed (owned): "kern.o with --threads 2: 31.0 s
 * against 52.0 s its archs one after another (x0.60), 3.1 GiB at its
 * peak against 1.6 GiB". */
static char *timed_words(const struct jobs_evidence *ev, const struct advice_input *in)
{
	struct strvec parts = { 0 };
	for (size_t k = 0; k < ev->ntimed; k++) {
		const struct side_tu *u = &ev->timed[k];
		const char *name = in->tus[u->tu].name;
		if (u->error) {
			strvec_pushf(&parts, "%s with %s: not taken (%s)", name, u->flag, u->error);
			continue;
		}
		char *peaks = NULL;
		if (u->with_kb > 0 && u->plain_kb > 0) {
			char *with = format_kib((long)u->with_kb), *plain = format_kib((long)u->plain_kb);
			peaks = xasprintf(", %s at its peak against %s", with, plain);
			free(with);
			free(plain);
		}
		strvec_pushf(&parts, "%s with %s: %.1f s against %.1f s its %zu archs one after another (x%.2f)%s", name,
			     u->flag, u->with_s, u->plain_s, u->archs, u->with_s / u->plain_s, peaks ? peaks : "");
		free(peaks);
	}
	char *s = strvec_join(&parts, "; ");
	strvec_clear(&parts);
	return s;
}

/* Each setting's words: "-j 4, 41.2 s, 9.1 GiB at its peak" (owned). */
static char *setting_words(const struct setting *s)
{
	char *peak = format_kib((long)s->p.peak_kb);
	char *w = s->p.peak_kb > 0 ? xasprintf("-j %ld, %.1f s, %s at its peak", s->jobs, s->p.wall, peak)
				   : xasprintf("-j %ld, %.1f s", s->jobs, s->p.wall);
	free(peak);
	return w;
}

/* The title that says the archs side by side were chosen: more_jobs
 * applies what apply chose. */
static const char side_by_side_title[] =
	"run each TU's device archs side by side (nvcc --threads, hipcc -parallel-jobs) at the job count that fits";

/* The archs side by side chosen: the fix says so. */
static void side_by_side_fix(const struct advice_input *in, const struct jobs_evidence *ev, const struct setting *side,
			     const struct setting *apart, struct fix *f)
{
	char *timed = timed_words(ev, in), *with = setting_words(side);
	char *without = apart->jobs ? setting_words(apart) : xstrdup("none that fits");
	f->title = side_by_side_title;
	f->evidence = xasprintf("%zu TU%s compile%s several device archs one after another; %s. With them side by side "
				"%s, where the fastest without is %s", side->side_tus, rule_plural(side->side_tus),
				side->side_tus == 1 ? "s" : "", timed, with, without);
	f->measured_by = xasprintf("the same durations scheduled at -j %ld, each TU of several archs at the ratios timed "
				   "on the heaviest of as many archs (its wall and peak side by side over apart), keeping "
				   "busy the cores its work over its wall says%s%s", side->jobs, in->memory ? "; " : "",
				   in->memory ? "held to the memory there is" : "");
	free(timed);
	free(with);
	free(without);
}

/* Weighed and not chosen (`side` as side_by_side_wins left it): said
 * after the rule's own words (owned). */
static char *side_by_side_not(const struct advice_input *in, const struct jobs_evidence *ev, const struct setting *side)
{
	if (!ev || !ev->ntimed)
		return xstrdup("");
	char *timed = timed_words(ev, in), *s;
	if (!side->side_tus) {
		s = xasprintf("; the archs side by side not weighed: no TU timed both ways (%s)", timed);
	} else {
		char *with = side->jobs ? setting_words(side) : xstrdup("none that fits");
		s = xasprintf("; the archs side by side would not be faster (%s; with them: %s)", timed, with);
		free(with);
	}
	free(timed);
	return s;
}

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
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
	const struct jobs_evidence *ev = evidence;
	struct setting side = { 0 }, apart = { 0 };
	if (side_by_side_wins(in, ev, &side, &apart)) {
		side_by_side_fix(in, ev, &side, &apart, f);
		return;
	}
	long to = jobs_to(in);
	char *held = held_by_memory(in), *not_side = side_by_side_not(in, ev, &side);
	if (in->sched.jobs >= to || in->ntus <= (size_t)in->sched.jobs) {
		f->not_applicable = xasprintf("-j %d for %zu compile steps on %ld CPUs%s%s", in->sched.jobs, in->ntus,
					      in->cpus, held, not_side);
	} else {
		f->evidence = xasprintf("-j %d runs fewer jobs than the %ld CPUs, with %zu compile steps to run%s%s",
					in->sched.jobs, in->cpus, in->ntus, held, not_side);
		f->measured_by = in->memory ? memory_measured_by(in, to)
					    : xasprintf("the same durations scheduled at -j %ld", to);
	}
	free(held);
	free(not_side);
}

/* The CPUs here, or the cluster: each compile's share there on its slots,
 * ninja running a job for every slot and core. */
static void more_jobs(struct fix_edit *e)
{
	const struct advice_input *in = e->in;
	if (!in->remote.slots) {
		struct setting side;
		if (e->f->title == side_by_side_title) {	/* apply chose them: their -j, and the TUs so */
			const struct jobs_evidence *ev = in->evidence[FIX_JOBS];
			fastest(in, ev, true, &side);
			put_side_by_side(in, ev, e->m);
			e->o->jobs = (int)side.jobs;
		} else {
			e->o->jobs = (int)jobs_to(in);
		}
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

/* ---- the walk ---- */

/* The device archs TU i compiles for, from its driver's own list of jobs
 * (-###, --dryrun: nothing compiles); 0 where they cannot be listed. */
static size_t archs_of(struct advise *ad, size_t i)
{
	struct compile_command cmd = { 0 };
	char *sub = xasprintf("archs-%zu", i);
	steps_prepare(ad->dir, &ad->build.edges[ad->tus[i].f.edge], sub, &cmd, &ad->stripped);
	char *log = xasprintf("%s/%s.log", tmpdir_path(), sub), *err = NULL;
	struct job_list jobs = { 0 };
	size_t n = jobs_list(&cmd, ad->dir, log, ad->timeout, &jobs, &err) ? job_list_device_archs(&jobs) : 0;
	free(err);
	job_list_free(&jobs);
	remove(log);
	free(log);
	free(sub);
	compile_command_clear(&cmd);
	return n;
}

/* TU i's command as the build runs it, its outputs in the temp dir, with
 * `extra` appended (NULL: none); the pass probe takes it as a walls-only
 * probe named `name`. Its index there. */
static long add_probe(struct advise *ad, size_t i, const char *sub, const struct strvec *extra, const char *name)
{
	const struct advise_tu *t = &ad->tus[i];
	struct compile_command cmd = { 0 };
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmd, &ad->stripped);
	for (size_t a = 0; extra && a < extra->n; a++)
		strvec_push(&cmd.argv, extra->v[a]);
	struct pass_tu *p = pass_probe_add(&ad->probes.pass, name, t->f.edge, &cmd);
	p->walls_only = true;
	/* Both alike, whole compiles: the driver's jobs with the flag are not
	 * one command a line; one that does not take it is said in a line. */
	p->whole = true;
	p->may_fail = extra != NULL;
	p->expect_s = isnan(ad->base.seconds[t->f.edge]) ? 0 : ad->base.seconds[t->f.edge];
	return (long)ad->probes.pass.ntus - 1;
}

static void *ask(struct advise *ad)
{
	struct jobs_evidence *ev = xcalloc(1, sizeof(*ev));
	ev->ntus = ad->ntus;
	ev->archs = xcalloc(ad->ntus ? ad->ntus : 1, sizeof(*ev->archs));
	ev->timed = xcalloc(TIMED_MAX, sizeof(*ev->timed));
	/* A cluster's hosts compile them: this machine's cores are not theirs. */
	if (ad->cluster.launcher || ad->cluster.remote.slots)
		return ev;
	for (size_t i = 0; i < ad->ntus; i++)
		if (ad->tus[i].f.kernel || ad->tus[i].f.device_passes)
			ev->archs[i] = archs_of(ad, i);
	bool *taken = xcalloc(ad->ntus ? ad->ntus : 1, sizeof(bool));
	while (ev->ntimed < TIMED_MAX) {
		long pick = -1;
		for (size_t i = 0; i < ad->ntus; i++) {
			double s = ad->base.seconds[ad->tus[i].f.edge];
			if (ev->archs[i] >= 2 && !taken[i] && (pick < 0 || s > ad->base.seconds[ad->tus[pick].f.edge]))
				pick = (long)i;
		}
		if (pick < 0)
			break;
		taken[pick] = true;
		struct compile_command probe = { 0 };
		steps_prepare(ad->dir, &ad->build.edges[ad->tus[pick].f.edge], "archs-flag", &probe, &ad->stripped);
		struct strvec flag = { 0 };
		bool has = driver_side_by_side(probe.compiler, ev->archs[pick], &flag);
		for (size_t a = 0; a < flag.n; a++)
			strvec_push(&probe.argv, flag.v[a]);
		/* A driver that does not know the flag says so before anything compiles. */
		char *log = xasprintf("%s/archs-flag.log", tmpdir_path()), *refused = NULL;
		if (has && !jobs_driver_takes(&probe, ad->dir, log, ad->timeout, &refused))
			has = false;
		remove(log);
		free(log);
		compile_command_clear(&probe);
		if (!has && !refused) {
			strvec_clear(&flag);
			continue;
		}
		const char *name = ad->tus[pick].f.name;
		struct side_tu *u = &ev->timed[ev->ntimed++];
		*u = (struct side_tu){ .tu = (size_t)pick, .archs = ev->archs[pick], .flag = strvec_join(&flag, " "),
				       .plain = -1, .with = -1, .plain_s = NAN, .with_s = NAN, .error = refused };
		if (refused) {
			strvec_clear(&flag);
			continue;
		}
		char *sub = xasprintf("archs-apart-%ld", pick), *what = xasprintf("jobs: %s, its archs one after another", name);
		u->plain = add_probe(ad, (size_t)pick, sub, NULL, what);
		free(sub);
		free(what);
		sub = xasprintf("archs-side-%ld", pick);
		what = xasprintf("jobs: %s with %s", name, u->flag);
		u->with = add_probe(ad, (size_t)pick, sub, &flag, what);
		free(sub);
		free(what);
		strvec_clear(&flag);
	}
	free(taken);
	return ev;
}

static void read_probes(struct advise *ad, void *evidence)
{
	struct jobs_evidence *ev = evidence;
	for (size_t k = 0; k < ev->ntimed; k++) {
		struct side_tu *u = &ev->timed[k];
		if (u->with < 0)	/* the driver refused the flag: nothing was timed */
			continue;
		const struct pass_tu *with, *plain = probed_pair(ad, u->plain, u->with, &with, &u->error);
		if (!plain)
			continue;
		u->plain_s = plain->wall.median;
		u->plain_kb = plain->peak_kb > 0 ? (double)plain->peak_kb : 0;
		if (!with)
			continue;
		u->with_s = with->wall.median;
		u->with_kb = with->peak_kb > 0 ? (double)with->peak_kb : 0;
		double *held[] = { &u->plain_s, &u->with_s, &u->plain_kb, &u->with_kb };
		for (size_t h = 0; h < sizeof(held) / sizeof(*held); h++)
			advise_held(held[h]);
	}
}

/* The evidence as JSON: TUs by index (saved), or by name (advise --json's
 * entry: `ad` given). */
static json_t *evidence_json(const struct jobs_evidence *ev, const struct advise *ad)
{
	json_t *timed = json_array(), *archs = json_array();
	for (size_t k = 0; k < ev->ntimed; k++) {
		const struct side_tu *u = &ev->timed[k];
		json_t *o = json_pack("{s:I, s:s, s:o, s:o, s:o, s:o, s:o}", "archs", (json_int_t)u->archs, "flag", u->flag,
				      "apart_s", advise_json_number(u->plain_s), "side_by_side_s", advise_json_number(u->with_s),
				      "apart_peak_kib", advise_json_number(u->plain_kb), "side_by_side_peak_kib",
				      advise_json_number(u->with_kb), "error", u->error ? json_string(u->error) : json_null());
		if (ad)
			json_object_set_new(o, "target", json_string(ad->tus[u->tu].f.name));
		else
			json_object_set_new(o, "tu", json_integer((json_int_t)u->tu));
		json_array_append_new(timed, o);
	}
	size_t several = 0;
	for (size_t i = 0; i < ev->ntus; i++) {
		several += ev->archs[i] >= 2;
		if (!ad)
			json_array_append_new(archs, json_integer((json_int_t)ev->archs[i]));
	}
	if (ad) {
		json_decref(archs);
		return json_pack("{s:I, s:o}", "tus_of_several_archs", (json_int_t)several, "timed", timed);
	}
	return json_pack("{s:o, s:o}", "archs", archs, "timed", timed);
}

static json_t *save(const void *evidence)
{
	return evidence_json(evidence, NULL);
}

static json_t *document(const void *evidence, const struct advise *ad)
{
	return evidence_json(evidence, ad);
}

static void free_evidence(void *evidence)
{
	struct jobs_evidence *ev = evidence;
	for (size_t k = 0; k < ev->ntimed; k++) {
		free(ev->timed[k].flag);
		free(ev->timed[k].error);
	}
	free(ev->timed);
	free(ev->archs);
	free(ev);
}

static bool load(const json_t *saved, const struct advise *ad, void **evidence, char **err)
{
	struct jobs_evidence *ev = xcalloc(1, sizeof(*ev));
	*evidence = ev;
	ev->timed = xcalloc(TIMED_MAX, sizeof(*ev->timed));
	json_t *archs = json_object_get(saved, "archs"), *timed = json_object_get(saved, "timed");
	if (!json_is_array(archs) || json_array_size(archs) != ad->ntus || !json_is_array(timed) ||
	    json_array_size(timed) > TIMED_MAX) {
		*err = xasprintf("not archs (one a TU: %zu) and timed (at most %d)", ad->ntus, TIMED_MAX);
		return false;
	}
	ev->ntus = ad->ntus;
	ev->archs = xcalloc(ad->ntus ? ad->ntus : 1, sizeof(*ev->archs));
	for (size_t i = 0; i < ad->ntus; i++) {
		json_t *a = json_array_get(archs, i);
		if (!json_is_integer(a) || json_integer_value(a) < 0 || json_integer_value(a) > 64) {
			*err = xasprintf("archs[%zu]: not a count of archs (0 to 64)", i);
			return false;
		}
		ev->archs[i] = (size_t)json_integer_value(a);
	}
	for (size_t k = 0; k < json_array_size(timed); k++) {
		json_t *o = json_array_get(timed, k), *tu = json_object_get(o, "tu"), *n = json_object_get(o, "archs");
		struct side_tu u = { .plain = -1, .with = -1 };
		u.flag = saved_text(json_object_get(o, "flag"));
		u.error = saved_text(json_object_get(o, "error"));
		ev->timed[ev->ntimed++] = u;	/* freed with the evidence, whatever follows */
		struct side_tu *v = &ev->timed[ev->ntimed - 1];
		if (!json_is_integer(tu) || json_integer_value(tu) < 0 || (size_t)json_integer_value(tu) >= ad->ntus ||
		    !json_is_integer(n) || json_integer_value(n) < 2 || json_integer_value(n) > 64 || !v->flag ||
		    !saved_number(json_object_get(o, "apart_s"), &v->plain_s) ||
		    !saved_number(json_object_get(o, "side_by_side_s"), &v->with_s) ||
		    !saved_number(json_object_get(o, "apart_peak_kib"), &v->plain_kb) ||
		    !saved_number(json_object_get(o, "side_by_side_peak_kib"), &v->with_kb)) {
			*err = xasprintf("timed[%zu]: not a TU timed both ways (tu, archs, flag, apart_s, side_by_side_s, "
					 "apart_peak_kib, side_by_side_peak_kib)", k);
			return false;
		}
		v->tu = (size_t)json_integer_value(tu);
		v->archs = (size_t)json_integer_value(n);
		if (isnan(v->plain_kb))
			v->plain_kb = 0;
		if (isnan(v->with_kb))
			v->with_kb = 0;
	}
	return true;
}

static const struct rule_walk walk = {
	.ask = ask,
	.read = read_probes,
	.save = save,
	.load = load,
	.document = document,
	.free = free_evidence,
};

const struct fix_rule rule_jobs = {
	.name = "jobs",
	.title = "run as many jobs as there are CPUs",
	.apply = apply,
	.edit_graph = more_jobs,
	.conclude = conclude,
	.reads_cost = rule_reads_no_cost,
	.walk = &walk,
};
