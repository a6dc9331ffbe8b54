/* pch: the framework headers that several host TUs parse, built once as a
 * precompiled header with one TU's own command (gcc's .gch, clang's
 * -emit-pch), and each TU compiled with it included first. What it costs
 * and saves is measured, not assumed: the PCH's build timed (its wall,
 * peak memory and size), and every TU that would use it compiled as the
 * build compiles it, with -include of the PCH and without, side by side
 * in the probes' pool (-Werror=invalid-pch: a PCH the compiler would not
 * take fails, and says why). In the model its build is a step before every
 * TU that uses it, so it pays where its users outnumber the jobs (their
 * savings add up along each slot) and not where it delays the critical
 * path more than it saves. nvcc and hipcc TUs are not probed, nor a PCH
 * whose every user a proven edit (leak's, narrow's) narrows: it would be
 * of headers none includes once the patch is applied. */
#define _GNU_SOURCE
#include "rule.h"
#include "rule_kit.h"
#include "walk.h"
#include "pass_probe.h"
#include "proc.h"
#include "progress.h"
#include "stats.h"
#include "steps.h"
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A fix that takes the framework out of a TU's host pass, or narrows
 * its headers, leaves the PCH of them nothing to save there. */
#define PCH_EXCLUDED_BY (PART_HOST | PART_NARROW)
/* One PCH per framework group of host TUs, at most this many. */
#define PCH_GROUPS_MAX 8
/* Users of one PCH at most, and of them the ones compiled with and
 * without it, the heaviest first: the rest (one command, one set of
 * headers) carry their median saving. Each pair is two more compiles of
 * a TU a round; a module of many dispatcher TUs would pay a build for
 * them. */
#define PCH_USERS_MAX 64
/* A framework a TU parses in fewer lines than this is not worth a PCH's
 * probes (tens of thousands of lines parse in well under a second); the
 * demo's stand-in torch is 117K lines, torch's own umbrella 300K+. */
#define PCH_MIN_LINES 20000
#define PCH_USERS_MEASURED 2

struct pch_user {
	size_t tu;		/* index into the walk's TUs */
	bool measured;		/* compiled with and without it; else it carries the others' median */
	long plain, with;	/* its probes in the pass probe; -1: read back */
	/* Probed walls, median, least and most; with_s NaN: it failed */
	double plain_s, plain_lo, plain_hi, with_s, with_lo, with_hi;
	char *error;		/* the compile with the PCH: its first error line */
};

struct pch_group {
	size_t donor;		/* the TU whose command builds it */
	char *headers;		/* "<torch/extension.h>" */
	char *step;		/* the build step it adds: "the PCH of <…> (new)" */
	char *error;		/* its build's first error line; NULL: built */
	double build_s, build_lo, build_hi;	/* its build's wall: median, least, most */
	double peak_mb, size_mb;	/* its build's peak RSS, and the PCH's size */
	struct pch_user *users;
	size_t nusers;
};

struct pch_evidence {
	struct pch_group *groups;
	size_t ngroups;
	size_t host_tus;	/* host TUs of gcc or clang that parse a framework */
	size_t device_tus;	/* TUs with device passes that parse one: not probed */
	size_t small_tus;	/* host TUs whose framework is under PCH_MIN_LINES: not probed */
	size_t narrowed_tus;	/* users of a PCH that an edit proven on a copy narrows, every one: not probed */
	size_t most_lines;	/* the most framework lines such a TU parses */
};

static bool host_compiler(enum compiler c)
{
	return c == COMPILER_GCC || c == COMPILER_CLANG;
}

/* The TU's command as the build runs it, outputs in the temp dir, and
 * `extra` words after it. */
static struct compile_command tu_command(struct advise *ad, const struct advise_tu *t, const char *sub,
					 const char *const *extra)
{
	struct compile_command cmd = { 0 };
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmd, &ad->stripped);
	for (size_t k = 0; extra && extra[k]; k++)
		strvec_push(&cmd.argv, extra[k]);
	return cmd;
}

/* What a PCH is included by: gcc finds X.gch beside X, clang is told. */
static void include_words(enum compiler c, const char *header, const char *pch, const char *words[6])
{
	if (c == COMPILER_CLANG) {
		words[0] = "-include-pch", words[1] = pch, words[2] = NULL;
		return;
	}
	words[0] = "-include", words[1] = header, words[2] = "-Winvalid-pch", words[3] = "-Werror=invalid-pch";
	words[4] = NULL;
}

/* The donor's command compiling `header` into `pch`: -x c++-header before
 * it, its -o sent to the PCH. False when it names no source as ninja does. */
static bool pch_command(struct advise *ad, const struct advise_tu *donor, const char *sub, const char *header,
			const char *pch, struct compile_command *cmd)
{
	if (!probe_command(ad, donor, sub, header, cmd))
		return false;
	struct strvec argv = { 0 };
	bool output = false;
	for (size_t k = 0; k < cmd->argv.n; k++) {
		const char *a = cmd->argv.v[k];
		if (!strcmp(a, header)) {
			strvec_push(&argv, "-x");
			strvec_push(&argv, "c++-header");
		}
		if (!strcmp(a, "-o") && k + 1 < cmd->argv.n) {
			strvec_push(&argv, "-o");
			strvec_push(&argv, pch);
			k++;
			output = true;
			continue;
		}
		strvec_push(&argv, a);
	}
	if (!output) {
		strvec_push(&argv, "-o");
		strvec_push(&argv, pch);
	}
	strvec_clear(&cmd->argv);
	cmd->argv = argv;
	return true;
}

/* Build the group's PCH now (it must exist before its users compile):
 * one run, two with repeats (it is the longest compile of the walk, and
 * its spread the machine's). */
static void build_pch(struct advise *ad, struct pch_group *g, const struct compile_command *cmd, const char *pch)
{
	long runs = ad->repeats > 1 ? 2 : 1;
	double walls[2];
	char *log = xasprintf("%s.log", pch);
	for (long r = 0; r < runs; r++) {
		struct proc p = { .argv = cmd->argv.v, .env_extra = cmd->env.v, .cwd = ad->dir, .out_path = log,
				  .timeout_s = ad->timeout };
		progress_set("pch: building %s with %s's command (run %ld of %ld)", g->headers, ad->tus[g->donor].f.name,
			     r + 1, runs);
		proc_run(&p);
		progress_clear();
		proc_exit_if_interrupted();
		if (!proc_succeeded(&p)) {
			g->error = file_first_error_line(log);
			if (!g->error)
				g->error = proc_failure(&p);
			break;
		}
		walls[r] = p.wall_s;
		g->peak_mb = fmax(g->peak_mb, (double)p.maxrss_kb / 1024);
	}
	remove(log);
	free(log);
	if (g->error)
		return;
	struct summary s = summarize(walls, (size_t)runs);
	g->build_s = s.median, g->build_lo = s.min, g->build_hi = s.max;
	struct stat st;
	g->size_mb = stat(pch, &st) ? NAN : (double)st.st_size / (1024 * 1024);
}

/* The TUs a group's PCH would serve: host TUs of gcc or clang that parse
 * the framework, in that header probe's group (one command shape, one
 * set of headers). */
static size_t group_users(struct advise *ad, size_t g, struct pch_evidence *ev, size_t *users)
{
	size_t n = 0;
	for (size_t i = 0; i < ad->ntus && n < PCH_USERS_MAX; i++) {
		const struct advise_tu *t = &ad->tus[i];
		if (t->group != (long)g || !t->f.host_framework)
			continue;
		if (t->f.device_passes) {
			ev->device_tus++;
			continue;
		}
		if (t->f.framework_lines < PCH_MIN_LINES) {
			ev->small_tus++;
			ev->most_lines = t->f.framework_lines > ev->most_lines ? t->f.framework_lines : ev->most_lines;
			continue;
		}
		users[n++] = i;
	}
	tus_heaviest_first(ad, users, n);	/* they are measured */
	return n;
}

static void *ask(struct advise *ad)
{
	struct pch_evidence *ev = xcalloc(1, sizeof(*ev));
	size_t *users = xcalloc(PCH_USERS_MAX, sizeof(size_t));
	for (size_t g = 0; g < ad->probes.ngroups && ev->ngroups < PCH_GROUPS_MAX; g++) {
		const struct probe_group *pg = &ad->probes.groups[g];
		if (pg->narrow)
			continue;
		size_t n = group_users(ad, g, ev, users);
		/* The compiler, from the command the build runs. */
		struct compile_command probe = tu_command(ad, &ad->tus[pg->donor], "pch-compiler", NULL);
		enum compiler c = probe.compiler;
		compile_command_clear(&probe);
		if (!n || !host_compiler(c))
			continue;
		ev->host_tus += n;
		if (n < 2)
			continue;
		/* Every user's framework narrowed by a proven edit: the PCH would be
		 * of headers none includes once the patch is applied. */
		size_t narrowed = 0;
		for (size_t k = 0; k < n; k++)
			narrowed += walk_edit_proves(ad, users[k]);
		if (narrowed == n) {
			ev->narrowed_tus += n;
			continue;
		}
		ev->groups = xrealloc(ev->groups, (ev->ngroups + 1) * sizeof(*ev->groups));
		struct pch_group *pch = &ev->groups[ev->ngroups++];
		*pch = (struct pch_group){ .donor = pg->donor, .headers = strvec_join(&pg->headers, ", ") };
		pch->step = xasprintf("the PCH of %s (new)", pch->headers);
		char *sub = xasprintf("pch-%zu", ev->ngroups - 1);
		char *dir = xasprintf("%s/%s", tmpdir_path(), sub);
		char *header = xasprintf("%s/framework.h", dir);
		char *pch_path = xasprintf("%s.%s", header, c == COMPILER_CLANG ? "pch" : "gch");
		if (mkdir(dir, 0700) && errno != EEXIST)
			die(EXIT_INTERNAL, "cannot make %s: %s", dir, strerror(errno));
		FILE *f = fopen(header, "w");
		if (!f)
			die(EXIT_INTERNAL, "cannot write %s: %s", header, strerror(errno));
		fputs("/* buildwall advise: the framework's headers, precompiled */\n", f);
		for (size_t h = 0; h < pg->headers.n; h++)
			fprintf(f, pg->headers.v[h][0] == '<' ? "#include %s\n" : "#include \"%s\"\n", pg->headers.v[h]);
		if (fclose(f))
			die(EXIT_INTERNAL, "cannot write %s: %s", header, strerror(errno));
		struct compile_command cmd;
		char *build_sub = xasprintf("%s-build", sub);
		if (pch_command(ad, &ad->tus[pg->donor], build_sub, header, pch_path, &cmd)) {
			build_pch(ad, pch, &cmd, pch_path);
			compile_command_clear(&cmd);
		} else {
			pch->error = xstrdup("its command does not name its source as ninja does");
		}
		free(build_sub);
		for (size_t k = PCH_USERS_MEASURED; !pch->error && k < n; k++) {
			pch->users = xrealloc(pch->users, (pch->nusers + 1) * sizeof(*pch->users));
			pch->users[pch->nusers++] = (struct pch_user){ .tu = users[k], .plain = -1, .with = -1,
								       .plain_s = NAN, .with_s = NAN };
		}
		for (size_t k = 0; !pch->error && k < n && k < PCH_USERS_MEASURED; k++) {
			const struct advise_tu *t = &ad->tus[users[k]];
			const char *words[6];
			include_words(c, header, pch_path, words);
			char *plain_sub = xasprintf("%s-plain-%zu", sub, k), *with_sub = xasprintf("%s-with-%zu", sub, k);
			struct compile_command plain = tu_command(ad, t, plain_sub, NULL), with = tu_command(ad, t, with_sub, words);
			/* the pool starts the longest first; a TU with no time waits */
			double expected = isnan(ad->base.seconds[t->f.edge]) ? 0 : ad->base.seconds[t->f.edge];
			char *name = xasprintf("pch: %s without it", t->f.name);
			struct pass_tu *p = pass_probe_add(&ad->probes.pass, name, t->f.edge, &plain);
			p->walls_only = true;
			p->expect_s = expected;
			free(name);
			name = xasprintf("pch: %s with -include of it", t->f.name);
			p = pass_probe_add(&ad->probes.pass, name, t->f.edge, &with);
			p->walls_only = p->may_fail = true;
			p->expect_s = expected;
			free(name);
			pch->users = xrealloc(pch->users, (pch->nusers + 1) * sizeof(*pch->users));
			pch->users[pch->nusers++] = (struct pch_user){ .tu = users[k], .measured = true,
								       .plain = (long)ad->probes.pass.ntus - 2,
								       .with = (long)ad->probes.pass.ntus - 1 };
			free(plain_sub);
			free(with_sub);
		}
		free(pch_path);
		free(header);
		free(dir);
		free(sub);
	}
	free(users);
	return ev;
}

static void read_probes(struct advise *ad, void *evidence)
{
	struct pch_evidence *ev = evidence;
	for (size_t g = 0; g < ev->ngroups; g++) {
		struct pch_group *pch = &ev->groups[g];
		advise_held(&pch->build_s);
		advise_held(&pch->build_lo);
		advise_held(&pch->build_hi);
		for (size_t k = 0; k < pch->nusers; k++) {
			struct pch_user *u = &pch->users[k];
			if (!u->measured)
				continue;
			const struct pass_tu *with, *plain = probed_pair(ad, u->plain, u->with, &with, &u->error);
			u->plain_s = u->with_s = NAN;
			if (!plain)
				continue;
			u->plain_s = plain->wall.median, u->plain_lo = plain->wall.min, u->plain_hi = plain->wall.max;
			if (!with)
				continue;
			u->with_s = with->wall.median, u->with_lo = with->wall.min, u->with_hi = with->wall.max;
			double *held[] = { &u->plain_s, &u->plain_lo, &u->plain_hi, &u->with_s, &u->with_lo, &u->with_hi };
			for (size_t h = 0; h < sizeof(held) / sizeof(*held); h++)
				advise_held(held[h]);
		}
	}
}

/* ---- the model ---- */

static double saving_of(const struct pch_user *u)
{
	return isnan(u->with_s) || isnan(u->plain_s) || u->plain_s <= u->with_s ? 0 : u->plain_s - u->with_s;
}

static void apply(const struct advice_input *in, const void *evidence, struct fix *f)
{
	const struct pch_evidence *ev = evidence;
	if (!ev) {
		f->not_applicable = xstrdup("not measured (a document made before the pch rule)");
		return;
	}
	if (!ev->ngroups && ev->small_tus && !ev->host_tus) {
		f->not_applicable = xasprintf("the frameworks the %zu host TUs parse are small (at most %zu lines a TU, under "
					      "%d): a PCH of them would save little", ev->small_tus, ev->most_lines,
					      PCH_MIN_LINES);
		return;
	}
	if (!ev->ngroups && ev->narrowed_tus) {
		f->not_applicable = xasprintf("the framework of the %zu host TUs that would share a PCH is narrowed by an "
					      "edit proven on a copy of the sources: a PCH is of the headers left after "
					      "it (advise again once its patch is applied)", ev->narrowed_tus);
		return;
	}
	if (!ev->ngroups) {
		f->not_applicable = !ev->host_tus
			? xasprintf("no host TU of gcc or clang parses a framework%s", ev->device_tus
					? " (TUs with device passes are not probed)" : "")
			: xasprintf("each framework is parsed by one host TU a command (%zu in all): a PCH built for one TU "
				    "costs more than it saves", ev->host_tus);
		return;
	}
	struct strvec each = { 0 }, failed = { 0 };
	double least = 0, most = 0, sum = 0;
	size_t carried = 0;
	for (size_t g = 0; g < ev->ngroups; g++) {
		const struct pch_group *pch = &ev->groups[g];
		if (pch->error) {
			strvec_pushf(&failed, "the PCH of %s did not build with %s's command: %s", pch->headers,
				     in->tus[pch->donor].name, pch->error);
			continue;
		}
		double *measured = xcalloc(pch->nusers + 1, sizeof(double));
		size_t nmeasured = 0;
		for (size_t k = 0; k < pch->nusers; k++) {
			const struct pch_user *u = &pch->users[k];
			const struct tu_facts *t = &in->tus[u->tu];
			if (u->error) {
				strvec_pushf(&failed, "%s does not take it: %s", t->name, u->error);
				continue;
			}
			double s = saving_of(u);
			if (!u->measured || isnan(u->plain_s))
				continue;
			measured[nmeasured++] = s;
			if (s <= 0)
				continue;
			rule_add_tu(f, u->tu, s * t->scale);
			strvec_pushf(&each, "%s %.2f -> %.2f s", t->name, u->plain_s, u->with_s);
			sum += s;
			least += fmax(0, u->plain_lo - u->with_hi);
			most += fmax(0, u->plain_hi - u->with_lo);
		}
		/* The rest of the group carry the measured ones' median. */
		double typical = nmeasured ? median_of(measured, nmeasured) : 0;
		for (size_t k = 0; typical > 0 && k < pch->nusers; k++)
			if (!pch->users[k].measured) {
				rule_add_tu(f, pch->users[k].tu, typical * in->tus[pch->users[k].tu].scale);
				carried++;
			}
		free(measured);
	}
	char *fails = failed.n ? strvec_join(&failed, "; ") : NULL;
	if (!f->ntus) {
		f->not_applicable = fails ? xasprintf("no TU compiled faster with a PCH: %s", fails)
					  : xstrdup("no TU compiled faster with the PCH of its framework (measured)");
	} else {
		f->own_lo = least / sum;
		f->own_hi = most / sum;
		const struct pch_group *first = &ev->groups[0];
		char *list = strvec_join(&each, ", ");
		char *rest = carried ? xasprintf("; %zu more carry the median saving of those measured", carried)
				     : xstrdup("");
		char *narrowed = ev->narrowed_tus
			? xasprintf("; %zu host TU%s left out, a proven edit narrowing the framework of every one of "
				    "its group", ev->narrowed_tus, rule_plural(ev->narrowed_tus))
			: xstrdup("");
		f->evidence = xasprintf("%zu host TU%s parse %s; a PCH of it built with %s's command took %.2f s "
					"(%.0f MB peak, %.0f MB on disk); with -include of it: %s%s%s%s%s", f->ntus,
					rule_plural(f->ntus), first->headers, in->tus[first->donor].name, first->build_s,
					first->peak_mb, first->size_mb, list, rest, narrowed, fails ? "; " : "", fails ? fails : "");
		free(rest);
		free(narrowed);
		f->measured_by = xasprintf("the PCH built with the TU's own flags and timed; the %d heaviest TUs of its "
					   "command compiled as the build does, with -include of it (a PCH the compiler would "
					   "not take fails) and without, side by side in the probes' pool; each saving scaled "
					   "by its TU's baseline/probed wall; the PCH's build a step before every TU that uses "
					   "it", PCH_USERS_MEASURED);
		free(list);
	}
	free(fails);
	strvec_clear(&each);
	strvec_clear(&failed);
}

static bool group_uses(const struct pch_group *pch, size_t tu)
{
	for (size_t k = 0; k < pch->nusers; k++)
		if (pch->users[k].tu == tu)
			return true;
	return false;
}

/* Each PCH a step before the TUs that use it, where one still does (a
 * fix beside it that takes the framework out leaves it nothing). */
static void add_pch_steps(struct fix_edit *e)
{
	const struct pch_evidence *ev = e->in->evidence[FIX_PCH];
	size_t *edges = xcalloc(e->f->ntus + 1, sizeof(size_t));
	for (size_t g = 0; g < ev->ngroups; g++) {
		const struct pch_group *pch = &ev->groups[g];
		size_t n = 0;
		for (size_t i = 0; i < e->f->ntus; i++) {
			size_t tu = e->f->tus[i];
			if (group_uses(pch, tu) && !(e->parts[tu] & PCH_EXCLUDED_BY))
				edges[n++] = e->in->tus[tu].edge;
		}
		if (!n || pch->error)
			continue;
		double build = e->spread * pch->build_s * e->in->tus[pch->donor].scale;
		size_t node = model_add_before(e->m, edges, n, build);
		e->added[node - e->in->build->n] = pch->step;
	}
	free(edges);
}

/* When it pays: the work it saves against its build (less, and it pays
 * at no job count), then whether its build, a step before its users,
 * lowers the wall at this -j; and narrow's wall alone against its own,
 * where both apply. */
static void conclude(const struct advice_input *in, struct advice *a, struct fix *f)
{
	const struct pch_evidence *ev = in->evidence[FIX_PCH];
	double saved = 0, build = 0;
	for (size_t k = 0; k < f->ntus; k++)
		saved += f->saving[k];
	for (size_t g = 0; g < ev->ngroups; g++)
		if (!ev->groups[g].error)
			build += ev->groups[g].build_s * in->tus[ev->groups[g].donor].scale;
	char *pays = saved <= build
		? xasprintf("it saves %.1f s of work against %.1f s to build it: it pays at no job count", saved, build)
		: f->alone.wall < a->baseline.wall
		? xasprintf("it saves %.1f s of work against %.1f s to build it, and at -j %d the wall goes %.1f -> %.1f s",
			    saved, build, in->sched.jobs, a->baseline.wall, f->alone.wall)
		: f->alone.wall <= a->baseline.wall
		? xasprintf("it saves %.1f s of work against %.1f s to build it, but at -j %d the wall stays %.1f s: the "
			    "TUs it speeds do not set it", saved, build, in->sched.jobs, a->baseline.wall)
		: xasprintf("it saves %.1f s of work against %.1f s to build it, but at -j %d its build, a step before "
			    "the %zu TU%s, holds them up (the wall %.1f -> %.1f s): it pays with fewer jobs than TUs that "
			    "use it", saved, build, in->sched.jobs, f->ntus, rule_plural(f->ntus), a->baseline.wall,
			    f->alone.wall);
	const struct fix *narrow = &a->fixes[FIX_NARROW];
	char *vs = narrow->applies ? xasprintf("; narrowing the headers instead: %.1f s alone, %s", narrow->alone.wall,
					      narrow->alone.wall < f->alone.wall ? "narrow pays more" : "the PCH pays more")
				   : xstrdup("");
	char *words = xasprintf("%s; %s%s", f->evidence, pays, vs);
	free(pays);
	free(vs);
	free(f->evidence);
	f->evidence = words;
}

/* ---- saved and read back ---- */

/* The evidence as JSON: TUs by index (saved), or by name with each
 * saving (advise --json's entry: `ad` given). */
static json_t *evidence_json(const struct pch_evidence *ev, const struct advise *ad)
{
	json_t *groups = json_array();
	for (size_t g = 0; g < ev->ngroups; g++) {
		const struct pch_group *pch = &ev->groups[g];
		json_t *users = json_array();
		for (size_t k = 0; k < pch->nusers; k++) {
			const struct pch_user *u = &pch->users[k];
			json_t *o = json_pack("{s:o, s:o, s:o}", "plain_s", saved_triple_json(u->plain_s, u->plain_lo, u->plain_hi),
					      "with_s", saved_triple_json(u->with_s, u->with_lo, u->with_hi), "error",
					      u->error ? json_string(u->error) : json_null());
			json_object_set_new(o, "measured", json_boolean(u->measured));
			if (ad) {
				json_object_set_new(o, "target", json_string(ad->tus[u->tu].f.name));
				json_object_set_new(o, "saving_s", advise_json_number(u->error ? NAN : saving_of(u)));
			} else {
				json_object_set_new(o, "tu", json_integer((json_int_t)u->tu));
			}
			json_array_append_new(users, o);
		}
		json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o}", "headers", pch->headers, "error",
				      pch->error ? json_string(pch->error) : json_null(), "build_s",
				      saved_triple_json(pch->build_s, pch->build_lo, pch->build_hi), "peak_mb",
				      advise_json_number(pch->peak_mb), "size_mb", advise_json_number(pch->size_mb), "users", users);
		if (ad)
			json_object_set_new(o, "built_with", json_string(ad->tus[pch->donor].f.name));
		else
			json_object_set_new(o, "donor", json_integer((json_int_t)pch->donor));
		json_array_append_new(groups, o);
	}
	return groups;
}

static json_t *save(const void *evidence)
{
	const struct pch_evidence *ev = evidence;
	return json_pack("{s:o, s:I, s:I, s:I, s:I, s:I}", "groups", evidence_json(ev, NULL), "host_tus",
			 (json_int_t)ev->host_tus, "device_tus", (json_int_t)ev->device_tus, "small_tus",
			 (json_int_t)ev->small_tus, "most_lines", (json_int_t)ev->most_lines, "narrowed_tus",
			 (json_int_t)ev->narrowed_tus);
}

static void free_evidence(void *evidence)
{
	struct pch_evidence *ev = evidence;
	for (size_t g = 0; g < ev->ngroups; g++) {
		struct pch_group *pch = &ev->groups[g];
		for (size_t k = 0; k < pch->nusers; k++)
			free(pch->users[k].error);
		free(pch->users);
		free(pch->headers);
		free(pch->step);
		free(pch->error);
	}
	free(ev->groups);
	free(ev);
}

static bool load(const json_t *saved, const struct advise *ad, void **evidence, char **err)
{
	struct pch_evidence *ev = xcalloc(1, sizeof(*ev));
	*evidence = ev;
	json_t *groups = json_object_get(saved, "groups"), *host = json_object_get(saved, "host_tus"),
	       *device = json_object_get(saved, "device_tus");
	if (!json_is_array(groups) || !json_is_integer(host) || !json_is_integer(device) ||
	    json_integer_value(host) < 0 || json_integer_value(device) < 0 || json_array_size(groups) > PCH_GROUPS_MAX) {
		*err = xasprintf("not groups, host_tus and device_tus (at most %d groups)", PCH_GROUPS_MAX);
		return false;
	}
	ev->host_tus = (size_t)json_integer_value(host);
	ev->device_tus = (size_t)json_integer_value(device);
	/* absent from documents made before the line floor: none */
	json_t *small = json_object_get(saved, "small_tus"), *most = json_object_get(saved, "most_lines");
	ev->small_tus = json_is_integer(small) && json_integer_value(small) > 0 ? (size_t)json_integer_value(small) : 0;
	ev->most_lines = json_is_integer(most) && json_integer_value(most) > 0 ? (size_t)json_integer_value(most) : 0;
	/* and before the proven edits left a PCH out */
	json_t *narrowed = json_object_get(saved, "narrowed_tus");
	ev->narrowed_tus = json_is_integer(narrowed) && json_integer_value(narrowed) > 0
		? (size_t)json_integer_value(narrowed) : 0;
	ev->groups = xcalloc(json_array_size(groups) + 1, sizeof(*ev->groups));
	for (size_t g = 0; g < json_array_size(groups); g++) {
		json_t *o = json_array_get(groups, g), *donor = json_object_get(o, "donor"),
		       *users = json_object_get(o, "users");
		struct pch_group *pch = &ev->groups[ev->ngroups++];
		pch->headers = saved_text(json_object_get(o, "headers"));
		pch->error = saved_text(json_object_get(o, "error"));
		if (!json_is_integer(donor) || json_integer_value(donor) < 0 ||
		    (size_t)json_integer_value(donor) >= ad->ntus || !pch->headers || !json_is_array(users) ||
		    json_array_size(users) > PCH_USERS_MAX ||
		    !saved_triple(json_object_get(o, "build_s"), &pch->build_s, &pch->build_lo, &pch->build_hi) ||
		    !saved_number(json_object_get(o, "peak_mb"), &pch->peak_mb) ||
		    !saved_number(json_object_get(o, "size_mb"), &pch->size_mb)) {
			*err = xasprintf("groups[%zu]: not a PCH group (donor, headers, build_s, peak_mb, size_mb, users)", g);
			return false;
		}
		pch->donor = (size_t)json_integer_value(donor);
		pch->step = xasprintf("the PCH of %s (new)", pch->headers);
		pch->users = xcalloc(json_array_size(users) + 1, sizeof(*pch->users));
		for (size_t k = 0; k < json_array_size(users); k++) {
			json_t *u = json_array_get(users, k), *tu = json_object_get(u, "tu");
			struct pch_user pu = { .plain = -1, .with = -1, .measured = !json_is_false(json_object_get(u, "measured")) };
			if (!json_is_integer(tu) || json_integer_value(tu) < 0 || (size_t)json_integer_value(tu) >= ad->ntus ||
			    !saved_triple(json_object_get(u, "plain_s"), &pu.plain_s, &pu.plain_lo, &pu.plain_hi) ||
			    !saved_triple(json_object_get(u, "with_s"), &pu.with_s, &pu.with_lo, &pu.with_hi)) {
				*err = xasprintf("groups[%zu].users[%zu]: not a TU with its walls (tu, plain_s, with_s)", g, k);
				return false;
			}
			pu.tu = (size_t)json_integer_value(tu);
			/* a TU includes one PCH: a second use would count its saving twice */
			for (size_t h = 0; h <= g; h++)
				if (group_uses(&ev->groups[h], pu.tu)) {
					*err = xasprintf("groups[%zu].users[%zu]: TU %zu uses a PCH already", g, k, pu.tu);
					return false;
				}
			pu.error = saved_text(json_object_get(u, "error"));
			pch->users[pch->nusers++] = pu;
		}
	}
	return true;
}

/* advise --json's pch entry: each PCH and its TUs by name. */
static json_t *document(const void *evidence, const struct advise *ad)
{
	return evidence_json(evidence, ad);
}

static const struct rule_walk walk = {
	.ask = ask,
	.read = read_probes,
	.save = save,
	.load = load,
	.document = document,
	.free = free_evidence,
};

const struct fix_rule rule_pch = {
	.name = "pch",
	.title = "a precompiled header of the framework, built once and included first by the TUs that parse it",
	.excluded_by = PCH_EXCLUDED_BY,
	.apply = apply,
	.edit_graph = add_pch_steps,
	.conclude = conclude,
	.reads_cost = rule_reads_no_cost,
	.walk = &walk,
};
