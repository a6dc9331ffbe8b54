#include "rule_kit.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int rule_parts_present(const struct tu_facts *t)
{
	return (t->host_framework && t->cost ? PART_HOST : 0) | (t->device_framework && t->cost ? PART_DEVICE : 0) |
	       (t->table_entries && !isnan(t->table_saving) ? PART_TABLE : 0) | (t->narrow && t->cost ? PART_NARROW : 0);
}

/* What narrowing takes out of a pass: the umbrella's cost less the narrow
 * headers', where no other fix takes the framework out of it. */
static double narrowed_part(double umbrella, double narrow)
{
	return umbrella > narrow ? umbrella - narrow : 0;
}

double rule_part_seconds(const struct tu_facts *t, int parts)
{
	parts &= rule_parts_present(t);
	double s = 0;
	if (parts & PART_HOST)
		s += t->cost->host;
	if (parts & PART_DEVICE)
		s += t->cost->device;
	if (parts & PART_TABLE)
		s += t->table_saving;
	if ((parts & PART_NARROW) && !(parts & PART_HOST) && t->host_framework)
		s += narrowed_part(t->cost->host, t->narrow->host);
	if ((parts & PART_NARROW) && !(parts & PART_DEVICE) && t->device_framework)
		s += narrowed_part(t->cost->device, t->narrow->device);
	return s * t->scale;
}

static void add(struct fix *f, size_t tu, double saving, bool proven)
{
	f->tus = xrealloc(f->tus, (f->ntus + 1) * sizeof(size_t));
	f->saving = xrealloc(f->saving, (f->ntus + 1) * sizeof(double));
	if (proven && !f->proven)
		f->proven = xcalloc(f->ntus + 1, sizeof(bool));
	else if (f->proven)
		f->proven = xrealloc(f->proven, (f->ntus + 1) * sizeof(bool));
	if (f->proven)
		f->proven[f->ntus] = proven;
	f->measured |= proven;
	f->tus[f->ntus] = tu;
	f->saving[f->ntus++] = saving;
}

void rule_add_tu(struct fix *f, size_t tu, double saving)
{
	add(f, tu, saving, false);
}

void rule_add_proven(struct fix *f, size_t tu, double saving)
{
	add(f, tu, saving, true);
}

char *rule_tu_list(const struct advice_input *in, const struct fix *f)
{
	struct strvec names = { 0 };
	for (size_t k = 0; k < f->ntus && k < 3; k++)
		strvec_push(&names, in->tus[f->tus[k]].name);
	char *list = strvec_join(&names, ", ");
	strvec_clear(&names);
	if (f->ntus <= 3)
		return list;
	char *more = xasprintf("%s and %zu more", list, f->ntus - 3);
	free(list);
	return more;
}

const struct tu_facts *rule_first_tu(const struct advice_input *in, const struct fix *f)
{
	return &in->tus[f->tus[0]];
}

char *rule_cost_words(const struct header_cost *c, const char *side)
{
	return xasprintf("header probe: %s compiled with %s's command, against an empty TU: %s %.2f s; each TU's "
			 "saving scaled by its baseline/probed wall", c->headers, c->command_of, side,
			 !strcmp(side, "host pass") ? c->host : c->device);
}

long rule_binding_tu(const struct advice_input *in)
{
	long first = -1;
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		if (!t->kernel && t->binding)
			return (long)i;
		if (!t->kernel && t->includes_framework && first < 0)
			first = (long)i;
	}
	return first;
}

const struct header_cost *rule_host_compiler_cost(const struct advice_input *in)
{
	long binding = rule_binding_tu(in);
	if (binding >= 0 && in->tus[binding].cost)
		return in->tus[binding].cost;
	for (size_t i = 0; i < in->ntus; i++)
		if (!in->tus[i].kernel && in->tus[i].host_framework && in->tus[i].cost)
			return in->tus[i].cost;
	return NULL;
}

bool rule_reads_no_cost(const struct tu_facts *tus, size_t ntus, size_t tu)
{
	(void)tus, (void)ntus, (void)tu;
	return false;
}

bool rule_reads_cost_with_kernels(const struct tu_facts *tus, size_t ntus, size_t tu)
{
	(void)tu;
	for (size_t i = 0; i < ntus; i++)
		if (tus[i].kernel)
			return true;
	return false;
}

const char *rule_plural(size_t n)
{
	return n == 1 ? "" : "s";
}
