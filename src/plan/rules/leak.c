/* leak: a host TU gets a framework through a project header's #include;
 * the line to fix is that header's. Proven where it can be (edit_probe.h):
 * the line removed or narrowed on a copy of the sources, every TU that
 * reaches it compiled with the edit, the heaviest timed with and without
 * it; the saving is what the edit took out, and the edit is handed back
 * as a patch. Where no copy can be made (or a document predates the
 * proof), its saving is the header probe's seconds, said as inferred. */
#include "rule.h"
#include "rule_kit.h"
#include "edit_probe.h"
#include "util.h"
#include "walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The line's TUs the proof covers, each with the share of its baseline
 * the edit took out; a site with no winner says what each candidate's
 * compile said. */
static void apply_proven(const struct advice_input *in, const struct edit_evidence *ev, struct fix *f)
{
	struct strvec said = { 0 }, failed = { 0 };
	double lo = INFINITY, hi = 0;
	for (size_t s = 0; s < ev->nsites; s++) {
		const struct edit_site *site = &ev->sites[s];
		if (site->chosen < 0) {
			struct strvec tried = { 0 };
			for (size_t c = 0; c < site->ncands; c++)
				if (site->cands[c].tried)
					strvec_pushf(&tried, "%s: %s", site->cands[c].header ? site->cands[c].header : "removed",
						     site->cands[c].error);
			char *list = strvec_join(&tried, "; ");
			strvec_pushf(&failed, "%s:%lu (%s): no edit compiles with its %zu TU%s (%s)", site->file, site->line,
				     site->header, site->ntus, rule_plural(site->ntus), list);
			free(list);
			strvec_clear(&tried);
			continue;
		}
		for (size_t k = 0; k < site->nwalls; k++) {
			size_t tu = site->walls[k].tu;
			double share = edit_share(site, k), base = in->seconds[in->tus[tu].edge];
			if (!isnan(share) && !isnan(base))
				rule_add_tu(f, tu, share * base);
		}
		double slo, shi;
		edit_spread(site, &slo, &shi);
		if (slo > 0) {
			lo = fmin(lo, slo);
			hi = fmax(hi, shi);
		}
		char *words = edit_words(site);
		struct strvec walls = { 0 };
		for (size_t k = 0; k < site->nwalls; k++)
			if (site->walls[k].measured && !isnan(site->walls[k].edited_s))
				strvec_pushf(&walls, "%s %.2f -> %.2f s", in->tus[site->walls[k].tu].name,
					     site->walls[k].plain_s, site->walls[k].edited_s);
		char *timed = walls.n ? strvec_join(&walls, ", ") : xstrdup("none timed");
		const struct tu_facts *first = &in->tus[site->tus[0]];
		strvec_pushf(&said, "%s: %s; line to fix: %s:%lu: %s compiles with its %zu TU%s (%s)", first->name,
			     first->leak_chain ? first->leak_chain : "?", site->file, site->line, words, site->ntus,
			     rule_plural(site->ntus), timed);
		free(timed);
		free(words);
		strvec_clear(&walls);
	}
	if (f->ntus) {
		f->measured = true;
		f->own_lo = isfinite(lo) ? lo : 0;
		f->own_hi = isfinite(lo) ? hi : 0;
		if (failed.n)
			strvec_push_nodup(&said, strvec_join(&failed, "; "));
		f->evidence = strvec_join(&said, "; ");
		f->measured_by = xasprintf("proven on a copy of the sources (%zu files under %s): the line edited, every TU "
					   "that reaches it compiled with the edit; the %d heaviest of a line's TUs timed "
					   "with and without it side by side, the rest carry their median share of the "
					   "baseline", ev->copied, ev->root, EDIT_MEASURED);
	} else {
		char *list = strvec_join(&failed, "; ");
		f->not_applicable = xasprintf("the lines that bring a framework in were edited on a copy of the sources and "
					      "none compiled without it: %s", list);
		free(list);
	}
	strvec_clear(&said);
	strvec_clear(&failed);
}

/* Without a proof: the TUs that get the framework only through a
 * project header, each saving its header probe's seconds. */
static void apply_inferred(const struct advice_input *in, const struct edit_evidence *ev, struct fix *f)
{
	size_t hosts = 0;
	struct strvec needing = { 0 };
	for (size_t i = 0; i < in->ntus; i++) {
		const struct tu_facts *t = &in->tus[i];
		if (t->kernel)
			continue;
		hosts++;
		if (t->host_framework && t->includes_framework)
			strvec_pushf(&needing, "%s%s", t->name, t->binding ? " (the binding)"
							     : t->tensor_only ? " (only for tensors: see raw)" : "");
		else if (t->host_framework && t->leak_fix && (rule_parts_present(t) & PART_HOST))
			rule_add_tu(f, i, rule_part_seconds(t, PART_HOST | PART_DEVICE));
	}
	char *need = needing.n ? strvec_join(&needing, ", ") : NULL;
	if (!f->ntus) {
		f->not_applicable = xasprintf("no host TU gets a framework through a project header (%zu host TU%s "
					      "preprocessed%s%s%s)", hosts, hosts == 1 ? "" : "s", need ? "; " : "",
					      need ? need : "", need ? " include it themselves" : "");
	} else {
		const struct tu_facts *t = rule_first_tu(in, f);
		f->evidence = xasprintf("%s: %s; line to fix: %s; the framework is %zu of its %zu preprocessed host lines%s",
					t->name, t->leak_chain, t->leak_fix, t->framework_lines, t->host_lines,
					t->device_passes ? " (its device passes parse it too)" : "");
		char *cost = rule_cost_words(t->cost, t->device_passes ? "host and device passes" : "host pass");
		/* a document made before the proof keeps its own words */
		f->measured_by = !ev ? cost
				     : xasprintf("%s; inferred, not proven (%s)", cost,
						 ev->why_not ? ev->why_not : "no line to edit under the project's root");
		if (ev)
			free(cost);
	}
	free(need);
	strvec_clear(&needing);
}

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	const struct edit_evidence *ev = evidence;
	if (ev && !ev->why_not && ev->nsites)
		apply_proven(in, ev, f);
	else
		apply_inferred(in, ev, f);
}

/* ---- the walk's side ---- */

/* The host TUs that parse a framework brought in by a project line. */
static void *ask(struct advise *ad)
{
	size_t *tus = xcalloc(ad->ntus + 1, sizeof(size_t)), n = 0;
	for (size_t i = 0; i < ad->ntus; i++) {
		const struct advise_tu *t = &ad->tus[i];
		if (!t->f.kernel && t->f.host_framework && t->leak_file)
			tus[n++] = i;
	}
	struct edit_evidence *ev = edit_probe_ask(ad, tus, n);
	free(tus);
	return ev;
}

static void read_probes(struct advise *ad, void *evidence)
{
	edit_probe_read(ad, evidence);
}

static json_t *save(const void *evidence)
{
	return edit_probe_save(evidence);
}

static bool load(const json_t *saved, const struct advise *ad, void **evidence, char **err)
{
	struct edit_evidence *ev = NULL;
	bool ok = edit_probe_load(saved, ad->ntus, &ev, err);
	*evidence = ev;
	return ok;
}

/* advise --json's leak entry: each line, what was tried, the TUs counted
 * by name, and the patch. */
static json_t *document(const void *evidence, const struct advise *ad)
{
	json_t *doc = edit_probe_save(evidence);
	json_t *sites = json_object_get(doc, "sites");
	for (size_t s = 0; s < json_array_size(sites); s++) {
		json_t *site = json_array_get(sites, s), *tus = json_object_get(site, "tus"),
		       *walls = json_object_get(site, "walls");
		for (size_t k = 0; k < json_array_size(tus); k++)
			json_array_set_new(tus, k, json_string(ad->tus[json_integer_value(json_array_get(tus, k))].f.name));
		for (size_t k = 0; k < json_array_size(walls); k++) {
			json_t *w = json_array_get(walls, k);
			json_object_set_new(w, "target", json_string(ad->tus[json_integer_value(json_object_get(w, "tu"))].f.name));
			json_object_del(w, "tu");
		}
	}
	return doc;
}

static void patches(const void *evidence, struct strvec *names, struct strvec *diffs)
{
	const struct edit_evidence *ev = evidence;
	for (size_t s = 0; s < ev->nsites; s++) {
		const struct edit_site *site = &ev->sites[s];
		if (site->chosen < 0 || !site->patch)
			continue;
		char *name = xasprintf("%s-%lu", site->file, site->line);
		for (char *c = name; *c; c++)
			*c = *c == '/' ? '_' : *c;
		strvec_push_nodup(names, name);
		strvec_push(diffs, site->patch);
	}
}

static void free_evidence(void *evidence)
{
	edit_probe_free(evidence);
}

static const struct rule_walk walk = {
	.ask = ask,
	.read = read_probes,
	.save = save,
	.load = load,
	.document = document,
	.patches = patches,
	.free = free_evidence,
};

const struct fix_rule rule_leak = {
	.name = "leak",
	.title = "remove the include that leaks the framework into a host TU",
	.parts = PART_HOST | PART_DEVICE,
	.apply = apply,
	.walk = &walk,
};
