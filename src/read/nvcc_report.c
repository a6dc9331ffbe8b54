#define _GNU_SOURCE
#include "nvcc_report.h"

#include "trace_scan.h"
#include "util.h"

#include <errno.h>
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

bool nvcc_time_read(const char *path, struct nvcc_time *t, char **err)
{
	*t = (struct nvcc_time){ 0 };
	FILE *f = fopen(path, "r");
	if (!f)
		return fail_with(err, xasprintf("cannot read %s: %s", path, strerror(errno)));
	char *line = NULL, *why = NULL;
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
			why = xasprintf("%ld: expected 8 comma-separated fields ending in a time and 'ms'", lineno);
			break;
		}
		double scale = !strcmp(fields[7], "ms") ? 1e-3 : !strcmp(fields[7], "s") ? 1 : NAN;
		if (isnan(scale)) {
			why = xasprintf("%ld: unknown unit '%s'", lineno, fields[7]);
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
	if (!why && run.n) {	/* no driver row: nvcc was cut short */
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
	if (why)
		nvcc_time_free(t);
	return ok_unless(err, why);
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

struct trace_str nvcc_thread_arch(struct trace_str thread)
{
	const char *open = thread.s ? memrchr(thread.s, '[', thread.len) : NULL;
	const char *close = open ? memchr(open, ']', thread.len - (size_t)(open - thread.s)) : NULL;
	return close ? (struct trace_str){ open + 1, (size_t)(close - open - 1) } : (struct trace_str){ NULL, 0 };
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

/* What the one pass keeps: the threads that name an arch, and the events
 * of the phases (thread names may come after the events they name). */
struct thread_arch {
	long long pid, tid;
	char *arch;
};

struct phase_event {
	long long pid, tid;
	int slot;	/* a phase, or NPHASES for ptxas */
	double seconds;
};

struct trace_read {
	struct thread_arch *threads;
	size_t nthreads;
	struct phase_event *events;
	size_t nevents, events_cap;
};

static const struct {
	const char *event;
	int slot;
} phase_events[] = {
	{ "CUDA C++ Front-End", PHASE_FRONT_END }, { "Generating NVVM IR", PHASE_IR_GEN },
	{ "NVVM Optimizer", PHASE_OPTIMIZER }, { "NVVM CodeGen", PHASE_CODEGEN },
	{ "Total PTXAS Time", NPHASES },	/* ptxas, apart */
};

static void on_trace_event(const struct trace_event *e, void *ctx)
{
	struct trace_read *r = ctx;
	if (e->ph == 'M' && trace_str_is(e->name, "thread_name") && e->arg_name.s) {
		struct trace_str arch = nvcc_thread_arch(e->arg_name);
		if (!arch.s)
			return;
		r->threads = xrealloc(r->threads, (r->nthreads + 1) * sizeof(*r->threads));
		r->threads[r->nthreads++] = (struct thread_arch){ e->pid, e->tid, xstrndup(arch.s, arch.len) };
		return;
	}
	if (e->ph != 'X')
		return;
	for (size_t m = 0; m < sizeof(phase_events) / sizeof(phase_events[0]); m++) {
		if (!trace_str_is(e->name, phase_events[m].event))
			continue;
		long long us = e->dur > 0 ? trace_integer(e->dur, TRACE_TIME_LIMIT_US) : 0;
		if (r->nevents == r->events_cap) {
			r->events_cap = r->events_cap ? 2 * r->events_cap : 16;
			r->events = xrealloc(r->events, r->events_cap * sizeof(*r->events));
		}
		r->events[r->nevents++] = (struct phase_event){ e->pid, e->tid, phase_events[m].slot, (double)us / 1e6 };
		return;
	}
}

bool nvcc_trace_read(const char *path, struct nvcc_trace *t, char **err)
{
	*t = (struct nvcc_trace){ 0 };
	struct trace_read r = { 0 };
	struct trace_scan_info info = { 0 };
	char *why = NULL;
	switch (trace_scan_file(path, on_trace_event, &r, &info)) {
	case TRACE_SCAN_OK:
		break;
	case TRACE_SCAN_NOT_TRACE:
		why = xstrdup("1: not a Chrome trace (no traceEvents array)");
		break;
	case TRACE_SCAN_MALFORMED:
		why = xasprintf("%ld:%ld: %s", info.line, info.column, info.error);
		break;
	case TRACE_SCAN_UNREADABLE:
		why = xasprintf("1: cannot read it: %s", info.error);
		break;
	}
	for (size_t i = 0; !why && i < r.nevents; i++) {
		const struct phase_event *ev = &r.events[i];
		for (size_t k = 0; k < r.nthreads; k++) {
			if (r.threads[k].pid != ev->pid || r.threads[k].tid != ev->tid)
				continue;
			struct nvcc_device_phases *d = arch_slot(t, r.threads[k].arch);
			if (ev->slot == NPHASES)
				d->ptxas += ev->seconds;
			else
				d->cicc[ev->slot] += ev->seconds;
			break;
		}
	}
	for (size_t k = 0; k < r.nthreads; k++)
		free(r.threads[k].arch);
	free(r.threads);
	free(r.events);
	free(info.error);
	return ok_unless(err, why);
}

void nvcc_trace_free(struct nvcc_trace *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->archs[i].arch);
	free(t->archs);
	*t = (struct nvcc_trace){ 0 };
}
