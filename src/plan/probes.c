/* advise's probes: TUs written into the temp dir and compiled with the
 * TUs' own commands (the framework's headers against an empty TU, a
 * dispatch table against a flat one, the instances fused into one TU,
 * narrower headers), the TUs the verdicts need, and what their walls
 * make of each TU's facts. */
#define _GNU_SOURCE
#include "walk.h"
#include "rule.h"
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

static const char *extension_of(const char *path)
{
	const char *dot = strrchr(base_name(path), '.');
	return dot ? dot : ".cpp";
}

/* t's command with its outputs in the temp dir and `source` compiled in
 * place of its own; false (with a warning) when the command does not
 * name its source as ninja does. */
bool probe_command(struct advise *ad, const struct advise_tu *t, const char *sub, const char *source,
			  struct compile_command *cmd)
{
	*cmd = (struct compile_command){ 0 };
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, cmd, &ad->stripped);
	if (steps_replace_source(&ad->build.edges[t->f.edge], cmd, source))
		return true;
	warn("%s: its command does not name its source %s; no probe with it", t->f.name, tu_source(ad, t));
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
	char *sub = xasprintf("probe-%zu", ad->probes.pass.ntus);
	char *source = xasprintf("%s/%s%s", tmpdir_path(), sub, extension_of(tu_source(ad, t)));
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
		pass_probe_add(&ad->probes.pass, name, t->f.edge, &cmd)->walls_only = true;
		free(name);
		index = (long)ad->probes.pass.ntus - 1;
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
		ad->probes.pass.tus[i].expect_s = seconds;
}

/* want_phases: the instrumented runs too, except for nvcc, which times
 * its jobs itself (ptxas's wall says how much is codegen). */
static void add_tu_probe(struct advise *ad, struct advise_tu *t, bool want_phases)
{
	if (t->probe_tu >= 0)
		return;
	struct compile_command cmd = { 0 };
	char *sub = xasprintf("probe-%zu", ad->probes.pass.ntus);
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmd, &ad->stripped);
	free(sub);
	struct pass_tu *p = pass_probe_add(&ad->probes.pass, t->f.name, t->f.edge, &cmd);
	p->walls_only = !want_phases || p->cmd.compiler == COMPILER_NVCC;
	p->repeats = 1;	/* a whole kernel TU: its scale and verdict, not a saving */
	t->probe_tu = (long)ad->probes.pass.ntus - 1;
	expect(ad, t->probe_tu, ad->base.seconds[t->f.edge]);
}

/* One probe group per (rule, headers): the TUs that share a command shape
 * and a framework share what its headers cost. */
void probes_plan_headers(struct advise *ad)
{
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		if (!t->headers.n)
			continue;
		char *list = strvec_join(&t->headers, ", ");
		char *key = xasprintf("%s\n%s", ad->build.edges[t->f.edge].rule, list);
		free(list);
		size_t g = 0;
		while (g < ad->probes.ngroups && strcmp(ad->probes.groups[g].key, key))
			g++;
		if (g < ad->probes.ngroups) {
			free(key);
			t->group = (long)g;
			continue;
		}
		ad->probes.groups = xrealloc(ad->probes.groups, (ad->probes.ngroups + 1) * sizeof(*ad->probes.groups));
		struct probe_group *pg = &ad->probes.groups[ad->probes.ngroups++];
		*pg = (struct probe_group){ .key = key, .donor = i, .headers_tu = -1, .empty_tu = -1 };
		for (size_t h = 0; h < t->headers.n; h++)
			strvec_push(&pg->headers, t->headers.v[h]);
		t->group = (long)g;
		pg->headers_tu = add_source_probe(ad, t, write_includes, &pg->headers, &pg->source, "header probe %zu (%s's command)", g,
						  t->f.name);
		pg->empty_tu = add_source_probe(ad, t, write_empty, NULL, NULL, "empty probe %zu (%s's command)", g, t->f.name);
		expect(ad, pg->headers_tu, ad->base.seconds[t->f.edge]);	/* its framework: most of it, at most all */
		/* Headers that compile only after the TU's own first lines (a
		 * project prelude that defines __host__ where -nogpuinc leaves
		 * it undefined) are an outcome of the probe, said in one line:
		 * the build itself compiles. */
		if (pg->headers_tu >= 0)
			ad->probes.pass.tus[pg->headers_tu].may_fail = true;
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
	for (size_t g = 0; g < ad->probes.ngroups; g++)
		if (!strcmp(ad->probes.groups[g].key, key)) {
			free(key);
			return (long)g;
		}
	long empty = ad->probes.groups[t->group].empty_tu;
	ad->probes.groups = xrealloc(ad->probes.groups, (ad->probes.ngroups + 1) * sizeof(*ad->probes.groups));
	struct probe_group *pg = &ad->probes.groups[ad->probes.ngroups];
	*pg = (struct probe_group){ .key = key, .donor = i, .empty_tu = empty, .narrow = true };
	for (size_t h = 0; h < headers->n; h++)
		strvec_push(&pg->headers, headers->v[h]);
	pg->headers_tu = add_source_probe(ad, t, write_includes, &pg->headers, NULL, "narrow probe %zu (%s's command)",
					  ad->probes.ngroups, t->f.name);
	/* A framework without the narrower header (a vendored or older one)
	 * is an outcome, said in one line, not a compiler's errors. */
	if (pg->headers_tu >= 0)
		ad->probes.pass.tus[pg->headers_tu].may_fail = true;
	return (long)ad->probes.ngroups++;
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
void probes_plan_narrow(struct advise *ad)
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
	const struct advise_tu *instance = ad->probes.fused_tu >= 0 ? &ad->tus[ad->probes.fused_donor] : NULL;
	if (host >= 0 && instance && instance->narrow_group >= 0)
		ad->probes.fused_narrow_group = narrow_group(ad, (size_t)host, &instance->narrow.headers);
}

/* Whether some rule reads what TU i's header probes measure: a rule that
 * says it does (reads_cost, none said: it may), unless an edit proven on
 * a copy timed what the headers cost i (every rule then reads the proof,
 * and a header probe would measure the same again, a TU's compile). */
static bool cost_read(const struct advise *ad, const struct tu_facts *facts, size_t i)
{
	if (!walk_edit_proves(ad, i))
		return true;
	for (int id = 0; id < NFIXES; id++) {
		const struct fix_rule *r = fix_rules[id];
		if (!(r->walk && r->walk->proves) && (!r->reads_cost || r->reads_cost(facts, ad->ntus, i)))
			return true;
	}
	return false;
}

/* Each probe yet to run: its expected run (expect_s, else its TU's
 * recorded seconds: a probe of part of a TU takes no longer) times its
 * first rounds (two, or its repeats where fewer; a lead copy one) and
 * the runs a round takes (pass_tu_round_runs); all of it over the
 * probes' slots, at least the longest probe's. */
double probes_ahead(const struct advise *ad)
{
	const struct pass_probe *ps = &ad->probes.pass;
	double work = 0, longest = 0;
	for (size_t i = 0; i < ps->ntus; i++) {
		const struct pass_tu *t = &ps->tus[i];
		if (t->skipped || t->failed || t->nwalls || t->fallback_for >= 0)
			continue;
		double run = t->expect_s > 0 ? t->expect_s : ad->base.seconds[t->edge];
		size_t rounds = t->leads ? 1 : settle_first_walls(pass_tu_most_repeats(ps, t));
		double probe = isnan(run) ? 0 : run * (double)rounds * pass_tu_round_runs(t);
		work += probe;
		longest = probe > longest ? probe : longest;
	}
	double slots = ps->parallel > 1 ? (double)ps->parallel : 1;
	return work / slots > longest ? work / slots : longest;
}

void probes_drop_unread(struct advise *ad)
{
	struct tu_facts *facts = advise_facts(ad);
	for (size_t g = 0; g < ad->probes.ngroups; g++) {
		struct probe_group *pg = &ad->probes.groups[g];
		size_t members = 0, read = 0;
		for (size_t i = 0; i < ad->ntus; i++)
			if (ad->tus[i].group == (long)g || ad->tus[i].narrow_group == (long)g) {
				members++;
				read += cost_read(ad, facts, i);
			}
		if (!members || read || pg->headers_tu < 0)
			continue;
		pg->unread = true;
		pass_probe_skip(&ad->probes.pass, (size_t)pg->headers_tu);
	}
	/* An empty probe is not run when no group that shares it is. */
	for (size_t g = 0; g < ad->probes.ngroups; g++) {
		long empty = ad->probes.groups[g].empty_tu;
		bool wanted = false;
		for (size_t h = 0; h < ad->probes.ngroups && empty >= 0; h++)
			wanted |= ad->probes.groups[h].empty_tu == empty && !ad->probes.groups[h].unread;
		if (empty >= 0 && !wanted)
			pass_probe_skip(&ad->probes.pass, (size_t)empty);
	}
	free(facts);
}

/* Its host pass preprocessed again, alone (the first -E's output is
 * gone by now), its dispatch tables read into f.table_entries. */
static void plan_table_read(struct advise *ad, struct advise_tu *t, size_t index)
{
	struct compile_command cmd = { 0 };
	char *sub = xasprintf("table-%zu", index);
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmd, &ad->stripped);
	char *outdir = tmpdir_subdir(sub), *log = xasprintf("%s/%s.log", tmpdir_path(), sub);
	struct pp_plan plan = { 0 };
	char *err = NULL;
	if (!preprocess_plan(&cmd, ad->dir, false, outdir, log, ad->timeout, &plan, &err)) {
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
	compile_command_clear(&cmd);
	free(outdir);
	free(log);
	free(sub);
}

/* A host TU's dispatch table and its two probes. */
void probes_plan_tables(struct advise *ad, struct advise_tu *t, size_t index)
{
	/* A table is std::function written in the TU or a header of its own:
	 * where none of them names it, its preprocessing (a second -E of the
	 * TU, one at a time) would find nothing. Where its host pass was read
	 * as one section, its tables were read with it (tus_preprocess). */
	if (!t->tables_read && (!t->host_read || t->names_function))
		plan_table_read(ad, t, index);
	if (t->f.table_entries) {
		t->table_tu = add_source_probe(ad, t, write_map, &t->f.table_entries, NULL, "%s's table, %zu std::function entries",
					       t->f.name, t->f.table_entries);
		t->flat_tu = add_source_probe(ad, t, write_flat, &t->f.table_entries, NULL, "%s's table, flat", t->f.name);
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
void probes_plan_tus(struct advise *ad)
{
	double slowest = 0;
	for (size_t i = 0; i < ad->ntus; i++)
		if (ad->tus[i].f.kernel && ad->base.seconds[ad->tus[i].f.edge] > slowest)
			slowest = ad->base.seconds[ad->tus[i].f.edge];
	for (size_t i = 0; i < ad->ntus; i++) {
		const struct advise_tu *t = &ad->tus[i];
		double s = ad->base.seconds[t->f.edge];
		if (t->f.kernel && slowest > 0 && (s == slowest || (s >= ADVISE_NEAR_SLOWEST * slowest && !t->f.device_framework)))
			add_tu_probe(ad, &ad->tus[i], true);
	}
	for (size_t i = 0; ad->probes.fused_tu < 0 && i < ad->ntus; i++) {
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

/* The same with each instance in a namespace of its own, as a generator
 * that fuses them would emit it: instances often define one helper each
 * under the same name (in an anonymous namespace). Their #include lines
 * come first, outside every namespace: a guarded header included again
 * inside one is empty there. Lines are read as written (one under an #if
 * is hoisted too): where that does not compile, the first instance
 * alone stands in. */
static void write_fused_apart(FILE *f, const void *arg)
{
	const struct strvec *sources = arg;
	struct strvec includes = { 0 };
	for (size_t i = 0; i < sources->n; i++) {
		char *text = read_text_file(sources->v[i]);
		for (const char *line = text; line && *line;) {
			size_t len = strcspn(line, "\n");
			const char *at = line + strspn(line, " \t");
			if (*at == '#' && !strncmp(at + 1 + strspn(at + 1, " \t"), "include", 7)) {
				char *directive = xstrndup(line, len);
				if (strvec_contains(&includes, directive))
					free(directive);
				else
					strvec_push_nodup(&includes, directive);
			}
			line += len + (line[len] == '\n');
		}
		free(text);
	}
	fputs("/* buildwall advise: the instances' host code in one TU, each in a namespace of its own */\n", f);
	for (size_t i = 0; i < includes.n; i++)
		fprintf(f, "%s\n", includes.v[i]);
	for (size_t i = 0; i < sources->n; i++)
		fprintf(f, "namespace buildwall_instance_%zu {\n#include \"%s\"\n}\n", i, sources->v[i]);
	strvec_clear(&includes);
}

/* The fused TU as one compiled probe: the generated instances whose host
 * pass parses a framework, their sources #included into one TU (up to
 * ADVISE_FUSED_MAX), its host pass alone compiled with the first one's
 * command: the headers once and every instance's glue, as the host
 * compiler takes them. */
void probes_plan_fused(struct advise *ad)
{
	struct strvec sources = { 0 };
	long donor = -1;
	size_t instances = 0;
	for (size_t i = 0; i < ad->ntus; i++) {
		const struct advise_tu *t = &ad->tus[i];
		if (!t->f.kernel || !t->f.generated || !t->f.host_framework || t->group < 0)
			continue;
		instances++;
		char *path = path_in(ad->dir, tu_source(ad, t)), *real = realpath(path, NULL);
		free(path);
		if (real && !strpbrk(real, "\"\n") && sources.n < ADVISE_FUSED_MAX) {
			strvec_push(&sources, real);
			donor = donor < 0 ? (long)i : donor;
		}
		free(real);
	}
	if (donor >= 0) {
		const struct advise_tu *d = &ad->tus[donor];
		if (ad->probes.groups[d->group].headers_tu >= 0) {	/* else the command takes no probe TU */
			ad->probes.fused_tu = add_source_probe(ad, d, write_fused, &sources, NULL,
							"fused probe (%zu instance%s, %s's command)", sources.n,
							sources.n == 1 ? "" : "s", d->f.name);
			ad->probes.pass.tus[ad->probes.fused_tu].host_only = true;
			/* instances that define one name each do not share a TU: an
			 * outcome, said in one line, not a compiler's errors */
			ad->probes.pass.tus[ad->probes.fused_tu].may_fail = sources.n > 1;
			expect(ad, ad->probes.fused_tu, ad->base.seconds[d->f.edge]);
		}
		if (ad->probes.fused_tu >= 0 && sources.n > 1) {
			/* Stand-ins, each run only when the one before failed:
			 * the instances each in a namespace of its own, then
			 * the first alone. */
			ad->probes.fused_apart_tu = add_source_probe(ad, d, write_fused_apart, &sources, NULL,
							      "fused probe (%zu instances, each in a namespace of its "
							      "own, %s's command)", sources.n, d->f.name);
			struct strvec first = { 0 };
			strvec_push(&first, sources.v[0]);
			ad->probes.fused_one_tu = add_source_probe(ad, d, write_fused, &first, NULL,
							    "fused probe (its first instance alone, %s's command)",
							    d->f.name);
			strvec_clear(&first);
			long chain[] = { ad->probes.fused_tu, ad->probes.fused_apart_tu, ad->probes.fused_one_tu };
			for (size_t k = 1; k < sizeof(chain) / sizeof(*chain); k++) {
				struct pass_tu *stand_in = &ad->probes.pass.tus[chain[k]];
				stand_in->host_only = true;
				stand_in->may_fail = k + 1 < sizeof(chain) / sizeof(*chain);
				stand_in->fallback_for = chain[k - 1];
			}
		}
		ad->probes.fused_donor = (size_t)donor;
		ad->probes.fused = (struct fused_cost){ .included = sources.n, .instances = instances, .command_of = d->f.name };
	}
	strvec_clear(&sources);
}

/* advise --kernels: what the device compiler says of the kernels in each
 * TU whose device pass is machine code generation. */
void probes_find_kernels(struct advise *ad)
{
	bool *only = xcalloc(ad->probes.pass.ntus ? ad->probes.pass.ntus : 1, sizeof(bool)), any = false;
	for (size_t i = 0; i < ad->ntus; i++)
		if (ad->tus[i].f.codegen_bound && ad->tus[i].probe_tu >= 0)
			any = only[ad->tus[i].probe_tu] = true;
	if (any) {
		size_t before = ad->probes.pass.failures;
		pass_probe_find_kernels(&ad->probes.pass, only);
		ad->failures += ad->probes.pass.failures - before;
	}
	free(only);
}

/* The worst kernel of a kernel-work TU, when --kernels found one. */
const struct kernel_fact *worst_kernel(const struct advise *ad, const struct advise_tu *t)
{
	const struct pass_tu *p = t->probe_tu >= 0 ? &ad->probes.pass.tus[t->probe_tu] : NULL;
	return p && p->kernels_probed ? kernel_facts_worst(&p->kernels) : NULL;
}

/* One untimed run of each empty probe first: a compiler's first run after
 * its files left the page cache is slow (an empty nvcc TU took 5.2 s here
 * right after a large package install, against 0.3 s warm), and the empty
 * probe is what every header's cost is measured against. */
void probes_warm_up(struct advise *ad)
{
	for (size_t g = 0; g < ad->probes.ngroups; g++) {
		if (ad->probes.groups[g].empty_tu < 0 || ad->probes.groups[g].narrow)
			continue;
		const struct compile_command *c = &ad->probes.pass.tus[ad->probes.groups[g].empty_tu].cmd;
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
	return i >= 0 && !ad->probes.pass.tus[i].failed && !ad->probes.pass.tus[i].skipped ? &ad->probes.pass.tus[i] : NULL;
}

const struct pass_tu *probed_pair(const struct advise *ad, long plain, long with, const struct pass_tu **changed,
				  char **error)
{
	const struct pass_tu *p = probed(ad, plain), *w = &ad->probes.pass.tus[with];
	*changed = NULL;
	if (!p)
		return NULL;
	if (w->failed)
		*error = xstrdup(w->failure ? w->failure : "it failed");
	else
		*changed = w;
	return p;
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
	if (ad->probes.fused_tu < 0)
		return;
	const struct pass_tu *fp = &ad->probes.pass.tus[ad->probes.fused_tu];
	const struct pass_tu *h = probed(ad, ad->probes.groups[ad->tus[ad->probes.fused_donor].group].headers_tu);
	if (fp->failed && ad->probes.fused.included > 1) {
		const struct pass_tu *namespaced = &ad->probes.pass.tus[ad->probes.fused_apart_tu];
		if (!namespaced->failed) {
			fp = namespaced;
			ad->probes.fused.namespaced = true;
		} else {
			note("the %zu instances do not compile as one TU, not even each in a namespace of its own (%s); the "
			     "glue is measured on the first alone and carried to all", ad->probes.fused.included,
			     namespaced->failure ? namespaced->failure : "it failed");
			fp = &ad->probes.pass.tus[ad->probes.fused_one_tu];
			ad->probes.fused.included = 1;
			ad->probes.fused.apart = true;
		}
	}
	if (fp->failed || !h)
		return;
	ad->probes.fused.probe = pass_tu_host_compiler(fp);
	ad->probes.fused.headers = pass_tu_host_compiler(h);
	ad->probes.fused.glue = positive(ad->probes.fused.probe - ad->probes.fused.headers) / (double)ad->probes.fused.included *
			 (double)ad->probes.fused.instances;
	ad->probes.fused_measured = true;
}

void probes_read(struct advise *ad)
{
	for (size_t g = 0; g < ad->probes.ngroups; g++) {
		struct probe_group *pg = &ad->probes.groups[g];
		const struct pass_tu *h = probed(ad, pg->headers_tu), *e = probed(ad, pg->empty_tu);
		pg->cost.headers = strvec_join(&pg->headers, ", ");
		pg->cost.command_of = xstrdup(ad->tus[pg->donor].f.name);
		if (pg->unread)
			continue;
		if (pg->narrow && !h && e) {
			/* The framework on this include path has no narrower header
			 * (a vendored or older one): narrow does not apply, and the
			 * build has nothing wrong with it. */
			const struct pass_tu *failed = pg->headers_tu >= 0 ? &ad->probes.pass.tus[pg->headers_tu] : NULL;
			warn("%s's framework has no %s on its include path that compiles with its command (%s): narrow does "
			     "not apply", ad->tus[pg->donor].f.name, pg->cost.headers,
			     failed && failed->failure ? failed->failure : "its probe failed");
			continue;
		}
		if (!h || !e) {
			const struct pass_tu *failed = pg->headers_tu >= 0 ? &ad->probes.pass.tus[pg->headers_tu] : NULL;
			warn("%s alone do not compile with %s's command (%s): no saving from them", pg->cost.headers,
			     ad->tus[pg->donor].f.name, failed && failed->failure ? failed->failure : "its probe failed");
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
		if (p && p->wall.median > 0 && ad->base.seconds[t->f.edge] > 0)
			ratios[nratios++] = t->f.scale = ad->base.seconds[t->f.edge] / p->wall.median;
	}
	double typical = nratios ? median_of(ratios, nratios) : 1;
	free(ratios);
	for (size_t i = 0; i < ad->ntus; i++) {
		struct advise_tu *t = &ad->tus[i];
		if (isnan(t->f.scale))
			t->f.scale = typical;
		if (t->narrow_group >= 0 && ad->probes.groups[t->narrow_group].measured)
			t->f.narrow = &ad->probes.groups[t->narrow_group].cost;
		if (t->umbrella) {
			t->f.narrow_at = t->narrow_at;
			t->f.narrow_change = t->narrow.change;
			t->f.narrow_why_not = t->narrow.why_not;
		}
		if (t->group >= 0 && ad->probes.groups[t->group].measured) {
			t->f.cost = &ad->probes.groups[t->group].cost;
			t->f.cost_lo = ad->probes.groups[t->group].cost_lo;
			t->f.cost_hi = ad->probes.groups[t->group].cost_hi;
			tu_facts_cap_scale(&t->f, ad->base.seconds[t->f.edge]);
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
			const struct pass_tu *h = t->group >= 0 ? probed(ad, ad->probes.groups[t->group].headers_tu) : NULL;
			if (t->f.generated && h)
				t->f.glue = positive(pass_tu_side(p, PASS_HOST) - pass_tu_side(h, PASS_HOST));
		}
		if (t->f.generated && ad->probes.fused_measured)
			t->f.glue = ad->probes.fused.glue / (double)ad->probes.fused.instances;
		const struct pass_tu *map = probed(ad, t->table_tu), *flat = probed(ad, t->flat_tu);
		if (map && flat)
			t->f.table_saving = map->wall.median - flat->wall.median;
	}
}

void probes_free(struct advise_probes *p)
{
	for (size_t g = 0; g < p->ngroups; g++) {
		free(p->groups[g].key);
		free(p->groups[g].source);
		strvec_clear(&p->groups[g].headers);
		free(p->groups[g].cost.headers);
		free(p->groups[g].cost.command_of);
	}
	free(p->groups);
	pass_probe_free(&p->pass);
}
