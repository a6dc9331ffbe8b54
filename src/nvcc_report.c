#define _GNU_SOURCE
#include "nvcc_report.h"

#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CSV field: the text up to the next comma, trimmed. nvcc writes no
 * quoting, so a comma inside a path would split it; paths are not used. */
static char *next_field(char **p)
{
	if (!*p)
		return NULL;
	char *start = *p, *comma = strchr(start, ',');
	if (comma) {
		*comma = '\0';
		*p = comma + 1;
	} else {
		*p = NULL;
	}
	while (*start == ' ' || *start == '\t')
		start++;
	size_t len = strlen(start);
	while (len && strchr(" \t\r\n", start[len - 1]))
		start[--len] = '\0';
	return start;
}

char *nvcc_time_read(const char *path, struct nvcc_time *t)
{
	*t = (struct nvcc_time){ 0 };
	FILE *f = fopen(path, "r");
	if (!f)
		return xasprintf("cannot read %s: %s", path, strerror(errno));
	char *line = NULL, *err = NULL;
	size_t cap = 0;
	long lineno = 0;
	struct nvcc_run run = { 0 };
	while (getline(&line, &cap, f) != -1) {
		lineno++;
		char *p = line, *fields[8];
		int n = 0;
		while (n < 8 && (fields[n] = next_field(&p)))
			n++;
		if (n == 1 && !*fields[0])
			continue;	/* blank line */
		if (n >= 2 && !strcmp(fields[1], "phase name"))
			continue;	/* the header, repeated by every appending run */
		double ms;
		if (n != 8 || !parse_double(fields[6], &ms) || ms < 0) {
			err = xasprintf("%ld: expected 8 comma-separated fields ending in a time and 'ms'", lineno);
			break;
		}
		double scale = !strcmp(fields[7], "ms") ? 1e-3 : !strcmp(fields[7], "s") ? 1 : NAN;
		if (isnan(scale)) {
			err = xasprintf("%ld: unknown unit '%s'", lineno, fields[7]);
			break;
		}
		run.jobs = xrealloc(run.jobs, (run.n + 1) * sizeof(*run.jobs));
		run.jobs[run.n++] = (struct nvcc_job_time){ xstrdup(fields[1]), xstrdup(fields[4]), ms * scale };
		if (!strcmp(fields[1], "nvcc (driver)")) {
			t->runs = xrealloc(t->runs, (t->n + 1) * sizeof(*t->runs));
			t->runs[t->n++] = run;
			run = (struct nvcc_run){ 0 };
		}
	}
	if (!err && run.n) {	/* no driver row: nvcc was cut short */
		t->runs = xrealloc(t->runs, (t->n + 1) * sizeof(*t->runs));
		t->runs[t->n++] = run;
		run = (struct nvcc_run){ 0 };
	}
	for (size_t i = 0; i < run.n; i++) {
		free(run.jobs[i].phase);
		free(run.jobs[i].arch);
	}
	free(run.jobs);
	free(line);
	fclose(f);
	if (err)
		nvcc_time_free(t);
	return err;
}

void nvcc_time_free(struct nvcc_time *t)
{
	for (size_t r = 0; r < t->n; r++) {
		for (size_t i = 0; i < t->runs[r].n; i++) {
			free(t->runs[r].jobs[i].phase);
			free(t->runs[r].jobs[i].arch);
		}
		free(t->runs[r].jobs);
	}
	free(t->runs);
	*t = (struct nvcc_time){ 0 };
}

const char *nvcc_arch_number(const char *arch)
{
	const char *u = strrchr(arch, '_');
	return u ? u + 1 : arch;
}

/* The arch in a thread name such as "kern.cu [compute_80]", or NULL. */
static char *arch_of_thread(const char *name)
{
	const char *open = strrchr(name, '['), *close = open ? strchr(open, ']') : NULL;
	return close ? xstrndup(open + 1, (size_t)(close - open - 1)) : NULL;
}

static struct nvcc_device_phases *arch_slot(struct nvcc_trace *t, const char *arch)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(nvcc_arch_number(t->archs[i].arch), nvcc_arch_number(arch))) {
			/* Prefer the virtual arch's name for the pass. */
			if (has_prefix(arch, "compute_") && !has_prefix(t->archs[i].arch, "compute_")) {
				free(t->archs[i].arch);
				t->archs[i].arch = xstrdup(arch);
			}
			return &t->archs[i];
		}
	t->archs = xrealloc(t->archs, (t->n + 1) * sizeof(*t->archs));
	struct nvcc_device_phases *d = &t->archs[t->n++];
	*d = (struct nvcc_device_phases){ .arch = xstrdup(arch) };
	return d;
}

struct thread_arch {
	json_int_t pid, tid;
	char *arch;
};

char *nvcc_trace_read(const char *path, struct nvcc_trace *t)
{
	*t = (struct nvcc_trace){ 0 };
	json_error_t jerr;
	json_t *doc = json_load_file(path, 0, &jerr);
	if (!doc)
		return xasprintf("%d:%d: %s", jerr.line, jerr.column, jerr.text);
	json_t *events = json_is_object(doc) ? json_object_get(doc, "traceEvents") : doc;
	if (!json_is_array(events)) {
		json_decref(doc);
		return xstrdup("1: not a Chrome trace (no traceEvents array)");
	}
	/* First the thread names, which carry the arch, then the events. */
	struct thread_arch *threads = NULL;
	size_t nthreads = 0, i;
	json_t *ev;
	json_array_foreach(events, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *name = json_string_value(json_object_get(ev, "name"));
		if (!ph || !name || strcmp(ph, "M") || strcmp(name, "thread_name"))
			continue;
		const char *thread = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
		char *arch = thread ? arch_of_thread(thread) : NULL;
		if (!arch)
			continue;
		threads = xrealloc(threads, (nthreads + 1) * sizeof(*threads));
		threads[nthreads++] = (struct thread_arch){ json_integer_value(json_object_get(ev, "pid")),
							    json_integer_value(json_object_get(ev, "tid")), arch };
	}
	static const struct {
		const char *event;
		enum phase phase;
	} map[] = {
		{ "CUDA C++ Front-End", PHASE_FRONT_END }, { "Generating NVVM IR", PHASE_IR_GEN },
		{ "NVVM Optimizer", PHASE_OPTIMIZER }, { "NVVM CodeGen", PHASE_CODEGEN },
		{ "Total PTXAS Time", NPHASES },	/* ptxas, apart */
	};
	json_array_foreach(events, i, ev) {
		const char *ph = json_string_value(json_object_get(ev, "ph"));
		const char *name = json_string_value(json_object_get(ev, "name"));
		if (!ph || !name || strcmp(ph, "X"))
			continue;
		size_t m;
		for (m = 0; m < sizeof(map) / sizeof(map[0]) && strcmp(map[m].event, name); m++)
			;
		if (m == sizeof(map) / sizeof(map[0]))
			continue;
		json_int_t pid = json_integer_value(json_object_get(ev, "pid"));
		json_int_t tid = json_integer_value(json_object_get(ev, "tid"));
		for (size_t k = 0; k < nthreads; k++) {
			if (threads[k].pid != pid || threads[k].tid != tid)
				continue;
			struct nvcc_device_phases *d = arch_slot(t, threads[k].arch);
			double s = json_number_value(json_object_get(ev, "dur")) / 1e6;
			if (map[m].phase == NPHASES)
				d->ptxas += s;
			else
				d->cicc[map[m].phase] += s;
			break;
		}
	}
	for (size_t k = 0; k < nthreads; k++)
		free(threads[k].arch);
	free(threads);
	json_decref(doc);
	return NULL;
}

void nvcc_trace_free(struct nvcc_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->archs[i].arch);
	free(t->archs);
	*t = (struct nvcc_trace){ 0 };
}
