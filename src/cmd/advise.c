/* The advise model: which of the playbook's fixes to make first and the
 * module's wall after each, predicted from measurements before any change.
 * Evidence is gathered as needed: the baseline durations (the latest build
 * in .ninja_log, else rank's measurement), every TU preprocessed host and
 * device pass with its include chains (pp, leak), the pass probe on the
 * slowest kernel TU and one instance of each family, and probe TUs
 * compiled with the TUs' own commands: the framework's headers against an
 * empty TU, a dispatch table against a flat one, and the generated
 * instances in one TU, its host pass alone (the fused probe). The advice model
 * (advice.c) turns them into fixes, predicted walls and the plan. The
 * build directory is only read. */
#define _GNU_SOURCE
#include "advise_walk.h"
#include "cluster.h"
#include "advice.h"
#include "cli.h"
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

/* ---- the baseline ---- */

/* The baseline's runs through the launcher: sent, kept here, and the
 * hosts that failed some (their runs compiled here instead). */
struct cluster_runs cluster_runs(const struct advise *ad)
{
	struct cluster_runs c = { 0 };
	if (ad->saved) {
		json_t *saved = json_object_get(json_object_get(ad->saved, "baseline"), "cluster");
		return (struct cluster_runs){ (size_t)json_integer_value(json_object_get(saved, "sent")),
					      (size_t)json_integer_value(json_object_get(saved, "kept_here")),
					      (size_t)json_integer_value(json_object_get(saved, "cluster_failed")) };
	}
	for (size_t i = 0; ad->launcher && i < ad->m.ntus; i++) {
		c.sent += ad->m.tus[i].sent;
		c.kept_here += ad->m.tus[i].kept_here;
		c.fell_back += ad->m.tus[i].fell_back;
	}
	return c;
}

/* The baseline: the last builds in .ninja_log that ran every TU (each
 * step's median as recorded until the load curve is known, then isolated
 * by it), else rank's measurement. */
static void baseline(struct advise *ad, const bool *selected)
{
	struct ninja_build *b = &ad->build;
	ad->seconds = xcalloc(b->n, sizeof(double));
	char *err = NULL;
	size_t builds = ad->launcher ? 0 : recent_builds_read(ad->dir, b, selected, ADVISE_BUILDS, &ad->recent, &err);
	if (err)
		warn("%s; measuring the TUs instead", err);
	free(err);
	if (builds) {
		recent_builds_durations(&ad->recent, NULL, ad->seconds, NULL, NULL);
		ad->recorded_wall = recent_builds_wall(&ad->recent);
		struct summary walls = summarize(ad->recent.walls, ad->recent.n);
		ad->spread_lo = walls.min / walls.median;
		ad->spread_hi = walls.max / walls.median;
		ad->baseline_source = builds == 1 ? xstrdup(".ninja_log: the latest build that ran every TU")
			: xasprintf(".ninja_log: each step's median over the last %zu builds that ran every TU", builds);
		return;
	}
	/* Here one at a time, the contention measured apart; through the
	 * launcher P at once and R runs each (the hosts' slots make repeats
	 * cheap, and they give the spread), with no contention here to measure. */
	struct measure_options o = { .repeats = 1, .parallel = 1, .timeout = ad->timeout,
				     .contention = CONTENTION_MEASURE };
	if (ad->launcher) {
		o = (struct measure_options){ .repeats = ad->repeats, .parallel = ad->parallel, .timeout = ad->timeout,
					      .contention = CONTENTION_NONE, .launcher = ad->launcher };
		ad->baseline_source = xasprintf("every TU timed on the cluster as rank --launcher %s does: sent through "
						"it, %ld at once, %ld run%s each (the probes ran here: each saving is "
						"scaled by its TU's time there over its time here)", ad->launcher,
						o.parallel, o.repeats, o.repeats == 1 ? "" : "s");
	} else {
		note("no build in .ninja_log ran every TU; measuring them as rank does");
		ad->baseline_source = xstrdup("rank's measurement: every TU re-run in isolation, contention measured side "
					      "by side");
	}
	measure_tus(ad->dir, b, selected, &o, &ad->m);
	ad->measured = true;
	ad->failures += ad->m.failures;
	size_t here = cluster_runs(ad).kept_here;
	if (here)
		warn("%zu of the baseline's runs compiled here, not on the cluster (distcc compiles here a source it does "
		     "not know, such as a .cu, and what a failed host gave back): their times carry this machine's load, %ld at once",
		     here, o.parallel);
	free(ad->seconds);
	ad->seconds = measurement_seconds(&ad->m);
	ad->recorded_wall = NAN;
	ad->spread_lo = ad->spread_hi = 1;
	for (size_t i = 0; i < ad->m.ntus; i++)
		if (ad->m.tus[i].wall.n && ad->m.tus[i].wall.median > 0) {
			double lo = ad->m.tus[i].wall.min / ad->m.tus[i].wall.median, hi = ad->m.tus[i].wall.max / ad->m.tus[i].wall.median;
			ad->spread_lo = lo < ad->spread_lo ? lo : ad->spread_lo;
			ad->spread_hi = hi > ad->spread_hi ? hi : ad->spread_hi;
		}
}

/* ---- what preprocessing shows ---- */

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

/* What the host pass's project files name, for narrowing, and where the
 * first chain opens an umbrella header. */
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
		}
		free(header);
	}
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
	size_t framework_lines = 0;
	bool direct = false;
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
		direct |= ch->n == 2;
	}
	if (device) {
		t->f.device_framework |= v.nchains > 0;
	} else if (v.nchains) {
		read_uses(ad, t, &v, sec);
		t->f.host_framework = true;
		t->f.includes_framework = direct;
		t->f.host_lines = sec->lines;
		t->f.framework_lines = framework_lines;
		if (!direct && v.fix > 0) {
			t->f.leak_chain = leak_chain_text(&v, v.chains[0]);
			t->f.leak_fix = leak_fix_text(&v);
		}
	} else {
		t->f.host_lines = sec->lines;
	}
	leak_view_free(&v);
}

static void preprocess_tus(struct advise *ad)
{
	struct leak_rule rule = { 0 };
	header_groups_init(&rule.groups);
	char **names = xcalloc(ad->ntus, sizeof(char *));
	for (size_t i = 0; i < ad->ntus; i++)
		names[i] = (char *)ad->tus[i].f.name;
	struct pp_request req = { .cmd = "advise", .dir = ad->dir, .build = &ad->build, .args = names, .nargs = ad->ntus,
				  .device = true, .jobs = ad->parallel, .timeout = ad->timeout, .hooks = leak_hooks,
				  .ctx = &rule };
	struct pp_sources ss;
	pp_collect(&req, &ss);
	ad->failures += ss.failures;
	for (size_t s = 0; s < ss.n; s++) {
		struct advise_tu *t = tu_named(ad, ss.v[s].tu);
		for (size_t k = 0; t && ss.v[s].scanned && k < ss.v[s].scan.nsections; k++)
			read_pass(ad, t, &rule, &ss.v[s], k);
		leak_scan_free(ss.v[s].data);
	}
	for (size_t i = 0; i < ad->ntus; i++)
		if (ad->tus[i].frameworks.n)
			ad->tus[i].f.frameworks = strvec_join(&ad->tus[i].frameworks, ", ");
	pp_sources_free(&ss);
	header_groups_free(&rule.groups);
	free(names);
}

/* ---- probe TUs ---- */

static const char *source_of(const struct advise *ad, const struct advise_tu *t)
{
	return ad->build.edges[t->f.edge].inputs.v[0];
}

static const char *extension_of(const char *path)
{
	const char *dot = strrchr(base_name(path), '.');
	return dot ? dot : ".cpp";
}

/* t's command with its outputs in the temp dir and `source` compiled in
 * place of its own; false (with a warning) when the command does not
 * name its source as ninja does. */
static bool probe_command(struct advise *ad, const struct advise_tu *t, const char *sub, const char *source,
			  struct compile_command *cmd)
{
	*cmd = (struct compile_command){ 0 };
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, cmd, &ad->stripped);
	if (steps_replace_source(&ad->build.edges[t->f.edge], cmd, source))
		return true;
	warn("%s: its command does not name its source %s; no probe with it", t->f.name, source_of(ad, t));
	compile_command_clear(cmd);
	return false;
}

static void write_includes(FILE *f, const void *arg)
{
	const struct strvec *headers = arg;
	fputs("/* buildwall advise: what these headers cost with this command */\n", f);
	for (size_t i = 0; i < headers->n; i++)
		fprintf(f, headers->v[i][0] == '<' ? "#include %s\n" : "#include \"%s\"\n", headers->v[i]);
}

static void write_empty(FILE *f, const void *arg)
{
	(void)arg;
	fputs("/* buildwall advise: an empty TU, what any TU of this command costs */\n", f);
}

static void write_map(FILE *f, const void *arg)
{
	dispatch_table_write_map(f, *(const size_t *)arg);
}

static void write_flat(FILE *f, const void *arg)
{
	dispatch_table_write_flat(f, *(const size_t *)arg);
}

/* Write a probe TU (write(f, arg)) with the extension of t's source, and
 * add it, walls only, compiled with t's command: its index in the pass
 * probe, or -1 when that command cannot take it. With `kept`, the probe
 * TU's path (owned) when it was added. */
static long add_source_probe(struct advise *ad, const struct advise_tu *t, void (*write)(FILE *, const void *),
			     const void *arg, char **kept, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static long add_source_probe(struct advise *ad, const struct advise_tu *t, void (*write)(FILE *, const void *),
			     const void *arg, char **kept, const char *fmt, ...)
{
	char *sub = xasprintf("probe-%zu", ad->probe.ntus);
	char *source = xasprintf("%s/%s%s", tmpdir_path(), sub, extension_of(source_of(ad, t)));
	FILE *f = fopen(source, "w");
	if (!f)
		die(EXIT_INTERNAL, "cannot write %s: %s", source, strerror(errno));
	write(f, arg);
	if (fclose(f))
		die(EXIT_INTERNAL, "cannot write %s: %s", source, strerror(errno));
	struct compile_command cmd;
	long index = -1;
	if (probe_command(ad, t, sub, source, &cmd)) {
		va_list ap;
		va_start(ap, fmt);
		char *name = xvasprintf(fmt, ap);
		va_end(ap);
		pass_probe_add(&ad->probe, name, t->f.edge, &cmd)->walls_only = true;
		free(name);
		index = (long)ad->probe.ntus - 1;
		if (kept) {
			*kept = source;
			source = NULL;
		}
	}
	free(source);
	free(sub);
	return index;
}

/* Probe i (if added) is expected to take about `seconds` a run: the pool
 * starts the long ones first. */
static void expect(struct advise *ad, long i, double seconds)
{
	if (i >= 0 && !isnan(seconds))
		ad->probe.tus[i].expect_s = seconds;
}

/* want_phases: the instrumented runs too, except for nvcc, which times
 * its jobs itself (ptxas's wall says how much is codegen). */
static void add_tu_probe(struct advise *ad, struct advise_tu *t, bool want_phases)
{
	if (t->probe_tu >= 0)
		return;
	struct compile_command cmd = { 0 };
	char *sub = xasprintf("probe-%zu", ad->probe.ntus);
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmd, &ad->stripped);
	free(sub);
	struct pass_tu *p = pass_probe_add(&ad->probe, t->f.name, t->f.edge, &cmd);
	p->walls_only = !want_phases || p->cmd.compiler == COMPILER_NVCC;
	p->repeats = 1;	/* a whole kernel TU: its scale and verdict, not a saving */
	t->probe_tu = (long)ad->probe.ntus - 1;
	expect(ad, t->probe_tu, ad->seconds[t->f.edge]);
}

/* One probe group per (rule, headers): the TUs that share a command shape
 * and a framework share what its headers cost. */
static void plan_header_probes(struct advise *ad)
{
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		if (!t->headers.n)
			continue;
		char *list = strvec_join(&t->headers, ", ");
		char *key = xasprintf("%s\n%s", ad->build.edges[t->f.edge].rule, list);
		free(list);
		size_t g = 0;
		while (g < ad->ngroups && strcmp(ad->groups[g].key, key))
			g++;
		if (g < ad->ngroups) {
			free(key);
			t->group = (long)g;
			continue;
		}
		ad->groups = xrealloc(ad->groups, (ad->ngroups + 1) * sizeof(*ad->groups));
		struct probe_group *pg = &ad->groups[ad->ngroups++];
		*pg = (struct probe_group){ .key = key, .donor = i, .headers_tu = -1, .empty_tu = -1 };
		for (size_t h = 0; h < t->headers.n; h++)
			strvec_push(&pg->headers, t->headers.v[h]);
		t->group = (long)g;
		pg->headers_tu = add_source_probe(ad, t, write_includes, &pg->headers, &pg->source, "header probe %zu (%s's command)", g,
						  t->f.name);
		pg->empty_tu = add_source_probe(ad, t, write_empty, NULL, NULL, "empty probe %zu (%s's command)", g, t->f.name);
		expect(ad, pg->headers_tu, ad->seconds[t->f.edge]);	/* its framework: most of it, at most all */
	}
}

/* The probe group of `headers` with TU i's command, sharing the empty
 * probe of i's own group: narrow headers a TU or the fused TU would take. */
static long narrow_group(struct advise *ad, size_t i, const struct strvec *headers)
{
	const struct advise_tu *t = &ad->tus[i];
	char *list = strvec_join(headers, ", ");
	char *key = xasprintf("narrow\n%s\n%s", ad->build.edges[t->f.edge].rule, list);
	free(list);
	for (size_t g = 0; g < ad->ngroups; g++)
		if (!strcmp(ad->groups[g].key, key)) {
			free(key);
			return (long)g;
		}
	long empty = ad->groups[t->group].empty_tu;
	ad->groups = xrealloc(ad->groups, (ad->ngroups + 1) * sizeof(*ad->groups));
	struct probe_group *pg = &ad->groups[ad->ngroups];
	*pg = (struct probe_group){ .key = key, .donor = i, .empty_tu = empty, .narrow = true };
	for (size_t h = 0; h < headers->n; h++)
		strvec_push(&pg->headers, headers->v[h]);
	pg->headers_tu = add_source_probe(ad, t, write_includes, &pg->headers, NULL, "narrow probe %zu (%s's command)",
					  ad->ngroups, t->f.name);
	return (long)ad->ngroups++;
}

/* The host TU whose command compiles the fused TU (the binding, else a
 * host TU that includes the framework itself, else one that parses it),
 * as the advice model prices it; -1: none probed. */
static long fused_host_donor(const struct advise *ad)
{
	for (int pass = 0; pass < 3; pass++)
		for (size_t i = 0; i < ad->ntus; i++) {
			const struct tu_facts *f = &ad->tus[i].f;
			if (!f->kernel && ad->tus[i].group >= 0 &&
			    (pass == 0 ? f->binding : pass == 1 ? f->includes_framework : f->host_framework))
				return (long)i;
		}
	return -1;
}

/* Every TU that includes an umbrella header and whose code narrower
 * headers serve: those headers probed with its command; and the fused
 * TU's, the instances' narrow headers with its host command. */
static void plan_narrow_probes(struct advise *ad)
{
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		if (t->group < 0 || !narrow_plan(&t->headers, &t->uses, &t->narrow))
			continue;
		t->umbrella = true;
		if (t->narrow.headers.n)
			t->narrow_group = narrow_group(ad, i, &t->narrow.headers);
	}
	long host = fused_host_donor(ad);
	const struct advise_tu *instance = ad->fused_tu >= 0 ? &ad->tus[ad->fused_donor] : NULL;
	if (host >= 0 && instance && instance->narrow_group >= 0)
		ad->fused_narrow_group = narrow_group(ad, (size_t)host, &instance->narrow.headers);
}

/* A host TU's dispatch table, from its host pass preprocessed once more
 * (pp's outputs are gone by now), and its two probes. */
static void plan_table_probes(struct advise *ad, struct advise_tu *t, size_t index)
{
	struct compile_command cmd = { 0 };
	char *sub = xasprintf("table-%zu", index);
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmd, &ad->stripped);
	char *outdir = tmpdir_subdir(sub), *log = xasprintf("%s/%s.log", tmpdir_path(), sub);
	struct pp_plan plan = { 0 };
	char *err = preprocess_plan(&cmd, ad->dir, false, outdir, log, ad->timeout, &plan);
	if (err) {
		warn("%s: cannot preprocess it for its dispatch table: %s", t->f.name, err);
		free(err);
	} else if (plan.n) {
		struct proc p = { .argv = plan.v[0].argv.v, .env_extra = plan.v[0].env.v, .cwd = ad->dir, .out_path = log,
				  .timeout_s = ad->timeout };
		progress_set("%s: looking for a dispatch table", t->f.name);
		proc_run(&p);
		progress_clear();
		proc_exit_if_interrupted();
		FILE *f = proc_succeeded(&p) ? fopen(plan.v[0].output, "r") : NULL;
		if (f) {
			struct dispatch_tables dt;
			dispatch_tables_scan(f, &dt);
			fclose(f);
			t->f.table_entries = dt.entries;
		} else {
			warn("%s: its host pass did not preprocess; no dispatch table read", t->f.name);
		}
		remove(plan.v[0].output);
	}
	pp_plan_free(&plan);
	if (t->f.table_entries) {
		t->table_tu = add_source_probe(ad, t, write_map, &t->f.table_entries, NULL, "%s's table, %zu std::function entries",
					       t->f.name, t->f.table_entries);
		t->flat_tu = add_source_probe(ad, t, write_flat, &t->f.table_entries, NULL, "%s's table, flat", t->f.name);
	}
	compile_command_clear(&cmd);
	free(outdir);
	free(log);
	free(sub);
}

/* "gen/opus_gemm_#.cu cuda_compile": instances generated from one
 * template differ in their digits. */
static char *family_of(const struct advise *ad, const struct advise_tu *t)
{
	char *name = xstrdup(base_name(source_of(ad, t)));
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
static void mark_generated(struct advise *ad)
{
	char *dir = realpath(ad->dir, NULL);
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		t->family = family_of(ad, t);
		char *abs = path_in(ad->dir, source_of(ad, t));
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
static void read_sources(struct advise *ad)
{
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		struct source_facts facts = { 0 };
		char *path = path_in(ad->dir, source_of(ad, t));
		if (!t->f.kernel && source_facts_file(path, &facts)) {
			t->f.binding = facts.binds_module;
			t->f.tensor_only = source_facts_tensor_only(&facts);
		}
		free(path);
	}
}

/* Kernel TUs within this share of the slowest one's baseline are near the
 * critical path: each whose device passes parse no framework (a build-side
 * fix comes first where they do) gets the pass probe, phases and all, as
 * the slowest does (is it kernel work?). */
#define ADVISE_NEAR_SLOWEST 0.7

/* The pass probe on the kernel TUs near the slowest one, and, where no
 * fused probe measures the glue a fused TU takes over, its pass walls on
 * one instance of each generated family whose host pass parses a
 * framework (that glue, and the baseline/probed ratio; without it the
 * instances take the probed TUs' typical ratio). */
static void plan_tu_probes(struct advise *ad)
{
	double slowest = 0;
	for (size_t i = 0; i < ad->ntus; i++)
		if (ad->tus[i].f.kernel && ad->seconds[ad->tus[i].f.edge] > slowest)
			slowest = ad->seconds[ad->tus[i].f.edge];
	for (size_t i = 0; i < ad->ntus; i++) {
		const struct advise_tu *t = &ad->tus[i];
		double s = ad->seconds[t->f.edge];
		if (t->f.kernel && slowest > 0 && (s == slowest || (s >= ADVISE_NEAR_SLOWEST * slowest && !t->f.device_framework)))
			add_tu_probe(ad, &ad->tus[i], true);
	}
	for (size_t i = 0; ad->fused_tu < 0 && i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		if (!t->f.kernel || !t->f.generated || !t->f.host_framework)
			continue;
		bool family_probed = false;
		for (size_t j = 0; j < ad->ntus; j++)
			family_probed |= ad->tus[j].probe_tu >= 0 && !strcmp(ad->tus[j].family, t->family);
		if (!family_probed)
			add_tu_probe(ad, t, false);
	}
}

/* Instances a fused probe includes at most: past them, their glue per
 * instance is carried to the rest. */
#define ADVISE_FUSED_MAX 16

static void write_fused(FILE *f, const void *arg)
{
	const struct strvec *sources = arg;
	fputs("/* buildwall advise: the instances' host code in one TU, as a fused host TU holds it */\n", f);
	for (size_t i = 0; i < sources->n; i++)
		fprintf(f, "#include \"%s\"\n", sources->v[i]);
}

/* The fused TU as one compiled probe: the generated instances whose host
 * pass parses a framework, their sources #included into one TU (up to
 * ADVISE_FUSED_MAX), its host pass alone compiled with the first one's
 * command: the headers once and every instance's glue, as the host
 * compiler takes them. */
static void plan_fused_probe(struct advise *ad)
{
	struct strvec sources = { 0 };
	long donor = -1;
	size_t instances = 0;
	for (size_t i = 0; i < ad->ntus; i++) {
		const struct advise_tu *t = &ad->tus[i];
		if (!t->f.kernel || !t->f.generated || !t->f.host_framework || t->group < 0)
			continue;
		instances++;
		char *path = path_in(ad->dir, source_of(ad, t)), *real = realpath(path, NULL);
		free(path);
		if (real && !strpbrk(real, "\"\n") && sources.n < ADVISE_FUSED_MAX) {
			strvec_push(&sources, real);
			donor = donor < 0 ? (long)i : donor;
		}
		free(real);
	}
	if (donor >= 0) {
		const struct advise_tu *d = &ad->tus[donor];
		if (ad->groups[d->group].headers_tu >= 0) {	/* else the command takes no probe TU */
			ad->fused_tu = add_source_probe(ad, d, write_fused, &sources, NULL,
							"fused probe (%zu instance%s, %s's command)", sources.n,
							sources.n == 1 ? "" : "s", d->f.name);
			ad->probe.tus[ad->fused_tu].host_only = true;
			expect(ad, ad->fused_tu, ad->seconds[d->f.edge]);
		}
		if (ad->fused_tu >= 0 && sources.n > 1) {
			/* Generated instances often define one helper each under
			 * the same name; then only one compiles alone: this probe
			 * runs only if the fused one fails. */
			struct strvec first = { 0 };
			strvec_push(&first, sources.v[0]);
			ad->fused_one_tu = add_source_probe(ad, d, write_fused, &first, NULL,
							    "fused probe (its first instance alone, %s's command)",
							    d->f.name);
			ad->probe.tus[ad->fused_one_tu].host_only = true;
			ad->probe.tus[ad->fused_one_tu].fallback_for = ad->fused_tu;
			strvec_clear(&first);
		}
		ad->fused_donor = (size_t)donor;
		ad->fused = (struct fused_cost){ .included = sources.n, .instances = instances, .command_of = d->f.name };
	}
	strvec_clear(&sources);
}

/* advise --kernels: what the device compiler says of the kernels in each
 * TU whose device pass is machine code generation. */
static void find_kernels(struct advise *ad)
{
	bool *only = xcalloc(ad->probe.ntus ? ad->probe.ntus : 1, sizeof(bool)), any = false;
	for (size_t i = 0; i < ad->ntus; i++)
		if (ad->tus[i].f.codegen_bound && ad->tus[i].probe_tu >= 0)
			any = only[ad->tus[i].probe_tu] = true;
	if (any) {
		size_t before = ad->probe.failures;
		pass_probe_find_kernels(&ad->probe, only);
		ad->failures += ad->probe.failures - before;
	}
	free(only);
}

/* The worst kernel of a kernel-work TU, when --kernels found one. */
const struct kernel_fact *worst_kernel(const struct advise *ad, const struct advise_tu *t)
{
	const struct pass_tu *p = t->probe_tu >= 0 ? &ad->probe.tus[t->probe_tu] : NULL;
	return p && p->kernels_probed ? kernel_facts_worst(&p->kernels) : NULL;
}

/* One untimed run of each empty probe first: a compiler's first run after
 * its files left the page cache is slow (an empty nvcc TU took 5.2 s here
 * right after a large package install, against 0.3 s warm), and the empty
 * probe is what every header's cost is measured against. */
static void warm_up(struct advise *ad)
{
	for (size_t g = 0; g < ad->ngroups; g++) {
		if (ad->groups[g].empty_tu < 0 || ad->groups[g].narrow)
			continue;
		const struct compile_command *c = &ad->probe.tus[ad->groups[g].empty_tu].cmd;
		char *log = xasprintf("%s/warm-up-%zu.log", tmpdir_path(), g);
		struct proc p = { .argv = c->argv.v, .env_extra = c->env.v, .cwd = ad->dir, .out_path = log,
				  .timeout_s = ad->timeout };
		progress_set("warming up %s", base_name(c->argv.v[0]));
		proc_run(&p);
		progress_clear();
		proc_exit_if_interrupted();
		remove(log);
		free(log);
	}
}

/* ---- the load curve ---- */

/* The heavy compile steps of the build that can run at once: the job
 * count, the CPUs and the TUs bound it. */
static size_t load_levels(const struct advise *ad)
{
	long top = ad->jobs < cpu_count() ? ad->jobs : cpu_count();
	return top < (long)ad->ntus ? (size_t)(top > 0 ? top : 1) : ad->ntus;
}

/* The heaviest host TU, -1: none, or none that takes a quarter of the
 * heaviest compile (a few-second glue TU beside minute-long kernels says
 * little of how they slow each other). A dispatcher or binding is what
 * the fixes leave to set the wall (they take the framework out of the
 * kernel TUs and move the glue into host TUs), and its compile is the
 * build's own: front end and back end. A header probe, parsing alone,
 * read 1.01 with 8 at once where the binding TU it stood for slowed by
 * 1.1-1.2. */
static long load_subject(const struct advise *ad)
{
	long heaviest = -1;
	double most = 0;
	for (size_t i = 0; i < ad->ntus; i++) {
		double s = ad->seconds[ad->tus[i].f.edge];
		if (isnan(s))
			continue;
		most = s > most ? s : most;
		if (!ad->tus[i].f.kernel && (heaviest < 0 || s > ad->seconds[ad->tus[heaviest].f.edge]))
			heaviest = (long)i;
	}
	return heaviest >= 0 && ad->seconds[ad->tus[heaviest].f.edge] >= most / 4 ? heaviest : -1;
}

/* Copies of the load curve's compile, outputs apart: the heaviest host
 * TU as the build compiles it, else a header probe (the framework parsed
 * with a TU's own command; the group whose TU is quickest, for the time
 * it takes). Returns how many were made; *what says what they compile
 * (owned), NULL when none could be. */
static size_t load_commands(struct advise *ad, size_t levels, struct compile_command *cmds, char **what)
{
	*what = NULL;
	long subject = load_subject(ad);
	if (subject >= 0) {
		const struct advise_tu *t = &ad->tus[subject];
		for (size_t n = 0; n < levels; n++) {
			char *sub = xasprintf("load-%zu", n);
			steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmds[n], &ad->stripped);
			free(sub);
		}
		*what = xasprintf("%s compiled as the build does (the heaviest host TU: what the fixes leave to set "
				  "the wall)", t->f.name);
		return levels;
	}
	long quickest = -1;
	for (size_t g = 0; g < ad->ngroups; g++)
		if (ad->groups[g].source && (quickest < 0 || ad->seconds[ad->tus[ad->groups[g].donor].f.edge] <
								 ad->seconds[ad->tus[ad->groups[quickest].donor].f.edge]))
			quickest = (long)g;
	if (quickest < 0)
		return 0;
	const struct probe_group *pg = &ad->groups[quickest];
	size_t n = 0;
	for (; n < levels; n++) {
		char *sub = xasprintf("load-%zu", n);
		bool ok = probe_command(ad, &ad->tus[pg->donor], sub, pg->source, &cmds[n]);
		free(sub);
		if (!ok)
			break;
	}
	char *headers = strvec_join(&pg->headers, ", ");
	*what = xasprintf("the header probe (%s) compiled with %s's command", headers, ad->tus[pg->donor].f.name);
	free(headers);
	return n;
}

/* The recorded builds' durations isolated by the curve, at its middle
 * and at either end of its spread. */
static void isolate_baseline(struct advise *ad)
{
	if (ad->recent.n)
		recent_builds_durations(&ad->recent, &ad->load, ad->seconds, NULL, NULL);
	for (int steep = 0; steep < 2; steep++) {
		struct curve_end_input *end = &ad->load_ends[steep];
		ad->load_spread |= load_curve_end(&ad->load, steep, &end->curve);
		double *seconds = ad->end_seconds[steep] = xcalloc(ad->build.n ? ad->build.n : 1, sizeof(double));
		memcpy(seconds, ad->seconds, ad->build.n * sizeof(double));
		if (ad->recent.n)
			recent_builds_durations(&ad->recent, &end->curve, seconds, NULL, NULL);
		end->seconds = seconds;
	}
}

static char *settled_words(const struct advise *ad)
{
	return ad->settle ? xasprintf("%ld walls a level or two that agree within %.0f %%", ad->repeats, 100 * WALLS_AGREE)
			  : xasprintf("at least %ld walls a level", ad->repeats);
}

/* From this many heavy compiles at once the build runs, the curve's
 * at-once level runs among the probes: the probes run as many at once as
 * the build runs its compiles, the curve's copies first, beside the
 * probes that run anyway (their neighbours compiles as a build's are),
 * and two copies at once stand for alone, a round giving two walls that
 * can agree. Of advise's cost on 16 CPUs the curve's rounds of their own
 * were 81 s of 202. The width is the build's the whole phase through, so
 * that a probe that starts late (a narrow header probe) and one that
 * starts first (the umbrella's, expected to take longer) see the same
 * contention: a difference of the two is a saving. */
#define LOAD_AMONG_PROBES_FROM 4
/* The at-once level must run this many compiles more than the pair's to
 * give the line a slope. */
#define LOAD_LEVELS_APART 0.5

/* The load curve before the probes: on a few CPUs one compile run alone
 * and n at once (load_commands), the rounds interleaved, and the recorded
 * builds' durations isolated by it; on many, two copies at once now, and
 * copies to run among the probes (finish_load_curve reads them). */
static void calibrate_load(struct advise *ad)
{
	size_t levels = load_levels(ad);
	if (ad->launcher) {
		ad->load = (struct load_curve){ .cores = 0 };	/* nor do they share the CPUs here */
		ad->load_source = xasprintf("none: the compiles run on the cluster's hosts (--launcher %s), not beside "
					    "each other here", ad->launcher);
		return;
	}
	if (ad->measured) {
		load_curve_linear(&ad->load, ad->m.contention.share, ad->m.contention.cores);
		ad->load_source = contention_text(&ad->m.contention);
		return;
	}
	struct compile_command *cmds = xcalloc(levels, sizeof(*cmds));
	size_t n = levels < 2 ? 0 : load_commands(ad, levels, cmds, &ad->load_what);
	if (n < 2) {
		ad->load = (struct load_curve){ .cores = (double)cpu_count() };
		ad->load_source = xstrdup(levels < 2 ? "none: one job at a time" : "none: no TU to run side by side");
	} else if (n >= LOAD_AMONG_PROBES_FROM && ad->parallel >= (long)n) {
		ad->load_pair = load_probe_level(ad->dir, cmds, 2, ad->repeats, ad->settle, ad->timeout, &ad->npair,
						 &ad->failures);
		if (!ad->npair) {
			ad->load = (struct load_curve){ .cores = (double)cpu_count() };
			ad->load_source = xstrdup("none: its compile failed (its output above)");
		}
		size_t ready = 0;	/* probes that can start beside the copies */
		for (size_t i = 0; i < ad->probe.ntus; i++)
			ready += ad->probe.tus[i].fallback_for < 0;
		size_t copies = n - (ready < n / 2 ? ready : n / 2);
		ad->load_first = (long)ad->probe.ntus;
		for (size_t i = 0; ad->npair && i < copies; i++) {
			char *name = xasprintf("load curve copy %zu of %zu", i + 1, copies);
			pass_probe_add(&ad->probe, name, 0, &cmds[i])->leads = true;
			free(name);
		}
		ad->load_copies = ad->npair ? (long)copies : 0;
		ad->probe.parallel = (long)n;
	} else {
		load_probe_measure(ad->dir, cmds, n, ad->repeats, ad->settle, ad->timeout, &ad->load, &ad->failures);
		ad->load.cores = (double)cpu_count();
		char *settled = settled_words(ad);
		ad->load_source = xasprintf("%s, 1 to %zu at once, %s", ad->load_what, n, settled);
		free(settled);
	}
	for (size_t i = 0; i < n; i++)
		compile_command_clear(&cmds[i]);
	free(cmds);
	if (!ad->npair)
		isolate_baseline(ad);
}

/* The curve from the two copies at once and the copies run among the
 * probes (the level their median of compiles at once, itself included),
 * then the recorded durations isolated by it. */
static void finish_load_curve(struct advise *ad)
{
	if (!ad->npair)
		return;
	double *walls = xcalloc((size_t)ad->load_copies + 1, sizeof(double));
	double *running = xcalloc((size_t)ad->load_copies + 1, sizeof(double));
	size_t nwalls = 0;
	for (long i = ad->load_first; i < ad->load_first + ad->load_copies; i++) {
		const struct pass_tu *t = &ad->probe.tus[i];
		if (t->failed || !t->nwalls)
			continue;
		walls[nwalls] = t->walls[0];
		running[nwalls++] = pass_probe_running(&ad->probe, (size_t)i);
	}
	double at_once = nwalls ? median_of(running, nwalls) : 0;
	ad->load = (struct load_curve){ 0 };
	if (at_once >= 2 + LOAD_LEVELS_APART && load_curve_from_two(&ad->load, 2, ad->load_pair, ad->npair, at_once, walls, nwalls)) {
		char *settled = settled_words(ad);
		ad->load_source = xasprintf("%s: 2 at once in rounds of their own (%s), %zu copies among the probes "
					    "(%.1f compiles at once, the median over their runs); alone where the line "
					    "through the two levels meets one job", ad->load_what, settled, nwalls,
					    at_once);
		free(settled);
	} else {
		ad->load_source = xasprintf("none: its copies among the probes ran %s", nwalls ? "too few beside them"
											 : "nowhere (they failed)");
	}
	ad->load.cores = (double)cpu_count();
	free(walls);
	free(running);
	isolate_baseline(ad);
}

/* ---- from the probes to the facts ---- */

static double ptxas_seconds(const struct pass_tu *p, const char *arch)
{
	double s = 0;
	for (size_t i = 0; i < p->jobs.n; i++)
		if (p->jobs.v[i].pass == PASS_DEVICE && !strcmp(p->jobs.v[i].tool, "ptxas") && p->jobs.v[i].arch && arch &&
		    !strcmp(nvcc_arch_number(p->jobs.v[i].arch), nvcc_arch_number(arch)))
			s += p->times[i].wall;
	return s;
}

const struct pass_tu *probed(const struct advise *ad, long i)
{
	return i >= 0 && !ad->probe.tus[i].failed && !ad->probe.tus[i].skipped ? &ad->probe.tus[i] : NULL;
}

static double positive(double s)
{
	return s > 0 ? s : 0;
}

/* The fused probe against its headers alike (the host compiler's seconds
 * of both: the fused probe's host pass alone, the instances' header probe's
 * host jobs, which compile the same headers with the same command): the glue of the included instances, carried
 * to every instance at its share each. Instances that cannot share a TU
 * (as when two define one name) are no failure of the build's: the first one
 * alone measures the glue, carried to all; failing that too, one probed
 * instance's host pass stands. */
static void read_fused_probe(struct advise *ad)
{
	if (ad->fused_tu < 0)
		return;
	const struct pass_tu *fp = &ad->probe.tus[ad->fused_tu];
	const struct pass_tu *h = probed(ad, ad->groups[ad->tus[ad->fused_donor].group].headers_tu);
	if (fp->failed && ad->fused.included > 1) {
		ad->failures--;
		warn("the %zu instances do not compile as one TU (the compiler's output above); the glue is measured on the "
		     "first alone and carried to all", ad->fused.included);
		fp = &ad->probe.tus[ad->fused_one_tu];
		ad->fused.included = 1;
		ad->fused.apart = true;
	}
	if (fp->failed || !h)
		return;
	ad->fused.probe = pass_tu_host_compiler(fp);
	ad->fused.headers = pass_tu_host_compiler(h);
	ad->fused.glue = positive(ad->fused.probe - ad->fused.headers) / (double)ad->fused.included *
			 (double)ad->fused.instances;
	ad->fused_measured = true;
}

static void read_probes(struct advise *ad)
{
	for (size_t g = 0; g < ad->ngroups; g++) {
		struct probe_group *pg = &ad->groups[g];
		const struct pass_tu *h = probed(ad, pg->headers_tu), *e = probed(ad, pg->empty_tu);
		pg->cost.headers = strvec_join(&pg->headers, ", ");
		pg->cost.command_of = xstrdup(ad->tus[pg->donor].f.name);
		if (pg->narrow && !h && e) {
			/* The framework on this include path has no narrower header
			 * (a vendored or older one): narrow does not apply, and the
			 * build has nothing wrong with it. */
			ad->failures--;
			warn("%s's framework has no %s on its include path (the compiler's output above): narrow does not apply",
			     ad->tus[pg->donor].f.name, pg->cost.headers);
			continue;
		}
		if (!h || !e) {
			warn("the header probe with %s's command failed; no saving from it", ad->tus[pg->donor].f.name);
			continue;
		}
		pg->measured = true;
		/* The headers' spread: their probe's walls over its median. */
		pg->cost_lo = h->wall.median > 0 ? h->wall.min / h->wall.median : 1;
		pg->cost_hi = h->wall.median > 0 ? h->wall.max / h->wall.median : 1;
		pg->cost.base_host = pass_tu_side(e, PASS_HOST);
		pg->cost.base_device = pass_tu_side(e, PASS_DEVICE);
		pg->cost.host = positive(pass_tu_side(h, PASS_HOST) - pg->cost.base_host);
		pg->cost.device = positive(pass_tu_side(h, PASS_DEVICE) - pg->cost.base_device);
	}
	read_fused_probe(ad);
	/* Scale: each probed TU's baseline seconds per probed second; the
	 * median of those for the rest. */
	double *ratios = xcalloc(ad->ntus, sizeof(double));
	size_t nratios = 0;
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		const struct pass_tu *p = probed(ad, t->probe_tu);
		t->f.scale = NAN;
		if (p && p->wall.median > 0 && ad->seconds[t->f.edge] > 0)
			ratios[nratios++] = t->f.scale = ad->seconds[t->f.edge] / p->wall.median;
	}
	double typical = nratios ? median_of(ratios, nratios) : 1;
	free(ratios);
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		if (isnan(t->f.scale))
			t->f.scale = typical;
		if (t->narrow_group >= 0 && ad->groups[t->narrow_group].measured)
			t->f.narrow = &ad->groups[t->narrow_group].cost;
		if (t->umbrella) {
			t->f.narrow_at = t->narrow_at;
			t->f.narrow_change = t->narrow.change;
			t->f.narrow_why_not = t->narrow.why_not;
		}
		if (t->group >= 0 && ad->groups[t->group].measured) {
			t->f.cost = &ad->groups[t->group].cost;
			t->f.cost_lo = ad->groups[t->group].cost_lo;
			t->f.cost_hi = ad->groups[t->group].cost_hi;
			tu_facts_cap_scale(&t->f, ad->seconds[t->f.edge]);
		}
		const struct pass_tu *p = probed(ad, t->probe_tu);
		if (p) {
			const struct verdict *v = &p->bd.verdict;
			t->f.probed = true;
			t->f.codegen_bound = v->kind == VERDICT_DEVICE && v->phase == PHASE_CODEGEN;
			t->f.codegen_share = v->phase_share;
			if (v->kind == VERDICT_DEVICE && v->heaviest && p->walls_only) {
				/* nvcc's job walls alone: ptxas is machine code generation
				 * (cicc's own share of it unknown: a lower bound). */
				double share = ptxas_seconds(p, v->heaviest->arch) / v->heaviest->seconds;
				t->f.codegen_bound = share >= VERDICT_MAJORITY;
				t->f.codegen_share = share;
			}
			if (v->heaviest)
				t->f.codegen_pass = v->heaviest->arch ? xasprintf("device %s", v->heaviest->arch)
								       : xstrdup("device");
			const struct pass_tu *h = t->group >= 0 ? probed(ad, ad->groups[t->group].headers_tu) : NULL;
			if (t->f.generated && h)
				t->f.glue = positive(pass_tu_side(p, PASS_HOST) - pass_tu_side(h, PASS_HOST));
		}
		if (t->f.generated && ad->fused_measured)
			t->f.glue = ad->fused.glue / (double)ad->fused.instances;
		const struct pass_tu *map = probed(ad, t->table_tu), *flat = probed(ad, t->flat_tu);
		if (map && flat)
			t->f.table_saving = map->wall.median - flat->wall.median;
	}
}

/* A range must carry the spread the machine shows, not only the builds
 * recorded: two builds that happen to agree gave a range of 3 % where the
 * same step moved by 13 % in the next sitting. Every probe repeated in this
 * run (the header, empty, table and narrow probes) of a second or more
 * shows how far one compile moves here; the widest of them widens the
 * builds'. A shorter one moves by its start-up's noise, not the
 * machine's: an empty probe of 17 ms moved by 58 % on 16 CPUs, and the
 * ranges of minute-long builds took it. */
#define MACHINE_PROBE_SECONDS 1.0

static void widen_to_machine(struct advise *ad)
{
	ad->builds_lo = ad->spread_lo > 0 ? ad->spread_lo : 1;
	ad->builds_hi = ad->spread_hi > 0 ? ad->spread_hi : 1;
	ad->machine_lo = ad->machine_hi = 1;
	for (size_t i = 0; i < ad->probe.ntus; i++) {
		const struct pass_tu *p = probed(ad, (long)i);
		if (!p || p->wall.n < 2 || p->wall.median < MACHINE_PROBE_SECONDS)
			continue;
		double lo = p->wall.min / p->wall.median, hi = p->wall.max / p->wall.median;
		ad->machine_lo = lo < ad->machine_lo ? lo : ad->machine_lo;
		ad->machine_hi = hi > ad->machine_hi ? hi : ad->machine_hi;
	}
	ad->spread_lo = ad->machine_lo < ad->builds_lo ? ad->machine_lo : ad->builds_lo;
	ad->spread_hi = ad->machine_hi > ad->builds_hi ? ad->machine_hi : ad->builds_hi;
}

void advise_free(struct advise *ad)
{
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
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
	}
	free(ad->tus);
	for (size_t g = 0; g < ad->ngroups; g++) {
		free(ad->groups[g].key);
		free(ad->groups[g].source);
		strvec_clear(&ad->groups[g].headers);
		free(ad->groups[g].cost.headers);
		free(ad->groups[g].cost.command_of);
	}
	free(ad->groups);
	pass_probe_free(&ad->probe);
	if (ad->measured)
		measurement_free(&ad->m);
	advice_free(&ad->advice);
	strvec_clear(&ad->stripped);
	free(ad->seconds);
	free(ad->end_seconds[0]);
	free(ad->end_seconds[1]);
	free(ad->curve);
	free(ad->baseline_source);
	free(ad->load_source);
	free(ad->load_what);
	free(ad->load_pair);
	recent_builds_free(&ad->recent);
	strmap_free(&ad->file_index);
	strvec_clear(&ad->file_names);
	free(ad->file_facts);
	free(ad->policy_why);
	free(ad->remote_share);
	free(ad->network);
	distcc_log_free(&ad->distcc);
	ninja_build_free(&ad->build);
	json_decref(ad->saved);	/* last: dir and the launchers may be its strings */
	free(ad);
}


/* ---- the walk ---- */

/* The phase under way ends: its wall is added to `what`. */
static void phase_done(struct advise *ad, enum spent what)
{
	double now = monotonic_seconds();
	ad->spent[what] += now - ad->spent_at;
	ad->spent_at = now;
}

/* The baseline predicted at -j 1 up to twice the CPUs (at least 8), the
 * jobs the build asks for included: where more jobs stop paying. */
static void jobs_curve(struct advise *ad, const struct sched_options *base)
{
	long top = 2 * ad->cpus > 8 ? 2 * ad->cpus : 8;
	if (ad->jobs > top)
		top = ad->jobs;
	struct model m;
	model_from_build(&m, &ad->build, ad->seconds);
	ad->curve = xcalloc((size_t)top, sizeof(*ad->curve));
	for (long j = 1; j <= top; j++) {
		struct sched_options o = *base;
		o.jobs = (int)j;
		if (!model_predict(&m, &o, &ad->curve[ad->ncurve]))
			break;
		ad->ncurve++;
	}
	model_free(&m);
}

/* The launcher the baseline's durations went through, if any: --launcher's
 * (timed through it here), else the one the build's compiles run behind
 * (recorded through it). Such durations hold the network already. */
static const char *baseline_launcher(const struct advise *ad)
{
	if (ad->launcher)
		return ad->launcher;
	const struct ninja_build *b = &ad->build;
	for (size_t i = 0; i < b->n; i++) {
		const char *l = ninja_edge_is_compile(&b->edges[i]) ? cluster_launcher(b->edges[i].command, b->dir) : NULL;
		if (l)
			return l;
	}
	return NULL;
}

/* Per edge, the share of its baseline time a cluster takes: what the
 * distcc log shows held there, else each sent compile's time less its
 * preprocessing, timed here (a distcc client's part); with probe_net the
 * network's cost of each sent compile besides (net_probe_build), for a
 * baseline timed here: one timed through the cluster holds it already. */
static double *remote_shares(struct advise *ad)
{
	struct local_probe lp = { 0 };
	if (!ad->distcc_path) {
		bool *sent = cluster_sent(&ad->build);
		local_probe_run(&ad->build, ad->dir, sent, cpu_count(), ad->timeout, &lp);
		proc_exit_if_interrupted();
		ad->failures += lp.failed;
		ad->local_probed = lp.probed;
		const char *launcher = baseline_launcher(ad);
		if (ad->probe_net && launcher)
			warn("--probe-net: the baseline's durations were timed through %s and hold the network already; "
			     "nothing added", launcher);
		else if (ad->probe_net) {
			char *err = net_probe_build(&ad->build, ad->dir, sent, lp.bytes, &ad->net, &ad->network);
			if (err)
				die(EXIT_BAD_INPUT, "--probe-net: %s", err);
		}
		free(sent);
	}
	struct cluster_split cs;
	cluster_split(&ad->build, ad->seconds, ad->distcc_path ? &ad->distcc : NULL, lp.seconds, NULL, 1, &cs);
	local_probe_free(&lp);
	double *share = xcalloc(ad->build.n, sizeof(double));
	for (size_t i = 0; i < ad->build.n; i++)
		share[i] = cs.there[i] > 0 ? cs.there[i] / (cs.here[i] + cs.there[i]) : 0;
	cluster_split_free(&cs);
	return share;
}

/* The advice model over the evidence, measured or saved (advise_from):
 * the fixes, the plan and the jobs curve. */
void advise_model(struct advise *ad)
{
	struct tu_facts *facts = xcalloc(ad->ntus ? ad->ntus : 1, sizeof(*facts));
	for (size_t i = 0; i < ad->ntus; i++)
		facts[i] = ad->tus[i].f;
	const struct advice_input in = { .build = &ad->build, .seconds = ad->seconds, .tus = facts, .ntus = ad->ntus,
					 .sched = { .jobs = (int)ad->jobs, .policy = ad->policy, .cores = ad->load.cores,
						    .curve = &ad->load },
					 .cpus = ad->cpus, .spread_lo = ad->spread_lo, .spread_hi = ad->spread_hi,
					 .remote = ad->remote, .remote_share = ad->remote_share,
					 .remote_from = ad->distcc_path, .local_probed = ad->local_probed,
					 .remote_network = ad->network, .network = ad->network ? &ad->net : NULL,
					 .launcher = ad->build_launcher,
					 .fused = ad->fused_measured ? &ad->fused : NULL,
					 .fused_narrow = ad->fused_narrow_group >= 0 && ad->groups[ad->fused_narrow_group].measured
						? &ad->groups[ad->fused_narrow_group].cost : NULL,
					 .curve_ends = ad->load_spread ? ad->load_ends : NULL };
	advice_build(&in, &ad->advice);
	free(facts);
	jobs_curve(ad, &in.sched);
}

struct advise *advise_collect(const struct advise_options *o)
{
	struct advise *ad = xcalloc(1, sizeof(*ad));
	ad->dir = o->dir;
	ad->cpus = cpu_count();
	ad->jobs = o->jobs ? o->jobs : jobs_default(o->cmd);
	ad->parallel = o->parallel < PROC_MAX_RUNNING ? o->parallel : PROC_MAX_RUNNING;
	ad->timeout = o->timeout;
	ad->repeats = o->repeats > 0 ? o->repeats : ADVISE_REPEATS;
	ad->settle = o->repeats <= 0;
	ad->kernels = o->kernels;
	ad->remote = o->remote;
	ad->fused_tu = ad->fused_one_tu = ad->fused_narrow_group = -1;
	ad->distcc_path = o->distcc_log;
	ad->probe_net = o->probe_net;
	ad->launcher = o->launcher;
	ad->spent_at = monotonic_seconds();
	snapshot_guard(ad->dir);
	if (ad->distcc_path) {	/* bad input before any probe */
		char *err = distcc_log_read(ad->distcc_path, &ad->distcc);
		if (err)
			die(EXIT_BAD_INPUT, "%s", err);
	}
	ninja_load(ad->dir, &ad->build);
	if (o->policy.given) {
		ad->policy = o->policy.policy;
		ad->policy_why = xstrdup("--policy");
	} else {
		ad->policy = ninja_policy(&ad->policy_why);
	}
	bool *selected = xcalloc(ad->build.n, sizeof(bool));
	steps_select(o->cmd, &ad->build, o->targets, o->ntargets, selected);
	ad->tus = xcalloc(ad->build.n, sizeof(*ad->tus));
	for (size_t i = 0; i < ad->build.n; i++) {
		if (!selected[i])
			continue;
		steps_check_built(ad->dir, &ad->build.edges[i]);
		ad->tus[ad->ntus++] = (struct advise_tu){ .f = { .edge = i, .name = ad->build.edges[i].outputs.v[0],
							       .glue = NAN, .table_saving = NAN },
							.group = -1, .probe_tu = -1, .table_tu = -1, .flat_tu = -1,
							.narrow_group = -1 };
	}
	baseline(ad, selected);
	free(selected);
	phase_done(ad, SPENT_BASELINE);

	preprocess_tus(ad);
	mark_generated(ad);
	read_sources(ad);
	phase_done(ad, SPENT_PREPROCESS);
	/* The probes run here: at most one a CPU when P counts the cluster's slots. */
	long here = ad->launcher && ad->parallel > cpu_count() ? cpu_count() : ad->parallel;
	ad->probe = (struct pass_probe){ .dir = ad->dir, .build = &ad->build, .repeats = ad->repeats,
					.settle = ad->settle, .parallel = here, .timeout = ad->timeout, .th = { 5.0, 0.7 } };
	plan_header_probes(ad);
	for (size_t i = 0; i < ad->ntus; i++)
		if (!ad->tus[i].f.kernel)
			plan_table_probes(ad, &ad->tus[i], i);
	plan_fused_probe(ad);
	plan_tu_probes(ad);
	plan_narrow_probes(ad);
	steps_note_stripped(&ad->stripped);
	phase_done(ad, SPENT_TABLES);
	warm_up(ad);
	calibrate_load(ad);
	phase_done(ad, SPENT_LOAD_CURVE);
	pass_probe_run(&ad->probe);
	ad->failures += ad->probe.failures;
	finish_load_curve(ad);
	read_probes(ad);
	widen_to_machine(ad);
	if (ad->kernels)
		find_kernels(ad);
	phase_done(ad, SPENT_PROBES);

	if (ad->remote.slots)
		ad->remote_share = remote_shares(ad);
	ad->build_launcher = baseline_launcher(ad);
	advise_hold_inputs(ad);
	advise_model(ad);
	proc_exit_if_interrupted();
	phase_done(ad, SPENT_MODEL);
	return ad;
}

size_t advise_failures(const struct advise *ad)
{
	return ad->failures;
}
