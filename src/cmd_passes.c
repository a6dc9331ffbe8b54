/* buildwall passes: split each TU into the jobs its driver runs (-###,
 * nvcc --dryrun), time every job in isolation, read the compilers' own
 * time reports into four phases per pass, and say whether the TU is
 * host-pass or device-pass dominant. The build directory is only read. */
#define _GNU_SOURCE
#include "cli.h"
#include "jobs.h"
#include "ninja.h"
#include "ninja_log.h"
#include "nvcc_report.h"
#include "out_json.h"
#include "options.h"
#include "out_table.h"
#include "passes.h"
#include "preprocess.h"
#include "proc.h"
#include "progress.h"
#include "snapshot.h"
#include "stats.h"
#include "steps.h"
#include "timereport.h"
#include "tmpdir.h"
#include "util.h"
#include "whatif.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char usage[] =
	"usage: buildwall passes [-C BUILD_DIR] (TARGET... | --all | --top K) [-r REPEATS]\n"
	"                        [--front-end S] [--codegen-share P] [--parallel P] [--timeout S] [--json]\n"
	"\n"
	"Split each TU into the jobs its compiler driver runs (clang/hipcc/gcc -###, nvcc\n"
	"--dryrun), time every job in isolation with all outputs in a private temp dir, and\n"
	"label it: pass (host, device per arch, other), arch, tool. Each pass is split into\n"
	"four phases from the compilers' own reports (Wall column): front end, LLVM IR\n"
	"generation, optimizer, machine code generation (clang -ftime-report per cc1 job;\n"
	"nvcc --time, -fdevice-time-trace and the host compiler's -ftime-report; gcc\n"
	"-ftime-report, where optimizer and code generation are one figure).\n"
	"\n"
	"Walls, CPU and RSS come from plain runs; the instrumented runs give the phases,\n"
	"scaled to the plain walls (instrumentation slows what it measures).\n"
	"\n"
	"Verdict per TU: the pass that holds most of the job time and the phase that holds\n"
	"most of it, with the evidence behind the playbook's fixes (a device pass that\n"
	"parses torch, from preprocessing the TU as pp does); the playbook's marks (host\n"
	"front end > S seconds, codegen > P of a device pass) beside it.\n"
	"\n";

/* One job's repeated measurements; summarized into a job_time. Walls,
 * CPU and RSS are of plain runs; an instrumented run (-ftime-report,
 * nvcc's traces) gives the phases, scaled to the plain wall. */
struct job_runs {
	double *walls, *cpus;
	double *instrumented;	/* the instrumented run's wall; NaN where there was none */
	double *phases[NPHASES];
	long maxrss_kb;
	size_t n;
	struct time_group report;	/* the last run's report, for heaviest passes */
	bool has_report;
};

struct tu {
	size_t edge;
	struct compile_command cmd;
	struct job_list jobs;
	struct job_runs *runs;
	struct job_time *times;
	double *walls, *cpus;
	size_t nwalls;
	long maxrss_kb;
	struct summary wall, cpu;
	bool failed;
	char *failure;
	const char *timed_by;	/* who timed the jobs */
	struct breakdown bd;
	/* Where its probe is (the pool runs several TUs' probes at once): the
	 * stage, the repeat and job under way, and whether the instrumented
	 * twin of a plain run is next (that plain run is kept meanwhile). */
	enum { STAGE_WHOLE, STAGE_JOBS, STAGE_NVCC, STAGE_DONE } stage;
	long round;
	size_t job;
	bool second, running;
	struct proc plain;
	double *nvcc_walls;
	struct strvec argv;
	char *log;
	/* The playbook's first evidence, from the TU preprocessed as pp does:
	 * the host-only frameworks its device passes parse ("torch/ATen/c10"),
	 * and the front-end seconds of those passes. */
	struct strvec device_frameworks;
	double device_framework_front_end;
	struct strvec host_frameworks;	/* "torch/ATen/c10 (300,512 of its 376,239 lines)" */
};

struct passes {
	const char *dir;
	struct ninja_build build;
	struct tu *tus;
	size_t ntus;
	long repeats, top, parallel;
	bool all;
	double timeout;
	struct thresholds th;
	struct strvec stripped;
	size_t failures;
	const char *chosen_by;	/* --top: ".ninja_log" or "re-timing" */
};

static char *log_path(const char *what, size_t tu, size_t k)
{
	return xasprintf("%s/%s-%zu-%zu.log", tmpdir_path(), what, tu, k);
}

static void fail_tu(struct passes *ps, struct tu *t, const char *what, const struct proc *p, const char *log)
{
	t->failed = true;
	char *why = proc_report_failure(p, log, "%s: %s", ps->build.edges[t->edge].outputs.v[0], what);
	t->failure = xasprintf("%s: %s", what, why);
	ps->failures++;
	free(why);
}

static void record_whole(struct tu *t, const struct proc *p)
{
	t->walls[t->nwalls] = p->wall_s;
	t->cpus[t->nwalls] = p->cpu_s;
	t->nwalls++;
	if (p->maxrss_kb > t->maxrss_kb)
		t->maxrss_kb = p->maxrss_kb;
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

static void nan_phases(double *phase)
{
	for (int k = 0; k < NPHASES; k++)
		phase[k] = NAN;
}

/* clang writes temp files into per-compile directories it may not have
 * created under -###: make the parents of every path in our temp dir. */
static void make_temp_parents(const struct job *j)
{
	const char *tmp = tmpdir_path();
	for (size_t i = 0; i < j->argv.n; i++) {
		const char *at = strstr(j->argv.v[i], tmp);
		if (!at)
			continue;
		char *path = xstrdup(at);
		for (char *slash = path + strlen(tmp) + 1; (slash = strchr(slash, '/')); slash++) {
			*slash = '\0';
			if (mkdir(path, 0700) && errno != EEXIST)
				warn("cannot create %s: %s", path, strerror(errno));
			*slash = '/';
		}
		free(path);
	}
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
static double *nvcc_job_walls(struct passes *ps, struct tu *t, const char *csv)
{
	const char *name = ps->build.edges[t->edge].outputs.v[0];
	struct nvcc_time times = { 0 };
	char *err = nvcc_time_read(csv, &times);
	if (err) {
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
static void record_nvcc(struct passes *ps, struct tu *t, size_t ti, const double *walls2)
{
	const char *name = ps->build.edges[t->edge].outputs.v[0];
	char *trace_file = xasprintf("%s/trace-%zu-%ld.json", tmpdir_path(), ti, t->round);
	struct nvcc_trace tr = { 0 };
	struct time_report host = { 0 };
	char *err;
	if ((err = nvcc_trace_read(trace_file, &tr))) {
		warn("%s: no device phases: %s:%s", name, trace_file, err);
		free(err);
	}
	if ((err = timereport_read(t->log, &host))) {
		warn("%s: no host phases: %s", name, err);
		free(err);
	}
	for (size_t i = 0; i < t->jobs.n; i++) {
		const struct job *j = &t->jobs.v[i];
		double wall = isnan(t->nvcc_walls[i]) ? 0 : t->nvcc_walls[i], phase[NPHASES];
		nan_phases(phase);
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
static void record_replayed(struct passes *ps, struct tu *t, const struct proc *plain, const struct proc *twin)
{
	double phase[NPHASES];
	nan_phases(phase);
	if (twin) {
		struct time_report rep = { 0 };
		char *err = timereport_read(t->log, &rep);
		if (err) {
			warn("%s: cannot read the time report of job %zu: %s", ps->build.edges[t->edge].outputs.v[0],
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

/* The next process of t's probe into p; false when its probe is over.
 *   whole:  the whole compile, until it has `whole_runs` runs (--top's
 *           re-timing may have given it some);
 *   jobs:   clang, hipcc, gcc: each job alone, plain, then a compiler
 *           proper again with -ftime-report; every repeat;
 *   nvcc:   a plain run with --time alone (the TU's wall and every job's:
 *           nvcc runs them one after another and times each), then one
 *           with the device trace and the host compiler's -ftime-report. */
static bool next_run(struct passes *ps, struct tu *t, size_t ti, long whole_runs, bool whole_only, struct proc *p)
{
	const char *name = ps->build.edges[t->edge].outputs.v[0];
	strvec_clear(&t->argv);
	free(t->log);
	t->log = NULL;
	if (t->stage == STAGE_WHOLE && (long)t->nwalls >= whole_runs) {
		if (whole_only)
			return false;
		t->stage = STAGE_JOBS;
		t->timed_by = "buildwall (each job re-run alone; compilers once more with -ftime-report)";
		for (size_t i = 0; i < t->jobs.n; i++)
			make_temp_parents(&t->jobs.v[i]);
	}
	if ((t->stage == STAGE_JOBS || t->stage == STAGE_NVCC) && t->round >= ps->repeats)
		t->stage = STAGE_DONE;
	if (t->stage == STAGE_DONE)
		return false;
	for (size_t a = 0; t->stage != STAGE_JOBS && a < t->cmd.argv.n; a++)
		strvec_push(&t->argv, t->cmd.argv.v[a]);
	if (t->stage == STAGE_WHOLE) {
		t->log = log_path("tu", ti, t->nwalls);
		progress_set("%s: whole compile (run %zu/%ld)", name, t->nwalls + 1, whole_runs);
	} else if (t->stage == STAGE_NVCC) {
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
			     ps->repeats);
	} else {
		const struct job *j = &t->jobs.v[t->job];
		for (size_t a = 0; a < j->argv.n; a++)
			strvec_push(&t->argv, j->argv.v[a]);
		if (t->second)
			strvec_push(&t->argv, "-ftime-report");
		char label[160];
		t->log = log_path("job", ti, t->job);
		progress_set("%s: job %zu/%zu (%s%s)", name, t->job + 1, t->jobs.n, job_label(j, label, sizeof(label)),
			     t->second ? ", -ftime-report" : "");
	}
	*p = (struct proc){ .argv = t->argv.v, .env_extra = t->cmd.env.v, .cwd = ps->dir, .out_path = t->log,
			    .timeout_s = ps->timeout };
	return true;
}

/* Take a finished run of t's probe and move its cursor on. */
static void run_finished(struct passes *ps, struct tu *t, size_t ti, const struct proc *p)
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
		record_whole(t, p);
	} else if (t->stage == STAGE_NVCC && !t->second) {
		if (t->nwalls < (size_t)ps->repeats)	/* else --top's re-timing gave it */
			record_whole(t, p);
		char *csv = xasprintf("%s/time-%zu-%ld.csv", tmpdir_path(), ti, t->round);
		free(t->nvcc_walls);
		t->nvcc_walls = nvcc_job_walls(ps, t, csv);
		free(csv);
		if (!t->nvcc_walls)
			t->stage = STAGE_DONE;
		t->second = true;
	} else if (t->stage == STAGE_NVCC) {
		char *csv = xasprintf("%s/time-instrumented-%zu-%ld.csv", tmpdir_path(), ti, t->round);
		double *walls2 = nvcc_job_walls(ps, t, csv);
		free(csv);
		if (walls2)
			record_nvcc(ps, t, ti, walls2);
		else
			t->stage = STAGE_DONE;
		free(walls2);
		t->second = false;
		t->round++;
	} else if (!t->second && t->jobs.v[t->job].time_report) {
		t->plain = *p;	/* its twin runs next */
		t->second = true;
	} else {
		record_replayed(ps, t, t->second ? &t->plain : p, t->second ? p : NULL);
		t->second = false;
		if (++t->job == t->jobs.n) {
			t->job = 0;
			t->round++;
		}
	}
}

/* The pool's view: every TU's probe, at most --parallel TUs at once, one
 * process of a TU at a time (its jobs read each other's outputs). */
struct probing {
	struct passes *ps;
	long whole_runs;
	bool whole_only;
};

static long next_tu_run(void *ctx, struct proc *p)
{
	struct probing *pr = ctx;
	for (size_t i = 0; i < pr->ps->ntus; i++) {
		struct tu *t = &pr->ps->tus[i];
		if (t->running || t->failed || t->stage == STAGE_DONE)
			continue;
		if (next_run(pr->ps, t, i, pr->whole_runs, pr->whole_only, p)) {
			t->running = true;
			return (long)i;
		}
		if (pr->whole_only)
			t->stage = STAGE_DONE;
	}
	return -1;
}

static void tu_run_finished(void *ctx, long i, struct proc *p)
{
	struct probing *pr = ctx;
	struct tu *t = &pr->ps->tus[i];
	t->running = false;
	run_finished(pr->ps, t, (size_t)i, p);
}

static void run_probes(struct passes *ps, long whole_runs, bool whole_only)
{
	struct probing pr = { ps, whole_runs, whole_only };
	const struct proc_pool pool = { next_tu_run, tu_run_finished, &pr };
	proc_run_parallel(ps->parallel, &pool);
}

static void summarize_tu(struct passes *ps, struct tu *t)
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

/* List t's jobs (the driver's -### or --dryrun) and make room for their runs. */
static void list_jobs(struct passes *ps, struct tu *t, size_t ti)
{
	const char *name = ps->build.edges[t->edge].outputs.v[0];
	char *log = log_path("jobs", ti, 0);
	progress_set("%s: asking the driver for its jobs", name);
	char *err = jobs_list(&t->cmd, ps->dir, log, ps->timeout, &t->jobs);
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
	t->stage = t->cmd.compiler == COMPILER_NVCC ? STAGE_NVCC : STAGE_WHOLE;
	t->round = 0;
	t->job = 0;
	t->second = false;
}

static void add_tu(struct passes *ps, size_t edge)
{
	struct tu *t = &ps->tus[ps->ntus];
	t->edge = edge;
	t->walls = xcalloc((size_t)ps->repeats, sizeof(double));
	t->cpus = xcalloc((size_t)ps->repeats, sizeof(double));
	steps_check_built(ps->dir, &ps->build.edges[edge]);
	char *sub = xasprintf("tu-%zu", ps->ntus);
	steps_prepare(ps->dir, &ps->build.edges[edge], sub, &t->cmd, &ps->stripped);
	free(sub);
	ps->ntus++;
}

static void tu_free(struct tu *t)
{
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
	strvec_clear(&t->argv);
	free(t->log);
	free(t->nvcc_walls);
}

struct candidate {
	double seconds;
	size_t tu;
};

static int slowest_first(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;
	return (x->seconds < y->seconds) - (x->seconds > y->seconds);
}

/* --top K: the slowest compile steps of the last build in .ninja_log; when
 * the log lacks some of them, of one re-run of each instead (those runs
 * then count as the TUs' whole runs). */
static void choose_top(struct passes *ps, const bool *selected)
{
	struct ninja_build *b = &ps->build;
	for (size_t i = 0; i < b->n; i++)
		if (selected[i])
			add_tu(ps, i);
	struct candidate *c = xcalloc(ps->ntus, sizeof(*c));
	struct ninja_log log;
	char *path = xasprintf("%s/.ninja_log", ps->dir);
	char *err;
	bool have_log = ninja_log_read_latest(path, &log, &err);
	if (err)
		warn("%s; choosing the TUs by re-timing them", err);
	free(err);
	free(path);
	double *logged = xcalloc(b->n, sizeof(double));
	for (size_t i = 0; i < b->n; i++)
		logged[i] = NAN;
	if (have_log) {
		durations_from_log(b, &log, logged);
		ninja_log_free(&log);
	}
	size_t found = 0;
	for (size_t i = 0; i < ps->ntus; i++) {
		double s = logged[ps->tus[i].edge];
		c[i] = (struct candidate){ isnan(s) ? 0 : s, i };
		found += !isnan(s);
	}
	free(logged);
	ps->chosen_by = ".ninja_log";
	if (found < ps->ntus) {
		ps->chosen_by = "re-timing";
		run_probes(ps, 1, true);
		for (size_t i = 0; i < ps->ntus; i++) {
			struct tu *t = &ps->tus[i];
			t->stage = STAGE_WHOLE;
			c[i].seconds = t->failed ? -1 : t->walls[0];
		}
	}
	qsort(c, ps->ntus, sizeof(*c), slowest_first);
	size_t k = (size_t)ps->top < ps->ntus ? (size_t)ps->top : ps->ntus;
	struct tu *chosen = xcalloc(k, sizeof(*chosen));
	bool *kept = xcalloc(ps->ntus, sizeof(bool));
	for (size_t i = 0; i < k; i++) {
		chosen[i] = ps->tus[c[i].tu];
		kept[c[i].tu] = true;
	}
	for (size_t i = 0; i < ps->ntus; i++)
		if (!kept[i]) {
			ps->failures -= ps->tus[i].failed;	/* a step we will not report */
			tu_free(&ps->tus[i]);
		}
	free(ps->tus);
	free(kept);
	free(c);
	ps->tus = chosen;
	ps->ntus = k;
}

static struct tu *tu_named(struct passes *ps, const char *name)
{
	for (size_t i = 0; i < ps->ntus; i++)
		if (!strcmp(ps->build.edges[ps->tus[i].edge].outputs.v[0], name))
			return &ps->tus[i];
	return NULL;
}

static const struct pass *device_pass_for(const struct tu *t, const char *arch)
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
static void find_frameworks(struct passes *ps)
{
	struct strvec names = { 0 };
	bool offload = false;
	for (size_t i = 0; i < ps->ntus; i++) {
		if (ps->tus[i].failed)
			continue;
		strvec_push(&names, ps->build.edges[ps->tus[i].edge].outputs.v[0]);
		offload |= ps->tus[i].cmd.compiler != COMPILER_GCC;
	}
	if (!names.n) {
		strvec_clear(&names);
		return;
	}
	struct pp_request req = { .cmd = "passes", .dir = ps->dir, .build = &ps->build, .args = names.v, .nargs = names.n,
				  .device = offload, .jobs = 1, .timeout = ps->timeout };
	struct pp_sources ss;
	progress_set("preprocessing %zu TU%s for the framework headers they parse", names.n, names.n == 1 ? "" : "s");
	pp_collect(&req, &ss);
	progress_clear();
	struct header_groups groups;
	header_groups_init(&groups);
	for (size_t s = 0; s < ss.n; s++) {
		const struct pp_source *src = &ss.v[s];
		struct tu *t = src->scanned ? tu_named(ps, src->tu) : NULL;
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

static void select_tus(struct passes *ps, char **patterns, size_t npatterns)
{
	struct ninja_build *b = &ps->build;
	bool *selected = xcalloc(b->n, sizeof(bool));
	steps_select("passes", b, patterns, npatterns, selected);
	ps->tus = xcalloc(b->n, sizeof(struct tu));
	if (ps->top) {
		choose_top(ps, selected);
	} else {
		for (size_t i = 0; i < b->n; i++)
			if (selected[i])
				add_tu(ps, i);
	}
	free(selected);
}

/* ---- rendering ---- */

static const char *const phase_titles[NPHASES] = { "front end", "IR gen", "optimizer", "codegen" };

static char *pass_name(const struct pass *p)
{
	return p->arch ? xasprintf("%s %s", pass_kind_name(p->kind), p->arch) : xstrdup(pass_kind_name(p->kind));
}

static const char *tu_name(const struct passes *ps, const struct tu *t)
{
	return ps->build.edges[t->edge].outputs.v[0];
}

/* One sentence: the verdict and the figures behind it. */
static const char *const phase_words[NPHASES] = { "front end", "LLVM IR generation", "optimizer",
						  "machine code generation" };

static size_t device_passes(const struct breakdown *bd)
{
	size_t n = 0;
	for (size_t i = 0; i < bd->n; i++)
		n += bd->passes[i].kind == PASS_DEVICE;
	return n;
}

/* The answer first (which pass, which phase, with shares), then the
 * evidence behind the playbook's fixes, then its marks. */
static char *verdict_text(const struct passes *ps, const struct tu *t)
{
	const struct verdict *v = &t->bd.verdict;
	char *heaviest = v->heaviest ? pass_name(v->heaviest) : xstrdup("none");
	struct strvec parts = { 0 };
	if (v->kind == VERDICT_MIXED) {
		strvec_pushf(&parts, "mixed: no pass holds half the job time (most: %s pass, %.0f%%)", heaviest,
			     isnan(v->heaviest_share) ? 0 : 100 * v->heaviest_share);
	} else {
		if (v->kind == VERDICT_DEVICE && device_passes(&t->bd) > 1)
			strvec_pushf(&parts, "device-pass dominant: the device passes hold %.0f%% of the job time (most: %s)",
				     100 * v->heaviest_share, heaviest);
		else
			strvec_pushf(&parts, "%s: the %s pass holds %.0f%% of the job time", v->kind == VERDICT_HOST
				     ? "host-pass dominant" : "device-pass dominant", heaviest, 100 * v->heaviest_share);
		if (v->phase >= 0)
			strvec_pushf(&parts, "%s %.0f%% of it (%.2f s)", v->phase == PHASE_CODEGEN && v->heaviest->backend_combined
				     ? "optimizer and codegen" : phase_words[v->phase], 100 * v->phase_share,
				     v->heaviest->phase[v->phase]);
	}
	if (t->device_frameworks.n) {
		char *list = strvec_join(&t->device_frameworks, ", ");
		strvec_pushf(&parts, "device pass parses %s (%.2f s of front end)", list, t->device_framework_front_end);
		free(list);
	}
	if (t->host_frameworks.n) {
		char *list = strvec_join(&t->host_frameworks, ", ");
		strvec_pushf(&parts, "host pass parses %s", list);
		free(list);
	}
	if (v->kind == VERDICT_DEVICE && v->phase == PHASE_CODEGEN)
		strvec_push(&parts, "kernel work: machine code generation (unrolling, register pressure)");
	char *device = v->device_pass ? pass_name(v->device_pass) : NULL;
	char *fe = isnan(v->host_front_end) ? xstrdup("host front end unknown")
		   : xasprintf("host front end %.2f s %s %.0f s", v->host_front_end, v->host_crossed ? ">" : "<=",
			       ps->th.front_end_s);
	char *cg = isnan(v->device_codegen_share) ? xstrdup("no device pass")
		   : xasprintf("codegen %.0f%% of %s %s %.0f%%", 100 * v->device_codegen_share, device,
			       v->device_crossed ? ">" : "<=", 100 * ps->th.codegen_share);
	strvec_pushf(&parts, "marks: %s, %s", fe, cg);
	char *text = strvec_join(&parts, "; ");
	strvec_clear(&parts);
	free(heaviest);
	free(device);
	free(fe);
	free(cg);
	return text;
}

static void cell_seconds(struct table *tab, double s)
{
	if (isnan(s))
		table_cell(tab, "-");
	else
		table_cell(tab, "%.2f", s);
}

static void render_tu_detail(const struct passes *ps, const struct tu *t)
{
	printf("%s%s%s (%s): %zu jobs, timed by %s\n", c_bold(stdout), tu_name(ps, t), c_reset(stdout),
	       compiler_name(t->cmd.compiler), t->jobs.n, t->timed_by);
	struct table *tab = table_new();
	const char *cols[] = { "#", "pass", "arch", "tool", "wall s", "cpu s", "peak RSS", "instrumented s" };
	for (size_t c = 0; c < 8; c++)
		table_column(tab, cols[c], c == 0 || c >= 4);
	double plain = 0, slowed = 0;
	for (size_t i = 0; i < t->jobs.n; i++) {
		const struct job *j = &t->jobs.v[i];
		const struct job_time *jt = &t->times[i];
		table_cell(tab, "%zu", i + 1);
		table_cell(tab, "%s", pass_kind_name(j->pass));
		table_cell(tab, "%s", j->arch ? j->arch : "");
		table_cell(tab, "%s", j->tool);
		cell_seconds(tab, jt->wall);
		cell_seconds(tab, jt->cpu);
		if (jt->maxrss_kb >= 0) {
			char *mem = format_kib(jt->maxrss_kb);
			table_cell(tab, "%s", mem);
			free(mem);
		} else {
			table_cell(tab, "-");
		}
		if (isnan(jt->instrumented)) {
			table_cell(tab, "-");
		} else {
			table_cell(tab, "%.2f (%+.0f%%)", jt->instrumented,
				   jt->wall > 0 ? 100 * (jt->instrumented - jt->wall) / jt->wall : 0);
			plain += jt->wall;
			slowed += jt->instrumented;
		}
	}
	table_print(tab, stdout);
	table_free(tab);
	if (slowed > 0)
		printf("measured: walls, CPU and RSS of plain runs; phases from instrumented runs (%s), scaled to the plain "
		       "walls; the instrumentation cost %+.2f s (%+.0f%%) on those jobs\n",
		       t->cmd.compiler == COMPILER_NVCC ? "-fdevice-time-trace, -Xcompiler -ftime-report" : "-ftime-report",
		       slowed - plain, plain > 0 ? 100 * (slowed - plain) / plain : 0);
	double overhead = t->wall.median - t->bd.jobs_sum;
	printf("jobs sum %.2f s; whole TU %.2f s (driver and process overhead %+.2f s, %+.0f%%)\n\n", t->bd.jobs_sum,
	       t->wall.median, overhead, t->wall.median > 0 ? 100 * overhead / t->wall.median : 0);

	tab = table_new();
	table_column(tab, "pass", false);
	table_column(tab, "seconds", true);
	table_column(tab, "share", true);
	for (int k = 0; k < NPHASES; k++)
		table_column(tab, phase_titles[k], true);
	table_column(tab, "other", true);
	table_column(tab, "heaviest passes", false);
	bool combined = false;
	for (size_t i = 0; i < t->bd.n; i++) {
		const struct pass *p = &t->bd.passes[i];
		char *name = pass_name(p);
		table_cell(tab, "%s", name);
		free(name);
		table_cell(tab, "%.2f", p->seconds);
		table_cell(tab, "%.0f%%", t->bd.jobs_sum > 0 ? 100 * p->seconds / t->bd.jobs_sum : 0);
		for (int k = 0; k < NPHASES; k++) {
			if (k == PHASE_CODEGEN && p->backend_combined && !isnan(p->phase[k])) {
				table_cell(tab, "%.2f*", p->phase[k]);
				combined = true;
			} else {
				cell_seconds(tab, p->phase[k]);
			}
		}
		table_cell(tab, "%.2f", p->other);
		char heavy[256] = "";
		for (size_t h = 0; h < p->nheaviest && h < 3; h++) {
			size_t len = strlen(heavy);
			snprintf(heavy + len, sizeof(heavy) - len, "%s%s %.2f", h ? ", " : "", p->heaviest[h].name,
				 p->heaviest[h].seconds);
		}
		table_cell(tab, "%s", heavy);
	}
	table_print(tab, stdout);
	table_free(tab);
	if (combined)
		printf("* gcc reports optimizer and code generation as one figure (phase opt and generate)\n");
	char *v = verdict_text(ps, t);
	printf("verdict: %s%s%s\n\n", c_bold(stdout), v, c_reset(stdout));
	free(v);
}

/* The device archs over all TUs, in order of first appearance. */
static void collect_archs(const struct passes *ps, struct strvec *archs)
{
	for (size_t i = 0; i < ps->ntus; i++)
		for (size_t p = 0; !ps->tus[i].failed && p < ps->tus[i].bd.n; p++) {
			const struct pass *pass = &ps->tus[i].bd.passes[p];
			if (pass->kind == PASS_DEVICE && pass->arch && !strvec_contains(archs, pass->arch))
				strvec_push(archs, pass->arch);
		}
}

static void render_summary(const struct passes *ps)
{
	struct strvec archs = { 0 };
	collect_archs(ps, &archs);
	struct table *tab = table_new();
	table_column(tab, "TU", false);
	table_column(tab, "wall s", true);
	table_column(tab, "jobs s", true);
	table_column(tab, "host s", true);
	for (size_t a = 0; a < archs.n; a++) {
		char *title = xasprintf("%s s", archs.v[a]);
		table_column(tab, title, true);
		free(title);
	}
	for (int k = 0; k < NPHASES; k++)
		table_column(tab, phase_titles[k], true);
	table_column(tab, "verdict", false);
	for (size_t i = 0; i < ps->ntus; i++) {
		const struct tu *t = &ps->tus[i];
		table_cell(tab, "%s", tu_name(ps, t));
		if (t->failed) {
			table_cell(tab, "FAILED");
			for (size_t c = 0; c < 2 + archs.n + NPHASES + 1; c++)
				table_cell(tab, "-");
			continue;
		}
		cell_seconds(tab, t->wall.median);
		cell_seconds(tab, t->bd.jobs_sum);
		double host = NAN, phase[NPHASES];
		nan_phases(phase);
		for (size_t p = 0; p < t->bd.n; p++) {
			const struct pass *pass = &t->bd.passes[p];
			if (pass->kind == PASS_HOST)
				host = pass->seconds;
			for (int k = 0; k < NPHASES; k++)
				if (!isnan(pass->phase[k]))
					phase[k] = (isnan(phase[k]) ? 0 : phase[k]) + pass->phase[k];
		}
		cell_seconds(tab, host);
		for (size_t a = 0; a < archs.n; a++) {
			double s = NAN;
			for (size_t p = 0; p < t->bd.n; p++)
				if (t->bd.passes[p].kind == PASS_DEVICE && t->bd.passes[p].arch &&
				    !strcmp(t->bd.passes[p].arch, archs.v[a]))
					s = t->bd.passes[p].seconds;
			cell_seconds(tab, s);
		}
		for (int k = 0; k < NPHASES; k++)
			cell_seconds(tab, phase[k]);
		table_cell(tab, "%s", verdict_name(t->bd.verdict.kind));
	}
	table_print(tab, stdout);
	table_free(tab);
	strvec_clear(&archs);
	printf("phases summed over the TU's passes; verdict: the pass holding most of the job time (mixed: none holds "
	       "half); the playbook's marks (host front end > %.0f s, codegen > %.0f%% of a device pass) are in each "
	       "TU's detail\n", ps->th.front_end_s, 100 * ps->th.codegen_share);
}

static void render_table(const struct passes *ps)
{
	printf("%spasses%s: %zu TU%s in %s%s%s, %ld repeat%s (medians)\n", c_bold(stdout), c_reset(stdout), ps->ntus,
	       ps->ntus == 1 ? "" : "s", ps->dir, ps->chosen_by ? ", the slowest by " : "",
	       ps->chosen_by ? ps->chosen_by : "", ps->repeats, ps->repeats == 1 ? "" : "s");
	printf("measured: wall (monotonic clock), CPU = user+sys incl. children, RSS = largest process; "
	       "phases from the Wall column of the compilers' own reports\n\n");
	bool detail = !ps->all && !ps->top;
	for (size_t i = 0; detail && i < ps->ntus; i++)
		if (!ps->tus[i].failed)
			render_tu_detail(ps, &ps->tus[i]);
	if (!detail || ps->ntus > 1)
		render_summary(ps);
}

static json_t *json_phases(const double *phase, bool combined)
{
	json_t *o = json_object();
	for (int k = 0; k < NPHASES; k++)
		json_object_set_new(o, phase_keys[k], json_seconds(combined && k == PHASE_OPTIMIZER ? NAN : phase[k]));
	return o;
}

static json_t *json_heaviest(const struct named_seconds *h, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_build("{s:s, s:o}", "name", h[i].name, "seconds", json_seconds(h[i].seconds)));
	return a;
}

static json_t *json_tu(const struct passes *ps, const struct tu *t)
{
	json_t *o = json_build("{s:s, s:s, s:s}", "target", tu_name(ps, t), "compiler", compiler_name(t->cmd.compiler),
			      "status", t->failed ? "failed" : "ok");
	if (t->failed) {
		json_object_set_new(o, "failure", json_string(t->failure));
		return o;
	}
	json_object_set_new(o, "timed_by", json_string(t->timed_by));
	json_object_set_new(o, "wall_s", json_seconds(t->wall.median));
	json_object_set_new(o, "wall", json_summary(t->wall));
	json_object_set_new(o, "cpu_s", json_seconds(t->cpu.median));
	json_object_set_new(o, "max_rss_kib", json_integer(t->maxrss_kb));
	json_object_set_new(o, "jobs_sum_s", json_seconds(t->bd.jobs_sum));
	json_t *jobs = json_array();
	for (size_t i = 0; i < t->jobs.n; i++) {
		const struct job *j = &t->jobs.v[i];
		const struct job_time *jt = &t->times[i];
		json_t *argv = json_array();
		for (size_t a = 0; a < j->argv.n; a++)
			json_array_append_new(argv, json_string(j->argv.v[a]));
		json_array_append_new(jobs, json_build("{s:I, s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"index", (json_int_t)i + 1, "pass", pass_kind_name(j->pass),
			"arch", j->arch ? json_string(j->arch) : json_null(), "tool", j->tool,
			"wall_s", json_seconds(jt->wall), "cpu_s", json_seconds(jt->cpu),
			"instrumented_wall_s", json_seconds(jt->instrumented),
			"max_rss_kib", jt->maxrss_kb >= 0 ? json_integer(jt->maxrss_kb) : json_null(),
			"phases", json_phases(jt->phase, jt->backend_combined),
			"heaviest", json_heaviest(jt->heaviest, jt->nheaviest), "argv", argv));
	}
	json_object_set_new(o, "jobs", jobs);
	json_t *passes = json_array();
	for (size_t i = 0; i < t->bd.n; i++) {
		const struct pass *p = &t->bd.passes[i];
		json_array_append_new(passes, json_build("{s:s, s:o, s:o, s:I, s:o, s:o, s:b, s:o}",
			"pass", pass_kind_name(p->kind), "arch", p->arch ? json_string(p->arch) : json_null(),
			"seconds", json_seconds(p->seconds), "jobs", (json_int_t)p->njobs,
			"phases", json_phases(p->phase, p->backend_combined), "other_s", json_seconds(p->other),
			"optimizer_in_codegen", p->backend_combined, "heaviest", json_heaviest(p->heaviest, p->nheaviest)));
	}
	json_object_set_new(o, "passes", passes);
	const struct verdict *v = &t->bd.verdict;
	char *text = verdict_text(ps, t);
	char *heaviest = v->heaviest ? pass_name(v->heaviest) : NULL;
	char *device = v->device_pass ? pass_name(v->device_pass) : NULL;
	json_t *dev_fw = json_array(), *host_fw = json_array();
	for (size_t i = 0; i < t->device_frameworks.n; i++)
		json_array_append_new(dev_fw, json_string(t->device_frameworks.v[i]));
	for (size_t i = 0; i < t->host_frameworks.n; i++)
		json_array_append_new(host_fw, json_string(t->host_frameworks.v[i]));
	json_object_set_new(o, "verdict", json_build("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:b, s:o, s:o}",
		"kind", verdict_name(v->kind), "text", text,
		"phase", v->phase >= 0 ? json_string(phase_keys[v->phase]) : json_null(),
		"phase_share", isnan(v->phase_share) ? json_null() : json_real(round(v->phase_share * 1000) / 1000),
		"device_frameworks", dev_fw, "device_framework_front_end_s",
		t->device_frameworks.n ? json_seconds(t->device_framework_front_end) : json_null(),
		"host_frameworks", host_fw, "host_front_end_s", json_seconds(v->host_front_end),
		"host_crossed", v->host_crossed,
		"device_codegen_share", isnan(v->device_codegen_share) ? json_null() : json_real(round(v->device_codegen_share * 1000) / 1000),
		"device_pass", device ? json_string(device) : json_null(), "device_crossed", v->device_crossed,
		"heaviest_pass", heaviest ? json_string(heaviest) : json_null(),
		"heaviest_share", isnan(v->heaviest_share) ? json_null() : json_real(round(v->heaviest_share * 1000) / 1000)));
	free(text);
	free(heaviest);
	free(device);
	return o;
}

static void render_json(const struct passes *ps)
{
	json_t *doc = json_document("passes", ps->dir, ps->failures);
	json_object_set_new(doc, "method", json_build("{s:I, s:s, s:o}", "repeats", (json_int_t)ps->repeats,
		"measured", "wall (monotonic clock) of each job and of the whole TU, medians of the repeats; "
		"phases from the Wall column of clang/gcc -ftime-report, nvcc --time and -fdevice-time-trace",
		"chosen_by", ps->chosen_by ? json_string(ps->chosen_by) : json_null()));
	json_object_set_new(doc, "thresholds", json_build("{s:o, s:f}", "front_end_s", json_seconds(ps->th.front_end_s),
							 "codegen_share", ps->th.codegen_share));
	json_t *tus = json_array();
	for (size_t i = 0; i < ps->ntus; i++)
		json_array_append_new(tus, json_tu(ps, &ps->tus[i]));
	json_object_set_new(doc, "tus", tus);
	json_print(doc);
}

static char *parse_share(void *share, const char *value)
{
	char *copy = xstrdup(value);
	size_t n = strlen(copy);
	bool percent = n && copy[n - 1] == '%';
	if (percent)
		copy[n - 1] = '\0';
	double v;
	bool ok = parse_double(copy, &v);
	free(copy);
	if (ok && (percent || v > 1))
		v /= 100;
	if (!ok || v <= 0 || v >= 1)
		return xasprintf("--codegen-share wants a share between 0 and 1, or a percentage: '%s'", value);
	*(double *)share = v;
	return NULL;
}

int cmd_passes(int argc, char **argv)
{
	struct passes ps = { .dir = ".", .repeats = 1, .parallel = 1, .th = { 5.0, 0.7 } };
	bool json = false;
	const struct opt opts[] = {
		OPT_DIR(&ps.dir),
		{ OPT_FLAG, 0, "all", &ps.all, NULL, "every compile step", 0, 0, NULL },
		OPT_TOP(&ps.top, 1, "the K slowest compile steps (from .ninja_log, else re-timed)"),
		{ OPT_INT, 'r', "repeats", &ps.repeats, "R", "runs of the TU and of each job; medians are reported (default 1)",
		  1, 1000, NULL },
		{ OPT_SECONDS, 0, "front-end", &ps.th.front_end_s, "S", "the host front-end mark in seconds (default 5)", 0, 0, NULL },
		{ OPT_CALL, 0, "codegen-share", &ps.th.codegen_share, "P", "the device codegen mark, 0-1 or a percentage (default 70%)",
		  0, 0, parse_share },
		OPT_PARALLEL(&ps.parallel, "probe P TUs at once (default 1; contention inflates walls)"),
		OPT_TIMEOUT(&ps.timeout, "give up on a compile or job after S seconds (counts as failed)"),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("passes", argc, argv, opts, usage);
	size_t npatterns = (size_t)(argc - first);
	if (!npatterns && !ps.all && !ps.top)
		usage_error("passes", "name a TARGET, or use --all or --top K");
	if (npatterns && (ps.all || ps.top))
		usage_error("passes", "TARGET and --all/--top exclude each other");
	if (ps.all && ps.top)
		usage_error("passes", "--all and --top exclude each other");

	snapshot_guard(ps.dir);
	ninja_load(ps.dir, &ps.build);
	proc_warn_if_loaded();
	select_tus(&ps, argv + first, npatterns);
	steps_note_stripped(&ps.stripped);
	for (size_t i = 0; i < ps.ntus; i++)
		if (!ps.tus[i].failed)
			list_jobs(&ps, &ps.tus[i], i);
	run_probes(&ps, ps.repeats, false);
	for (size_t i = 0; i < ps.ntus; i++)
		if (!ps.tus[i].failed)
			summarize_tu(&ps, &ps.tus[i]);
	find_frameworks(&ps);
	if (json)
		render_json(&ps);
	else
		render_table(&ps);
	int status = failures_status(ps.failures, "TU", "");
	for (size_t i = 0; i < ps.ntus; i++)
		tu_free(&ps.tus[i]);
	free(ps.tus);
	strvec_clear(&ps.stripped);
	ninja_build_free(&ps.build);
	return status;
}
