#define _GNU_SOURCE
#include "trace_probe.h"
#include "proc.h"
#include "progress.h"
#include "tmpdir.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trace_probe_add(struct trace_probe *tp, const char *name, struct compile_command *cmd)
{
	tp->tus = xrealloc(tp->tus, (tp->ntus + 1) * sizeof(*tp->tus));
	struct trace_probe_tu *t = &tp->tus[tp->ntus];
	*t = (struct trace_probe_tu){ .name = xstrdup(name), .cmd = *cmd,
				      .log = xasprintf("%s/trace-%zu.log", tmpdir_path(), tp->ntus) };
	*cmd = (struct compile_command){ 0 };
	tp->ntus++;
}

struct clang_version {
	char *program;
	int major;
};

/* The major version `program --version` names (0 when it names none). */
static int clang_major(const char *program, struct clang_version **cache, size_t *n)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*cache)[i].program, program))
			return (*cache)[i].major;
	char *const argv[] = { (char *)program, "--version", NULL };
	int major = 0;
	char *text = proc_capture(argv, NULL, NULL, 30);
	const char *v = text ? strstr(text, "version ") : NULL;
	if (v)
		major = atoi(v + 8);
	free(text);
	*cache = xrealloc(*cache, (*n + 1) * sizeof(**cache));
	(*cache)[(*n)++] = (struct clang_version){ xstrdup(program), major };
	return major;
}

static const char *output_of(const struct job *j)
{
	for (size_t i = 0; i + 1 < j->argv.n; i++)
		if (!strcmp(j->argv.v[i], "-o"))
			return j->argv.v[i + 1];
	return NULL;
}

static void add_file(struct trace_probe_tu *t, char *path, const char *pass)
{
	t->files = xrealloc(t->files, (t->nfiles + 1) * sizeof(*t->files));
	t->files[t->nfiles++] = (struct trace_file){ path, pass ? xstrdup(pass) : NULL };
}

/* Each compiler job of a clang or hipcc compile gets its trace: clang 16
 * and later take -ftime-trace=FILE in cc1; clang 15's cc1 takes a bare
 * -ftime-trace and writes it beside its -o output, as FILE.json. */
static void trace_clang_jobs(struct trace_probe *tp, size_t ti, struct clang_version **versions, size_t *nversions)
{
	struct trace_probe_tu *t = &tp->tus[ti];
	char *err = NULL;
	if (!jobs_list(&t->cmd, tp->dir, t->log, tp->timeout, &t->jobs, &err)) {
		jobs_report_list_failure(t->name, err, t->log);
		free(err);
		t->failed = true;
		tp->failures++;
		return;
	}
	for (size_t k = 0; k < t->jobs.n; k++) {
		struct job *j = &t->jobs.v[k];
		job_make_temp_parents(j);
		if (!j->time_report || !j->argv.n || strcmp(j->tool, "cc1"))
			continue;
		char *pass = j->arch ? xasprintf("%s %s", pass_kind_name(j->pass), j->arch) : xstrdup(pass_kind_name(j->pass));
		const char *out = output_of(j);
		if (clang_major(j->argv.v[0], versions, nversions) >= 16 || !out) {
			char *path = xasprintf("%s/trace-%zu-%zu.json", tmpdir_path(), ti, k);
			strvec_pushf(&j->argv, "-ftime-trace=%s", path);
			add_file(t, path, pass);
		} else {
			strvec_push(&j->argv, "-ftime-trace");
			const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
			size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
			add_file(t, xasprintf("%.*s.json", (int)stem, out), pass);
		}
		if (tp->granularity_us)
			strvec_pushf(&j->argv, "-ftime-trace-granularity=%ld", tp->granularity_us);
		if (tp->kernels && j->pass == PASS_DEVICE && j->arch && out) {
			if (!t->job_logs) {
				t->job_logs = xcalloc(t->jobs.n, sizeof(char *));
				t->job_objects = xcalloc(t->jobs.n, sizeof(char *));
			}
			strvec_push(&j->argv, "-Rpass-analysis=kernel-resource-usage");
			t->job_logs[k] = xasprintf("%s/trace-%zu-%zu.log", tmpdir_path(), ti, k);
			t->job_objects[k] = xstrdup(out);
		}
		free(pass);
	}
}

/* nvcc traces its device passes itself: the whole compile is one job. */
static void trace_nvcc(struct trace_probe *tp, size_t ti)
{
	struct trace_probe_tu *t = &tp->tus[ti];
	char *stem = xasprintf("%s/trace-%zu", tmpdir_path(), ti);	/* nvcc adds the .json */
	t->jobs.v = xcalloc(1, sizeof(struct job));
	t->jobs.n = 1;
	struct job *j = &t->jobs.v[0];
	for (size_t i = 0; i < t->cmd.argv.n; i++)
		strvec_push(&j->argv, t->cmd.argv.v[i]);
	strvec_push(&j->argv, "-fdevice-time-trace");
	strvec_push(&j->argv, stem);
	if (tp->kernels) {
		char *name = xasprintf("trace-%zu-kept", ti);
		t->keep_dir = tmpdir_subdir(name);
		free(name);
		strvec_push(&j->argv, "-Xptxas");
		strvec_push(&j->argv, "-v");
		strvec_push(&j->argv, "--keep");
		strvec_push(&j->argv, "--keep-dir");
		strvec_push(&j->argv, t->keep_dir);
	}
	j->tool = xstrdup("nvcc");
	j->pass = PASS_OTHER;
	add_file(t, xasprintf("%s.json", stem), NULL);
	free(stem);
}

static long next_job(void *ctx, struct proc *p)
{
	struct trace_probe *tp = ctx;
	for (size_t i = 0; i < tp->ntus; i++) {
		struct trace_probe_tu *t = &tp->tus[i];
		if (t->running || t->failed || t->next >= t->jobs.n)
			continue;
		const struct job *j = &t->jobs.v[t->next];
		const char *log = t->job_logs && t->job_logs[t->next] ? t->job_logs[t->next] : t->log;
		*p = (struct proc){ .argv = j->argv.v, .env_extra = t->cmd.env.v, .cwd = tp->dir, .out_path = log,
				    .timeout_s = tp->timeout };
		progress_set("%s: traced compile, job %zu of %zu (%s%s%s)", t->name, t->next + 1, t->jobs.n, j->tool,
			     j->arch ? " " : "", j->arch ? j->arch : "");
		t->running = true;
		return (long)i;
	}
	return -1;
}

static void job_done(void *ctx, long task, struct proc *p)
{
	struct trace_probe *tp = ctx;
	struct trace_probe_tu *t = &tp->tus[task];
	progress_clear();
	t->running = false;
	if (!proc_succeeded(p)) {
		free(proc_report_failure(p, t->log, "%s: its traced compile (job %zu, %s)", t->name, t->next + 1,
					 t->jobs.v[t->next].tool));
		t->failed = true;
		tp->failures++;
		return;
	}
	t->traced_s += p->wall_s;
	t->next++;
}

/* --kernels: the remarks and ptxas -v lines the traced compile printed,
 * and the code in its device objects. */
static void read_kernels(struct trace_probe_tu *t)
{
	if (t->failed)
		return;
	if (t->keep_dir) {
		char *text = read_text_file(t->log);
		kernel_facts_parse_ptxas(text ? text : "", &t->kernels);
		free(text);
		kernel_facts_add_cubins(&t->kernels, t->name, t->keep_dir);
		return;
	}
	for (size_t k = 0; t->job_logs && k < t->jobs.n; k++) {
		if (!t->job_logs[k])
			continue;
		const char *arch = t->jobs.v[k].arch;
		char *text = read_text_file(t->job_logs[k]);
		kernel_facts_parse_amdgpu(text ? text : "", arch, &t->kernels);
		free(text);
		kernel_facts_add_object(&t->kernels, t->name, t->job_objects[k], arch);
	}
}

void trace_probe_run(struct trace_probe *tp)
{
	struct clang_version *versions = NULL;
	size_t nversions = 0;
	for (size_t i = 0; i < tp->ntus; i++) {
		if (tp->tus[i].cmd.compiler == COMPILER_NVCC)
			trace_nvcc(tp, i);
		else
			trace_clang_jobs(tp, i, &versions, &nversions);
	}
	for (size_t i = 0; i < nversions; i++)
		free(versions[i].program);
	free(versions);
	const struct proc_pool pool = { .next = next_job, .finished = job_done, .ctx = tp };
	proc_run_parallel(tp->parallel, &pool);
	for (size_t i = 0; tp->kernels && i < tp->ntus; i++)
		read_kernels(&tp->tus[i]);
}

void trace_probe_free(struct trace_probe *tp)
{
	for (size_t i = 0; i < tp->ntus; i++) {
		struct trace_probe_tu *t = &tp->tus[i];
		free(t->name);
		compile_command_clear(&t->cmd);
		for (size_t k = 0; t->job_logs && k < t->jobs.n; k++) {
			free(t->job_logs[k]);
			free(t->job_objects[k]);
		}
		job_list_free(&t->jobs);
		for (size_t f = 0; f < t->nfiles; f++) {
			free(t->files[f].path);
			free(t->files[f].pass);
		}
		free(t->files);
		free(t->log);
		free(t->job_logs);
		free(t->job_objects);
		free(t->keep_dir);
		kernel_facts_free(&t->kernels);
	}
	free(tp->tus);
	*tp = (struct trace_probe){ 0 };
}
