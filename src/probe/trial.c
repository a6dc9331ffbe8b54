#define _GNU_SOURCE
#include "trial.h"
#include "cmdline.h"
#include "match.h"
#include "ninja.h"
#include "proc.h"
#include "progress.h"
#include "tmpdir.h"

#include <math.h>
#include <stdlib.h>

static void lines(struct build_spec *s)
{
	s->clean_line = s->clean.n ? cmdline_join(s->clean.v, s->clean.n) : NULL;
	s->build_line = cmdline_join(s->build.v, s->build.n);
}

void build_spec_ninja(struct build_spec *s, const char *dir, long jobs)
{
	*s = (struct build_spec){ 0 };
	const char *clean[] = { ninja_program(), "-C", dir, "-t", "clean" };
	for (size_t i = 0; i < 5; i++)
		strvec_push(&s->clean, clean[i]);
	strvec_push(&s->build, ninja_program());
	strvec_push(&s->build, "-C");
	strvec_push(&s->build, dir);
	if (jobs)
		strvec_pushf(&s->build, "-j%ld", jobs);
	lines(s);
}

void build_spec_argv(struct build_spec *s, const char *clean, char *const *argv, size_t n)
{
	*s = (struct build_spec){ 0 };
	if (clean) {
		strvec_push(&s->clean, "/bin/sh");
		strvec_push(&s->clean, "-c");
		strvec_push(&s->clean, clean);
	}
	for (size_t i = 0; i < n; i++)
		strvec_push(&s->build, argv[i]);
	lines(s);
	if (clean) {	/* shown as given */
		free(s->clean_line);
		s->clean_line = xstrdup(clean);
	}
}

void build_spec_shell(struct build_spec *s, const char *clean, const char *build)
{
	char *argv[] = { "/bin/sh", "-c", (char *)build };
	build_spec_argv(s, clean, argv, 3);
	free(s->build_line);
	s->build_line = xstrdup(build);
}

void build_spec_free(struct build_spec *s)
{
	strvec_clear(&s->clean);
	strvec_clear(&s->build);
	free(s->clean_line);
	free(s->build_line);
	*s = (struct build_spec){ 0 };
}

static void run_step(const char *what, const char *step, struct proc *p, const char *log)
{
	progress_set("[%s] %s", what, step);
	proc_run(p);
	progress_clear();
	proc_exit_if_interrupted();
	if (!proc_succeeded(p)) {
		free(proc_report_failure(p, log, "%s: %s", what, step));
		exit(EXIT_BUILD_FAILED);
	}
}

void trial_run(const struct build_spec *s, const char *what, const regex_t *match, double timeout,
	       struct trial_result *r)
{
	char *clean_log = xasprintf("%s/clean.out", tmpdir_path()), *build_log = xasprintf("%s/build.out", tmpdir_path());
	if (s->clean.n) {
		struct proc pc = { .argv = s->clean.v, .out_path = clean_log, .timeout_s = timeout };
		run_step(what, "clean", &pc, clean_log);
	}
	struct proc pb = { .argv = s->build.v, .out_path = build_log, .timeout_s = timeout };
	run_step(what, "build", &pb, build_log);
	*r = (struct trial_result){ pb.wall_s, pb.cpu_s, pb.maxrss_kb, pb.peak_kb, pb.peak_by,
				    match ? match_last_number(match, build_log) : NAN };
	free(clean_log);
	free(build_log);
}
