#include "timeline.h"

#include "heap.h"
#include "radix.h"
#include "ninja.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const step_kind_names[NKINDS] = { "kernel TU", "host TU", "compile", "link", "other" };

static bool any_suffix(const char *s, size_t len, const char *const *suffixes)
{
	for (; *suffixes; suffixes++) {
		size_t n = strlen(*suffixes);
		if (len >= n && !memcmp(s + len - n, *suffixes, n))
			return true;
	}
	return false;
}

static const char *const objects[] = { ".o", ".obj", NULL };
static const char *const links[] = { ".so", ".a", ".lib", ".dll", ".dylib", ".pyd", ".exe", NULL };

enum step_kind step_kind_of(const char *output)
{
	size_t len = strlen(output);
	if (any_suffix(output, len, objects))
		return KIND_COMPILE;
	if (any_suffix(output, len, links) || strstr(output, ".so."))
		return KIND_LINK;
	return strchr(base_name(output), '.') ? KIND_OTHER : KIND_LINK;
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
		size_t len = strlen(e->inputs.v[i]);
		if (any_suffix(e->inputs.v[i], len, kernels))
			return KIND_KERNEL_TU;
		if (any_suffix(e->inputs.v[i], len, hosts))
			return e->command && gpu_language(e->command) ? KIND_KERNEL_TU : KIND_HOST_TU;
	}
	return step_kind_of(e->outputs.v[0]);
}

void timeline_count_kinds(struct timeline *t)
{
	for (int k = 0; k < NKINDS; k++) {
		t->by_kind[k] = t->weighted_by_kind[k] = 0;
		t->count_by_kind[k] = 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct step *s = &t->steps[i];
		t->by_kind[s->kind] += s->end - s->start;
		t->weighted_by_kind[s->kind] += s->weighted;
		t->count_by_kind[s->kind]++;
	}
}

static bool zero_length(const struct step *s)
{
	return s->end == s->start;
}

/* The steps by start, then end, then log order, each with its times in
 * its key (start ms << 32 | end ms): the sweeps below read the times from
 * this array in order instead of chasing a pointer per step across a
 * million of them. */
static struct radix_item *sort_by_start(const struct timeline *t)
{
	struct radix_item *v = xmalloc((t->n ? t->n : 1) * sizeof(*v));
	for (size_t i = 0; i < t->n; i++) {
		const struct log_entry *e = t->steps[i].first;
		v[i] = (struct radix_item){ (uint64_t)(uint32_t)e->start_ms << 32 | (uint32_t)e->end_ms, (uint32_t)i };
	}
	radix_sort(v, t->n);
	return v;
}

static double start_of(const struct radix_item *r)
{
	return (double)(r->key >> 32) / 1000.0;	/* as step.start: start_ms / 1000.0 */
}

static double end_of(const struct radix_item *r)
{
	return (double)(uint32_t)r->key / 1000.0;
}

/* Ends in time order; at equal times a zero-length step's end comes after
 * the others' (its start must come first), then in log order. The log is
 * in end order already (a build is a stretch whose ends do not fall), so
 * only each run of equal ends is split: steps that took time, then the
 * zero-length ones. */
static void sort_by_end(struct timeline *t, struct step **out)
{
	size_t k = 0;
	for (size_t i = 0; i < t->n;) {
		size_t j = i;
		while (j < t->n && t->steps[j].end == t->steps[i].end)
			j++;
		for (size_t m = i; m < j; m++)
			if (!zero_length(&t->steps[m]))
				out[k++] = &t->steps[m];
		for (size_t m = i; m < j; m++)
			if (zero_length(&t->steps[m]))
				out[k++] = &t->steps[m];
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
static void weigh(struct timeline *t, const struct radix_item *by_start)
{
	struct step **by_end = xcalloc(t->n ? t->n : 1, sizeof(*by_end));
	sort_by_end(t, by_end);
	double w = 0, prev = 0;
	long running = 0;
	size_t si = 0, ei = 0;
	while (ei < t->n) {
		const struct step *next_end = by_end[ei];
		double next_start = si < t->n ? start_of(&by_start[si]) : 0;
		bool start = si < t->n && (next_start < next_end->end ||
					   (next_start == next_end->end && zero_length(next_end)));
		struct step *s = start ? &t->steps[by_start[si++].index] : by_end[ei++];
		double now = start ? next_start : s->end;
		if (running > 0)
			w += (now - prev) / (double)running;
		prev = now;
		if (start) {
			s->weighted = w;	/* W(start), until the end */
			if (++running > t->slots)
				t->slots = (int)running;
		} else {
			s->weighted = w - s->weighted;
			s->running_at_end = (int)running--;
		}
	}
	free(by_end);
}

/* The lowest slot free at each step's start, in start order. */
static void assign_slots(struct timeline *t, const struct radix_item *order)
{
	struct heap running = { 0 }, free_slots = { 0 };	/* (end, slot), (slot, slot) */
	size_t used = 0;
	for (size_t i = 0; i < t->n; i++) {
		double start = start_of(&order[i]);
		while (running.n && running.v[0].key <= start) {
			size_t done = heap_pop(&running).value;
			heap_push(&free_slots, (double)done, done);
		}
		size_t slot = free_slots.n ? heap_pop(&free_slots).value : used++;
		t->steps[order[i].index].slot = (int)slot;
		heap_push(&running, end_of(&order[i]), slot);
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
		const struct step *s = &t->steps[i];
		int first = (int)(s->start / width), last = (int)(s->end / width);
		for (int b = first; b <= last && b < TIMELINE_BUCKETS; b++) {
			double lo = b * width, hi = lo + width;
			double overlap = (s->end < hi ? s->end : hi) - (s->start > lo ? s->start : lo);
			if (overlap > 0)
				t->profile[b] += overlap / width;
		}
	}
}

void timeline_build(const struct ninja_log *build, struct timeline *t)
{
	memset(t, 0, sizeof(*t));
	t->steps = xcalloc(build->n, sizeof(*t->steps));
	for (size_t i = 0; i < build->n; i++) {
		const struct log_entry *e = &build->entries[i];
		struct step *prev = t->n ? &t->steps[t->n - 1] : NULL;
		/* ninja logs each output of an edge on its own line, one after
		 * the other, with the same times and command hash. */
		if (prev && prev->first[prev->noutputs - 1].start_ms == e->start_ms &&
		    prev->first[prev->noutputs - 1].end_ms == e->end_ms && !strcmp(prev->first->hash, e->hash) &&
		    prev->first + prev->noutputs == e) {
			prev->noutputs++;
			continue;
		}
		t->steps[t->n++] = (struct step){ .first = e, .noutputs = 1, .start = e->start_ms / 1000.0,
						  .end = e->end_ms / 1000.0, .kind = step_kind_of(e->output) };
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct step *s = &t->steps[i];
		if (s->end > t->wall)
			t->wall = s->end;
		t->busy += s->end - s->start;
	}
	struct radix_item *by_start = sort_by_start(t);
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
