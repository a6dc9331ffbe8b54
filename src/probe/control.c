#define _GNU_SOURCE
#include "control.h"
#include "build_record.h"
#include "proc.h"
#include "stats.h"
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* About 0.25 s of g++ -O1 on a 2-core VM: a standard header parsed, a
 * chain of template instantiations, some code generated: the front end
 * and the back end as a build exercises them. Long enough that starting a
 * process is a small part of it, short enough to run before and after
 * every build. */
static const char control_source[] =
	"#include <vector>\n"
	"template <int N> struct tally {\n"
	"	static int add(std::vector<int> &v) { v.push_back(N); return tally<N - 1>::add(v) + N; }\n"
	"};\n"
	"template <> struct tally<0> { static int add(std::vector<int> &) { return 0; } };\n"
	"int control(int k)\n"
	"{\n"
	"	std::vector<int> v;\n"
	"	int sum = tally<96>::add(v);\n"
	"	for (int &x : v)\n"
	"		x = x * k + sum;\n"
	"	return v[(unsigned)k % 96];\n"
	"}\n";

char *control_compiler(const char *dir, const struct ninja_build *b)
{
	struct strvec programs = { 0 };
	build_compilers(dir, b, &programs);
	char *first = programs.n ? xstrdup(programs.v[0]) : NULL;
	strvec_clear(&programs);
	return first;
}

/* One round: `copies` compiles of the control at once, each with its own
 * object and log; *wall their mean. False with *why when one failed. */
static bool control_round(const char *compiler, const char *dir, const char *source, size_t copies, double *wall,
			 char **why)
{
	struct proc *procs = xcalloc(copies, sizeof(*procs));
	struct proc **running = xcalloc(copies, sizeof(*running));
	char ***argvs = xcalloc(copies, sizeof(*argvs)), **logs = xcalloc(copies, sizeof(*logs));
	for (size_t i = 0; i < copies; i++) {
		char *object = xasprintf("%s/control-%zu.o", dir, i);
		char *argv[] = { xstrdup(compiler), xstrdup("-x"), xstrdup("c++"), xstrdup("-std=c++17"), xstrdup("-O1"),
				 xstrdup("-c"), xstrdup(source), xstrdup("-o"), object, NULL };
		argvs[i] = xcalloc(sizeof(argv) / sizeof(*argv), sizeof(char *));
		memcpy(argvs[i], argv, sizeof(argv));
		logs[i] = xasprintf("%s/control-%zu.log", dir, i);
		procs[i] = (struct proc){ .argv = argvs[i], .cwd = dir, .out_path = logs[i] };
	}
	size_t started = 0;
	for (size_t i = 0; i < copies; i++)
		if (proc_start(&procs[i]) == 0)
			running[started++] = &procs[i];
	for (size_t left = started; left > 0; left--) {
		size_t k = proc_wait_any(running, left);
		running[k] = running[left - 1];
	}
	proc_exit_if_interrupted();
	double sum = 0;
	for (size_t i = 0; i < copies && !*why; i++) {
		if (i >= started) {
			*why = xasprintf("the control compile with %s could not start: %s", compiler, strerror(errno));
		} else if (!proc_succeeded(&procs[i])) {
			char *how = proc_failure(&procs[i]), *first = file_first_error_line(logs[i]);
			*why = xasprintf("the control compile with %s failed (%s)%s%s", compiler, how, first ? ": " : "",
					 first ? first : "");
			free(first);
			free(how);
		}
		sum += procs[i].wall_s;
	}
	*wall = sum / (double)copies;
	for (size_t i = 0; i < copies; i++) {
		for (char **a = argvs[i]; *a; a++)
			free(*a);
		free(argvs[i]);
		free(logs[i]);
	}
	free(argvs);
	free(logs);
	free(running);
	free(procs);
	return !*why;
}

bool control_measure(const char *compiler, size_t copies, size_t runs, struct control *c, char **err)
{
	copies = copies ? copies : 1;
	*c = (struct control){ .compiler = xstrdup(compiler), .copies = copies };
	char *dir = tmpdir_subdir("control");
	char *source = xasprintf("%s/control.cpp", dir);
	FILE *f = fopen(source, "w");
	if (!f || fputs(control_source, f) == EOF || fclose(f) != 0)
		die(EXIT_INTERNAL, "cannot write %s: %s", source, strerror(errno));
	double *walls = xcalloc(runs + 1, sizeof(double));
	char *why = NULL;
	for (size_t k = 0; k <= runs && !why; k++) {	/* round 0 warms the caches, untimed */
		double wall;
		if (control_round(compiler, dir, source, copies, &wall, &why) && k)
			walls[c->runs++] = wall;
	}
	if (!why) {
		struct summary s = summarize(walls, c->runs);
		c->seconds = s.median, c->lo = s.min, c->hi = s.max;
	}
	free(walls);
	remove_tree(dir);
	free(dir);
	free(source);
	return ok_unless(err, why);
}

void control_clear(struct control *c)
{
	free(c->compiler);
	*c = (struct control){ 0 };
}

char *control_name(const struct control *c)
{
	return xasprintf("%s, %zu at once", c->compiler, c->copies ? c->copies : 1);
}
