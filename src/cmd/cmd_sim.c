/* buildwall sim: replay ninja's scheduling of the dependency graph with
 * measured durations, for several job counts, before and after a what-if
 * edit (scale, split, fuse or remove a TU; fewer cores than jobs). */
#define _GNU_SOURCE
#include "cli.h"
#include "cluster.h"
#include "driver.h"
#include "graph.h"
#include "load_curve.h"
#include "local_probe.h"
#include "meminfo.h"
#include "memory_plan.h"
#include "net_probe.h"
#include "ninja.h"
#include "ninja_log.h"
#include "json_facts.h"
#include "out_json.h"
#include "options.h"
#include "out_table.h"
#include "proc.h"
#include "progress.h"
#include "rank_doc.h"
#include "snapshot.h"
#include "target.h"
#include "tmpdir.h"
#include "util.h"
#include "whatif.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall sim [-C BUILD_DIR] [--from log | --from RANK.json] [-j LIST]\n"
	"                     [--policy manifest|critical] [EDITS] [--contention]\n"
	"                     [--remote N[:SPEED] [--local C] [--distcc-log FILE | --probe-local [--probe-net]]]\n"
	"                     [--memory SIZE] [--json]\n"
	"\n"
	"Simulate ninja running the build's dependency graph (from ninja) with measured\n"
	"durations: the latest build in .ninja_log (default), or a saved 'rank --json'\n"
	"(its TUs; other steps from .ninja_log). For each job count: the predicted wall and\n"
	"its two lower bounds, the critical path and total work / jobs, and which binds.\n"
	"The policy follows the installed ninja: up to 1.11 ready steps start in manifest\n"
	"order; from 1.12 the step with the longest path ahead starts first.\n"
	"A step's progress follows the load: with n jobs running it advances at\n"
	"1 / slowdown(n) (the contention calibrated beside isolated times, the cores\n"
	"shared past --cores); --contention shows that curve.\n"
	"With a RANK.json each job count's peak memory too: the steps running at once,\n"
	"each holding its measured peak from start to end; --memory SIZE marks the job\n"
	"counts that fit SIZE less 10 %, and names the fastest and what a faster needs.\n"
	"\n"
	"The edits (--scale, --split, --fuse, --remove, --cores) are repeatable; T names a\n"
	"step as everywhere: its output, basename or a glob.\n"
	"\n"
	"--remote N[:SPEED] sends compiles to a cluster of N slots (distcc, icecream) whose\n"
	"hosts run SPEED times as fast as the recorded ones (default 1): a compile holds\n"
	"its job while it waits for a slot; preprocessing and links run on --local C cores.\n"
	"--distcc-log FILE (the build's DISTCC_VERBOSE=1 DISTCC_LOG, or 'wall --distcc-log')\n"
	"splits each compile into its part here and the remote host's hold, its waits for a\n"
	"slot taken out. Without it a compile behind distcc/icecc (any compile, if none is)\n"
	"whose source distcc sends (C, C++; not a .cu) is remote, all of it, or with\n"
	"--probe-local less its preprocessing, which a distcc client runs here: each sent\n"
	"compile's -E is run and timed here (its flags, launchers stripped, the output in a\n"
	"private temp dir; as many at once as there are CPUs). --probe-net also times what\n"
	"the cluster adds to a compile: two probes (an empty preprocessed TU and an 8 MiB\n"
	"one of comments) sent through distcc to the hosts its configuration names\n"
	"(DISTCC_HOSTS), 3 times each, each also compiled here; the hold distcc logs less\n"
	"the compile here is the cost, fixed plus per byte of each TU's preprocessed\n"
	"output. It is added to a build recorded here; one recorded through the cluster\n"
	"has it in its durations already. Without --probe-net the network is not timed.\n"
	"A run that fails is reported (its compiler's output), its compile counted all\n"
	"remote, and sim exits 3 after printing.\n"
	"\n";

/* An edit as given on the command line; its steps are named, resolved
 * once the graph is loaded. */
struct edit_arg {
	enum edit_kind kind;
	char *arg;	/* as given */
	struct strvec targets;
	double value;
};

struct sim {
	const char *dir, *from;
	struct ninja_build build;
	double *seconds;	/* per edge */
	bool *timed;		/* per edge: has a measured time */
	struct step_memory *memory;	/* per edge, a rank document's (peak 0: unknown) */
	size_t npeaks;		/* steps with one */
	double memory_kb;	/* --memory: the limit the job counts are held to; 0: none */
	size_t unknown;
	struct edit_arg *edits;
	size_t nedits;
	double overhead, cores;
	bool overhead_given;
	/* With --from RANK.json: the recorded build against rank's isolated
	 * times; the prediction then shares this machine's cores too. */
	struct contention contention;
	bool show_curve;	/* --contention */
	enum sched_policy policy;
	char *policy_why;
	long *jobs;
	size_t njobs;
	/* --remote: a cluster's slots and speed; the split from the distcc log */
	struct remote_option remote;
	const char *distcc_path;
	struct distcc_log distcc;
	struct cluster_split split;
	bool probe_local;	/* --probe-local */
	struct local_probe local;
	bool probe_net;		/* --probe-net */
	struct net_cost net;
	double *network;	/* per edge: what sending it costs, NaN: none */
};

/* The network's cost per sent compile (net_probe_build). A cluster that
 * cannot take the probes is bad input: the user asked for it. */
static void probe_network(struct sim *s, const bool *sent)
{
	char *err = NULL;
	if (!net_probe_build(&s->build, s->dir, sent, s->local.bytes, &s->net, &s->network, &err))
		die(EXIT_BAD_INPUT, "--probe-net: %s", err);
}

static long edge_named(const struct sim *s, const char *name)
{
	char **names = xcalloc(s->build.n, sizeof(char *));
	for (size_t i = 0; i < s->build.n; i++)
		names[i] = s->build.edges[i].outputs.v[0];
	long e = target_match_one(name, names, s->build.n);
	free(names);
	if (e == -1)
		usage_error("sim", "'%s' names no step of %s", name, s->dir);
	if (e == -2)
		usage_error("sim", "'%s' names several steps; give the output path", name);
	return e;
}

/* The cheapest compile step with a time: what one more TU costs at least. */
static double cheapest_tu(const struct sim *s)
{
	double best = NAN;
	for (size_t i = 0; i < s->build.n; i++)
		if (ninja_edge_is_compile(&s->build.edges[i]) && s->seconds[i] > 0 &&
		    (isnan(best) || s->seconds[i] < best))
			best = s->seconds[i];
	return isnan(best) ? 0 : best;
}

/* The graph with the measured times, then the edits applied in order. */
static void build_model(const struct sim *s, bool with_edits, struct model *m)
{
	model_from_build(m, &s->build, s->seconds);
	model_set_memory(m, s->memory, s->build.n);
	for (size_t i = 0; s->remote.slots && i < s->build.n; i++) {
		m->nodes[i].duration = s->split.here[i];
		m->nodes[i].remote = s->split.there[i];
	}
	double overhead = s->overhead_given ? s->overhead : cheapest_tu(s);
	for (size_t k = 0; with_edits && k < s->nedits; k++) {
		const struct edit_arg *ea = &s->edits[k];
		size_t *steps = xcalloc(ea->targets.n, sizeof(size_t));
		for (size_t i = 0; i < ea->targets.n; i++)
			steps[i] = (size_t)edge_named(s, ea->targets.v[i]);
		const struct edit ed = { ea->kind, steps, ea->targets.n, ea->value };
		char *err = NULL;
		if (!model_apply(m, &ed, overhead, &err))
			usage_error("sim", "--%s %s: %s", edit_names[ea->kind], ea->arg, err);
		free(steps);
	}
}

/* ---- durations ---- */

static void times_from_log(struct sim *s, bool only_missing)
{
	char *path = xasprintf("%s/.ninja_log", s->dir);
	struct ninja_log log;
	char *err;
	bool have = ninja_log_read_latest(path, &log, &err);
	if (err)
		die(EXIT_BAD_INPUT, "%s", err);
	if (!have && !only_missing)
		die(EXIT_BAD_INPUT, "%s: no such file (build the tree with ninja first, or give --from RANK.json)", path);
	if (have && !log.n && !only_missing)
		die(EXIT_BAD_INPUT, "%s: no build recorded yet (build the tree with ninja first, or give --from RANK.json)", path);
	if (have && only_missing && !s->contention.samples) {
		double *isolated = xcalloc(s->build.n, sizeof(double));
		for (size_t i = 0; i < s->build.n; i++)
			isolated[i] = s->timed[i] ? s->seconds[i] : NAN;
		contention_calibrate(&s->build, &log, isolated, NULL, s->cores > 0 ? s->cores : cpu_count(),
				     "the recorded build in .ninja_log", &s->contention);
		if (s->contention.samples && s->cores <= 0)
			s->cores = s->contention.cores;
		free(isolated);
	}
	if (have) {
		double *logged = xcalloc(s->build.n, sizeof(double));
		durations_from_log(&s->build, &log, logged);
		for (size_t i = 0; i < s->build.n; i++)
			if (!(only_missing && s->timed[i]) && !isnan(logged[i])) {
				s->seconds[i] = logged[i];
				s->timed[i] = true;
			}
		free(logged);
		ninja_log_free(&log);
	}
	free(path);
}

static void times_from_rank(struct sim *s)
{
	struct rank_doc doc;
	char *err = NULL;
	if (!rank_doc_read(s->from, &doc, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	for (size_t i = 0; i < doc.n; i++) {
		long e = ninja_edge_of(&s->build, doc.tus[i].target);
		if (e < 0)
			die(EXIT_BAD_INPUT, "%s: TU %s is not a step of %s (another build's rank?)", s->from,
			    doc.tus[i].target, s->dir);
		if (!isnan(doc.tus[i].wall_s)) {
			s->seconds[e] = doc.tus[i].wall_s;
			s->timed[e] = true;
		}
		step_memory_of(&s->memory[e], doc.tus[i].peak_kb, doc.tus[i].has_shape ? doc.tus[i].shape : NULL);
		s->npeaks += doc.tus[i].peak_kb > 0;
	}
	if (doc.contention_samples) {
		s->contention = (struct contention){ .share = doc.contention_share, .cores = doc.contention_cores,
						     .samples = doc.contention_samples,
						     .mean_concurrency = doc.contention_concurrency,
						     .source = "rank's calibration, in the --from document",
						     .wall_share = doc.contention_share, .least = doc.contention_share,
						     .most = doc.contention_share };
		if (s->cores <= 0)
			s->cores = doc.contention_cores;
	}
	rank_doc_free(&doc);
	times_from_log(s, true);	/* the link and the rest */
}

/* ---- options ---- */

static void push_jobs(struct sim *s, long j)
{
	s->jobs = xrealloc(s->jobs, (s->njobs + 1) * sizeof(long));
	s->jobs[s->njobs++] = j;
}

static void parse_jobs(struct sim *s, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long lo, hi;
		char *dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		if (!parse_int(tok, 1, 4096, &lo) || (dash && !parse_int(dash + 1, 1, 4096, &hi)))
			usage_error("sim", "-j wants job counts like 4, 1,2,8 or 1-16: '%s'", list);
		if (!dash)
			hi = lo;
		if (hi < lo)
			usage_error("sim", "-j range %ld-%ld runs backwards", lo, hi);
		for (long j = lo; j <= hi; j++)
			push_jobs(s, j);
	}
	free(copy);
	if (!s->njobs)
		usage_error("sim", "-j wants at least one job count");
}

/* Add an edit as given; returns what is wrong with it (owned), or NULL. */
static bool add_edit(struct sim *s, enum edit_kind kind, const char *arg, char **err)
{
	struct edit_arg ed = { .kind = kind, .arg = xstrdup(arg) };
	char *copy = xstrdup(arg), *eq = strrchr(copy, '='), *why = NULL;
	if (kind == EDIT_SCALE || kind == EDIT_SPLIT) {
		long parts;
		if (eq)
			*eq = '\0';
		if (!eq)
			why = xasprintf("--%s wants T=%s: '%s'", kind == EDIT_SCALE ? "scale" : "split",
					kind == EDIT_SCALE ? "FACTOR" : "K", arg);
		else if (kind == EDIT_SCALE && (!parse_double(eq + 1, &ed.value) || ed.value < 0))
			why = xasprintf("--scale wants a factor >= 0: '%s'", arg);
		else if (kind == EDIT_SPLIT && !parse_int(eq + 1, 2, 1000, &parts))
			why = xasprintf("--split wants a count from 2 to 1000: '%s'", arg);
		else if (kind == EDIT_SPLIT)
			ed.value = (double)parts;
		strvec_push(&ed.targets, copy);
	} else if (kind == EDIT_FUSE) {
		char *save = NULL;
		for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			strvec_push(&ed.targets, tok);
		if (ed.targets.n < 2)
			why = xasprintf("--fuse wants two or more steps, comma-separated: '%s'", arg);
	} else {
		strvec_push(&ed.targets, copy);
	}
	free(copy);
	if (why) {
		free(ed.arg);
		strvec_clear(&ed.targets);
		return ok_unless(err, why);
	}
	s->edits = xrealloc(s->edits, (s->nedits + 1) * sizeof(*s->edits));
	s->edits[s->nedits++] = ed;
	return true;
}

static bool add_scale(void *s, const char *arg, char **err) { return add_edit(s, EDIT_SCALE, arg, err); }
static bool add_split(void *s, const char *arg, char **err) { return add_edit(s, EDIT_SPLIT, arg, err); }
static bool add_fuse(void *s, const char *arg, char **err) { return add_edit(s, EDIT_FUSE, arg, err); }
static bool add_remove(void *s, const char *arg, char **err) { return add_edit(s, EDIT_REMOVE, arg, err); }

static bool set_overhead(void *sim, const char *arg, char **err)
{
	struct sim *s = sim;
	if (!parse_double(arg, &s->overhead) || s->overhead < 0)
		return fail_with(err, xasprintf("--overhead takes seconds >= 0, not '%s'", arg));
	s->overhead_given = true;
	return true;
}

/* ---- run and render ---- */

struct result {
	long jobs;
	struct prediction edited, base;
};

/* The predicted peak of a row, or "-" where no step's is known (owned). */
static char *peak_text(const struct prediction *p)
{
	return p->peak_kb > 0 ? format_kib((long)p->peak_kb) : xstrdup("-");
}

_Static_assert(RANK_DOC_SHAPE_BINS == GRAPH_SHAPE_BINS, "a TU's shape is a step's");

static json_t *json_peak(const struct prediction *p)
{
	return p->peak_kb > 0 ? json_integer((json_int_t)p->peak_kb) : json_null();
}

/* With --memory: the fastest -j under it, and what a faster one needs. */
static json_t *json_memory(const struct sim *s, const struct memory_plan *mp)
{
	if (!s->memory_kb)
		return json_null();
	return json_pack("{s:I, s:I, s:f, s:o, s:o, s:I}", "limit_kib", (json_int_t)mp->limit_kb, "usable_kib",
			 (json_int_t)mp->usable_kb, "margin", MEMORY_MARGIN,
			 "fastest_that_fits", json_memory_row(mp, mp->best), "faster", json_memory_row(mp, mp->faster),
			 "steps_without_peak", (json_int_t)mp->unknown);
}

static void print_memory(const struct memory_plan *mp)
{
	char *limit = format_kib((long)mp->limit_kb), *usable = format_kib((long)mp->usable_kb);
	printf("\nmemory: --memory %s, %s usable (%.0f %% kept free: a build's peak moves from run to run)\n", limit,
	       usable, MEMORY_MARGIN * 100);
	if (mp->best < 0) {
		char *need = peak_text(&mp->rows[0].p);
		printf("no -j fits: -j 1 alone needs %s\n", need);
		free(need);
	} else {
		const struct jobs_row *b = &mp->rows[mp->best];
		char *need = peak_text(&b->p);
		printf("the fastest that fits: -j %ld, %.2f s at a peak of %s\n", b->jobs, b->p.wall, need);
		free(need);
	}
	if (mp->faster >= 0) {
		const struct jobs_row *f = &mp->rows[mp->faster];
		char *need = peak_text(&f->p);
		printf("faster: -j %ld, %.2f s, needs %s\n", f->jobs, f->p.wall, need);
		free(need);
	}
	if (mp->unknown)
		printf("note: %zu step%s without a known peak counted as none: the peaks are at least these\n", mp->unknown,
		       mp->unknown == 1 ? "" : "s");
	free(limit);
	free(usable);
}

static struct prediction predict(const struct sim *s, const struct model *m, long jobs)
{
	struct prediction p;
	const struct sched_options o = { .jobs = (int)jobs, .policy = s->policy, .cores = s->cores,
					 .contention = s->contention.share, .remote_slots = (int)s->remote.slots };
	bool ok = model_predict(m, &o, &p);
	proc_exit_if_interrupted();
	if (!ok)
		die(EXIT_BAD_INPUT, "%s: the graph has a cycle%s", s->dir, s->nedits ? " after the edits (a fuse of steps that depend on each other?)" : "");
	return p;
}



/* The load curve the scheduler applies: the contention's share per job
 * beside, the cores shared past their count. */
static void sim_curve(const struct sim *s, struct load_curve *c)
{
	load_curve_linear(c, s->contention.share, s->cores);
}

static void print_curve(const struct sim *s)
{
	struct load_curve c;
	sim_curve(s, &c);
	printf("load curve (a step's slowdown by the jobs running at once, applied moment by moment):\n");
	struct table *tab = table_new();
	table_column(tab, "jobs at once", true);
	table_column(tab, "slowdown", true);
	for (size_t i = 0; i < s->njobs; i++) {
		table_cell(tab, "%ld", s->jobs[i]);
		table_cell(tab, "%.3f", load_curve_at(&c, (double)s->jobs[i]));
	}
	table_print(tab, stdout);
	table_free(tab);
}

static json_t *json_curve(const struct sim *s)
{
	struct load_curve c;
	sim_curve(s, &c);
	json_t *rows = json_array();
	for (size_t i = 0; i < s->njobs; i++)
		json_array_append_new(rows, json_build("{s:I, s:f}", "jobs", (json_int_t)s->jobs[i], "slowdown",
						       round(load_curve_at(&c, (double)s->jobs[i]) * 1000) / 1000));
	return rows;
}

/* A step of the model by its output; a step an edit added has none. */
static json_t *json_step(const struct sim *s, size_t node)
{
	return node < s->build.n ? json_string(s->build.edges[node].outputs.v[0]) : json_null();
}

static json_t *json_remote(const struct sim *s)
{
	if (!s->remote.slots)
		return json_null();
	const struct cluster_split *c = &s->split;
	json_t *o = json_build("{s:I, s:f, s:o, s:o, s:o, s:I, s:I, s:I, s:o}", "slots", (json_int_t)s->remote.slots, "speed",
			  s->remote.speed, "local_cores", s->cores > 0 ? json_real(s->cores) : json_null(), "launcher",
			  c->launcher ? json_string(c->launcher) : json_null(), "distcc_log",
			  s->distcc_path ? json_string(s->distcc_path) : json_null(), "sent", (json_int_t)c->remote,
			  "split_by_log", (json_int_t)c->measured, "kept_here", (json_int_t)c->kept_here, "waits_taken_out_s",
			  json_seconds(c->waited_s));
	if (s->probe_local) {
		json_object_set_new(o, "split_by_probe", json_integer((json_int_t)c->probed));
		json_object_set_new(o, "probe_failures", json_integer((json_int_t)s->local.failed));
		json_object_set_new(o, "probed_at_once", json_integer(s->local.at_once));
	}
	if (s->probe_net)
		json_object_set_new(o, "network", json_build("{s:f, s:f, s:I, s:I, s:I, s:f}", "fixed_s", s->net.fixed_s,
							     "per_mib_s", s->net.per_byte_s * 1048576.0, "probe_bytes",
							     (json_int_t)s->net.probe_bytes, "repeats",
							     (json_int_t)s->net.repeats, "compiles",
							     (json_int_t)s->split.networked, "added_s",
							     s->split.network_s));
	return o;
}

static void print_remote(const struct sim *s)
{
	const struct cluster_split *c = &s->split;
	double here = 0, there = 0;
	for (size_t i = 0; i < s->build.n; i++)
		if (c->there[i] > 0) {
			here += c->here[i];
			there += c->there[i];
		}
	printf("cluster: %ld remote slot%s at %.2gx the recorded speed, %s; %zu compile%s sent (%s), here %.2f s, there %.2f s\n",
	       s->remote.slots, s->remote.slots == 1 ? "" : "s", s->remote.speed,
	       s->cores > 0 ? "local parts and links on --local cores" : "local parts and links on the jobs' slots",
	       c->remote, c->remote == 1 ? "" : "s", c->launcher ? c->launcher : "every compile: no launcher seen", here, there);
	if (s->distcc_path)
		printf("split by %s: %zu compile%s by their remote holds, %zu kept here; %.2f s of waiting for a slot taken out\n",
		       s->distcc_path, c->measured, c->measured == 1 ? "" : "s", c->kept_here, c->waited_s);
	else if (s->probe_local)
		printf("split by preprocessing timed here (%ld at once): %zu compile%s, %zu not measured (all remote), %zu kept "
		       "here (a source distcc does not send); %s\n", s->local.at_once, c->probed,
		       c->probed == 1 ? "" : "s", c->remote - c->probed, c->kept_here,
		       s->probe_net ? "the network timed below" : "the network not timed");
	if (s->probe_net)
		printf("network: %.3f s a compile + %.3f s a MiB preprocessed (probes through distcc less the same compile here, "
		       "%ld runs each); %s\n", s->net.fixed_s, s->net.per_byte_s * 1048576.0, s->net.repeats,
		       c->launcher ? "not added: the build ran through the cluster, its durations hold it"
				   : "added to each sent compile's hold there");
	else
		printf("note: no --distcc-log nor --probe-local: each sent compile counted remote for all of its recorded time "
		       "(its preprocessing and sending here unmeasured)\n");
}

static void render_json(const struct sim *s, const struct result *res, const struct memory_plan *mp)
{
	json_t *doc = json_document("sim", s->dir, 0);
	json_t *edits = json_array();
	for (size_t k = 0; k < s->nedits; k++)
		json_array_append_new(edits, json_build("{s:s, s:s}", "edit", edit_names[s->edits[k].kind], "arg", s->edits[k].arg));
	json_object_set_new(doc, "split_overhead_s", json_seconds(s->overhead_given ? s->overhead : cheapest_tu(s)));
	json_object_set_new(doc, "from", json_string(s->from ? s->from : ".ninja_log"));
	json_object_set_new(doc, "policy", json_string(s->policy == POLICY_CRITICAL ? "critical" : "manifest"));
	json_object_set_new(doc, "policy_source", json_string(s->policy_why));
	json_object_set_new(doc, "cores", s->cores > 0 ? json_real(s->cores) : json_null());
	json_object_set_new(doc, "edits", edits);
	json_object_set_new(doc, "contention", json_contention(&s->contention));
	json_object_set_new(doc, "load_curve", json_curve(s));
	json_object_set_new(doc, "steps_without_time", json_integer((json_int_t)s->unknown));
	json_object_set_new(doc, "remote", json_remote(s));
	json_t *rows = json_array();
	for (size_t i = 0; i < s->njobs; i++) {
		const struct result *r = &res[i];
		json_array_append_new(rows, json_build("{s:I, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:I}", "jobs", (json_int_t)r->jobs,
			"wall_s", json_seconds(r->edited.wall), "baseline_wall_s", json_seconds(r->base.wall),
			"critical_path_s", json_seconds(r->edited.critical), "work_bound_s", json_seconds(r->edited.work),
			"binds", r->edited.binds, "sets_wall", json_step(s, r->edited.gate),
			"peak_kib", json_peak(&r->edited), "steps_without_peak", (json_int_t)r->edited.peak_unknown));
	}
	json_object_set_new(doc, "predictions", rows);
	json_object_set_new(doc, "memory", json_memory(s, mp));
	json_print(doc);
}

static void render_table(const struct sim *s, const struct result *res, const struct memory_plan *mp)
{
	printf("%ssim%s: %s, %zu steps, durations from %s; policy: %s (%s)\n", c_bold(stdout), c_reset(stdout), s->dir,
	       s->build.n, s->from ? s->from : ".ninja_log", s->policy == POLICY_CRITICAL ? "longest path first" : "manifest order",
	       s->policy_why);
	if (s->cores > 0)
		printf("cores: %.0f (jobs beyond them share them)\n", s->cores);
	for (size_t k = 0; k < s->nedits; k++) {
		printf("edit: --%s %s", edit_names[s->edits[k].kind], s->edits[k].arg);
		if (s->edits[k].kind == EDIT_SPLIT)
			printf(" (each piece %+.2f s: %s)", s->overhead_given ? s->overhead : cheapest_tu(s),
			       s->overhead_given ? "--overhead" : "the cheapest compile step");
		printf("\n");
	}
	if (s->from) {
		char *cont = contention_text(&s->contention);
		printf("contention: %s\n", cont);
		free(cont);
	}
	if (s->unknown)
		printf("note: %zu step%s without a time counted as 0 s\n", s->unknown, s->unknown == 1 ? "" : "s");
	if (s->remote.slots)
		print_remote(s);
	if (s->show_curve)
		print_curve(s);
	printf("\n");
	struct table *tab = table_new();
	table_column(tab, "-j", true);
	if (s->nedits)
		table_column(tab, "before s", true);
	table_column(tab, s->nedits ? "after s" : "wall s", true);
	if (s->nedits)
		table_column(tab, "change", true);
	table_column(tab, "critical path s", true);
	table_column(tab, "work/jobs s", true);
	table_column(tab, "binds", false);
	table_column(tab, "sets the wall", false);
	if (s->npeaks)
		table_column(tab, "peak mem", true);
	if (s->memory_kb)
		table_column(tab, "fits", false);
	for (size_t i = 0; i < s->njobs; i++) {
		const struct result *r = &res[i];
		table_cell(tab, "%ld", r->jobs);
		if (s->nedits)
			table_cell(tab, "%.2f", r->base.wall);
		table_cell(tab, "%.2f", r->edited.wall);
		if (s->nedits)
			table_cell(tab, "%+.2f s (%+.0f%%)", r->edited.wall - r->base.wall,
				   r->base.wall > 0 ? 100 * (r->edited.wall - r->base.wall) / r->base.wall : 0);
		table_cell(tab, "%.2f", r->edited.critical);
		table_cell(tab, "%.2f", r->edited.work);
		table_cell(tab, "%s", r->edited.binds);
		table_cell(tab, "%s", r->edited.gate == GRAPH_NONE || r->edited.gate >= s->build.n ? "-"
				      : s->build.edges[r->edited.gate].outputs.v[0]);
		if (s->npeaks) {
			char *mem = peak_text(&r->edited);
			table_cell(tab, "%s", mem);
			free(mem);
		}
		if (s->memory_kb)
			table_cell(tab, "%s", r->edited.peak_kb <= mp->usable_kb ? "yes" : "no");
	}
	table_print(tab, stdout);
	table_free(tab);
	if (s->memory_kb)
		print_memory(mp);
	else if (s->npeaks)
		printf("peak mem: the steps running at once, each at its process tree's peak from --from (%zu step%s "
		       "measured; --memory SIZE picks the fastest -j under it)\n", s->npeaks, s->npeaks == 1 ? "" : "s");
}

static void sim_free(struct sim *s)
{
	for (size_t k = 0; k < s->nedits; k++) {
		free(s->edits[k].arg);
		strvec_clear(&s->edits[k].targets);
	}
	free(s->edits);
	free(s->seconds);
	free(s->timed);
	free(s->memory);
	free(s->jobs);
	free(s->policy_why);
	cluster_split_free(&s->split);
	local_probe_free(&s->local);
	free(s->network);
	distcc_log_free(&s->distcc);
	ninja_build_free(&s->build);
}

int cmd_sim(int argc, char **argv)
{
	struct sim s = { .dir = "." };
	struct policy_option policy = { 0 };
	const char *jobs = NULL;
	long cores = 0, local = 0;
	bool json = false;
	const struct opt opts[] = {
		OPT_DIR(&s.dir),
		OPT_STRING(0, "from", &s.from, "SRC", "durations from 'log' (the latest build, default) or a RANK.json"),
		OPT_STRING('j', "jobs", &jobs, "LIST", "job counts: 4, 1,2,8 or 1-16 (default 1 to twice the CPUs)"),
		OPT_POLICY(&policy),
		OPT_CALL(0, "scale", &s, "T=F", "T takes F times as long", add_scale),
		OPT_CALL(0, "split", &s, "T=K", "T becomes K steps of t/K each plus a fixed cost per step", add_split),
		OPT_CALL(0, "overhead", &s, "S", "that fixed cost (default: the module's cheapest compile step)", set_overhead),
		OPT_CALL(0, "fuse", &s, "T1,T2,...", "the steps become one, taking the sum of their times", add_fuse),
		OPT_CALL(0, "remove", &s, "T", "T takes no time", add_remove),
		OPT_INT(0, "cores", &cores, "C", "jobs beyond C cores share them (default: no limit)", 1, 4096),
		OPT_FLAG(0, "contention", &s.show_curve, "show the load curve applied: each job count's slowdown"),
		OPT_REMOTE(&s.remote, "send compiles to N remote slots, SPEED times as fast (default 1)"),
		OPT_INT(0, "local", &local, "C", "with --remote: the cores here (preprocessing, links)", 1, 4096),
		OPT_DISTCC_LOG(&s.distcc_path, "the build's distcc log: each compile's part here and there"),
		OPT_FLAG(0, "probe-local", &s.probe_local, "with --remote: time each sent compile's preprocessing here"),
		OPT_FLAG(0, "probe-net", &s.probe_net, "with --probe-local: time what sending a compile costs"),
		OPT_CALL(0, "memory", &s.memory_kb, "SIZE", "hold the job counts to SIZE of memory (16G, 800M): the\n"
			 "fastest that fits, from the peaks --from RANK.json measured", parse_memory_option),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("sim", argc, argv, opts, usage);
	if (first < argc)
		usage_error("sim", "unexpected argument '%s'", argv[first]);
	if (s.from && !strcmp(s.from, "log"))
		s.from = NULL;
	if (local && cores)
		usage_error("sim", "--local and --cores both name the cores here; give one");
	if ((local || s.distcc_path || s.probe_local) && !s.remote.slots)
		usage_error("sim", "--%s describes a cluster: give --remote N too",
			    local ? "local" : s.distcc_path ? "distcc-log" : "probe-local");
	if (s.distcc_path && s.probe_local)
		usage_error("sim", "--distcc-log and --probe-local both split the compiles; give one");
	if (s.probe_net && !s.probe_local)
		usage_error("sim", "--probe-net costs each compile by its preprocessed size: give --probe-local too");
	s.cores = (double)(local ? local : cores);
	if (jobs) {
		parse_jobs(&s, jobs);
	} else {
		for (long j = 1; j <= 2L * cpu_count(); j++)
			push_jobs(&s, j);
	}
	if (policy.given) {
		s.policy = policy.policy;
		s.policy_why = xstrdup("--policy");
	}

	snapshot_guard(s.dir);
	ninja_load(s.dir, &s.build);
	s.seconds = xcalloc(s.build.n, sizeof(double));
	s.timed = xcalloc(s.build.n, sizeof(bool));
	s.memory = xcalloc(s.build.n ? s.build.n : 1, sizeof(*s.memory));
	if (s.from)
		times_from_rank(&s);
	else
		times_from_log(&s, false);
	for (size_t i = 0; i < s.build.n; i++)
		if (!s.timed[i] && !ninja_edge_is_phony(&s.build.edges[i]))
			s.unknown++;
	for (size_t k = 0; k < s.nedits; k++)	/* names checked before any work */
		for (size_t t = 0; t < s.edits[k].targets.n; t++) {
			long e = edge_named(&s, s.edits[k].targets.v[t]);
			for (size_t u = 0; u < t; u++)
				if (edge_named(&s, s.edits[k].targets.v[u]) == e)
					usage_error("sim", "--%s %s names %s twice", edit_names[s.edits[k].kind],
						    s.edits[k].arg, s.build.edges[e].outputs.v[0]);
		}
	if (!policy.given)
		s.policy = ninja_policy(&s.policy_why);
	if (s.distcc_path) {
		char *err = NULL;
		if (!distcc_log_read(s.distcc_path, &s.distcc, &err))
			die(EXIT_BAD_INPUT, "%s", err);
	}
	if (s.probe_local) {
		bool *sent = cluster_sent(&s.build);
		local_probe_run(&s.build, s.dir, sent, cpu_count(), 0, &s.local);
		if (s.probe_net)
			probe_network(&s, sent);
		free(sent);
		proc_exit_if_interrupted();
	}
	if (s.remote.slots)
		cluster_split(&s.build, s.seconds, s.distcc_path ? &s.distcc : NULL, s.probe_local ? s.local.seconds : NULL,
			      s.network, s.remote.speed, &s.split);

	struct model base, edited;
	build_model(&s, false, &base);
	build_model(&s, true, &edited);
	struct result *res = xcalloc(s.njobs, sizeof(*res));
	for (size_t i = 0; i < s.njobs; i++) {
		progress_set("simulating -j %ld", s.jobs[i]);
		res[i].jobs = s.jobs[i];
		res[i].edited = predict(&s, &edited, s.jobs[i]);
		res[i].base = s.nedits ? predict(&s, &base, s.jobs[i]) : res[i].edited;
	}
	progress_clear();
	struct memory_plan mp = { 0 };
	if (s.memory_kb) {
		if (!s.npeaks)
			die(EXIT_BAD_INPUT, "%s: no step's peak memory is known (--memory needs --from RANK.json, rank's "
			    "measurement of each TU)", s.from ? s.from : ".ninja_log");
		long most = 1;
		for (size_t i = 0; i < s.njobs; i++)
			most = s.jobs[i] > most ? s.jobs[i] : most;
		const struct sched_options o = { .policy = s.policy, .cores = s.cores, .contention = s.contention.share,
						 .remote_slots = (int)s.remote.slots };
		if (!memory_plan_make(&edited, &o, most, s.memory_kb, &mp))
			die(EXIT_BAD_INPUT, "%s: the graph has a cycle", s.dir);
	}
	if (json)
		render_json(&s, res, &mp);
	else
		render_table(&s, res, &mp);
	memory_plan_free(&mp);
	/* As rank: what could be measured is shown, a failed compile's run exits 3. */
	int status = failures_status(s.local.failed, "preprocessing run", " (those compiles counted all remote)");
	free(res);
	model_free(&base);
	model_free(&edited);
	sim_free(&s);
	return status;
}
