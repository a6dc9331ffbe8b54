#define _GNU_SOURCE
#include "control.h"
#include "build_record.h"
#include "load_probe.h"
#include "stats.h"
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

bool control_measure(const char *compiler, size_t copies, size_t runs, struct control *c, char **err)
{
	copies = copies ? copies : 1;
	*c = (struct control){ .compiler = xstrdup(compiler), .copies = copies };
	char *dir = tmpdir_subdir("control"), *source = xasprintf("%s/control.cpp", dir);
	FILE *f = fopen(source, "w");
	if (!f || fputs(control_source, f) == EOF || fclose(f) != 0)
		die(EXIT_INTERNAL, "cannot write %s: %s", source, strerror(errno));
	struct compile_command *cmds = xcalloc(copies, sizeof(*cmds));
	for (size_t i = 0; i < copies; i++) {
		const char *words[] = { compiler, "-x", "c++", "-std=c++17", "-O1", "-c", source, "-o" };
		for (size_t w = 0; w < sizeof(words) / sizeof(*words); w++)
			strvec_push(&cmds[i].argv, words[w]);
		strvec_pushf(&cmds[i].argv, "%s/control-%zu.o", dir, i);
	}
	/* A round that warms the caches, untimed; then `runs` rounds. */
	size_t n = 0, failures = 0;
	free(load_probe_level("the control compile", dir, cmds, copies, (long)copies, NULL, 0, &n, &failures));
	double *walls = failures ? NULL
				 : load_probe_level("the control compile", dir, cmds, copies, (long)(runs * copies), NULL, 0,
						    &n, &failures);
	if (!failures) {
		struct summary s = summarize(walls, n);
		c->seconds = s.median, c->lo = s.min, c->hi = s.max;
		c->runs = runs;
	}
	free(walls);
	for (size_t i = 0; i < copies; i++)
		compile_command_clear(&cmds[i]);
	free(cmds);
	remove_tree(dir);
	free(dir);
	free(source);
	return failures ? fail_with(err, xasprintf("the control compile with %s failed", compiler)) : true;
}

bool control_this_sitting(int64_t built_at)
{
	return built_at && time(NULL) - built_at <= CONTROL_SITTING_S;
}

size_t control_copies(long jobs)
{
	long cpus = cpu_count();
	return (size_t)(jobs < 1 ? 1 : jobs < cpus ? jobs : cpus);
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

/* One measure of the series; false (warned, the compiler dropped) when it fails. */
static bool series_measure(struct control_series *s, double *seconds)
{
	struct control c;
	char *err = NULL;
	bool ok = control_measure(s->compiler, s->copies, CONTROL_RUNS, &c, &err);
	if (!ok) {
		warn("%s: %s", err, s->without);
		free(err);
		free(s->compiler);
		s->compiler = NULL;
	}
	*seconds = c.seconds;
	control_clear(&c);
	return ok;
}

void control_series_start(struct control_series *s)
{
	if (s->compiler)
		series_measure(s, &s->before);
}

double control_series_next(struct control_series *s)
{
	double after;
	if (!s->compiler || !series_measure(s, &after))
		return 0;
	double mean = (s->before + after) / 2;
	s->before = after;
	return mean;
}

char *control_series_name(const struct control_series *s)
{
	return s->compiler ? xasprintf("%s, %zu at once", s->compiler, s->copies ? s->copies : 1) : NULL;
}

void control_series_clear(struct control_series *s)
{
	free(s->compiler);
	*s = (struct control_series){ 0 };
}
