/* The pass probe: see pass_probe.h. */
#define _GNU_SOURCE
#include "pass_probe.h"
#include "headers.h"
#include "out_table.h"
#include "nvcc_report.h"
#include "preprocess.h"
#include "progress.h"
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *log_path(const char *what, size_t tu, size_t k)
{
	return xasprintf("%s/%s-%zu-%zu.log", tmpdir_path(), what, tu, k);
}

static void fail_tu(struct pass_probe *ps, struct pass_tu *t, const char *what, const struct proc *p, const char *log)
{
	t->failed = true;
	if (t->may_fail) {
		char *line = file_first_error_line(log);
		t->failure = line ? line : proc_failure(p);
		return;
	}
	char *why = proc_report_failure(p, log, "%s: %s", t->name, what);
	t->failure = xasprintf("%s: %s", what, why);
	ps->failures++;
	free(why);
}

long pass_tu_most_repeats(const struct pass_probe *ps, const struct pass_tu *t)
{
	return t->repeats > 0 && t->repeats < ps->repeats ? t->repeats : ps->repeats;
}

double pass_tu_round_runs(const struct pass_tu *t)
{
	return t->leads || t->walls_only || t->whole ? 1 : 3;
}

/* A wall taken: at the second, where the two disagree, the settle budget
 * says once whether a third round runs (it takes a round of the slower). */
static void wall_taken(struct pass_probe *ps, struct pass_tu *t)
{
	if (t->nwalls != 2 || !ps->settle || pass_tu_most_repeats(ps, t) <= 2 || walls_agree(t->walls, 2))
		return;
	double slower = t->walls[0] > t->walls[1] ? t->walls[0] : t->walls[1];
	t->unsettled = !settle_budget_allows(ps->settle, monotonic_seconds(), slower * pass_tu_round_runs(t), 0);
}

static void record_whole(struct pass_probe *ps, struct pass_tu *t, const struct proc *p)
{
	t->walls[t->nwalls] = p->wall_s;
	t->cpus[t->nwalls] = p->cpu_s;
	t->nwalls++;
	wall_taken(ps, t);
	if (p->maxrss_kb > t->maxrss_kb)
		t->maxrss_kb = p->maxrss_kb;
	if (p->peak_kb > t->peak_kb) {
		t->peak_kb = p->peak_kb;
		t->peak_by = p->peak_by;
	}
}

/* A plain run's wall, CPU and RSS, with the phases of an instrumented run
 * of the same job that took `instrumented` seconds (NaN: none): the phases
 * keep their shares and are scaled to the plain wall, since instrumentation
 * slows what it measures (-ftime-report: gcc up to 1.7x). */
static void record_job(struct job_runs *r, double wall, double cpu, long rss, const double *phase, double instrumented)
{
	r->walls[r->n] = wall;
	r->cpus[r->n] = cpu;
	r->instrumented[r->n] = instrumented;
	double scale = instrumented > 0 && wall >= 0 ? wall / instrumented : 1;
	for (int k = 0; k < NPHASES; k++)
		r->phases[k][r->n] = phase[k] * scale;
	if (rss > r->maxrss_kb)
		r->maxrss_kb = rss;
	r->n++;
}

static void keep_report(struct job_runs *r, struct time_group *g)
{
	if (r->has_report)
		for (size_t h = 0; h < r->report.nheaviest; h++)
			free(r->report.heaviest[h].name);
	r->report = *g;
	g->nheaviest = 0;
	r->has_report = true;
}

static const char *job_label(const struct job *j, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s%s%s", pass_kind_name(j->pass), j->tool, j->arch ? " " : "", j->arch ? j->arch : "");
	return buf;
}

static bool same_arch(const char *a, const char *b)
{
	return a && b && !strcmp(nvcc_arch_number(a), nvcc_arch_number(b));
}

/* Each job's wall from a --time CSV, matched by nvcc's phase name and
 * arch; NaN (with a warning) where nvcc wrote no row. NULL when the CSV
 * cannot be read (the TU failed). */
static double *nvcc_job_walls(struct pass_probe *ps, struct pass_tu *t, const char *csv)
{
	const char *name = t->name;
	struct nvcc_time times = { 0 };
	char *err = NULL;
	if (!nvcc_time_read(csv, &times, &err)) {
		warn("%s: nvcc --time wrote %s:%s", name, csv, err);
		t->failed = true;
		t->failure = err;
		ps->failures++;
		return NULL;
	}
	const struct nvcc_run *run = times.n ? &times.runs[times.n - 1] : NULL;
	bool *used = xcalloc(run ? run->n : 0, sizeof(bool));
	double *walls = xcalloc(t->jobs.n, sizeof(double));
	for (size_t i = 0; i < t->jobs.n; i++) {
		const struct job *j = &t->jobs.v[i];
		walls[i] = NAN;
		for (size_t k = 0; run && k < run->n; k++) {
			const struct nvcc_job_time *row = &run->jobs[k];
			if (used[k] || !j->nvcc_phase || strcmp(row->phase, j->nvcc_phase) ||
			    (j->pass == PASS_DEVICE && !same_arch(row->arch, j->arch)))
				continue;
			used[k] = true;
			walls[i] = row->seconds;
			break;
		}
		if (isnan(walls[i]))
			warn("%s: nvcc --time has no row for job %zu (%s)", name, i + 1, j->tool);
	}
	free(used);
	nvcc_time_free(&times);
	return walls;
}

/* The phases nvcc's instrumented run gives each job, from its device
 * trace and the host compiler's report, recorded with the plain run's
 * job walls. */
static void record_nvcc(struct pass_tu *t, size_t ti, const double *walls2)
{
	const char *name = t->name;
	char *trace_file = xasprintf("%s/trace-%zu-%ld.json", tmpdir_path(), ti, t->round);
	struct nvcc_trace tr = { 0 };
	struct time_report host = { 0 };
	char *err;
	if (!nvcc_trace_read(trace_file, &tr, &err)) {
		warn("%s: no device phases: %s:%s", name, trace_file, err);
		free(err);
	}
	if (!timereport_read(t->log, &host, &err)) {
		warn("%s: no host phases: %s", name, err);
		free(err);
	}
	for (size_t i = 0; i < t->jobs.n; i++) {
		const struct job *j = &t->jobs.v[i];
		double wall = isnan(t->nvcc_walls[i]) ? 0 : t->nvcc_walls[i], phase[NPHASES];
		phases_unknown(phase);
		if (!strcmp(j->tool, "cudafe++") || strstr(j->tool, " -E")) {
			phase[PHASE_FRONT_END] = walls2[i];	/* preprocessing and C++ parsing */
		} else if (!strcmp(j->tool, "ptxas")) {
			phase[PHASE_CODEGEN] = walls2[i];
		} else if (!strcmp(j->tool, "cicc")) {
			for (size_t a = 0; a < tr.n; a++)
				if (same_arch(tr.archs[a].arch, j->arch))
					memcpy(phase, tr.archs[a].cicc, sizeof(phase));
		} else if (j->nvcc_phase && !strcmp(j->nvcc_phase, "gcc (compiling)") && host.n) {
			/* The host compiler's last report is its compile. */
			struct time_group *g = &host.groups[host.n - 1];
			memcpy(phase, g->phase, sizeof(phase));
			t->times[i].backend_combined = g->backend_combined;
			keep_report(&t->runs[i], g);
		}
		record_job(&t->runs[i], wall, NAN, -1, phase, walls2[i]);
	}
	nvcc_trace_free(&tr);
	time_report_free(&host);
	free(trace_file);
}

/* A plain job run and, for a compiler proper, its -ftime-report twin:
 * the twin's report gives the phases. */
static void record_replayed(struct pass_tu *t, const struct proc *plain, const struct proc *twin)
{
	double phase[NPHASES];
	phases_unknown(phase);
	if (twin) {
		struct time_report rep = { 0 };
		char *err = NULL;
		if (!timereport_read(t->log, &rep, &err)) {
			warn("%s: cannot read the time report of job %zu: %s", t->name,
			     t->job + 1, err);
			free(err);
		} else if (rep.n) {
			struct time_group *g = &rep.groups[rep.n - 1];
			memcpy(phase, g->phase, sizeof(phase));
			t->times[t->job].backend_combined = g->backend_combined;
			keep_report(&t->runs[t->job], g);
		}
		time_report_free(&rep);
	}
	record_job(&t->runs[t->job], plain->wall_s, plain->cpu_s, plain->maxrss_kb, phase, twin ? twin->wall_s : NAN);
}

/* Whose walls are its rounds of jobs, summed, with no whole run: nvcc's
 * host pass alone (it has no whole compile), and a walls-only probe of
 * the other drivers (its jobs time its passes; whole runs beside them
 * would only repeat them, at twice the probe's cost). */
static bool walls_from_jobs(const struct pass_tu *t)
{
	return t->cmd.compiler == COMPILER_NVCC ? t->host_only : t->walls_only;
}

static void record_round(struct pass_probe *ps, struct pass_tu *t, long repeats)
{
	if ((long)t->nwalls < repeats) {
		t->walls[t->nwalls] = t->round_wall;
		t->cpus[t->nwalls] = t->round_cpu;
		t->nwalls++;
		wall_taken(ps, t);
	}
	for (size_t i = 0; i < t->jobs.n; i++)
		if (t->runs[i].maxrss_kb > t->maxrss_kb)
			t->maxrss_kb = t->runs[i].maxrss_kb;
	/* Its jobs ran one at a time: the most of them is its tree's peak,
	 * where no whole run measured one. */
	if (walls_from_jobs(t) && t->maxrss_kb > t->peak_kb) {
		t->peak_kb = t->maxrss_kb;
		t->peak_by = "the most of its jobs, run one at a time (each its largest process's RSS)";
	}
	t->round_wall = t->round_cpu = 0;
}

/* The next process of t's probe into p; false when its probe is over.
 *   whole:  the whole compile, until it has `whole_runs` runs (--top's
 *           re-timing may have given it some), one before each round of
 *           its jobs;
 *   jobs:   clang, hipcc, gcc: each job alone, plain, then a compiler
 *           proper again with -ftime-report; every repeat;
 *   nvcc:   a plain run with --time alone (the TU's wall and every job's:
 *           nvcc runs them one after another and times each), then one
 *           with the device trace and the host compiler's -ftime-report. */
static long tu_repeats(const struct pass_probe *ps, const struct pass_tu *t)
{
	long repeats = pass_tu_most_repeats(ps, t);
	if (ps->settle && repeats > 2 && t->nwalls >= 2 && (t->unsettled || walls_agree(t->walls, 2)))
		return 2;
	return repeats;
}

static bool next_run(struct pass_probe *ps, struct pass_tu *t, size_t ti, long whole_runs, bool whole_only, struct proc *p)
{
	const char *name = t->name;
	long repeats = tu_repeats(ps, t);
	if (whole_runs > repeats)
		whole_runs = repeats;
	strvec_clear(&t->argv);
	strvec_clear(&t->env);
	free(t->log);
	t->log = NULL;
	if (t->leads)
		whole_runs = 1;
	else if (t->whole)
		whole_runs = repeats;
	bool whole_due = (long)t->nwalls < whole_runs;
	if (t->stage == STAGE_WHOLE && !whole_due && (whole_only || t->leads || t->whole))
		return false;
	/* Whole compiles and rounds of its jobs take turns, so that a machine
	 * that changes speed midway changes both alike: the jobs' sum is set
	 * against the whole TU's wall. */
	if (t->stage == STAGE_WHOLE && !whole_only && !t->leads && !t->whole &&
	    (!whole_due || (long)t->nwalls > t->round)) {
		if (t->round == 0) {
			t->timed_by = "buildwall (each job re-run alone, in turn with the whole compile; compilers once more with -ftime-report)";
			for (size_t i = 0; i < t->jobs.n; i++)
				job_make_temp_parents(&t->jobs.v[i]);
		}
		t->stage = STAGE_JOBS;
	} else if (t->stage == STAGE_JOBS && !walls_from_jobs(t) && t->job == 0 && !t->second && whole_due &&
		   (long)t->nwalls <= t->round && t->round + (long)t->extras < repeats) {
		t->stage = STAGE_WHOLE;
	}
	if ((t->stage == STAGE_JOBS || t->stage == STAGE_NVCC) && t->round + (long)t->extras >= repeats)
		t->stage = STAGE_DONE;
	if (t->stage == STAGE_DONE)
		return false;
	for (size_t a = 0; t->stage != STAGE_JOBS && a < t->cmd.argv.n; a++)
		strvec_push(&t->argv, t->cmd.argv.v[a]);
	if (t->stage == STAGE_WHOLE) {
		t->log = log_path("tu", ti, t->nwalls);
		progress_set("%s: whole compile (run %zu/%ld)", name, t->nwalls + 1, whole_runs);
	} else if (t->stage == STAGE_NVCC) {
		t->run_round = t->round;
		t->timed_by = "nvcc --time (jobs run one after another by nvcc); phases from a second, instrumented run";
		t->log = log_path("tu", ti, (size_t)t->round);
		strvec_push(&t->argv, "--time");
		strvec_pushf(&t->argv, "%s/time-%s%zu-%ld.csv", tmpdir_path(), t->second ? "instrumented-" : "", ti, t->round);
		if (t->second) {
			strvec_push(&t->argv, "-fdevice-time-trace");
			strvec_pushf(&t->argv, "%s/trace-%zu-%ld", tmpdir_path(), ti, t->round);
			strvec_push(&t->argv, "-Xcompiler");
			strvec_push(&t->argv, "-ftime-report");
		}
		progress_set("%s: nvcc %s (run %ld/%ld)", name, t->second ? "with its traces" : "--time", t->round + 1,
			     repeats);
	} else {
		const struct job *j = &t->jobs.v[t->job];
		for (size_t a = 0; a < j->argv.n; a++)
			strvec_push(&t->argv, j->argv.v[a]);
		for (size_t e = 0; e < t->cmd.env.n; e++)
			strvec_push(&t->env, t->cmd.env.v[e]);
		for (size_t e = 0; e < j->env.n; e++)	/* nvcc's settings: its tools' PATH */
			strvec_push(&t->env, j->env.v[e]);
		if (t->second)
			strvec_push(&t->argv, "-ftime-report");
		char label[160];
		t->log = log_path("job", ti, t->job);
		progress_set("%s: job %zu/%zu (%s%s)", name, t->job + 1, t->jobs.n, job_label(j, label, sizeof(label)),
			     t->second ? ", -ftime-report" : "");
	}
	*p = (struct proc){ .argv = t->argv.v, .env_extra = t->env.n ? t->env.v : t->cmd.env.v, .cwd = ps->dir,
			    .out_path = t->log, .timeout_s = ps->timeout };
	return true;
}

/* A walls-only nvcc round: each job's wall as --time gave it. */
static void record_nvcc_walls(struct pass_tu *t, const double *walls)
{
	double phase[NPHASES];
	phases_unknown(phase);
	for (size_t i = 0; i < t->jobs.n; i++)
		record_job(&t->runs[i], isnan(walls[i]) ? 0 : walls[i], NAN, -1, phase, NAN);
	t->round++;
}

/* Take a finished run of t's probe and move its cursor on. */
static void run_finished(struct pass_probe *ps, struct pass_tu *t, size_t ti, const struct proc *p)
{
	if (!proc_succeeded(p)) {
		char label[160], *what = t->stage == STAGE_JOBS
			? xasprintf("job %zu of %zu (%s)", t->job + 1, t->jobs.n, job_label(&t->jobs.v[t->job], label, sizeof(label)))
			: xstrdup("the compile");
		fail_tu(ps, t, what, p, t->log);
		free(what);
		t->stage = STAGE_DONE;
		return;
	}
	if (t->stage == STAGE_WHOLE) {
		record_whole(ps, t, p);
	} else if (t->stage == STAGE_NVCC && !t->second) {
		if (t->nwalls < (size_t)tu_repeats(ps, t))	/* else --top's re-timing gave it */
			record_whole(ps, t, p);
		char *csv = xasprintf("%s/time-%zu-%ld.csv", tmpdir_path(), ti, t->run_round);
		free(t->nvcc_walls);
		t->nvcc_walls = nvcc_job_walls(ps, t, csv);
		free(csv);
		if (!t->nvcc_walls) {
			t->stage = STAGE_DONE;
		} else if (t->walls_only) {
			record_nvcc_walls(t, t->nvcc_walls);
		} else {
			t->second = true;
		}
	} else if (t->stage == STAGE_NVCC) {
		char *csv = xasprintf("%s/time-instrumented-%zu-%ld.csv", tmpdir_path(), ti, t->run_round);
		double *walls2 = nvcc_job_walls(ps, t, csv);
		free(csv);
		if (walls2)
			record_nvcc(t, ti, walls2);
		else
			t->stage = STAGE_DONE;
		free(walls2);
		t->second = false;
		t->round++;
	} else if (!t->second && t->jobs.v[t->job].time_report && !t->walls_only) {
		t->plain = *p;	/* its twin runs next */
		t->second = true;
	} else {
		const struct proc *plain = t->second ? &t->plain : p;
		record_replayed(t, plain, t->second ? p : NULL);
		t->round_wall += plain->wall_s;
		t->round_cpu += plain->cpu_s;
		t->second = false;
		if (++t->job == t->jobs.n) {
			if (walls_from_jobs(t))
				record_round(ps, t, tu_repeats(ps, t));
			t->job = 0;
			t->round++;
		}
	}
}


static void summarize_tu(struct pass_probe *ps, struct pass_tu *t)
{
	t->wall = summarize(t->walls, t->nwalls);
	t->cpu = summarize(t->cpus, t->nwalls);
	for (size_t i = 0; i < t->jobs.n; i++) {
		struct job_runs *r = &t->runs[i];
		struct job_time *jt = &t->times[i];
		jt->wall = median_of(r->walls, r->n);
		jt->cpu = median_of(r->cpus, r->n);
		jt->instrumented = median_of(r->instrumented, r->n);
		jt->maxrss_kb = r->maxrss_kb;
		for (int k = 0; k < NPHASES; k++)
			jt->phase[k] = median_of(r->phases[k], r->n);
		if (r->has_report) {
			/* The report's rows are of the instrumented run: scaled as the phases are. */
			double scale = jt->instrumented > 0 ? jt->wall / jt->instrumented : 1;
			jt->nheaviest = r->report.nheaviest;
			memcpy(jt->heaviest, r->report.heaviest, sizeof(jt->heaviest));
			for (size_t h = 0; h < jt->nheaviest; h++)
				jt->heaviest[h].seconds *= scale;
		}
	}
	breakdown_build(&t->jobs, t->times, &ps->th, &t->bd);
}

/* nvcc's host pass alone: its host jobs, the device ones dropped, and the
 * stubs cicc would have written (the kernels' launch stubs, which the host
 * compile includes) empty files in the temp dir. NULL or what is wrong. */
static char *keep_nvcc_host_jobs(struct pass_tu *t)
{
	char *tmp = path_normalize("/", tmpdir_path());
	for (size_t i = 0; i < t->jobs.n; i++) {
		const char *stub = job_nvcc_stub(&t->jobs.v[i]);
		char *at = stub ? path_normalize(tmp, stub) : NULL;
		bool inside = !at || path_below(at, tmp);
		free(at);
		if (!inside) {
			free(tmp);
			return xasprintf("nvcc puts its stub file %s outside the temp dir; its host pass cannot be run alone",
					 stub);
		}
	}
	free(tmp);
	for (size_t i = 0; i < t->jobs.n; i++) {
		const char *stub = job_nvcc_stub(&t->jobs.v[i]);
		job_make_temp_parents(&t->jobs.v[i]);
		FILE *f = stub ? fopen(stub, "w") : NULL;
		if (stub && (!f || fclose(f)))
			die(EXIT_INTERNAL, "cannot write %s: %s", stub, strerror(errno));
	}
	job_list_keep(&t->jobs, PASS_HOST);
	t->timed_by = "buildwall (nvcc's host jobs re-run one after another; its device passes not run)";
	return NULL;
}

/* List t's jobs (the driver's -### or --dryrun) and make room for their runs. */
static void list_jobs(struct pass_probe *ps, struct pass_tu *t, size_t ti)
{
	const char *name = t->name;
	char *log = log_path("jobs", ti, 0);
	bool nvcc = t->cmd.compiler == COMPILER_NVCC;
	if (t->host_only && !nvcc && !strvec_contains(&t->cmd.argv, "--cuda-host-only"))
		strvec_push(&t->cmd.argv, "--cuda-host-only");
	progress_set("%s: asking the driver for its jobs", name);
	char *err = NULL;
	jobs_list(&t->cmd, ps->dir, log, ps->timeout, &t->jobs, &err);
	progress_clear();
	if (err) {
		t->failed = true;
		t->failure = err;
		ps->failures++;
		jobs_report_list_failure(name, err, log);
		free(log);
		return;
	}
	free(log);
	if (t->host_only && nvcc && (err = keep_nvcc_host_jobs(t))) {
		t->failed = true;
		t->failure = err;
		ps->failures++;
		warn("%s: %s", name, err);
		return;
	}
	size_t n = t->jobs.n, reps = (size_t)ps->repeats;
	t->runs = xcalloc(n, sizeof(*t->runs));
	t->times = xcalloc(n, sizeof(*t->times));
	for (size_t i = 0; i < n; i++) {
		t->runs[i].walls = xcalloc(reps, sizeof(double));
		t->runs[i].cpus = xcalloc(reps, sizeof(double));
		t->runs[i].instrumented = xcalloc(reps, sizeof(double));
		for (int k = 0; k < NPHASES; k++)
			t->runs[i].phases[k] = xcalloc(reps, sizeof(double));
		t->runs[i].maxrss_kb = -1;
	}
	t->stage = nvcc && !t->host_only ? STAGE_NVCC : walls_from_jobs(t) ? STAGE_JOBS : STAGE_WHOLE;
	if (t->stage == STAGE_JOBS && !nvcc) {
		t->timed_by = "buildwall (each job re-run alone, the wall their sum)";
		for (size_t i = 0; i < n; i++)
			job_make_temp_parents(&t->jobs.v[i]);
	}
	t->round = 0;
	t->job = 0;
	t->second = false;
}

/* An extra round of a walls-only probe. Such a probe's rounds need
 * nothing of each other (a whole nvcc run with --time, or the jobs of
 * gcc, clang or nvcc's host pass, summed), so when no probe has a run to
 * start (a slot would idle) its next round starts beside the one under
 * way: a copy of the probe of one round, its command's outputs in a dir
 * of its own and its jobs listed anew (their temp files its own), whose
 * walls join the probe's when it ends. A probe of a minute a round (a
 * framework's headers with a kernel TU's command) then takes about one
 * round's time instead of R of them. */
struct extra_round {
	long of;		/* the probe it is a round of; -1: the slot is free */
	size_t serial;		/* names its files apart from every other run's */
	char *dir;		/* its outputs */
	struct pass_tu copy;
};

/* The pool's view: every TU's probe, at most --parallel TUs at once, one
 * process of a TU at a time (its jobs read each other's outputs) but for
 * the extra rounds (tasks ntus + k). */
struct probing {
	struct pass_probe *ps;
	long whole_runs;
	bool whole_only;
	struct extra_round *extras;	/* ps->parallel slots */
	size_t serials;
};

static bool wants_extra(const struct pass_probe *ps, const struct pass_tu *t)
{
	bool apart = t->stage == STAGE_NVCC || (t->stage == STAGE_JOBS && walls_from_jobs(t));
	return t->walls_only && apart && t->running && !t->failed &&
	       t->round + 1 + (long)t->extras < tu_repeats(ps, t);
}

static void extra_free(struct extra_round *x)
{
	if (x->dir)
		remove_tree(x->dir);
	free(x->dir);
	pass_tu_free(&x->copy);
	*x = (struct extra_round){ .of = -1 };
}

/* A copy of t's probe for one round, its outputs and jobs its own; false
 * when it cannot be made (its jobs not t's: no extra round then). */
static bool extra_prepare(struct pass_probe *ps, struct extra_round *x, const struct pass_tu *t)
{
	struct compile_command cmd = { .compiler = t->cmd.compiler };
	for (size_t a = 0; a < t->cmd.argv.n; a++)
		strvec_push(&cmd.argv, t->cmd.argv.v[a]);
	for (size_t e = 0; e < t->cmd.env.n; e++)
		strvec_push(&cmd.env, t->cmd.env.v[e]);
	char *sub = xasprintf("extra-%zu", x->serial);
	x->dir = tmpdir_subdir(sub);
	free(sub);
	char *err = NULL;
	driver_redirect_outputs(&cmd, x->dir, &err);
	x->copy = (struct pass_tu){ .name = xstrdup(t->name), .edge = t->edge, .cmd = cmd, .walls_only = true,
				    .host_only = t->host_only, .may_fail = t->may_fail, .repeats = 1, .fallback_for = -1 };
	x->copy.walls = xcalloc((size_t)ps->repeats, sizeof(double));
	x->copy.cpus = xcalloc((size_t)ps->repeats, sizeof(double));
	if (err) {	/* its outputs were redirected once: not expected */
		free(err);
		return false;
	}
	list_jobs(ps, &x->copy, ps->ntus + x->serial);
	return !x->copy.failed && x->copy.jobs.n == t->jobs.n;
}

/* The next job of an extra round under way (gcc's, clang's or nvcc's
 * host jobs, one after another): it goes on before anything new starts. */
static long next_extra_job(struct probing *pr, struct proc *p)
{
	struct pass_probe *ps = pr->ps;
	for (size_t k = 0; k < (size_t)ps->parallel; k++) {
		struct extra_round *x = &pr->extras[k];
		if (x->of < 0 || x->copy.running)
			continue;
		struct pass_tu *t = &ps->tus[x->of];
		if (t->failed || t->round >= tu_repeats(ps, t)) {	/* its walls would not count */
			t->extras--;
			extra_free(x);
		} else if (next_run(ps, &x->copy, ps->ntus + x->serial, 1, false, p)) {
			x->copy.running = true;
			return (long)(ps->ntus + k);
		}
	}
	return -1;
}

/* A new extra round of a probe that wants one, in a free slot. */
static long next_extra_round(struct probing *pr, struct proc *p)
{
	struct pass_probe *ps = pr->ps;
	size_t k = 0;
	while (k < (size_t)ps->parallel && pr->extras[k].of >= 0)
		k++;
	for (size_t i = 0; k < (size_t)ps->parallel && i < ps->ntus; i++) {
		struct pass_tu *t = &ps->tus[i];
		struct extra_round *x = &pr->extras[k];
		if (!wants_extra(ps, t))
			continue;
		size_t failures = ps->failures;
		x->serial = pr->serials++;
		if (!extra_prepare(ps, x, t) || !next_run(ps, &x->copy, ps->ntus + x->serial, 1, false, p)) {
			ps->failures = failures;	/* the probe's own rounds go on without it */
			extra_free(x);
			continue;
		}
		x->of = (long)i;
		x->copy.running = true;
		t->extras++;
		return (long)(ps->ntus + k);
	}
	return -1;
}

/* An extra round's walls join its probe's, while it still wants rounds. */
static void merge_round(struct pass_probe *ps, struct pass_tu *t, const struct pass_tu *x)
{
	if (t->failed || !x->nwalls || t->round >= tu_repeats(ps, t))
		return;
	for (size_t i = 0; i < t->jobs.n; i++) {
		const struct job_runs *from = &x->runs[i];
		double phase[NPHASES];
		for (int k = 0; k < NPHASES; k++)
			phase[k] = from->phases[k][0];
		record_job(&t->runs[i], from->walls[0], from->cpus[0], from->maxrss_kb, phase, from->instrumented[0]);
	}
	t->walls[t->nwalls] = x->walls[0];
	t->cpus[t->nwalls] = x->cpus[0];
	t->nwalls++;
	wall_taken(ps, t);
	if (x->maxrss_kb > t->maxrss_kb)
		t->maxrss_kb = x->maxrss_kb;
	if (x->peak_kb > t->peak_kb) {
		t->peak_kb = x->peak_kb;
		t->peak_by = x->peak_by;
	}
	t->round++;
}

/* A run of an extra round ended: its round goes on, or joins its probe's
 * walls; one that fails fails its probe (the same compile). */
static void extra_run_finished(struct probing *pr, size_t k, const struct proc *p)
{
	struct pass_probe *ps = pr->ps;
	struct extra_round *x = &pr->extras[k];
	struct pass_tu *t = &ps->tus[x->of];
	size_t failures = ps->failures;
	x->copy.running = false;
	run_finished(ps, &x->copy, ps->ntus + x->serial, p);
	if (x->copy.failed) {
		if (t->failed) {
			ps->failures = failures;	/* counted once */
		} else {
			t->failed = true;
			t->failure = xstrdup(x->copy.failure);
			t->stage = STAGE_DONE;
		}
	} else if (x->copy.round < 1) {
		return;		/* its next job runs next */
	} else {
		merge_round(ps, t, &x->copy);
	}
	t->extras--;
	extra_free(x);
}

/* A stand-in waits for the probe it stands in for, and is skipped when
 * that one succeeds. True while it must not run (yet). */
static bool stand_in_waits(struct pass_probe *ps, struct pass_tu *t)
{
	if (t->fallback_for < 0)
		return false;
	const struct pass_tu *f = &ps->tus[t->fallback_for];
	if (f->failed)
		return false;
	if (f->stage == STAGE_DONE && !f->running && !f->extras) {
		t->stage = STAGE_DONE;
		t->skipped = true;
	}
	return true;
}

/* The next run of a TU's own probe (the leading ones, or the rest): of
 * those with a run to start, the one expected to take longest, so that
 * the long ones do not start last and run on alone (in order where none
 * is expected). */
static long next_own_run(struct probing *pr, bool leads, struct proc *p)
{
	for (;;) {
		long best = -1;
		for (size_t i = 0; i < pr->ps->ntus; i++) {
			struct pass_tu *t = &pr->ps->tus[i];
			if (t->leads != leads || t->running || t->failed || t->stage == STAGE_DONE ||
			    stand_in_waits(pr->ps, t))
				continue;
			if (best < 0 || t->expect_s > pr->ps->tus[best].expect_s)
				best = (long)i;
		}
		if (best < 0)
			return -1;
		struct pass_tu *t = &pr->ps->tus[best];
		if (next_run(pr->ps, t, (size_t)best, pr->whole_runs, pr->whole_only, p)) {
			t->running = true;
			return best;
		}
		t->stage = STAGE_DONE;	/* its probe is over */
	}
}

static long next_tu_run(void *ctx, struct proc *p)
{
	struct probing *pr = ctx;
	long task = next_own_run(pr, true, p);
	if (task < 0 && !pr->whole_only)
		task = next_extra_job(pr, p);
	if (task < 0)
		task = next_own_run(pr, false, p);
	if (task < 0 && !pr->whole_only)
		task = next_extra_round(pr, p);
	return task;
}

static void tu_run_finished(void *ctx, long i, struct proc *p)
{
	struct probing *pr = ctx;
	struct pass_probe *ps = pr->ps;
	if (ps->nspans == ps->spans_cap) {
		ps->spans_cap = ps->spans_cap ? 2 * ps->spans_cap : 64;
		ps->spans = xrealloc(ps->spans, ps->spans_cap * sizeof(*ps->spans));
	}
	ps->spans[ps->nspans++] = (struct run_span){ i, p->t_start, p->t_start + p->wall_s };
	if ((size_t)i >= pr->ps->ntus) {
		extra_run_finished(pr, (size_t)i - pr->ps->ntus, p);
		return;
	}
	struct pass_tu *t = &pr->ps->tus[i];
	t->running = false;
	run_finished(pr->ps, t, (size_t)i, p);
}

static void run_probes(struct pass_probe *ps, long whole_runs, bool whole_only)
{
	struct probing pr = { .ps = ps, .whole_runs = whole_runs, .whole_only = whole_only,
			      .extras = xcalloc((size_t)ps->parallel, sizeof(struct extra_round)) };
	for (long k = 0; k < ps->parallel; k++)
		pr.extras[k].of = -1;
	const struct proc_pool pool = { .next = next_tu_run, .finished = tu_run_finished, .ctx = &pr };
	proc_run_parallel(ps->parallel, &pool);
	for (long k = 0; k < ps->parallel; k++)
		extra_free(&pr.extras[k]);
	free(pr.extras);
}

static bool is_arch_flag(const char *arg)
{
	return has_prefix(arg, "--offload-arch=") || has_prefix(arg, "-offload-arch=") || has_prefix(arg, "--cuda-gpu-arch=");
}

/* One compile that asks the device compiler for its kernels' resources. */
struct kernel_task {
	size_t tu;
	const char *arch;	/* AMDGPU: the one arch compiled; nvcc: NULL (ptxas names it) */
	struct strvec argv;
	char *log;
	char *object;		/* AMDGPU: the device object it writes */
	char *keep_dir;		/* nvcc: where --keep leaves each arch's cubin */
};

struct kernel_run {
	struct pass_probe *ps;
	struct kernel_task *v;
	size_t n, next;
};

static void add_kernel_task(struct kernel_run *kr, size_t tu, const char *arch)
{
	const struct pass_tu *t = &kr->ps->tus[tu];
	kr->v = xrealloc(kr->v, (kr->n + 1) * sizeof(*kr->v));
	struct kernel_task *k = &kr->v[kr->n];
	*k = (struct kernel_task){ .tu = tu, .arch = arch, .log = xasprintf("%s/kernels-%zu.log", tmpdir_path(), kr->n) };
	for (size_t a = 0; a < t->cmd.argv.n; a++)
		if (!arch || !is_arch_flag(t->cmd.argv.v[a]))
			strvec_push(&k->argv, t->cmd.argv.v[a]);
	if (!arch) {
		char *name = xasprintf("kernels-%zu", kr->n++);
		k->keep_dir = tmpdir_subdir(name);
		free(name);
		strvec_push(&k->argv, "-Xptxas");
		strvec_push(&k->argv, "-v");
		strvec_push(&k->argv, "--keep");
		strvec_push(&k->argv, "--keep-dir");
		strvec_push(&k->argv, k->keep_dir);
		return;
	}
	k->object = xasprintf("%s/kernels-%zu.o", tmpdir_path(), kr->n++);
	driver_set_output(&k->argv, k->object);
	strvec_pushf(&k->argv, "--offload-arch=%s", arch);
	strvec_push(&k->argv, "--offload-device-only");
	strvec_push(&k->argv, "-Rpass-analysis=kernel-resource-usage");
}

static long next_kernel_task(void *ctx, struct proc *p)
{
	struct kernel_run *kr = ctx;
	if (kr->next == kr->n)
		return -1;
	const struct kernel_task *k = &kr->v[kr->next];
	const struct pass_tu *t = &kr->ps->tus[k->tu];
	*p = (struct proc){ .argv = k->argv.v, .env_extra = t->cmd.env.v, .cwd = kr->ps->dir, .out_path = k->log,
			    .timeout_s = kr->ps->timeout };
	progress_set("%s: kernel resources%s%s", t->name, k->arch ? " for " : "", k->arch ? k->arch : "");
	return (long)kr->next++;
}

static void kernel_task_done(void *ctx, long task, struct proc *p)
{
	struct kernel_run *kr = ctx;
	const struct kernel_task *k = &kr->v[task];
	struct pass_tu *t = &kr->ps->tus[k->tu];
	progress_clear();
	if (!proc_succeeded(p)) {
		free(proc_report_failure(p, k->log, "%s: its compile for kernel resources%s%s", t->name,
					 k->arch ? " on " : "", k->arch ? k->arch : ""));
		kr->ps->failures++;
		return;
	}
	char *text = read_text_file(k->log);
	if (k->arch)
		kernel_facts_parse_amdgpu(text ? text : "", k->arch, &t->kernels);
	else
		kernel_facts_parse_ptxas(text ? text : "", &t->kernels);
	free(text);
	if (k->arch)
		kernel_facts_add_object(&t->kernels, t->name, k->object, k->arch);
	else
		kernel_facts_add_cubins(&t->kernels, t->name, k->keep_dir);
}

static size_t arch_rank(const struct pass_tu *t, const char *arch)
{
	size_t r = 0;
	for (size_t k = 0; k < t->bd.n; k++)
		if (t->bd.passes[k].kind == PASS_DEVICE && t->bd.passes[k].arch) {
			if (!strcmp(t->bd.passes[k].arch, arch))
				return r;
			r++;
		}
	return r;
}

/* A stable insertion sort of n records of `size` bytes by the rank of the
 * arch each names (its char * field at offset `arch_at`). */
static void sort_by_arch(const struct pass_tu *t, void *base, size_t n, size_t size, size_t arch_at)
{
	char *v = base, *held = xmalloc(size);
	for (size_t i = 1; i < n; i++) {
		const char *arch;
		memcpy(held, v + i * size, size);
		memcpy(&arch, held + arch_at, sizeof(arch));
		size_t j = i, rank = arch_rank(t, arch);
		for (; j > 0; j--) {
			const char *before;
			memcpy(&before, v + (j - 1) * size + arch_at, sizeof(before));
			if (arch_rank(t, before) <= rank)
				break;
			memcpy(v + j * size, v + (j - 1) * size, size);
		}
		memcpy(v + j * size, held, size);
	}
	free(held);
}

/* The archs' compiles finish in any order: a TU's kernels and code sizes
 * by arch as its passes list them, each arch's kernels in the compiler's
 * order. */
static void order_by_arch(struct pass_tu *t)
{
	sort_by_arch(t, t->kernels.v, t->kernels.n, sizeof(struct kernel_fact), offsetof(struct kernel_fact, arch));
	sort_by_arch(t, t->kernels.code, t->kernels.ncode, sizeof(struct arch_code), offsetof(struct arch_code, arch));
}

void pass_probe_find_kernels(struct pass_probe *ps, const bool *only)
{
	struct kernel_run kr = { .ps = ps };
	for (size_t i = 0; i < ps->ntus; i++) {
		struct pass_tu *t = &ps->tus[i];
		enum compiler c = t->cmd.compiler;
		if (t->failed || (only && !only[i]) || !(c == COMPILER_NVCC || c == COMPILER_CLANG || c == COMPILER_HIPCC))
			continue;
		t->kernels_probed = true;
		if (c == COMPILER_NVCC)
			add_kernel_task(&kr, i, NULL);
		for (size_t k = 0; c != COMPILER_NVCC && k < t->bd.n; k++)
			if (t->bd.passes[k].kind == PASS_DEVICE && t->bd.passes[k].arch)
				add_kernel_task(&kr, i, t->bd.passes[k].arch);
	}
	const struct proc_pool pool = { .next = next_kernel_task, .finished = kernel_task_done, .ctx = &kr };
	proc_run_parallel(ps->parallel, &pool);
	for (size_t i = 0; i < ps->ntus; i++)
		order_by_arch(&ps->tus[i]);
	for (size_t i = 0; i < kr.n; i++) {
		remove(kr.v[i].log);
		free(kr.v[i].log);
		if (kr.v[i].object)
			remove(kr.v[i].object);
		free(kr.v[i].object);
		if (kr.v[i].keep_dir)
			remove_tree(kr.v[i].keep_dir);
		free(kr.v[i].keep_dir);
		strvec_clear(&kr.v[i].argv);
	}
	free(kr.v);
}

void pass_tu_free(struct pass_tu *t)
{
	free(t->name);
	compile_command_clear(&t->cmd);
	for (size_t i = 0; t->runs && i < t->jobs.n; i++) {
		struct job_runs *r = &t->runs[i];
		free(r->walls);
		free(r->cpus);
		free(r->instrumented);
		for (int k = 0; k < NPHASES; k++)
			free(r->phases[k]);
		for (size_t h = 0; r->has_report && h < r->report.nheaviest; h++)
			free(r->report.heaviest[h].name);
	}
	job_list_free(&t->jobs);
	free(t->runs);
	free(t->times);
	free(t->walls);
	free(t->cpus);
	free(t->failure);
	breakdown_free(&t->bd);
	strvec_clear(&t->device_frameworks);
	strvec_clear(&t->host_frameworks);
	kernel_facts_free(&t->kernels);
	strvec_clear(&t->argv);
	strvec_clear(&t->env);
	free(t->log);
	free(t->nvcc_walls);
}

static struct pass_tu *tu_named(struct pass_probe *ps, const char *name)
{
	for (size_t i = 0; i < ps->ntus; i++)
		if (!strcmp(ps->tus[i].name, name))
			return &ps->tus[i];
	return NULL;
}

static const struct pass *device_pass_for(const struct pass_tu *t, const char *arch)
{
	for (size_t i = 0; i < t->bd.n; i++) {
		const struct pass *p = &t->bd.passes[i];
		if (p->kind == PASS_DEVICE && p->arch && arch && !strcmp(nvcc_arch_number(p->arch), nvcc_arch_number(arch)))
			return p;
	}
	return NULL;
}

/* Preprocess the timed TUs as pp does, host and device passes, and note
 * which host-only frameworks each pass parses: a device pass that parses
 * torch spends its front end on code it never compiles. */
void pass_probe_find_frameworks(struct pass_probe *ps)
{
	struct strvec names = { 0 };
	bool offload = false;
	for (size_t i = 0; i < ps->ntus; i++) {
		if (ps->tus[i].failed)
			continue;
		strvec_push(&names, ps->tus[i].name);
		offload |= ps->tus[i].cmd.compiler != COMPILER_GCC;
	}
	if (!names.n) {
		strvec_clear(&names);
		return;
	}
	struct pp_request req = { .cmd = "passes", .dir = ps->dir, .build = ps->build, .args = names.v, .nargs = names.n,
				  .device = offload, .jobs = 1, .timeout = ps->timeout };
	struct pp_sources ss;
	progress_set("preprocessing %zu TU%s for the framework headers they parse", names.n, names.n == 1 ? "" : "s");
	pp_collect(&req, &ss);
	progress_clear();
	struct header_groups groups;
	header_groups_init(&groups);
	for (size_t s = 0; s < ss.n; s++) {
		const struct pp_source *src = &ss.v[s];
		struct pass_tu *t = src->scanned ? tu_named(ps, src->tu) : NULL;
		for (size_t k = 0; t && k < src->scan.nsections; k++) {
			bool device;
			char *pass = pp_section_name(src, k, &device);
			struct header_context ctx;
			struct header_summary sum;
			pp_section_context(src, k, NULL, &ctx);
			const struct pp_section *sec = &src->scan.sections[k];
			header_summarize(sec, &groups, &ctx, &sum);
			const struct pass *dp = device ? device_pass_for(t, strchr(pass, ' ') ? strchr(pass, ' ') + 1 : NULL) : NULL;
			bool heavy = false;
			for (size_t g = 0; g < groups.n; g++) {
				if (!groups.v[g].heavy || !sum.groups[g].files)
					continue;
				heavy = true;
				if (device && !strvec_contains(&t->device_frameworks, groups.v[g].title))
					strvec_push(&t->device_frameworks, groups.v[g].title);
				if (!device) {
					char *lines = format_count(sum.groups[g].lines), *all = format_count(sec->lines);
					strvec_pushf(&t->host_frameworks, "%s (%s of its %s lines)", groups.v[g].title, lines, all);
					free(lines);
					free(all);
				}
			}
			if (heavy && dp && !isnan(dp->phase[PHASE_FRONT_END]))
				t->device_framework_front_end += dp->phase[PHASE_FRONT_END];
			header_summary_free(&sum);
			header_context_free(&ctx);
			free(pass);
		}
	}
	header_groups_free(&groups);
	pp_sources_free(&ss);
	strvec_clear(&names);
}

struct pass_tu *pass_probe_add(struct pass_probe *ps, const char *name, size_t edge, struct compile_command *cmd)
{
	if (ps->ntus == ps->cap) {
		ps->cap = ps->cap ? 2 * ps->cap : 8;
		ps->tus = xrealloc(ps->tus, ps->cap * sizeof(*ps->tus));
	}
	struct pass_tu *t = &ps->tus[ps->ntus++];
	*t = (struct pass_tu){ .name = xstrdup(name), .edge = edge, .cmd = *cmd, .fallback_for = -1 };
	*cmd = (struct compile_command){ 0 };
	t->walls = xcalloc((size_t)ps->repeats, sizeof(double));
	t->cpus = xcalloc((size_t)ps->repeats, sizeof(double));
	return t;
}

void pass_probe_skip(struct pass_probe *ps, size_t i)
{
	ps->tus[i].stage = STAGE_DONE;
	ps->tus[i].skipped = true;
}

void pass_probe_time_whole(struct pass_probe *ps)
{
	run_probes(ps, 1, true);
}

void pass_probe_run(struct pass_probe *ps)
{
	for (size_t i = 0; i < ps->ntus; i++)
		if (!ps->tus[i].failed && !ps->tus[i].leads && !ps->tus[i].whole && !ps->tus[i].skipped)
			list_jobs(ps, &ps->tus[i], i);
	run_probes(ps, ps->repeats, false);
	for (size_t i = 0; i < ps->ntus; i++) {
		struct pass_tu *t = &ps->tus[i];
		if (t->fallback_for >= 0 && !t->nwalls && !t->failed)
			t->skipped = true;	/* what it stood in for needed none */
		if (!t->failed && !t->skipped)
			summarize_tu(ps, t);
	}
}

double pass_probe_running(const struct pass_probe *ps, size_t i)
{
	const struct run_span *own = NULL;
	for (size_t k = 0; k < ps->nspans && !own; k++)
		if (ps->spans[k].task == (long)i)
			own = &ps->spans[k];
	if (!own || own->end <= own->start)
		return 0;
	double busy = 0;
	for (size_t k = 0; k < ps->nspans; k++) {
		double from = ps->spans[k].start > own->start ? ps->spans[k].start : own->start;
		double to = ps->spans[k].end < own->end ? ps->spans[k].end : own->end;
		busy += to > from ? to - from : 0;
	}
	return busy / (own->end - own->start);
}

double pass_tu_side(const struct pass_tu *t, enum pass_kind side)
{
	double s = 0;
	for (size_t i = 0; i < t->bd.n; i++)
		if (t->bd.passes[i].kind == side)
			s += t->bd.passes[i].seconds;
	return s;
}

double pass_tu_host_compiler(const struct pass_tu *t)
{
	double s = 0;
	for (size_t i = 0; i < t->jobs.n; i++)
		if (t->jobs.v[i].pass == PASS_HOST && strcmp(t->jobs.v[i].tool, "cudafe++"))
			s += t->times[i].wall;
	return s;
}

void pass_probe_free(struct pass_probe *ps)
{
	for (size_t i = 0; i < ps->ntus; i++)
		pass_tu_free(&ps->tus[i]);
	free(ps->tus);
	free(ps->spans);
	ps->tus = NULL;
	ps->spans = NULL;
	ps->ntus = ps->cap = ps->nspans = ps->spans_cap = 0;
}
