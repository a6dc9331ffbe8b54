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

bool control_measure(const char *compiler, size_t runs, struct control *c, char **err)
{
	*c = (struct control){ .compiler = xstrdup(compiler) };
	char *dir = tmpdir_subdir("control");
	char *source = xasprintf("%s/control.cpp", dir), *object = xasprintf("%s/control.o", dir),
	     *log = xasprintf("%s/control.log", dir);
	FILE *f = fopen(source, "w");
	if (!f || fputs(control_source, f) == EOF || fclose(f) != 0)
		die(EXIT_INTERNAL, "cannot write %s: %s", source, strerror(errno));
	char *argv[] = { (char *)compiler, "-x", "c++", "-std=c++17", "-O1", "-c", source, "-o", object, NULL };
	double *walls = xcalloc(runs + 1, sizeof(double));
	char *why = NULL;
	for (size_t k = 0; k <= runs && !why; k++) {	/* run 0 warms the caches, untimed */
		struct proc p = { .argv = argv, .cwd = dir, .out_path = log };
		proc_run(&p);
		proc_exit_if_interrupted();
		if (!proc_succeeded(&p)) {
			char *how = proc_failure(&p), *first = file_first_error_line(log);
			why = xasprintf("the control compile with %s failed (%s)%s%s", compiler, how, first ? ": " : "",
					first ? first : "");
			free(first);
			free(how);
		} else if (k) {
			walls[c->runs++] = p.wall_s;
		}
	}
	if (!why) {
		struct summary s = summarize(walls, c->runs);
		c->seconds = s.median, c->lo = s.min, c->hi = s.max;
	}
	free(walls);
	remove_tree(dir);
	free(dir);
	free(source);
	free(object);
	free(log);
	return ok_unless(err, why);
}

void control_clear(struct control *c)
{
	free(c->compiler);
	*c = (struct control){ 0 };
}
