#define _GNU_SOURCE
#include "preprocess.h"
#include "ninja.h"
#include "progress.h"
#include "snapshot.h"
#include "steps.h"
#include "tmpdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Flags that choose passes or archs: replaced by the ones a pass needs. */
static const char *const pass_flags[] = {
	"--cuda-host-only", "--cuda-device-only", "--offload-host-only", "--offload-device-only", NULL
};
static const char *const arch_flags[] = {
	"--offload-arch=", "--cuda-gpu-arch=", "--no-offload-arch=", "--amdgpu-target=", NULL
};

static bool listed(const char *arg, const char *const *flags, bool prefix)
{
	for (int i = 0; flags[i]; i++)
		if (prefix ? has_prefix(arg, flags[i]) : !strcmp(arg, flags[i]))
			return true;
	return false;
}

static struct pp_pass *add_pass(struct pp_plan *plan, enum pass_kind kind, const char *arch, const char *outdir)
{
	plan->v = xrealloc(plan->v, (plan->n + 1) * sizeof(*plan->v));
	struct pp_pass *p = &plan->v[plan->n];
	*p = (struct pp_pass){ .kind = kind, .arch = arch ? xstrdup(arch) : NULL };
	p->output = xasprintf("%s/pass-%zu.ii", outdir, plan->n);
	plan->n++;
	return p;
}

static void finish_pass(struct pp_pass *p, const char *cwd)
{
	driver_set_output(&p->argv, p->output);
	driver_include_dirs(p->argv.v, p->argv.n, cwd, &p->user_dirs, &p->system_dirs);
}

/* clang, hipcc, gcc: the command itself, -c dropped, -E and the pass's
 * offload flags added. */
static void driver_pass(struct pp_plan *plan, const struct compile_command *cmd, const char *cwd, const char *outdir,
			const char *arch, bool offload)
{
	struct pp_pass *p = add_pass(plan, arch ? PASS_DEVICE : PASS_HOST, arch, outdir);
	for (size_t i = 0; i < cmd->argv.n; i++) {
		const char *a = cmd->argv.v[i];
		if (!strcmp(a, "-c") || listed(a, pass_flags, false) || (arch && listed(a, arch_flags, true)))
			continue;
		strvec_push(&p->argv, a);
	}
	strvec_push(&p->argv, "-E");
	if (arch) {
		strvec_push(&p->argv, "--cuda-device-only");
		strvec_pushf(&p->argv, "--offload-arch=%s", arch);
	} else if (offload) {
		strvec_push(&p->argv, "--cuda-host-only");
	}
	for (size_t i = 0; i < cmd->env.n; i++)
		strvec_push(&p->env, cmd->env.v[i]);
	finish_pass(p, cwd);
}

/* nvcc: its own preprocessing jobs, as --dryrun lists them (the host's
 * first, as for the other drivers). */
static void nvcc_passes(struct pp_plan *plan, const struct job_list *jobs, const char *cwd, const char *outdir,
			bool device)
{
	for (int want = PASS_HOST; want <= (device ? PASS_DEVICE : PASS_HOST); want++) {
		for (size_t i = 0; i < jobs->n; i++) {
			const struct job *j = &jobs->v[i];
			if ((int)j->pass != want || !j->nvcc_phase || !has_prefix(j->nvcc_phase, "gcc (preprocessing"))
				continue;
			struct pp_pass *p = add_pass(plan, j->pass, j->arch, outdir);
			for (size_t a = 0; a < j->argv.n; a++)
				strvec_push(&p->argv, j->argv.v[a]);
			for (size_t a = 0; a < j->env.n; a++)
				strvec_push(&p->env, j->env.v[a]);
			finish_pass(p, cwd);
		}
	}
}

bool preprocess_plan(const struct compile_command *cmd, const char *cwd, bool device, const char *outdir,
		      const char *log, double timeout_s, struct pp_plan *plan, char **err)
{
	*plan = (struct pp_plan){ 0 };
	bool offload = cmd->compiler == COMPILER_CLANG || cmd->compiler == COMPILER_HIPCC;
	if (cmd->compiler == COMPILER_GCC || (offload && !device)) {
		driver_pass(plan, cmd, cwd, outdir, NULL, offload);
		return true;
	}
	struct job_list jobs = { 0 };
	char *why = NULL;
	if (!jobs_list(cmd, cwd, log, timeout_s, &jobs, &why))
		return ok_unless(err, why);
	if (cmd->compiler == COMPILER_NVCC) {
		nvcc_passes(plan, &jobs, cwd, outdir, device);
		if (!plan->n || plan->v[0].kind != PASS_HOST)
			why = xstrdup("nvcc --dryrun lists no host preprocessing job");
	} else {
		driver_pass(plan, cmd, cwd, outdir, NULL, offload);
		struct strvec archs = { 0 };
		for (size_t i = 0; i < jobs.n; i++)
			if (jobs.v[i].pass == PASS_DEVICE && jobs.v[i].arch && !strvec_contains(&archs, jobs.v[i].arch))
				strvec_push(&archs, jobs.v[i].arch);
		for (size_t i = 0; i < archs.n; i++)
			driver_pass(plan, cmd, cwd, outdir, archs.v[i], offload);
		strvec_clear(&archs);
	}
	job_list_free(&jobs);
	return ok_unless(err, why);
}

void pp_plan_free(struct pp_plan *plan)
{
	for (size_t i = 0; i < plan->n; i++) {
		struct pp_pass *p = &plan->v[i];
		free(p->arch);
		free(p->output);
		strvec_clear(&p->argv);
		strvec_clear(&p->env);
		strvec_clear(&p->user_dirs);
		strvec_clear(&p->system_dirs);
	}
	free(plan->v);
	*plan = (struct pp_plan){ 0 };
}

char *pp_pass_name(const struct pp_pass *p)
{
	return p->arch ? xasprintf("%s %s", pass_kind_name(p->kind), p->arch) : xstrdup(pass_kind_name(p->kind));
}

struct run_all {
	struct pp_run *runs;
	size_t n, next;
	void (*done)(void *ctx, size_t i);
	void *ctx;
};

static long next_run(void *ctx, struct proc *p)
{
	struct run_all *ra = ctx;
	if (ra->next == ra->n)
		return -1;
	struct pp_run *r = &ra->runs[ra->next];
	*p = (struct proc){ .argv = r->pass->argv.v, .env_extra = r->pass->env.v, .cwd = r->cwd,
			    .out_path = r->log, .timeout_s = r->timeout };
	progress_set("[%zu/%zu] preprocessing %s", ra->next + 1, ra->n, r->what);
	return (long)ra->next++;
}

static void run_finished(void *ctx, long i, struct proc *p)
{
	struct run_all *ra = ctx;
	struct pp_run *r = &ra->runs[i];
	r->proc = *p;
	if (!proc_succeeded(p)) {
		r->failed = true;
		progress_clear();
		free(proc_report_failure(p, r->log, "%s: preprocessing", r->what));
	} else {
		ra->done(ra->ctx, (size_t)i);
	}
	unlink(r->pass->output);
}

void preprocess_run_all(struct pp_run *runs, size_t n, long jobs, void (*done)(void *ctx, size_t i), void *ctx)
{
	struct run_all ra = { runs, n, 0, done, ctx };
	const struct proc_pool pool = { .next = next_run, .finished = run_finished, .ctx = &ra };
	proc_run_parallel(jobs > 0 ? jobs : 1, &pool);
}

void preprocess_scan(const char *path, const char *what, const struct pp_hooks *hooks, struct markers *m)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
	if (fd < 0)
		die(EXIT_BAD_INPUT, "%s: %s", what, strerror(errno));
	size_t line;
	char *err = NULL;
	markers_scan(fd, hooks, m, &line, &err);
	if (fd != STDIN_FILENO)
		close(fd);
	if (err) {
		if (line)
			die_at(what, (long)line, "%s", err);
		die(EXIT_BAD_INPUT, "%s: %s", what, err);
	}
}

static struct pp_source *add_source(struct pp_sources *s, const char *tu, const char *pass, const char *cwd)
{
	s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
	struct pp_source *src = &s->v[s->n++];
	*src = (struct pp_source){ .tu = xstrdup(tu), .pass = pass ? xstrdup(pass) : NULL, .cwd = xstrdup(cwd) };
	return src;
}

static void scan_source(const struct pp_request *req, struct pp_source *src, const char *path, const char *what)
{
	struct pp_hooks hooks = req->hooks ? req->hooks(req->ctx, src) : (struct pp_hooks){ 0 };
	preprocess_scan(path, what, &hooks, &src->scan);
	src->scanned = true;
	if (req->scanned)
		req->scanned(req->ctx, src, path);
}

static void collect_files(const struct pp_request *req, struct pp_sources *out)
{
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		die(EXIT_BAD_INPUT, "cannot read the current directory: %s", strerror(errno));
	out->from_files = true;
	for (size_t i = 0; i < req->nargs; i++) {
		const char *path = req->args[i];
		struct pp_source *src = add_source(out, strcmp(path, "-") ? path : "(stdin)", NULL, cwd);
		scan_source(req, src, path, strcmp(path, "-") ? path : "(stdin)");
	}
	free(cwd);
}

bool preprocess_plan_edge(const char *dir, const struct ninja_edge *e, size_t index, bool device, double timeout,
			  struct compile_command *cmd, struct pp_plan *plan, struct strvec *stripped, struct pp_run **runs,
			  size_t *nruns)
{
	const char *name = e->outputs.v[0];
	char *sub = xasprintf("tu-%zu", index);
	steps_prepare(dir, e, sub, cmd, stripped);
	char *outdir = xasprintf("%s/%s", tmpdir_path(), sub);
	char *log = xasprintf("%s/jobs.log", outdir);
	progress_set("%s: asking the driver for its passes", name);
	char *err = NULL;
	preprocess_plan(cmd, dir, device, outdir, log, timeout, plan, &err);
	progress_clear();
	if (err)
		jobs_report_list_failure(name, err, log);
	*runs = xrealloc(*runs, (*nruns + plan->n + 1) * sizeof(**runs));
	for (size_t p = 0; p < plan->n; p++) {
		char *pname = pp_pass_name(&plan->v[p]);
		(*runs)[(*nruns)++] = (struct pp_run){ .pass = &plan->v[p], .cwd = dir, .timeout = timeout,
						       .what = xasprintf("%s (%s pass)", name, pname),
						       .log = xasprintf("%s/pass-%zu.log", outdir, p) };
		free(pname);
	}
	free(outdir);
	free(log);
	free(sub);
	bool ok = !err;
	free(err);
	return ok;
}

void preprocess_plans_free(size_t nedges, struct compile_command *cmds, struct pp_plan *plans, struct pp_run *runs,
			   size_t nruns)
{
	for (size_t i = 0; i < nruns; i++) {
		free(runs[i].what);
		free(runs[i].log);
	}
	for (size_t e = 0; e < nedges; e++) {
		pp_plan_free(&plans[e]);
		compile_command_clear(&cmds[e]);
	}
	free(plans);
	free(cmds);
	free(runs);
}

struct collect_run {
	const struct pp_request *req;
	struct pp_sources *out;
	struct pp_run *runs;
	size_t *source_of;	/* run -> source */
};

static void run_done(void *ctx, size_t i)
{
	struct collect_run *c = ctx;
	scan_source(c->req, &c->out->v[c->source_of[i]], c->runs[i].pass->output, c->runs[i].what);
}

static void collect_targets(const struct pp_request *req, struct pp_sources *out)
{
	struct ninja_build loaded;
	const struct ninja_build *b = req->build;
	if (!b) {
		snapshot_guard(req->dir);
		ninja_load(req->dir, &loaded);
		b = &loaded;
	}
	char *cwd = realpath(req->dir, NULL);
	if (!cwd)
		die(EXIT_BAD_INPUT, "%s: %s", req->dir, strerror(errno));
	bool *selected = xcalloc(b->n, sizeof(bool));
	steps_select(req->cmd, b, req->args, req->nargs, selected);
	struct strvec stripped = { 0 };
	struct pp_plan *plans = xcalloc(b->n, sizeof(*plans));
	struct compile_command *cmds = xcalloc(b->n, sizeof(*cmds));
	struct pp_run *runs = NULL;
	size_t *source_of = NULL, nruns = 0;
	for (size_t e = 0; e < b->n; e++) {
		if (!selected[e])
			continue;
		const char *name = b->edges[e].outputs.v[0];
		steps_check_built(req->dir, &b->edges[e]);
		size_t first = nruns;
		if (!preprocess_plan_edge(req->dir, &b->edges[e], e, req->device, req->timeout, &cmds[e], &plans[e],
					  &stripped, &runs, &nruns)) {
			struct pp_source *src = add_source(out, name, "host", cwd);
			src->failed = true;
			out->failures++;
		}
		source_of = xrealloc(source_of, (nruns ? nruns : 1) * sizeof(*source_of));
		for (size_t r = first; r < nruns; r++) {
			const struct pp_pass *pass = runs[r].pass;
			char *pname = pp_pass_name(pass);
			struct pp_source *src = add_source(out, name, pname, cwd);
			for (size_t d = 0; d < pass->user_dirs.n; d++)
				strvec_push(&src->user_dirs, pass->user_dirs.v[d]);
			for (size_t d = 0; d < pass->system_dirs.n; d++)
				strvec_push(&src->system_dirs, pass->system_dirs.v[d]);
			source_of[r] = out->n - 1;
			free(pname);
		}
	}
	steps_note_stripped(&stripped);
	struct collect_run c = { req, out, runs, source_of };
	preprocess_run_all(runs, nruns, req->jobs, run_done, &c);
	for (size_t i = 0; i < nruns; i++)
		if (runs[i].failed && !out->v[source_of[i]].failed) {
			out->v[source_of[i]].failed = true;
			out->failures++;
		}
	preprocess_plans_free(b->n, cmds, plans, runs, nruns);
	free(source_of);
	free(selected);
	free(cwd);
	strvec_clear(&stripped);
	if (b == &loaded)
		ninja_build_free(&loaded);
}

bool pp_request_check(const struct pp_request *req, char **err)
{
	if (!req->nargs && !req->all)
		return fail_with(err, xstrdup("name a TARGET, a preprocessed FILE.ii or -, or use --all"));
	if (req->nargs && req->all)
		return fail_with(err, xstrdup("TARGET and --all exclude each other"));
	for (size_t i = 1; i < req->nargs; i++)
		if (pp_is_file_arg(req->args[i]) != pp_is_file_arg(req->args[0]))
			return fail_with(err, xasprintf("name targets or preprocessed files (*.i, *.ii, -), not both: '%s', '%s'",
					 req->args[0], req->args[i]));
	return true;
}

void pp_collect(const struct pp_request *req, struct pp_sources *out)
{
	*out = (struct pp_sources){ 0 };
	if (req->nargs && pp_is_file_arg(req->args[0]))
		collect_files(req, out);
	else
		collect_targets(req, out);
}
