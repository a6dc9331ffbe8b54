/* What advise reads of each TU before any probe: its host and device
 * passes preprocessed (lines by header group, the chain a framework
 * comes in by, what its project files name), and which TUs are
 * generated instances of one family. */
#define _GNU_SOURCE
#include "walk.h"
#include "cluster.h"
#include "advice.h"
#include "dispatch_table.h"
#include "leak.h"
#include "load_probe.h"
#include "local_probe.h"
#include "measure.h"
#include "narrow.h"
#include "net_probe.h"
#include "ninja.h"
#include "ninja_log.h"
#include "nvcc_report.h"
#include "pass_probe.h"
#include "preprocess.h"
#include "progress.h"
#include "snapshot.h"
#include "source_facts.h"
#include "stats.h"
#include "steps.h"
#include "strmap.h"
#include "tmpdir.h"
#include "util.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *tu_source(const struct advise *ad, const struct advise_tu *t)
{
	return ad->build.edges[t->f.edge].inputs.v[0];
}

static struct advise_tu *tu_named(struct advise *ad, const char *name)
{
	for (size_t i = 0; i < ad->ntus; i++)
		if (!strcmp(ad->tus[i].f.name, name))
			return &ad->tus[i];
	return NULL;
}

static int by_group_lines(const void *a, const void *b, void *lines)
{
	size_t x = ((const size_t *)lines)[*(const size_t *)a], y = ((const size_t *)lines)[*(const size_t *)b];
	return (x < y) - (x > y);
}

/* Takes pass over. */
static void record_lines(struct advise_tu *t, char *pass, const struct pp_section *sec,
			 const struct header_groups *groups, const struct header_context *ctx)
{
	struct header_summary hs;
	header_summarize(sec, groups, ctx, &hs);
	size_t *order = xcalloc(groups->n, sizeof(size_t)), *lines = xcalloc(groups->n, sizeof(size_t));
	for (size_t g = 0; g < groups->n; g++) {
		order[g] = g;
		lines[g] = hs.groups[g].lines;
	}
	qsort_r(order, groups->n, sizeof(size_t), by_group_lines, lines);
	t->lines = xrealloc(t->lines, (t->nlines + 1) * sizeof(*t->lines));
	struct pass_lines *pl = &t->lines[t->nlines++];
	*pl = (struct pass_lines){ .pass = pass, .lines = sec->lines, .group_lines = xcalloc(groups->n, sizeof(size_t)) };
	for (size_t i = 0; i < groups->n && lines[order[i]]; i++) {
		pl->group_lines[pl->groups.n] = lines[order[i]];
		strvec_push(&pl->groups, groups->v[order[i]].title);
	}
	free(order);
	free(lines);
	header_summary_free(&hs);
}

/* What a project file's text says, each file read once: every TU
 * includes the same project headers. */
static const struct source_facts *file_facts(struct advise *ad, const char *name)
{
	size_t k = strmap_get(&ad->file_index, name, strlen(name));
	if (k == STRMAP_NONE) {
		k = ad->file_names.n;
		ad->file_facts = xrealloc(ad->file_facts, (k + 1) * sizeof(*ad->file_facts));
		ad->file_facts[k] = (struct source_facts){ 0 };
		char *path = path_in(ad->dir, name);
		source_facts_file(path, &ad->file_facts[k]);
		free(path);
		strvec_push(&ad->file_names, name);
		strmap_put(&ad->file_index, ad->file_names.v[k], strlen(name), k);
	}
	return &ad->file_facts[k];
}

/* The project's own files a pass reads (system headers and the
 * compiler's own are not). */
static bool project_file(const struct pp_file *file)
{
	return !file->system && file->lines && file->name[0] != '<';
}

/* Whether a device pass compiles a kernel: one defined or launched in the
 * TU or a project header it includes. A dispatcher compiled as a .cu
 * defines none. */
static bool compiles_kernel(struct advise *ad, const struct pp_section *sec)
{
	for (size_t f = 0; f < sec->nfiles; f++) {
		if (!project_file(&sec->files[f]))
			continue;
		const struct source_facts *facts = file_facts(ad, sec->files[f].name);
		if (facts->defines_kernel || facts->launches_kernel)
			return true;
	}
	return false;
}

/* The line of chain ch that includes its link k: the file that holds it,
 * the line, the header as an #include spells it (a header found in a -I
 * dir is named bare by the view). */
static void include_site_of(const struct leak_view *v, const struct pp_section *sec, const struct chain *ch, size_t k,
			    struct include_site *site)
{
	site->file = xstrdup(sec->files[ch->files[k - 1]].name);
	site->line = ch->include_lines[k];
	char *header = leak_link_name(v, ch, k);
	site->header = strchr("<\"", header[0]) ? xstrdup(header) : xasprintf("<%s>", header);
	free(header);
}

/* What the host pass's project files name, for narrowing, and where the
 * first chain opens an umbrella header (the line that includes it). */
static void read_uses(struct advise *ad, struct advise_tu *t, const struct leak_view *v, const struct pp_section *sec)
{
	for (size_t f = 0; f < sec->nfiles; f++)
		if (project_file(&sec->files[f]))
			source_facts_add(&t->uses, file_facts(ad, sec->files[f].name));
	for (size_t c = 0; c < v->nchains && !t->narrow_at; c++) {
		const struct chain *ch = v->chains[c];
		char *header = ch->n >= 2 ? leak_link_name(v, ch, ch->n - 1) : NULL;
		if (header && narrow_is_umbrella(header)) {
			char *from = leak_link_name(v, ch, ch->n - 2);
			t->narrow_at = xasprintf("%s:%lu", from, ch->include_lines[ch->n - 1]);
			free(from);
			include_site_of(v, sec, ch, ch->n - 1, &t->narrow_site);
		}
		free(header);
	}
}

/* Whether a file of the section, not a system header's, spells
 * function<: a dispatch table may be there. */
static bool names_function(struct advise *ad, const struct pp_section *sec)
{
	for (size_t f = 0; f < sec->nfiles; f++)
		if (!sec->files[f].system && sec->files[f].name[0] != '<' &&	/* a header of #defines too */
		    file_facts(ad, sec->files[f].name)->names_function)
			return true;
	return false;
}

static void read_pass(struct advise *ad, struct advise_tu *t, const struct leak_rule *rule,
		      const struct pp_source *src, size_t k)
{
	bool device;
	char *pass = pp_section_name(src, k, &device);
	struct leak_view v;
	leak_view_init(&v, src, k);
	const struct pp_section *sec = leak_view_section(&v);
	if (device) {
		t->f.device_passes = true;
		t->f.kernel |= compiles_kernel(ad, sec);
	}
	record_lines(t, pass, sec, &rule->groups, v.ctx);
	if (!device) {
		t->host_read = true;
		if (!t->tables_read)	/* else read_tables asked already */
			t->names_function |= names_function(ad, sec);
	}
	/* every one, code or not: a header of #includes alone leads to the rest */
	for (size_t f = 0; f < sec->nfiles; f++)
		if (header_in_project(v.ctx, sec->files[f].name, sec->files[f].system) &&
		    !strvec_contains(&ad->project_files, sec->files[f].name))
			strvec_push(&ad->project_files, sec->files[f].name);
	size_t framework_lines = 0;
	bool direct = false;
	/* Its own #include of the framework a project line leaks in (its own
	 * <Python.h> says nothing of torch), or of any where none leaks. */
	const struct pp_file *leaked = v.fix > 0 ? &sec->files[v.fix_chain->files[v.fix_chain->n - 1]] : NULL;
	size_t leaked_group = leaked ? header_classify(&rule->groups, v.ctx, leaked->name, leaked->system) : 0;
	for (size_t c = 0; c < v.nchains; c++) {
		const struct chain *ch = v.chains[c];
		const struct pp_file *match = &sec->files[ch->files[ch->n - 1]];
		size_t g = header_classify(&rule->groups, v.ctx, match->name, match->system);
		if (!strvec_contains(&t->frameworks, rule->groups.v[g].title))
			strvec_push(&t->frameworks, rule->groups.v[g].title);
		char *header = leak_link_name(&v, ch, ch->n - 1);
		if (strvec_contains(&t->headers, header))
			free(header);
		else
			strvec_push_nodup(&t->headers, header);
		framework_lines += ch->lines;
		direct |= ch->n == 2 && (!leaked || g == leaked_group);
	}
	if (device) {
		t->f.device_framework |= v.nchains > 0;
	} else if (v.nchains) {
		read_uses(ad, t, &v, sec);
		t->f.host_framework = true;
		t->f.includes_framework = direct;
		t->f.host_lines = sec->lines;
		t->f.framework_lines = framework_lines;
		/* the line that brings a framework in, whatever the TU includes itself */
		if (v.fix > 0) {
			t->f.leak_chain = leak_chain_text(&v, v.fix_chain);
			t->f.leak_fix = leak_fix_text(&v);
			include_site_of(&v, sec, v.fix_chain, (size_t)v.fix + 1, &t->leak);
		}
	} else {
		t->f.host_lines = sec->lines;
	}
	leak_view_free(&v);
}

struct preprocessing {
	struct advise *ad;
	struct leak_rule rule;
};

static struct pp_hooks preprocessing_hooks(void *ctx, struct pp_source *src)
{
	return leak_hooks(&((struct preprocessing *)ctx)->rule, src);
}

/* A host pass preprocessed as one section (a gcc TU, nvcc's host pass):
 * its dispatch tables read from its output where a file of its own spells
 * function<, as probes_plan_tables would from a second -E of it. A TU
 * whose passes came as offload bundles (clang's -E of HIP) is left to
 * that -E, of its host pass alone. */
static void read_tables(void *ctx, struct pp_source *src, const char *path)
{
	struct preprocessing *pp = ctx;
	struct advise_tu *t = tu_named(pp->ad, src->tu);
	bool device;
	if (!t || src->scan.nsections != 1)
		return;
	free(pp_section_name(src, 0, &device));
	if (device)
		return;
	t->tables_read = true;
	t->names_function |= names_function(pp->ad, &src->scan.sections[0]);
	FILE *f = t->names_function ? fopen(path, "r") : NULL;
	if (!f)
		return;
	struct dispatch_tables dt;
	dispatch_tables_scan(f, &dt);
	fclose(f);
	t->f.table_entries = dt.entries;
}

void tus_preprocess(struct advise *ad)
{
	struct preprocessing pp = { .ad = ad };
	header_groups_init(&pp.rule.groups);
	char **names = xcalloc(ad->ntus, sizeof(char *));
	for (size_t i = 0; i < ad->ntus; i++)
		names[i] = (char *)ad->tus[i].f.name;
	struct pp_request req = { .cmd = "advise", .dir = ad->dir, .build = &ad->build, .args = names, .nargs = ad->ntus,
				  .device = true, .jobs = ad->parallel, .timeout = ad->timeout,
				  .hooks = preprocessing_hooks, .scanned = read_tables, .ctx = &pp };
	struct pp_sources ss;
	pp_collect(&req, &ss);
	ad->failures += ss.failures;
	for (size_t s = 0; s < ss.n; s++) {
		struct advise_tu *t = tu_named(ad, ss.v[s].tu);
		for (size_t k = 0; t && ss.v[s].scanned && k < ss.v[s].scan.nsections; k++)
			read_pass(ad, t, &pp.rule, &ss.v[s], k);
		leak_scan_free(ss.v[s].data);
	}
	for (size_t i = 0; i < ad->ntus; i++)
		if (ad->tus[i].frameworks.n)
			ad->tus[i].f.frameworks = strvec_join(&ad->tus[i].frameworks, ", ");
	pp_sources_free(&ss);
	header_groups_free(&pp.rule.groups);
	free(names);
}

/* "gen/opus_gemm_#.cu cuda_compile": instances generated from one
 * template differ in their digits. */
static char *family_of(const struct advise *ad, const struct advise_tu *t)
{
	char *name = xstrdup(base_name(tu_source(ad, t)));
	size_t w = 0;
	for (size_t r = 0; name[r]; r++)
		if (!(name[r] >= '0' && name[r] <= '9') || !w || name[w - 1] != '#')
			name[w++] = name[r] >= '0' && name[r] <= '9' ? '#' : name[r];
	name[w] = '\0';
	char *family = xasprintf("%s %s", name, ad->build.edges[t->f.edge].rule);
	free(name);
	return family;
}

/* Generated into the build tree (aiter's blob/, the demo's gen/), or one
 * of several TUs that differ only in digits. */
void tus_mark_generated(struct advise *ad)
{
	char *dir = realpath(ad->dir, NULL);
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		t->family = family_of(ad, t);
		char *abs = path_in(ad->dir, tu_source(ad, t));
		char *real = realpath(abs, NULL);
		t->f.generated = dir && real && path_below(real, dir);
		free(real);
		free(abs);
	}
	for (size_t i = 0; i < ad->ntus; i++)
		for (size_t j = 0; j < ad->ntus; j++)
			if (i != j && strchr(ad->tus[i].family, '#') && !strcmp(ad->tus[i].family, ad->tus[j].family))
				ad->tus[i].f.generated = true;
	free(dir);
}

/* What each host-role TU's own source says: the binding, or a dispatcher
 * that names the framework only as Tensor. */
void tus_read_sources(struct advise *ad)
{
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		struct source_facts facts = { 0 };
		char *path = path_in(ad->dir, tu_source(ad, t));
		if (!t->f.kernel && source_facts_file(path, &facts)) {
			t->f.binding = facts.binds_module;
			t->f.tensor_only = source_facts_tensor_only(&facts);
		}
		free(path);
	}
}

void tus_heaviest_first(const struct advise *ad, size_t *tus, size_t n)
{
	for (size_t a = 1; a < n; a++)
		for (size_t b = a; b > 0; b--) {
			double sb = ad->base.seconds[ad->tus[tus[b]].f.edge], sp = ad->base.seconds[ad->tus[tus[b - 1]].f.edge];
			if (isnan(sb) || (!isnan(sp) && sb <= sp))
				break;
			size_t x = tus[b];
			tus[b] = tus[b - 1];
			tus[b - 1] = x;
		}
}

void tus_free(struct advise_tu *tus, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct advise_tu *t = &tus[i];
		for (size_t k = 0; k < t->nlines; k++) {
			free(t->lines[k].pass);
			strvec_clear(&t->lines[k].groups);
			free(t->lines[k].group_lines);
		}
		free(t->lines);
		strvec_clear(&t->headers);
		strvec_clear(&t->frameworks);
		free(t->f.frameworks);
		free(t->f.leak_chain);
		free(t->f.leak_fix);
		free(t->f.codegen_pass);
		free(t->family);
		narrowing_free(&t->narrow);
		free(t->narrow_at);
		free(t->leak.file);
		free(t->leak.header);
		free(t->narrow_site.file);
		free(t->narrow_site.header);
	}
	free(tus);
}
