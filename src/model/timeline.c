#include "timeline.h"

#include "heap.h"
#include "radix.h"
#include "ninja.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool any_suffix(const char *s, const char *const *suffixes)
{
	for (; *suffixes; suffixes++)
		if (has_suffix(s, *suffixes))
			return true;
	return false;
}

/* -x cu, -x cuda, -x hip (or -xcu...) in a command: compiled as a GPU TU. */
static bool gpu_language(const char *command)
{
	static const char *const flags[] = { "-x cu ", "-x cuda ", "-x hip ", "-xcu ", "-xcuda ", "-xhip ", NULL };
	for (const char *const *f = flags; *f; f++)
		if (strstr(command, *f))
			return true;
	return false;
}

enum step_kind step_kind_of_edge(const struct ninja_edge *e)
{
	static const char *const kernels[] = { ".cu", ".hip", NULL };
	static const char *const hosts[] = { ".cpp", ".cc", ".cxx", ".c++", ".C", ".c", NULL };
	if (ninja_edge_is_phony(e))
		return KIND_OTHER;
	for (size_t i = 0; i < e->inputs.n; i++) {
		if (any_suffix(e->inputs.v[i], kernels))
			return KIND_KERNEL_TU;
		if (any_suffix(e->inputs.v[i], hosts))
			return e->command && gpu_language(e->command) ? KIND_KERNEL_TU : KIND_HOST_TU;
	}
	return step_kind_of(e->outputs.v[0], strlen(e->outputs.v[0]));
}


void timeline_count_kinds(struct timeline *t)
{
	for (int k = 0; k < NKINDS; k++) {
		t->by_kind[k] = t->weighted_by_kind[k] = 0;
		t->count_by_kind[k] = 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct step *s = &t->steps[i];
		t->by_kind[s->kind] += step_duration(t, s);
		t->weighted_by_kind[s->kind] += s->weighted;
		t->count_by_kind[s->kind]++;
	}
}

static bool zero_length(const struct log_entry *e)
{
	return e->end_ms == e->start_ms;
}

/* The steps by start, then log order (which is end order: a build is a
 * stretch whose ends do not fall), as keys of start ms << 32 | index: the
 * sweeps below read the starts from this array in order instead of
 * chasing a pointer per step across a million of them. */
static uint64_t *sort_by_start(const struct timeline *t)
{
	uint64_t *v = xmalloc((t->n ? t->n : 1) * sizeof(*v));
	for (size_t i = 0; i < t->n; i++)
		v[i] = (uint64_t)step_entry(t, &t->steps[i])->start_ms << 32 | i;
	radix_sort(v, t->n, 32);
	return v;
}

static uint32_t index_of(uint64_t key)
{
	return (uint32_t)key;
}

static double start_of(uint64_t key)
{
	return (double)(key >> 32) / 1000.0;	/* as step_start: start_ms / 1000.0 */
}

/* Ends in time order; at equal times a zero-length step's end comes after
 * the others' (its start must come first), then in log order. The log is
 * in end order already, so only each run of equal ends is split: steps
 * that took time, then the zero-length ones. */
static void sort_by_end(const struct timeline *t, uint32_t *out)
{
	size_t k = 0;
	for (size_t i = 0; i < t->n;) {
		uint32_t end = step_entry(t, &t->steps[i])->end_ms;
		size_t j = i;
		while (j < t->n && step_entry(t, &t->steps[j])->end_ms == end)
			j++;
		for (size_t m = i; m < j; m++)
			if (!zero_length(step_entry(t, &t->steps[m])))
				out[k++] = (uint32_t)m;
		for (size_t m = i; m < j; m++)
			if (zero_length(step_entry(t, &t->steps[m])))
				out[k++] = (uint32_t)m;
		i = j;
	}
}

/* Weighted time: W(t) = integral of 1/running; a step's weight is
 * W(end) - W(start), so the weights of a build add up to the time some
 * step was running (its wall less its idle gaps). The starts (sorted by
 * the caller) merge with the ends: at equal times the ends of steps that
 * took time come first, so a finished step's slot is free at once, then
 * the starts, then the ends of zero-length steps, which so weigh 0. Also
 * the most steps that ran at once. */
static void weigh(struct timeline *t, const uint64_t *by_start)
{
	uint32_t *by_end = xmalloc((t->n ? t->n : 1) * sizeof(*by_end));
	sort_by_end(t, by_end);
	double w = 0, prev = 0;
	long running = 0;
	size_t si = 0, ei = 0;
	while (ei < t->n) {
		struct step *next_end = &t->steps[by_end[ei]];
		const struct log_entry *e = step_entry(t, next_end);
		double next_start = si < t->n ? start_of(by_start[si]) : 0, end = e->end_ms / 1000.0;
		bool start = si < t->n && (next_start < end || (next_start == end && zero_length(e)));
		struct step *s = start ? &t->steps[index_of(by_start[si++])] : (ei++, next_end);
		double now = start ? next_start : end;
		if (running > 0)
			w += (now - prev) / (double)running;
		prev = now;
		if (start) {
			s->weighted = w;	/* W(start), until the end */
			if (++running > t->slots)
				t->slots = (int)running;
		} else {
			s->weighted = w - s->weighted;
			s->running_at_end = (uint32_t)running--;
		}
	}
	free(by_end);
}

/* The lowest slot free at each step's start, in start order. */
static void assign_slots(struct timeline *t, const uint64_t *order)
{
	struct heap running = { 0 }, free_slots = { 0 };	/* (end, slot), (slot, slot) */
	size_t used = 0;
	for (size_t i = 0; i < t->n; i++) {
		double start = start_of(order[i]);
		while (running.n && running.v[0].key <= start) {
			size_t done = heap_pop(&running).value;
			heap_push(&free_slots, (double)done, done);
		}
		size_t slot = free_slots.n ? heap_pop(&free_slots).value : used++;
		struct step *s = &t->steps[index_of(order[i])];
		s->slot = (uint32_t)slot;
		heap_push(&running, step_end(t, s), slot);
	}
	heap_free(&running);
	heap_free(&free_slots);
}

static void fill_profile(struct timeline *t)
{
	if (t->wall <= 0)
		return;
	double width = t->wall / TIMELINE_BUCKETS;
	for (size_t i = 0; i < t->n; i++) {
		double start = step_start(t, &t->steps[i]), end = step_end(t, &t->steps[i]);
		int first = (int)(start / width), last = (int)(end / width);
		for (int b = first; b <= last && b < TIMELINE_BUCKETS; b++) {
			double lo = b * width, hi = lo + width;
			double overlap = (end < hi ? end : hi) - (start > lo ? start : lo);
			if (overlap > 0)
				t->profile[b] += overlap / width;
		}
	}
}

void timeline_build(const struct ninja_log *build, struct timeline *t)
{
	memset(t, 0, sizeof(*t));
	t->log = build;
	t->steps = xmalloc((build->n ? build->n : 1) * sizeof(*t->steps));
	for (size_t i = 0; i < build->n; i++) {
		const struct log_entry *e = &build->entries[i];
		if (e->joins && t->n) {	/* another output of the edge before */
			t->steps[t->n - 1].noutputs++;
			continue;
		}
		t->steps[t->n++] = (struct step){ .first = (uint32_t)i, .noutputs = 1, .kind = e->kind };
		if (e->end_ms / 1000.0 > t->wall)
			t->wall = e->end_ms / 1000.0;
		t->busy += (e->end_ms - e->start_ms) / 1000.0;
	}
	uint64_t *by_start = sort_by_start(t);
	weigh(t, by_start);
	timeline_count_kinds(t);
	assign_slots(t, by_start);
	free(by_start);
	fill_profile(t);
}

void timeline_free(struct timeline *t)
{
	free(t->steps);
	memset(t, 0, sizeof(*t));
}
