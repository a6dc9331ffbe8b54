/* rank's measurement, callable by any command: see measure.h. */
#define _GNU_SOURCE
#include "measure.h"
#include "busy.h"
#include "distcc_log.h"
#include "ninja_log.h"
#include "proc.h"
#include "progress.h"
#include "steps.h"
#include "tmpdir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *distcc_log_path(void)
{
	return xasprintf("%s/distcc.log", tmpdir_path());
}

/* The compile run behind the launcher, which writes where it ran into our
 * log (DISTCC_VERBOSE: distcc says nothing otherwise). */
static void send_through(const struct measurement *m, struct compile_command *cmd)
{
	struct strvec argv = { 0 };
	strvec_push(&argv, m->opt.launcher);
	for (size_t k = 0; k < cmd->argv.n; k++)
		strvec_push(&argv, cmd->argv.v[k]);
	strvec_clear(&cmd->argv);
	cmd->argv = argv;
	char *log = distcc_log_path();
	strvec_push(&cmd->env, "DISTCC_VERBOSE=1");
	strvec_pushf(&cmd->env, "DISTCC_LOG=%s", log);
	free(log);
}

/* Where distcc ran each TU's runs: its jobs whose output is one of ours. */
static void read_where(struct measurement *m)
{
	char *path = distcc_log_path(), *err;
	struct distcc_log log;
	if (!distcc_log_read(path, &log, &err)) {
		warn("%s: nothing tells where the compiles ran", err);
		free(err);
		free(path);
		return;
	}
	for (size_t i = 0; i < log.n; i++) {
		const struct distcc_job *j = &log.jobs[i];
		for (size_t k = 0; j->compile && j->output && k < m->ntus; k++) {
			struct tu *t = &m->tus[k];
			if (!strvec_contains(&t->cmd.moved_to, j->output))
				continue;
			t->sent += j->remote;
			t->kept_here += !j->remote;
			t->fell_back += j->fell_back;
			t->retried += j->remote && j->tries > 1;
			if (j->remote) {
				free(t->host);
				t->host = xstrdup(j->host);
			}
			break;
		}
	}
	distcc_log_free(&log);
	free(path);
}

/* Prepare the selected edges' commands; one temp subdir per TU. */
static void prepare_tus(struct measurement *m, const bool *selected)
{
	const struct ninja_build *b = m->build;
	m->tus = xcalloc(b->n, sizeof(struct tu));
	m->tu_of = xcalloc(b->n, sizeof(long));
	for (size_t i = 0; i < b->n; i++) {
		m->tu_of[i] = -1;
		if (!selected[i])
			continue;
		m->tu_of[i] = (long)m->ntus;
		struct tu *t = &m->tus[m->ntus];
		t->edge = i;
		t->walls = xcalloc((size_t)m->opt.repeats, sizeof(double));
		t->cpus = xcalloc((size_t)m->opt.repeats, sizeof(double));
		steps_check_built(m->dir, &b->edges[i]);
		char *sub = xasprintf("tu-%zu", m->ntus);
		steps_prepare(m->dir, &b->edges[i], sub, &t->cmd, &m->stripped);
		free(sub);
		if (m->opt.launcher)
			send_through(m, &t->cmd);
		m->ntus++;
	}
	/* The launcher put back is not stripped. */
	for (size_t k = 0; m->opt.launcher && k < m->stripped.n;)
		if (!strcmp(m->stripped.v[k], m->opt.launcher)) {
			free(m->stripped.v[k]);
			m->stripped.v[k] = m->stripped.v[--m->stripped.n];
			m->stripped.v[m->stripped.n] = NULL;
		} else {
			k++;
		}
}

static void record_failure(struct measurement *m, struct tu *t, struct proc *p, const char *log)
{
	t->failed = true;
	t->failure = proc_report_failure(p, log, "%s: compile", m->build->edges[t->edge].outputs.v[0]);
	m->failures++;
}

/* Run every (TU, repeat) pair, P at a time; a TU never runs beside itself.
 * The pool's view of the repeats: job k is repeat k / ntus of TU k % ntus. */
struct measuring {
	struct measurement *m;
	bool *started;
	size_t total, nstarted;
};

static char *tu_log(size_t tu)
{
	return xasprintf("%s/tu-%zu.log", tmpdir_path(), tu);
}

/* The first pending job (repeat-major) whose TU is idle and still good. */
static long next_job(void *ctx, struct proc *p)
{
	struct measuring *run = ctx;
	struct measurement *m = run->m;
	for (size_t job = 0; job < run->total; job++) {
		struct tu *t = &m->tus[job % m->ntus];
		if (run->started[job] || t->running || t->failed)
			continue;
		run->started[job] = true;
		t->running = true;
		t->log = tu_log(job % m->ntus);
		*p = (struct proc){ .argv = t->cmd.argv.v, .env_extra = t->cmd.env.v, .cwd = m->dir, .out_path = t->log,
				    .timeout_s = m->opt.timeout };
		progress_set("[%zu/%zu] %s", ++run->nstarted, run->total, m->build->edges[t->edge].outputs.v[0]);
		return (long)job;
	}
	return -1;
}

static void job_finished(void *ctx, long job, struct proc *p)
{
	struct measuring *run = ctx;
	struct measurement *m = run->m;
	struct tu *t = &m->tus[(size_t)job % m->ntus];
	t->running = false;
	if (!proc_succeeded(p)) {
		record_failure(m, t, p, t->log);
	} else {
		t->walls[t->runs] = p->wall_s;
		t->cpus[t->runs] = p->cpu_s;
		if (p->maxrss_kb > t->maxrss_kb)
			t->maxrss_kb = p->maxrss_kb;
		if (p->peak_kb > t->peak_kb) {
			t->peak_kb = p->peak_kb;
			t->peak_by = p->peak_by;
			t->has_shape = p->has_shape;
			memcpy(t->shape, p->shape, sizeof(t->shape));
		}
		t->runs++;
	}
	free(t->log);
	t->log = NULL;
}

static void measure(struct measurement *m)
{
	struct measuring run = { .m = m, .total = m->ntus * (size_t)m->opt.repeats };
	run.started = xcalloc(run.total, sizeof(bool));
	warn_if_busy();
	const struct proc_pool pool = { .next = next_job, .finished = job_finished, .ctx = &run };
	proc_run_parallel(m->opt.parallel, &pool);
	free(run.started);
	for (size_t i = 0; i < m->ntus; i++) {
		m->tus[i].wall = summarize(m->tus[i].walls, m->tus[i].runs);
		m->tus[i].cpu = summarize(m->tus[i].cpus, m->tus[i].runs);
	}
}

/* Contention, measured: every TU once more, `cores` at a time, each run's
 * start and end kept as a recorded build that contention_calibrate fits
 * against the isolated times. Warm caches, like the isolated runs: a
 * first, cold build in .ninja_log would read as contention. */
struct side_by_side {
	struct measurement *m;
	size_t next;
	double t0;
	struct side_run {
		long start_ms, end_ms;
		size_t edge;
		double cpu_s;
	} *runs;	/* as they finished */
	size_t nruns;
};

static long next_side(void *ctx, struct proc *p)
{
	struct side_by_side *sb = ctx;
	struct measurement *m = sb->m;
	while (sb->next < m->ntus && m->tus[sb->next].failed)
		sb->next++;
	if (sb->next == m->ntus)
		return -1;
	struct tu *t = &m->tus[sb->next];
	t->log = tu_log(sb->next);
	*p = (struct proc){ .argv = t->cmd.argv.v, .env_extra = t->cmd.env.v, .cwd = m->dir, .out_path = t->log,
			    .timeout_s = m->opt.timeout };
	progress_set("[%zu/%zu] %s, side by side", sb->next + 1, m->ntus, m->build->edges[t->edge].outputs.v[0]);
	return (long)sb->next++;
}

static void side_finished(void *ctx, long i, struct proc *p)
{
	struct side_by_side *sb = ctx;
	struct tu *t = &sb->m->tus[i];
	free(t->log);
	t->log = NULL;
	if (!proc_succeeded(p))
		return;	/* it passed alone: a failure here is noise, not a measurement */
	long start = (long)((p->t_start - sb->t0) * 1000);
	sb->runs = xrealloc(sb->runs, (sb->nruns + 1) * sizeof(*sb->runs));
	sb->runs[sb->nruns++] = (struct side_run){ start, start + (long)(p->wall_s * 1000), t->edge, p->cpu_s };
}

static int by_end(const void *a, const void *b)
{
	const struct side_run *x = a, *y = b;
	return (x->end_ms > y->end_ms) - (x->end_ms < y->end_ms);
}

static void measure_contention(struct measurement *m, const double *isolated)
{
	long cores = cpu_count();
	struct side_by_side sb = { .m = m, .t0 = monotonic_seconds() };
	const struct proc_pool pool = { .next = next_side, .finished = side_finished, .ctx = &sb };
	proc_run_parallel(cores < PROC_MAX_RUNNING ? cores : PROC_MAX_RUNNING, &pool);
	/* A log's lines are in end order; the pool's are nearly so. */
	if (sb.nruns)
		qsort(sb.runs, sb.nruns, sizeof(*sb.runs), by_end);
	struct ninja_log run = { .version = 5 };
	double *work = xcalloc(m->build->n, sizeof(double));
	for (size_t i = 0; i < m->build->n; i++)
		work[i] = NAN;
	for (size_t i = 0; i < sb.nruns; i++) {
		const struct side_run *r = &sb.runs[i];
		char hash[24];	/* one per edge, so two TUs that ran to the ms alike stay two steps */
		snprintf(hash, sizeof(hash), "%zx", r->edge);
		ninja_log_add(&run, r->start_ms, r->end_ms, m->build->edges[r->edge].outputs.v[0], hash);
		double alone = m->tus[m->tu_of[r->edge]].cpu.median;
		if (alone > 0 && r->cpu_s > 0)
			work[r->edge] = r->cpu_s / alone;
	}
	free(sb.runs);
	char *what = xasprintf("a side-by-side pass of the TUs, %ld at a time", cores);
	m->contention_source = what;
	contention_calibrate(m->build, &run, isolated, work, (double)cores, what, &m->contention);
	free(work);
	ninja_log_free(&run);
}

/* Can the link run? Every explicit input is one of our temp objects or
 * already exists in the build dir. */
static bool link_inputs_available(const struct measurement *m, const struct ninja_edge *e)
{
	for (size_t i = 0; i < e->inputs.n; i++) {
		long d = ninja_edge_of(m->build, e->inputs.v[i]);
		if (d >= 0 && m->tu_of[d] >= 0)
			continue;
		char *path = path_in(m->dir, e->inputs.v[i]);
		bool there = file_exists(path);
		free(path);
		if (!there)
			return false;
	}
	return true;
}

/* Re-run a link step on our temp objects (the build's own for TUs we did
 * not re-run) and return its median wall, or NaN when it failed. */
static double time_link(struct measurement *m, size_t edge, size_t k)
{
	const struct ninja_edge *e = &m->build->edges[edge];
	struct compile_command cmd = { 0 };
	char *sub = xasprintf("link-%zu", k);
	steps_prepare(m->dir, e, sub, &cmd, &m->stripped);
	struct strvec from = { 0 }, to = { 0 };
	for (size_t i = 0; i < m->ntus; i++) {
		const struct compile_command *c = &m->tus[i].cmd;
		for (size_t j = 0; j < c->moved_from.n; j++) {
			strvec_push(&from, c->moved_from.v[j]);
			strvec_push(&to, c->moved_to.v[j]);
		}
	}
	driver_substitute(&cmd, &from, &to);
	char *log = xasprintf("%s/%s.log", tmpdir_path(), sub);
	double *walls = xcalloc((size_t)m->opt.repeats, sizeof(double));
	double result = NAN;
	long runs = 0;
	for (long i = 0; i < m->opt.repeats; i++) {
		struct proc p = { .argv = cmd.argv.v, .env_extra = cmd.env.v, .cwd = m->dir, .out_path = log,
				  .timeout_s = m->opt.timeout };
		progress_set("[link] %s", e->outputs.v[0]);
		proc_run(&p);
		progress_clear();
		proc_exit_if_interrupted();
		if (!proc_succeeded(&p)) {
			free(proc_report_failure(&p, log, "%s: link re-run", e->outputs.v[0]));
			m->failures++;
			break;
		}
		walls[runs++] = p.wall_s;
	}
	if (runs)
		result = median_of(walls, (size_t)runs);
	free(walls);
	free(log);
	free(sub);
	strvec_clear(&from);
	strvec_clear(&to);
	compile_command_clear(&cmd);
	return result;
}

/* Durations for every edge: measured TUs, else .ninja_log, else a link
 * re-run for steps that consume our objects, else unknown (0). */
static void step_times(struct measurement *m)
{
	const struct ninja_build *b = m->build;
	struct ninja_log log;
	char *err = NULL;
	double *logged = xcalloc(b->n, sizeof(double));
	bool have_log = durations_from_dir(m->dir, b, logged, &log, &err);
	if (err)
		warn("%s; no step times from it", err);
	free(err);
	size_t links = 0;
	m->steps = xcalloc(b->n, sizeof(*m->steps));
	for (size_t i = 0; i < b->n; i++) {
		const struct ninja_edge *e = &b->edges[i];
		long t = m->tu_of[i];
		struct step_time *st = &m->steps[i];
		*st = (struct step_time){ 0, "none" };
		if (ninja_edge_is_phony(e)) {
			st->source = "phony";
		} else if (t >= 0) {
			if (!m->tus[t].failed)
				*st = (struct step_time){ m->tus[t].wall.median, "measured" };
		} else if (!isnan(logged[i])) {
			*st = (struct step_time){ logged[i], ".ninja_log" };
		} else {
			bool consumes = false;
			for (size_t d = 0; d < e->ndeps; d++)
				consumes |= m->tu_of[e->deps[d]] >= 0;
			if (consumes && !m->failures && link_inputs_available(m, e)) {
				double sec = time_link(m, i, links++);
				if (!isnan(sec))
					*st = (struct step_time){ sec, "re-run link" };
			}
		}
	}
	double *isolated = xcalloc(b->n, sizeof(double));
	for (size_t i = 0; i < b->n; i++)
		isolated[i] = m->tu_of[i] >= 0 && !m->tus[m->tu_of[i]].failed ? m->tus[m->tu_of[i]].wall.median : NAN;
	size_t timed = 0;
	for (size_t i = 0; i < m->ntus; i++)
		timed += !m->tus[i].failed;
	if (m->opt.contention == CONTENTION_MEASURE && cpu_count() >= 2 && timed >= 2)
		measure_contention(m, isolated);
	else if (m->opt.contention == CONTENTION_LOG && have_log)
		contention_calibrate(b, &log, isolated, NULL, cpu_count(), "the recorded build in .ninja_log", &m->contention);
	free(isolated);
	if (have_log)
		ninja_log_free(&log);
	free(logged);
}

void measure_tus(const char *dir, const struct ninja_build *b, const bool *selected, const struct measure_options *o,
		 struct measurement *m)
{
	*m = (struct measurement){ .dir = dir, .build = b, .opt = *o };
	prepare_tus(m, selected);
	steps_note_stripped(&m->stripped);
	measure(m);
	if (m->opt.launcher)
		read_where(m);
	step_times(m);
}

double *measurement_seconds(const struct measurement *m)
{
	double *seconds = xcalloc(m->build->n, sizeof(double));
	for (size_t i = 0; i < m->build->n; i++)
		seconds[i] = m->steps[i].seconds;
	return seconds;
}

_Static_assert(PROC_SHAPE_BINS == GRAPH_SHAPE_BINS, "a run's shape is a step's");

struct step_memory *measurement_memory(const struct measurement *m)
{
	struct step_memory *mem = xcalloc(m->build->n ? m->build->n : 1, sizeof(*mem));
	for (size_t i = 0; i < m->ntus; i++)
		step_memory_of(&mem[m->tus[i].edge], (double)m->tus[i].peak_kb, m->tus[i].has_shape ? m->tus[i].shape : NULL);
	return mem;
}

void measurement_free(struct measurement *m)
{
	for (size_t i = 0; i < m->ntus; i++) {
		compile_command_clear(&m->tus[i].cmd);
		free(m->tus[i].walls);
		free(m->tus[i].cpus);
		free(m->tus[i].failure);
		free(m->tus[i].host);
	}
	free(m->tus);
	free(m->tu_of);
	free(m->steps);
	free(m->contention_source);
	strvec_clear(&m->stripped);
	*m = (struct measurement){ 0 };
}
