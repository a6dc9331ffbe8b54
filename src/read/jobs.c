#define _GNU_SOURCE
#include "jobs.h"

#include "cmdline.h"
#include "proc.h"
#include "tmpdir.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *pass_kind_name(enum pass_kind p)
{
	return p == PASS_HOST ? "host" : p == PASS_DEVICE ? "device" : "other";
}

/* The value after `flag` ("-triple x") or glued to it ("-arch=x"). */
static const char *flag_value(const struct strvec *argv, const char *flag)
{
	size_t len = strlen(flag);
	for (size_t i = 1; i < argv->n; i++) {
		if (!strcmp(argv->v[i], flag) && i + 1 < argv->n)
			return argv->v[i + 1];
		if (!strncmp(argv->v[i], flag, len) && argv->v[i][len] == '=')
			return argv->v[i] + len + 1;
	}
	return NULL;
}

static bool has_arg(const struct strvec *argv, const char *arg)
{
	for (size_t i = 1; i < argv->n; i++)
		if (!strcmp(argv->v[i], arg))
			return true;
	return false;
}

/* "clang-19" -> "clang", "clang++" -> "clang", "cc1plus" stays: the
 * program's family, without a "-<version>" suffix. */
static char *program_family(const char *path)
{
	char *name = xstrdup(base_name(path));
	char *dash = strrchr(name, '-');
	if (dash && dash[1] && strspn(dash + 1, "0123456789.") == strlen(dash + 1))
		*dash = '\0';
	if (!strcmp(name, "clang++"))
		name[5] = '\0';
	return name;
}

static void set_label(struct job *j, enum pass_kind pass, const char *arch, const char *tool)
{
	j->pass = pass;
	j->arch = arch ? xstrdup(arch) : NULL;
	j->tool = xstrdup(tool);
}

static bool is_device_triple(const char *triple)
{
	return triple && (has_prefix(triple, "amdgcn") || has_prefix(triple, "nvptx") || has_prefix(triple, "spir"));
}

/* A job from clang's, hipcc's or gcc's -###. */
static void label_driver_job(struct job *j)
{
	const struct strvec *a = &j->argv;
	char *family = program_family(a->v[0]);
	const char *mcpu = flag_value(a, "-plugin-opt=mcpu");
	if (a->n > 1 && (!strcmp(a->v[1], "-cc1") || !strcmp(a->v[1], "-cc1as"))) {
		const char *triple = flag_value(a, "-triple");
		bool device = is_device_triple(triple);
		set_label(j, device ? PASS_DEVICE : PASS_HOST, device ? flag_value(a, "-target-cpu") : NULL,
			  !strcmp(a->v[1], "-cc1") ? "cc1" : "cc1as");
		j->time_report = !strcmp(a->v[1], "-cc1");
	} else if ((!strcmp(family, "lld") || !strcmp(family, "ld.lld")) && mcpu) {
		set_label(j, PASS_DEVICE, mcpu, "lld");
	} else if (!strcmp(family, "clang-offload-bundler")) {
		set_label(j, PASS_OTHER, NULL, "offload bundler");
	} else if (!strcmp(family, "ptxas")) {
		const char *arch = flag_value(a, "--gpu-name");
		set_label(j, PASS_DEVICE, arch ? arch : flag_value(a, "-arch"), "ptxas");
	} else if (!strcmp(family, "cc1plus") || !strcmp(family, "cc1")) {
		set_label(j, PASS_HOST, NULL, family);
		j->time_report = true;
	} else if (!strcmp(family, "as") || has_suffix(family, "-as")) {	/* also x86_64-linux-gnu-as */
		set_label(j, PASS_HOST, NULL, "as");
	} else {
		set_label(j, PASS_OTHER, NULL, family);	/* fatbinary, linkers, packagers */
	}
	free(family);
}

static void push_job(struct job_list *jobs, struct job *j)
{
	jobs->v = xrealloc(jobs->v, (jobs->n + 1) * sizeof(*jobs->v));
	jobs->v[jobs->n++] = *j;
}

static void job_free(struct job *j)
{
	strvec_clear(&j->argv);
	strvec_clear(&j->env);
	free(j->arch);
	free(j->tool);
}

bool jobs_parse_dashdashdash(const char *text, struct job_list *jobs, char **err)
{
	char *copy = xstrdup(text), *save = NULL, *why = NULL;
	long lineno = 0;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		/* Job lines are the ones indented by a space; the rest is the
		 * driver talking about itself (version, COLLECT_GCC_OPTIONS=…,
		 * "(in-process)" before a job clang runs within itself). */
		if (line[0] != ' ' || !line[strspn(line, " \r")] || !strcmp(line, " (in-process)"))
			continue;
		struct job j = { 0 };
		const char *msg = cmdline_split(line, &j.argv);
		if (!msg && !j.argv.n)
			msg = "empty command";
		if (msg) {
			why = xasprintf("line %ld of the driver's job list: %s%s", lineno, msg,
					strchr(line, '|') ? " (jobs joined by a pipe: drop -pipe)" : "");
			job_free(&j);
			break;
		}
		label_driver_job(&j);
		push_job(jobs, &j);
	}
	free(copy);
	if (!why && !jobs->n)
		why = xstrdup("the driver listed no jobs");
	return ok_unless(err, why);
}

/* No real nvcc line comes near this; settings that expand each other
 * (A1=$A0$A0, A2=$A1$A1, ...) would otherwise grow without bound. */
#define DRYRUN_MAX_LINE (1 << 20)

/* Replace $NAME and ${NAME} by the dryrun's own settings. Unknown names are
 * left alone (and refused by cmdline_split). NULL when the line would grow
 * past DRYRUN_MAX_LINE. */
static char *expand_settings(const char *line, const struct strvec *env)
{
	struct strvec parts = { 0 };
	size_t total = 0;
	const char *p = line;
	while (*p) {
		const char *dollar = strchr(p, '$');
		if (!dollar) {
			strvec_push(&parts, p);
			break;
		}
		bool braced = dollar[1] == '{';
		const char *name = dollar + 1 + braced, *end = name;
		while (isalnum((unsigned char)*end) || *end == '_')
			end++;
		const char *value = NULL;
		for (size_t i = 0; end > name && i < env->n; i++)
			if (!strncmp(env->v[i], name, (size_t)(end - name)) && env->v[i][end - name] == '=')
				value = env->v[i] + (end - name) + 1;
		if (braced && *end != '}')
			value = NULL;
		if (!value) {
			strvec_push_nodup(&parts, xstrndup(p, (size_t)(dollar - p) + 1));
			p = dollar + 1;
			continue;
		}
		strvec_push_nodup(&parts, xstrndup(p, (size_t)(dollar - p)));
		total += strlen(value);
		if (total > DRYRUN_MAX_LINE) {
			strvec_clear(&parts);
			return NULL;
		}
		strvec_push(&parts, value);
		p = end + braced;
	}
	total = 0;
	for (size_t i = 0; i < parts.n; i++)
		total += strlen(parts.v[i]);
	char *out = xmalloc(total + 1), *o = out;
	for (size_t i = 0; i < parts.n; i++)
		o = stpcpy(o, parts.v[i]);
	*o = '\0';
	strvec_clear(&parts);
	return out;
}

static void label_nvcc_job(struct job *j)
{
	const struct strvec *a = &j->argv;
	char *family = program_family(a->v[0]);
	if (!strcmp(family, "cudafe++")) {
		set_label(j, PASS_HOST, NULL, "cudafe++");
		j->nvcc_phase = "cudafe++";
	} else if (!strcmp(family, "cicc")) {
		set_label(j, PASS_DEVICE, flag_value(a, "-arch"), "cicc");
		j->nvcc_phase = "cicc";
	} else if (!strcmp(family, "ptxas")) {
		set_label(j, PASS_DEVICE, flag_value(a, "-arch"), "ptxas");
		j->nvcc_phase = "ptxas";
	} else if (!strcmp(family, "fatbinary") || !strcmp(family, "nvlink")) {
		set_label(j, PASS_OTHER, NULL, family);
		j->nvcc_phase = !strcmp(family, "fatbinary") ? "fatbinary" : "nvlink";
	} else if (has_arg(a, "-E")) {
		/* The host compiler preprocessing: per device arch with
		 * __CUDA_ARCH__ defined, once for the host without it. */
		const char *cuda_arch = NULL;
		for (size_t i = 1; i < a->n; i++)
			if (has_prefix(a->v[i], "-D__CUDA_ARCH__="))
				cuda_arch = a->v[i] + strlen("-D__CUDA_ARCH__=");
		char *tool = xasprintf("%s -E", family);
		if (cuda_arch) {
			/* __CUDA_ARCH__=800 is compute_80, 1000 is compute_100. */
			size_t n = strlen(cuda_arch);
			char *arch = xasprintf("compute_%.*s", (int)(n > 1 ? n - 1 : n), cuda_arch);
			set_label(j, PASS_DEVICE, arch, tool);
			free(arch);
			j->nvcc_phase = "gcc (preprocessing 1)";
		} else {
			set_label(j, PASS_HOST, NULL, tool);
			j->nvcc_phase = "gcc (preprocessing 4)";
		}
		free(tool);
	} else if (has_arg(a, "-c")) {
		set_label(j, PASS_HOST, NULL, family);
		j->nvcc_phase = "gcc (compiling)";
	} else {
		set_label(j, PASS_OTHER, NULL, family);
	}
	free(family);
}

static bool is_setting(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	return *s == '=';
}

bool jobs_parse_dryrun(const char *text, struct job_list *jobs, char **err)
{
	char *copy = xstrdup(text), *save = NULL, *why = NULL;
	struct strvec env = { 0 };
	long lineno = 0;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (!has_prefix(line, "#$ "))
			continue;	/* compiler messages */
		if (has_prefix(line, "#$ --"))
			continue;	/* nvcc's internal steps ("-- Filter Dependencies --") */
		char *body = expand_settings(line + 3, &env);
		if (!body) {
			why = xasprintf("line %ld of nvcc's --dryrun: its settings expand past %d bytes", lineno,
					DRYRUN_MAX_LINE);
			break;
		}
		if (is_setting(body)) {
			/* NAME=value as sh would assign it: quotes removed. */
			char *eq = strchr(body, '=');
			struct strvec words = { 0 };
			char *value = cmdline_split(eq + 1, &words) ? xstrdup(eq + 1) : strvec_join(&words, " ");
			strvec_clear(&words);
			*eq = '\0';
			/* A later setting of the same name wins. */
			for (size_t i = 0; i < env.n; i++)
				if (has_prefix(env.v[i], body) && env.v[i][strlen(body)] == '=')
					env.v[i][0] = '\0';
			strvec_pushf(&env, "%s=%s", body, value);
			free(value);
			free(body);
			continue;
		}
		struct job j = { 0 };
		const char *msg = cmdline_split(body, &j.argv);
		free(body);
		if (!msg && !j.argv.n)
			msg = "empty command";
		if (msg) {
			why = xasprintf("line %ld of nvcc's --dryrun: %s", lineno, msg);
			job_free(&j);
			break;
		}
		if (!strcmp(j.argv.v[0], "rm")) {	/* nvcc's own cleanup */
			job_free(&j);
			continue;
		}
		for (size_t i = 0; i < env.n; i++)
			if (env.v[i][0])
				strvec_push(&j.env, env.v[i]);
		label_nvcc_job(&j);
		push_job(jobs, &j);
	}
	strvec_clear(&env);
	free(copy);
	if (!why && !jobs->n)
		why = xstrdup("nvcc --dryrun listed no jobs");
	return ok_unless(err, why);
}

/* Run the driver with -### (or --dryrun), its output in `log`: whether it
 * exited 0. */
static bool run_listing(const struct compile_command *cmd, const char *cwd, const char *log, double timeout_s,
			struct proc *p)
{
	struct strvec argv = { 0 };
	bool nvcc = cmd->compiler == COMPILER_NVCC;
	for (size_t i = 0; i < cmd->argv.n; i++)
		if (nvcc || strcmp(cmd->argv.v[i], "-pipe"))	/* -pipe joins jobs with |: time them apart */
			strvec_push(&argv, cmd->argv.v[i]);
	strvec_push(&argv, nvcc ? "--dryrun" : "-###");
	*p = (struct proc){ .argv = argv.v, .env_extra = cmd->env.v, .cwd = cwd, .out_path = log, .timeout_s = timeout_s };
	proc_run(p);
	strvec_clear(&argv);
	proc_exit_if_interrupted();
	return proc_succeeded(p);
}

bool jobs_list(const struct compile_command *cmd, const char *cwd, const char *log, double timeout_s,
		struct job_list *jobs, char **err)
{
	struct proc p;
	bool nvcc = cmd->compiler == COMPILER_NVCC;
	if (!run_listing(cmd, cwd, log, timeout_s, &p)) {
		char *failure = proc_failure(&p);
		char *why = xasprintf("%s %s failed (%s)", cmd->argv.v[0], nvcc ? "--dryrun" : "-###", failure);
		free(failure);
		return fail_with(err, why);
	}
	char *text = read_text_file(log);
	if (!text)
		return fail_with(err, xasprintf("cannot read %s", log));
	bool ok = nvcc ? jobs_parse_dryrun(text, jobs, err) : jobs_parse_dashdashdash(text, jobs, err);
	free(text);
	return ok;
}

bool jobs_driver_takes(const struct compile_command *cmd, const char *cwd, const char *log, double timeout_s,
		       char **err)
{
	struct proc p;
	if (run_listing(cmd, cwd, log, timeout_s, &p))
		return true;
	char *line = file_first_error_line(log);
	return fail_with(err, line ? line : proc_failure(&p));
}

void jobs_report_list_failure(const char *name, const char *err, const char *log)
{
	fprintf(stderr, "buildwall: %s: cannot list the compile's jobs: %s; last lines of its output:\n", name, err);
	print_file_tail(log, 15);
}

void job_list_free(struct job_list *jobs)
{
	for (size_t i = 0; i < jobs->n; i++)
		job_free(&jobs->v[i]);
	free(jobs->v);
	*jobs = (struct job_list){ 0 };
}

const char *job_nvcc_stub(const struct job *j)
{
	return j->tool && !strcmp(j->tool, "cicc") ? flag_value(&j->argv, "--stub_file_name") : NULL;
}

void job_list_keep(struct job_list *jobs, enum pass_kind pass)
{
	size_t kept = 0;
	for (size_t i = 0; i < jobs->n; i++) {
		if (jobs->v[i].pass == pass)
			jobs->v[kept++] = jobs->v[i];
		else
			job_free(&jobs->v[i]);
	}
	jobs->n = kept;
}

void job_make_temp_parents(const struct job *j)
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

size_t job_list_device_archs(const struct job_list *jobs)
{
	size_t n = 0;
	for (size_t i = 0; i < jobs->n; i++) {
		const struct job *j = &jobs->v[i];
		if (j->pass != PASS_DEVICE || !j->arch || !j->tool || (strcmp(j->tool, "cicc") && strcmp(j->tool, "cc1")))
			continue;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++) {
			const struct job *o = &jobs->v[k];
			seen = o->pass == PASS_DEVICE && o->arch && o->tool && !strcmp(o->tool, j->tool) && !strcmp(o->arch, j->arch);
		}
		n += !seen;
	}
	return n;
}
