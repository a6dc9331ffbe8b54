#define _GNU_SOURCE
#include "edit_probe.h"
#include "walk.h"
#include "rule.h"
#include "rule_kit.h"
#include "headers.h"
#include "line_patch.h"
#include "abstats.h"
#include "load_probe.h"
#include "narrow.h"
#include "preprocess.h"
#include "progress.h"
#include "stats.h"
#include "steps.h"
#include "tmpdir.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the sites and the copy ---- */

static struct edit_site *site_of(struct edit_evidence *ev, const char *file, unsigned long line)
{
	for (size_t s = 0; s < ev->nsites; s++)
		if (ev->sites[s].line == line && !strcmp(ev->sites[s].file, file))
			return &ev->sites[s];
	return NULL;
}

/* Each TU's line, as a file under the root; TUs that share a line share
 * its site. */
static void find_sites(struct advise *ad, struct edit_evidence *ev, const size_t *tus,
		       const struct include_site *const *lines, size_t ntus)
{
	for (size_t k = 0; k < ntus; k++) {
		char *joined = path_in(ad->dir, lines[k]->file), *real = realpath(joined, NULL);
		const char *rel = real ? path_below(real, ev->root) : NULL;
		if (rel && *rel && ev->nsites < EDIT_SITES_MAX) {
			struct edit_site *s = site_of(ev, rel, lines[k]->line);
			if (!s) {
				ev->sites = xrealloc(ev->sites, (ev->nsites + 1) * sizeof(*ev->sites));
				s = &ev->sites[ev->nsites++];
				*s = (struct edit_site){ .file = xstrdup(rel), .line = lines[k]->line,
							 .header = xstrdup(lines[k]->header), .chosen = -1 };
			}
			/* The first trial starts with a TU that has the framework only
			 * through the line (it includes none itself): the line removed,
			 * that one fails where the others may compile. */
			if (s->ntus && ad->tus[s->tus[s->fails_first]].f.includes_framework &&
			    !ad->tus[tus[k]].f.includes_framework)
				s->fails_first = s->ntus;
			s->tus = xrealloc(s->tus, (s->ntus + 1) * sizeof(size_t));
			s->tus[s->ntus++] = tus[k];
		}
		free(real);
		free(joined);
	}
}

/* The line as the copy holds it. */
static char *line_text(const struct source_copy *sc, const char *file, unsigned long line)
{
	char *path = xasprintf("%s/%s", sc->dir, file), *text = read_text_file(path), *found = NULL;
	free(path);
	const char *at = text;
	for (unsigned long k = 1; at && k < line; k++) {
		at = strchr(at, '\n');
		at = at ? at + 1 : NULL;
	}
	if (at)
		found = xstrndup(at, strcspn(at, "\r\n"));
	free(text);
	return found;
}

/* ---- the candidates: their headers, and what each preprocesses to ---- */

/* A header's probe with a TU's command: "#include H" preprocessed as its
 * host pass (-H: with the tree of what it includes, on stderr). */
struct header_run {
	const char *header;
	char *dir, *source, *log;
	struct compile_command cmd;
	struct pp_plan plan;
	bool planned, started, failed;
	bool entry;		/* one of the framework's known entry headers */
	double lines;
};

static void plan_header_run(struct advise *ad, const struct advise_tu *donor, struct header_run *r, const char *name)
{
	r->dir = tmpdir_subdir(name);
	r->source = xasprintf("%s/probe.cpp", r->dir);
	r->log = xasprintf("%s/probe.log", r->dir);
	r->lines = NAN;
	FILE *f = fopen(r->source, "w");
	if (!f)
		die(EXIT_INTERNAL, "cannot write %s: %s", r->source, strerror(errno));
	fprintf(f, "#include %s\n", r->header);
	fclose(f);
	char *err = NULL, *sub = xasprintf("%s-out", name);
	if (probe_command(ad, donor, sub, r->source, &r->cmd)) {
		r->planned = preprocess_plan(&r->cmd, ad->dir, false, r->dir, r->log, ad->timeout, &r->plan, &err);
		free(err);
		if (r->planned)
			strvec_push(&r->plan.v[0].argv, "-H");
	}
	free(sub);
}

struct header_runs {
	struct header_run **v;	/* NULL-terminated */
	const char *cwd;
	double timeout;
};

static long next_header_run(void *ctx, struct proc *p)
{
	struct header_runs *rs = ctx;
	for (size_t i = 0; rs->v[i]; i++) {
		struct header_run *r = rs->v[i];
		if (!r->planned || r->started)
			continue;
		r->started = true;
		*p = (struct proc){ .argv = r->plan.v[0].argv.v, .env_extra = r->plan.v[0].env.v, .cwd = rs->cwd,
				    .err_path = r->log, .timeout_s = rs->timeout };
		return (long)i;
	}
	return -1;
}

static double count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NAN;
	char buf[65536];
	size_t n;
	double lines = 0;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	fclose(f);
	return lines;
}

static void header_run_done(void *ctx, long task, struct proc *p)
{
	struct header_run *r = ((struct header_runs *)ctx)->v[task];
	r->failed = !proc_succeeded(p);
	if (!r->failed)
		r->lines = count_lines(r->plan.v[0].output);
	remove(r->plan.v[0].output);
}

/* The planned runs (NULL-terminated), as many at once as probes. */
static void run_headers(struct advise *ad, struct header_run **runs)
{
	struct header_runs rs = { .v = runs, .cwd = ad->dir, .timeout = ad->timeout };
	struct proc_pool pool = { .next = next_header_run, .finished = header_run_done, .ctx = &rs };
	proc_run_parallel(ad->parallel, &pool);
	proc_exit_if_interrupted();
	for (size_t i = 0; runs[i]; i++)
		runs[i]->failed |= !runs[i]->planned;
}

/* The files a -H log lists (". path" lines), sorted: what the compile
 * opened, up to its first error where it failed. */
static void read_opened(const char *log, struct strvec *files)
{
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0;
	while (f && getline(&line, &cap, f) > 0) {
		const char *path = include_tree_line(line, NULL);
		if (path)
			strvec_push(files, path);
	}
	free(line);
	if (f)
		fclose(f);
	strvec_sort(files);
}

static void header_run_free(struct header_run *r)
{
	if (r->planned)
		pp_plan_free(&r->plan);
	compile_command_clear(&r->cmd);
	if (r->dir)
		remove_tree(r->dir);
	free(r->dir);
	free(r->source);
	free(r->log);
}

/* The headers two and three levels below the umbrella in its -H tree
 * that belong to its group, as an #include spells them. */
static void tree_headers(const struct header_run *r, const char *cwd, struct strvec *out)
{
	FILE *f = fopen(r->log, "r");
	if (!f)
		return;
	struct header_groups groups;
	header_groups_init(&groups);
	struct header_context ctx;
	header_context_init(&ctx, cwd, r->source, NULL, &r->plan.v[0].user_dirs, &r->plan.v[0].system_dirs);
	char *line = NULL;
	size_t cap = 0;
	long umbrella_group = -1;
	size_t depth;
	while (getline(&line, &cap, f) > 0) {
		const char *path = include_tree_line(line, &depth);
		if (!path || depth > 3)
			continue;
		long group = (long)header_classify(&groups, &ctx, path, true);
		if (depth == 1) {
			umbrella_group = umbrella_group < 0 ? group : umbrella_group;
			continue;
		}
		char *spelled = header_display(&ctx, path, true, false);
		if (group == umbrella_group && spelled[0] == '<' && !strvec_contains(out, spelled))
			strvec_push(out, spelled);
		free(spelled);
	}
	free(line);
	fclose(f);
	header_context_free(&ctx);
	header_groups_free(&groups);
}

/* The line removed, the known entry headers, then the tree's; each
 * cheapest first. The entries are whole APIs a TU may need part of;
 * the tree's cheapest are parts (a version header, one API's options)
 * that code which needs one of those rarely compiles with. */
static int by_kind_then_lines(const void *a, const void *b)
{
	const struct edit_candidate *x = a, *y = b;
	if (x->entry != y->entry)
		return x->entry ? -1 : 1;
	return (x->lines > y->lines) - (x->lines < y->lines);
}

/* What a site's candidates are drawn from: the header's own lines (NaN:
 * its probe failed) and the headers of its tree, preprocessed only when
 * the entries all failed (each is a preprocess of part of the framework). */
struct candidate_source {
	double lines;
	struct strvec tree;
	size_t added;	/* headers preprocessed so far: their runs' names */
};

/* The runs of names' headers (but the site's own) with the site's
 * command, planned into runs (room for names->n); how many. */
static size_t plan_candidates(struct advise *ad, struct edit_evidence *ev, struct edit_site *s,
			      struct candidate_source *src, const struct strvec *names, bool entry, struct header_run *runs)
{
	size_t n = 0;
	for (size_t k = 0; k < names->n; k++)
		if (strcmp(names->v[k], s->header)) {
			runs[n] = (struct header_run){ .header = names->v[k], .entry = entry };
			char *name = xasprintf("%s-%zu-header-%zu", ev->rule, (size_t)(s - ev->sites), src->added++);
			plan_header_run(ad, &ad->tus[s->tus[0]], &runs[n], name);
			free(name);
			n++;
		}
	return n;
}

/* Each run that gives fewer lines than the header itself becomes a
 * candidate, appended cheapest first; the runs freed. */
static void take_candidates(struct edit_site *s, const struct candidate_source *src, struct header_run *runs, size_t n)
{
	size_t first = s->ncands;
	s->cands = xrealloc(s->cands, (s->ncands + n + 1) * sizeof(*s->cands));
	for (size_t k = 0; k < n; k++) {
		if (!runs[k].failed && !isnan(runs[k].lines) && (isnan(src->lines) || runs[k].lines < src->lines)) {
			struct edit_candidate *c = &s->cands[s->ncands++];
			*c = (struct edit_candidate){ .header = xstrdup(runs[k].header), .lines = runs[k].lines,
						      .entry = runs[k].entry };
			read_opened(runs[k].log, &c->opens);
		}
		header_run_free(&runs[k]);
	}
	qsort(s->cands + first, s->ncands - first, sizeof(*s->cands), by_kind_then_lines);
}

/* The tree's headers, once every entry header failed: preprocessed, the
 * candidates among them appended. */
static void add_candidates(struct advise *ad, struct edit_evidence *ev, struct edit_site *s,
			   struct candidate_source *src, const struct strvec *names)
{
	struct header_run *runs = xcalloc(names->n + 1, sizeof(*runs));
	struct header_run **order = xcalloc(names->n + 1, sizeof(*order));
	size_t n = plan_candidates(ad, ev, s, src, names, false, runs);
	for (size_t k = 0; k < n; k++)
		order[k] = &runs[k];
	progress_set("advise: what %zu headers narrower than %s cost", n, s->header);
	run_headers(ad, order);
	progress_clear();
	take_candidates(s, src, runs, n);
	free(runs);
	free(order);
}

/* The line removed, then the known narrower headers, each that
 * preprocesses to fewer lines than the header itself, cheapest first;
 * the header's tree kept in src for later. The header itself (with -H:
 * its tree) and the entries are preprocessed in one pool. */
static void find_candidates(struct advise *ad, struct edit_evidence *ev, struct edit_site *s,
			    struct candidate_source *src)
{
	struct strvec entries = { 0 };
	for (size_t k = 0; narrow_is_umbrella(s->header) && narrow_entries[k]; k++)
		strvec_push(&entries, narrow_entries[k]);
	*src = (struct candidate_source){ 0 };
	struct header_run *runs = xcalloc(entries.n + 2, sizeof(*runs)), *umbrella = &runs[entries.n];
	struct header_run **order = xcalloc(entries.n + 2, sizeof(*order));
	char *name = xasprintf("%s-%zu-header", ev->rule, (size_t)(s - ev->sites));
	*umbrella = (struct header_run){ .header = s->header };
	plan_header_run(ad, &ad->tus[s->tus[0]], umbrella, name);
	free(name);
	size_t n = plan_candidates(ad, ev, s, src, &entries, true, runs);
	order[0] = umbrella;	/* the longest first */
	for (size_t k = 0; k < n; k++)
		order[k + 1] = &runs[k];
	progress_set("advise: what %s and %zu narrower headers cost", s->header, n);
	run_headers(ad, order);
	progress_clear();
	src->lines = umbrella->failed ? NAN : umbrella->lines;
	struct strvec tree = { 0 };
	if (!umbrella->failed)
		tree_headers(umbrella, ad->dir, &tree);
	for (size_t k = 0; k < tree.n; k++)
		if (!strvec_contains(&entries, tree.v[k]))
			strvec_push(&src->tree, tree.v[k]);
	header_run_free(umbrella);
	s->cands = xcalloc(1, sizeof(*s->cands));
	s->cands[s->ncands++] = (struct edit_candidate){ .lines = 0, .entry = true };
	take_candidates(s, src, runs, n);
	strvec_clear(&tree);
	strvec_clear(&entries);
	free(runs);
	free(order);
}

/* ---- the trials: a candidate compiled with every TU of its site ---- */

/* t's command as the build runs it, reading `copy`, outputs in the temp
 * dir; with `check`, only as far as its first error (gcc and clang: a
 * syntax check; other compilers compile). */
static struct compile_command copy_command(struct advise *ad, const struct advise_tu *t, const struct source_copy *copy,
					   const char *sub, bool check)
{
	struct compile_command cmd = { 0 };
	steps_prepare(ad->dir, &ad->build.edges[t->f.edge], sub, &cmd, &ad->stripped);
	source_copy_command(copy, ad->dir, &cmd.argv);
	if (check && cmd.compiler == COMPILER_GCC) {
		strvec_push(&cmd.argv, "-fsyntax-only");
		strvec_push(&cmd.argv, "-fmax-errors=1");
	} else if (check && cmd.compiler == COMPILER_CLANG) {
		strvec_push(&cmd.argv, "-fsyntax-only");
		strvec_push(&cmd.argv, "-ferror-limit=1");
	}
	return cmd;
}

/* The trials of a site's candidates first..first+count-1, in one pool:
 * candidate j's compile of the site's TU k is task j * ntus + k. */
struct trials {
	struct advise *ad;
	struct edit_evidence *ev;
	struct edit_site *s;
	size_t first, count;
	struct source_copy *copies;	/* made as a candidate's first TU starts */
	bool *started;			/* per task */
	size_t *passed;			/* per candidate: its TUs that compiled */
	bool *failed;			/* per candidate: one of its TUs failed (or its copy) */
	bool removed_lists;		/* the line removed compiles with -H: the rest wait for it */
	struct compile_command *cmds;	/* per task, while it runs */
	char **logs;
};

static size_t trial_of(const struct trials *ts, size_t j, size_t k)
{
	return j * ts->s->ntus + k;
}

/* Candidate j of the window compiled with all its TUs. */
static bool trial_won(const struct trials *ts, size_t j)
{
	return ts->passed[j] == ts->s->ntus;
}

/* Candidate j can no longer win: it failed, or one before it compiled. */
static bool trial_moot(const struct trials *ts, size_t j)
{
	for (size_t i = 0; i < j; i++)
		if (trial_won(ts, i))
			return true;
	return ts->failed[j];
}

/* Candidate j on a copy of its own: false with its error when the copy
 * cannot be made or edited. */
static bool copy_for(struct trials *ts, size_t j)
{
	struct edit_candidate *cand = &ts->s->cands[ts->first + j];
	char *name = xasprintf("%s-%zu-%zu", ts->ev->rule, (size_t)(ts->s - ts->ev->sites), ts->first + j), *err = NULL;
	char *with = cand->header ? xasprintf("#include %s", cand->header) : NULL;
	bool ok = source_copy_clone(&ts->ev->pristine, name, &ts->copies[j], &err) &&
		  source_copy_edit(&ts->copies[j], ts->s->file, ts->s->line, with, &err);
	if (!ok)
		cand->error = err;
	free(with);
	free(name);
	return ok;
}

/* The first candidate in order that can still win and has a TU to start;
 * of its TUs, the one that failed the last candidate first. The line
 * removed, where its compiler lists what it opens (-H), runs before any
 * other: where it fails, that tells which fail as it did
 * (fail_as_removed, here and in later windows), and those are not
 * compiled. */
static long next_trial(void *ctx, struct proc *p)
{
	struct trials *ts = ctx;
	struct edit_site *s = ts->s;
	for (size_t j = 0; j < ts->count; j++) {
		if (j == 1 && ts->removed_lists && !ts->failed[0])
			break;
		if (trial_moot(ts, j))
			continue;
		for (size_t n = 0; n < s->ntus; n++) {
			size_t k = (n + s->fails_first) % s->ntus, i = trial_of(ts, j, k);
			if (ts->started[i])
				continue;
			if (!ts->copies[j].dir && !copy_for(ts, j)) {
				ts->failed[j] = s->cands[ts->first + j].tried = true;
				break;
			}
			ts->started[i] = true;
			char *sub = xasprintf("%s-%zu-%zu-tu-%zu", ts->ev->rule, (size_t)(s - ts->ev->sites), ts->first + j, k);
			ts->cmds[i] = copy_command(ts->ad, &ts->ad->tus[s->tus[k]], &ts->copies[j], sub, true);
			if (!s->cands[ts->first + j].header &&
			    (ts->cmds[i].compiler == COMPILER_GCC || ts->cmds[i].compiler == COMPILER_CLANG)) {
				strvec_push(&ts->cmds[i].argv, "-H");	/* what the line removed opens */
				ts->removed_lists = true;
			}
			ts->logs[i] = xasprintf("%s/%s.log", tmpdir_path(), sub);
			free(sub);
			*p = (struct proc){ .argv = ts->cmds[i].argv.v, .env_extra = ts->cmds[i].env.v, .cwd = ts->ad->dir,
					    .out_path = ts->logs[i], .timeout_s = ts->ad->timeout };
			return (long)i;
		}
	}
	return -1;
}

/* Where the line removed failed, at its first error, having opened the
 * files its -H listed: a candidate of the window whose header opens none
 * but those adds no declaration that compile lacked, so it fails there
 * too; it is not compiled (its compiles stop), and says so. A header opens
 * alone what it opens anywhere, or less where the TU opened some of it
 * first. */
static void fail_as_removed(struct trials *ts)
{
	const struct edit_site *s = ts->s;
	for (size_t j = 0; j < ts->count && s->removed_opened.n; j++) {
		struct edit_candidate *c = &s->cands[ts->first + j];
		if (!c->header || !c->opens.n || ts->failed[j] || trial_won(ts, j))
			continue;
		size_t in = 0;
		while (in < c->opens.n && strvec_sorted_has(&s->removed_opened, c->opens.v[in]))
			in++;
		if (in < c->opens.n)
			continue;
		ts->failed[j] = true;
		c->error = xasprintf("%s: not compiled: the line removed failed, having opened every file %s opens (-H)",
				     ts->ad->tus[s->tus[s->removed_on]].f.name, c->header);
	}
}

/* A compile that ended: a candidate is tried once it compiled with all
 * its TUs or one failed, its first failure saying the TU and the
 * compiler's first error line (a compile stopped as moot says nothing). */
static void trial_done(void *ctx, long task, struct proc *p)
{
	struct trials *ts = ctx;
	size_t i = (size_t)task, j = i / ts->s->ntus, k = i % ts->s->ntus;
	struct edit_candidate *cand = &ts->s->cands[ts->first + j];
	if (proc_succeeded(p)) {
		ts->passed[j]++;
		cand->tried |= trial_won(ts, j);
	} else if (!trial_moot(ts, j)) {
		ts->failed[j] = cand->tried = true;
		char *error = file_first_error_line(ts->logs[i]);
		if (!error)
			error = proc_failure(p);
		cand->error = xasprintf("%s: %s", ts->ad->tus[ts->s->tus[k]].f.name, error);
		ts->s->fails_first = k;
		free(error);
		if (!cand->header && WIFEXITED(p->status)) {
			read_opened(ts->logs[i], &ts->s->removed_opened);
			ts->s->removed_on = k;
			fail_as_removed(ts);
		}
	}
	remove(ts->logs[i]);
	free(ts->logs[i]);
	ts->logs[i] = NULL;
	compile_command_clear(&ts->cmds[i]);
}

static bool trial_stopped(void *ctx, long task)
{
	struct trials *ts = ctx;
	return trial_moot(ts, (size_t)task / ts->s->ntus);
}

/* Candidates first..first+count-1, each compiled with every TU of the site
 * on a copy of its own, all in one pool: the first candidate in order that
 * can still win starts its next TU whenever a slot is free, so where the
 * site's TUs leave slots idle the next candidates fill them. The first in
 * order that compiled with all its TUs wins (its index; -1: none did);
 * each that failed says the first TU that did not. The TU that failed the
 * last candidate goes first, no TU of a candidate starts after one of it
 * failed, and the compiles of one that can no longer win (it failed, or
 * one before it won) are stopped: a failing candidate costs about one
 * compile, a candidate after the winner at most the winner's. One stopped
 * before its verdict is not tried. */
static long try_candidates(struct advise *ad, struct edit_evidence *ev, struct edit_site *s, size_t first, size_t count)
{
	size_t tasks = count * s->ntus;
	struct trials ts = { .ad = ad, .ev = ev, .s = s, .first = first, .count = count,
			     .copies = xcalloc(count, sizeof(struct source_copy)),
			     .started = xcalloc(tasks, sizeof(bool)), .passed = xcalloc(count, sizeof(size_t)),
			     .failed = xcalloc(count, sizeof(bool)), .cmds = xcalloc(tasks, sizeof(struct compile_command)), .logs = xcalloc(tasks, sizeof(char *)) };
	fail_as_removed(&ts);	/* a window after the line removed's */
	const struct edit_candidate *c = &s->cands[first];
	progress_set("advise: %s:%lu with %s%s, compiling its %zu TU%s", s->file, s->line,
		     c->header ? c->header : "the line removed", count > 1 ? " and the next" : "", s->ntus,
		     s->ntus == 1 ? "" : "s");
	struct proc_pool pool = { .next = next_trial, .finished = trial_done, .moot = trial_stopped, .ctx = &ts };
	proc_run_parallel(ad->parallel, &pool);
	progress_clear();
	proc_exit_if_interrupted();
	long won = -1;
	for (size_t j = 0; j < count; j++) {
		if (won < 0 && trial_won(&ts, j)) {
			won = (long)(first + j);
			s->edited = ts.copies[j];
			continue;
		}
		source_copy_free(&ts.copies[j]);
	}
	free(ts.copies);
	free(ts.started);
	free(ts.passed);
	free(ts.failed);
	free(ts.cmds);
	free(ts.logs);
	return won;
}

/* Whether the recorded builds ran the n TUs all at once and nothing else
 * beside any of them: every build that ran one of them ran all, each
 * beside every other, no other step beside one (false where none ran
 * them). For one TU: its build compiled it alone. */
static bool ran_as_group(const struct advise *ad, const size_t *tus, size_t n)
{
	const struct recent_builds *rb = &ad->base.recent;
	bool seen = false;
	bool *member = xcalloc(rb->edges + 1, sizeof(bool));
	for (size_t k = 0; k < n; k++)
		member[ad->tus[tus[k]].f.edge] = true;
	bool group = true;
	for (size_t b = 0; group && b < rb->n; b++) {
		const double *start = rb->start + b * rb->edges, *end = rb->end + b * rb->edges;
		size_t ran = 0;
		for (size_t k = 0; k < n; k++)
			ran += !isnan(start[ad->tus[tus[k]].f.edge]);
		if (!ran)
			continue;
		seen = true;
		group = ran == n;
		for (size_t k = 0; group && k < n; k++) {
			size_t e = ad->tus[tus[k]].f.edge;
			for (size_t o = 0; group && o < rb->edges; o++) {
				bool beside = o != e && !isnan(start[o]) && start[o] < end[e] && end[o] > start[e];
				group = member[o] ? o == e || beside : !beside;
			}
		}
	}
	free(member);
	return seen && group;
}

/* What wall w (the k-th heaviest of its site) is expected to take a side:
 * its TU's recorded seconds (edited, a TU loses headers: no longer) times
 * its first rounds (of its copies at once, for the walls before a round
 * only settles; one as built). All at once as built, the heaviest TU's
 * round stands for all. */
static void expect_rounds(const struct advise *ad, struct edit_wall *w, size_t k)
{
	double seconds = ad->base.seconds[ad->tus[w->tu].f.edge];
	size_t rounds = w->as_built ? 1 : (settle_first_walls(ad->repeats) + w->copies - 1) / w->copies;
	if (isnan(seconds) || (w->as_built && w->at_once > 1 && k > 0))
		seconds = 0;
	w->plain_ahead_s = w->edited_ahead_s = seconds * (double)rounds;
}

/* The winner's walls: the heaviest TUs, each timed as it is and edited
 * after the load curve, as copies side by side: a round of two copies of one,
 * then of the other (one each when the probes run one at a time), so each
 * wall sees the same neighbour all of its time, a copy of itself; two, not
 * the probes' parallel, so that a torch TU's 1.5 GB is not paid 16 times. Timed beside each other
 * instead, the shorter edited compile ran next to the plain one all its
 * time and the plain one alone for its tail, and the saving read low.
 * Where the build ran the site's TUs as a group of their own (ran_as_group)
 * and the probes have as many slots, they are timed as it ran them
 * (time_walls): all of them, a round of them all at once as they are,
 * then one of them edited (as many compiles at once, and as much memory,
 * as the build took); a TU its build compiled alone, alone. Two plain
 * copies slowed each other by 17-19 % on extension-cpp, two edited ones,
 * a third of the size, by 0-5 %, so their ratio read a saving that alone
 * is not; on a 16-CPU host pytorch_scatter's seven TUs, which its build
 * compiles at once, took three of its builds as two TUs' copies, one TU
 * after the other. The rest carry their median saving (saving_of). */
static void plan_walls(struct advise *ad, struct edit_evidence *ev, struct edit_site *s)
{
	size_t *order = xcalloc(s->ntus, sizeof(size_t));
	memcpy(order, s->tus, s->ntus * sizeof(size_t));
	tus_heaviest_first(ad, order, s->ntus);
	s->walls = xcalloc(s->ntus, sizeof(*s->walls));
	size_t copies = ad->probes.pass.parallel > 1 ? 2 : 1;
	bool group = s->ntus > 1 && s->ntus <= (size_t)ad->probes.pass.parallel && ran_as_group(ad, s->tus, s->ntus);
	size_t compiles = 0;	/* the build's, selected or not: the curve would model the rest */
	for (size_t i = 0; i < ad->build.n; i++)
		compiles += ninja_edge_is_compile(&ad->build.edges[i]);
	ad->load.timed_as_built |= group && s->ntus == compiles;
	for (size_t k = 0; k < s->ntus; k++) {
		struct edit_wall *w = &s->walls[s->nwalls++];
		*w = (struct edit_wall){ .tu = order[k], .plain_s = NAN, .edited_s = NAN, .recorded_s = NAN };
		if (k >= EDIT_MEASURED && !group)
			continue;
		const struct advise_tu *t = &ad->tus[order[k]];
		size_t site = (size_t)(s - ev->sites);
		w->measured = true;
		w->alone_in_build = !group && ran_as_group(ad, &order[k], 1);
		w->as_built = group || w->alone_in_build;
		w->copies = w->as_built ? 1 : copies;
		w->at_once = group ? s->ntus : w->copies;
		if (w->as_built)	/* the baseline is still as recorded: the curve comes after */
			w->recorded_s = ad->base.seconds[t->f.edge];
		expect_rounds(ad, w, k);
		w->plain = xcalloc(w->copies, sizeof(*w->plain));
		w->edited = xcalloc(w->copies, sizeof(*w->edited));
		for (size_t c = 0; c < w->copies; c++) {
			char *plain_sub = xasprintf("%s-%zu-plain-%zu-%zu", ev->rule, site, k, c),
			     *edited_sub = xasprintf("%s-%zu-with-%zu-%zu", ev->rule, site, k, c);
			w->plain[c] = copy_command(ad, t, &ev->pristine, plain_sub, false);
			w->edited[c] = copy_command(ad, t, &s->edited, edited_sub, false);
			free(plain_sub);
			free(edited_sub);
		}
	}
	free(order);
}

static void wall_commands_free(struct edit_wall *w)
{
	for (size_t c = 0; c < w->copies; c++) {
		compile_command_clear(&w->plain[c]);
		compile_command_clear(&w->edited[c]);
	}
	free(w->plain);
	free(w->edited);
	w->plain = w->edited = NULL;
	w->copies = 0;
}

/* One side of a wall from its walls (n > 0): median, least and most. */
static void take_walls(const double *walls, size_t n, double *median, double *lo, double *hi)
{
	struct summary sm = summarize(walls, n);
	*median = sm.median, *lo = sm.min, *hi = sm.max;
}

/* One side of a wall: its copies' rounds until the probes' repeats (or two
 * walls that agree; one round where `once`, unless --repeats was given);
 * NaN when a round failed. */
static void time_copies(struct advise *ad, const char *what, const struct compile_command *cmds, size_t copies,
			bool once, double *median, double *lo, double *hi)
{
	size_t n = 0, failures = 0;
	bool one = once && ad->settle;
	double *walls = load_probe_level(what, ad->dir, cmds, copies, one ? 1 : ad->repeats,
					 one ? NULL : advise_settling(ad), ad->timeout, &n, &failures);
	ad->failures += failures;
	if (n)
		take_walls(walls, n, median, lo, hi);
	free(walls);
}

/* Whether a site's walls ran as its build ran them all, at once (not
 * each alone: a serial build's TUs are as built one by one). */
static bool timed_as_group(const struct edit_site *s)
{
	return s->nwalls && s->walls[0].as_built && s->walls[0].at_once > 1;
}

/* One side of a site timed as its build ran it, all its TUs at once:
 * one round, or --repeats rounds; each wall its own compile's. */
static void time_group(struct advise *ad, const char *what, struct edit_site *s, bool edited)
{
	size_t n = s->nwalls, rounds = ad->settle ? 1 : (size_t)ad->repeats, got = 0, failures = 0;
	struct compile_command *cmds = xcalloc(n, sizeof(*cmds));
	for (size_t k = 0; k < n; k++)
		cmds[k] = edited ? s->walls[k].edited[0] : s->walls[k].plain[0];
	double *walls = load_probe_level(what, ad->dir, cmds, n, (long)(rounds * n), NULL, ad->timeout, &got, &failures);
	ad->failures += failures;
	double *mine = xcalloc(rounds, sizeof(double));
	for (size_t k = 0; got && k < n; k++) {
		struct edit_wall *w = &s->walls[k];
		for (size_t r = 0; r < got / n; r++)
			mine[r] = walls[r * n + k];
		if (edited)
			take_walls(mine, got / n, &w->edited_s, &w->edited_lo, &w->edited_hi);
		else
			take_walls(mine, got / n, &w->plain_s, &w->plain_lo, &w->plain_hi);
	}
	free(mine);
	free(walls);
	free(cmds);
}

/* A wall timed: its commands freed, its numbers held for the model. */
static void hold_walls(struct edit_wall *w)
{
	wall_commands_free(w);
	double *held[] = { &w->plain_s, &w->plain_lo, &w->plain_hi, &w->edited_s, &w->edited_lo, &w->edited_hi };
	for (size_t h = 0; h < sizeof(held) / sizeof(*held); h++)
		advise_held(held[h]);
}

/* The walls planned, timed: each TU's plain and edited rounds back to
 * back, a TU's first side the one the TU before ended with (ABBA over the
 * TUs). A TU whose edited copies were the load curve's has its plain
 * rounds right after the curve's. A site timed as its build ran it
 * (plan_walls) has one round a side, as a TU probe, its TUs all at once:
 * the recorded build is its other plain wall, of another moment, and how
 * far the two differ widens its range (timed_share); a second plain
 * round would bring this moment twice, at the cost of a build. */
static void time_walls(struct advise *ad, const struct edit_evidence *ev, struct edit_site *s, bool *plain_next)
{
	if (timed_as_group(s)) {
		char *plain = xasprintf("%s: %zu TUs as they are, all at once as built", ev->rule, s->nwalls),
		     *edited = xasprintf("%s: %zu TUs with %s:%lu edited, all at once as built", ev->rule, s->nwalls,
					 s->file, s->line);
		for (int side = 0; side < 2; side++) {
			bool edits = (side == 0) != *plain_next;
			for (size_t k = 0; k < s->nwalls; k++)
				*(edits ? &s->walls[k].edited_ahead_s : &s->walls[k].plain_ahead_s) = 0;
			time_group(ad, edits ? edited : plain, s, edits);
		}
		*plain_next = !*plain_next;
		free(plain);
		free(edited);
		for (size_t k = 0; k < s->nwalls; k++) {
			s->walls[k].load_curve = false;	/* the curve's rounds of two are not the build's */
			hold_walls(&s->walls[k]);
		}
		return;
	}
	for (size_t k = 0; k < s->nwalls; k++) {
		struct edit_wall *w = &s->walls[k];
		if (!w->measured)
			continue;
		w->load_curve &= ad->load.shared_by == ev && ad->load.nshared && w->copies == 2;
		char *plain = xasprintf("%s: %s as it is", ev->rule, ad->tus[w->tu].f.name),
		     *edited = xasprintf("%s: %s with %s:%lu edited", ev->rule, ad->tus[w->tu].f.name, s->file, s->line);
		bool plain_first = w->load_curve ? false : *plain_next;
		for (int side = 0; side < 2; side++) {
			*((side == 0) == plain_first ? &w->plain_ahead_s : &w->edited_ahead_s) = 0;
			if ((side == 0) == plain_first)
				time_copies(ad, plain, w->plain, w->copies, w->as_built, &w->plain_s, &w->plain_lo,
					    &w->plain_hi);
			else if (w->load_curve)
				take_walls(ad->load.shared, ad->load.nshared, &w->edited_s, &w->edited_lo, &w->edited_hi);
			else
				time_copies(ad, edited, w->edited, w->copies, w->as_built, &w->edited_s,
					    &w->edited_lo, &w->edited_hi);
		}
		*plain_next = !plain_first;
		free(plain);
		free(edited);
		hold_walls(w);
	}
}

static struct edit_evidence *ask_lines(struct advise *ad, const char *rule, const size_t *tus,
				      const struct include_site *const *lines, size_t ntus)
{
	struct edit_evidence *ev = xcalloc(1, sizeof(*ev));
	ev->rule = rule;
	if (!ntus)
		return ev;
	/* The root holds the TUs' sources and the lines to edit; what the build
	 * generates into its own dir (aiter's blob/, the demo's gen/) is read
	 * where it is, and a header the copy lacks from where it is too (each
	 * include dir's copy is searched before it). */
	struct strvec paths = { 0 }, sources = { 0 };
	char *build = realpath(ad->dir, NULL);
	for (size_t i = 0; i < ad->project_files.n; i++)
		strvec_push(&paths, ad->project_files.v[i]);
	for (size_t i = 0; i < ad->ntus + ntus; i++) {
		const char *path = i < ad->ntus ? tu_source(ad, &ad->tus[i]) : lines[i - ad->ntus]->file;
		strvec_push(&paths, path);
		char *joined = path_in(ad->dir, path), *real = realpath(joined, NULL);
		if (real && build && !path_below(real, build))
			strvec_push(&sources, path);
		free(real);
		free(joined);
	}
	free(build);
	ev->root = ad->project ? realpath(ad->project, NULL) : source_copy_common_root(&sources, ad->dir);
	strvec_clear(&sources);
	char *err = NULL, *copy = xasprintf("%s-sources", rule);
	if (!ev->root) {
		ev->why_not = ad->project ? xasprintf("--project %s: %s", ad->project, strerror(errno))
					  : xstrdup("the TUs' sources share no directory but /: name it with --project DIR");
	} else if (!source_copy_make(ev->root, &paths, ad->dir, copy, &ev->pristine, &err)) {
		ev->why_not = err;
	} else {
		ev->copied = ev->pristine.files.n;
		find_sites(ad, ev, tus, lines, ntus);
	}
	free(copy);
	strvec_clear(&paths);
	for (size_t s = 0; s < ev->nsites; s++) {
		struct edit_site *site = &ev->sites[s];
		site->text = line_text(&ev->pristine, site->file, site->line);
		struct candidate_source src;
		find_candidates(ad, ev, site, &src);
		for (size_t c = 0; c < EDIT_TRIALS_MAX && site->chosen < 0;) {
			if (c == site->ncands && src.tree.n) {
				add_candidates(ad, ev, site, &src, &src.tree);
				strvec_clear(&src.tree);
			}
			if (c == site->ncands)
				break;
			size_t count = site->ncands - c < EDIT_TRIALS_MAX - c ? site->ncands - c : EDIT_TRIALS_MAX - c;
			site->chosen = try_candidates(ad, ev, site, c, count);
			c += count;
		}
		strvec_clear(&src.tree);
		if (site->chosen >= 0)
			plan_walls(ad, ev, site);
	}
	return ev;
}

struct edit_evidence *edit_probe_ask(struct advise *ad, const char *rule,
				     const struct include_site *(*line_of)(const struct advise_tu *t))
{
	size_t *tus = xcalloc(ad->ntus + 1, sizeof(size_t)), n = 0;
	const struct include_site **lines = xcalloc(ad->ntus + 1, sizeof(*lines));
	for (size_t i = 0; i < ad->ntus; i++)
		if ((lines[n] = line_of(&ad->tus[i])))
			tus[n++] = i;
	struct edit_evidence *ev = ask_lines(ad, rule, tus, lines, n);
	free(lines);
	free(tus);
	return ev;
}

/* ---- after the pass probe ---- */

void edit_probe_time(struct advise *ad, struct edit_evidence *ev)
{
	bool plain_next = true;
	for (size_t s = 0; s < ev->nsites; s++)
		time_walls(ad, ev, &ev->sites[s], &plain_next);
}

void edit_probe_read(struct edit_evidence *ev)
{
	for (size_t s = 0; s < ev->nsites; s++) {
		struct edit_site *site = &ev->sites[s];
		if (site->chosen >= 0) {
			const struct edit_candidate *c = &site->cands[site->chosen];
			char *path = xasprintf("%s/%s", ev->pristine.dir, site->file), *text = read_text_file(path), *err = NULL;
			char *with = c->header ? xasprintf("#include %s", c->header) : NULL;
			if (!text || !line_patch(text, strlen(text), site->line, with, site->file, &site->patch, &err))
				warn("%s:%lu: no patch: %s", site->file, site->line, err ? err : strerror(errno));
			free(err);
			free(with);
			free(text);
			free(path);
		}
		source_copy_free(&site->edited);
		strvec_clear(&site->removed_opened);
		for (size_t c = 0; c < site->ncands; c++)
			strvec_clear(&site->cands[c].opens);
	}
	char *err = NULL;
	if (ev->pristine.dir && !source_copy_unchanged(&ev->pristine, &err))
		die(EXIT_INTERNAL, "advise: %s (its probes read a copy)", err);
	source_copy_free(&ev->pristine);
}

/* ---- the model's side ---- */

static double share_of(const struct edit_wall *w)
{
	if (isnan(w->plain_s) || isnan(w->edited_s) || w->plain_s <= 0)
		return NAN;
	double share = (w->plain_s - w->edited_s) / w->plain_s;
	return share > 0 ? share : 0;
}

static double median_share(const struct edit_site *s)
{
	double *shares = xcalloc(s->nwalls + 1, sizeof(double));
	size_t n = 0;
	for (size_t k = 0; k < s->nwalls; k++)
		if (!isnan(share_of(&s->walls[k])))
			shares[n++] = share_of(&s->walls[k]);
	double m = n ? median_of(shares, n) : NAN;
	free(shares);
	return m;
}

/* How far, in log, the ratio edited/plain of a site's walls timed as
 * their build ran them (one wall a side) may lie from what builds of the
 * edit measure; NaN where none was. Each such TU's plain wall against its
 * seconds in the recorded build is a sample of how far a wall moves
 * between two moments, d = log(plain / recorded), whose variance is two
 * walls' (2 sigma^2), as is that of the log ratio of the two walls of one
 * moment. From n samples: their root mean square times Student's t for n
 * degrees of freedom, 90 % two-sided. One pair of moments says little of
 * how far a wall moves: for one TU, t is 6.31. On the 2-core VM,
 * extension-cpp's error against ab's builds was 0.1 to 5.6 times d in 15
 * runs, d 0.8 to 8.9 % (bench/RESULTS.md). */
static double as_built_spread(const struct advice_input *in, const struct edit_site *s)
{
	double squares = 0;
	unsigned n = 0;
	for (size_t k = 0; k < s->nwalls; k++) {
		const struct edit_wall *w = &s->walls[k];
		double recorded = w->recorded_s > 0 ? w->recorded_s : in->seconds[in->tus[w->tu].edge];
		if (!w->as_built || isnan(share_of(w)) || !(recorded > 0))
			continue;
		double d = log(w->plain_s / recorded);
		squares += d * d;
		n++;
	}
	return n ? t_quantile(0.90, n) * sqrt(squares / n) : NAN;
}

/* A timed TU's share of its baseline the edit takes out: its walls' (1 -
 * edited/plain), *lo and *hi alike. Where its walls ran as its build ran
 * it, one a side (time_walls: alone, or all its site's TUs at once), the
 * walls' share, of one moment, is the middle, and the ratio edited/plain
 * is widened both ways by `spread` (as_built_spread) for *lo and *hi. A
 * document whose walls ran two copies at once of a TU its build compiled
 * alone had plain walls slowed by their neighbour, the edited less: its
 * share lies between the walls' and the edited walls' against the
 * baseline, the middle returned. NaN: not timed. */
static double timed_share(const struct advice_input *in, double spread, const struct edit_wall *w, double *lo,
			  double *hi)
{
	double share = share_of(w), base = in->seconds[in->tus[w->tu].edge];
	*lo = *hi = share;
	if (isnan(share) || !(base > 0))
		return share;
	if (w->as_built) {
		double ratio = w->edited_s / w->plain_s;
		if (!isnan(spread))
			*lo = fmax(1 - ratio * exp(spread), 0), *hi = fmax(1 - ratio / exp(spread), 0);
	} else if (w->alone_in_build) {
		double alone = fmax(1 - w->edited_s / base, 0);
		*lo = fmin(share, alone), *hi = fmax(share, alone);
		return (*lo + *hi) / 2;
	}
	return share;
}

/* What a site's timed TUs saved, to carry to the rest: their median
 * share of their baseline and their median seconds (each its share of
 * its baseline); NaN when none was timed. With them, the site's
 * as_built_spread, reckoned once for all its walls. */
struct carry {
	double share, seconds, spread;
};

static struct carry carry_of(const struct advice_input *in, const struct edit_site *s)
{
	double *shares = xcalloc(s->nwalls + 1, sizeof(double)), *saved = xcalloc(s->nwalls + 1, sizeof(double));
	double spread = as_built_spread(in, s);
	size_t n = 0;
	for (size_t j = 0; j < s->nwalls; j++) {
		double lo, hi, share = timed_share(in, spread, &s->walls[j], &lo, &hi),
			       timed = in->seconds[in->tus[s->walls[j].tu].edge];
		if (!isnan(share) && !isnan(timed)) {
			shares[n] = share;
			saved[n++] = share * timed;
		}
	}
	struct carry c = { n ? median_of(shares, n) : NAN, n ? median_of(saved, n) : NAN, spread };
	free(shares);
	free(saved);
	return c;
}

/* The baseline seconds the edit takes out of TU k of the site: its own
 * share of its baseline where it was timed (timed_share: its bracket as
 * *lo and *hi). The rest are bracketed by the two carries: the timed ones' median share
 * of its baseline (*lo) and their median seconds (*hi, never past its own
 * baseline); the saving is the middle. The edit takes the same headers
 * out of every TU that reaches the line: were they all its saving, a
 * lighter TU would save as many seconds as the heaviest, which are the
 * ones timed; were they its share, the same share. pytorch_scatter's
 * seven TUs saved 7.0 to 8.4 s of 12.5 to 16.4 s, shares 0.50 to 0.57:
 * between the two (bench/RESULTS.md). NaN: none timed. */
static double saving_of(const struct advice_input *in, const struct edit_site *s, size_t k, const struct carry *c,
			double *lo, double *hi)
{
	double base = in->seconds[in->tus[s->walls[k].tu].edge], own_lo, own_hi;
	double own = timed_share(in, c->spread, &s->walls[k], &own_lo, &own_hi);
	if (!isnan(own)) {
		*lo = own_lo * base, *hi = own_hi * base;
		return own * base;
	}
	*lo = c->share * base;
	*hi = fmax(*lo, fmin(c->seconds, base));
	return (*lo + *hi) / 2;
}

void edit_spread(const struct edit_site *s, double *lo, double *hi)
{
	*lo = *hi = 0;
	double m = median_share(s), least = INFINITY, most = 0;
	for (size_t k = 0; k < s->nwalls; k++) {
		const struct edit_wall *w = &s->walls[k];
		if (isnan(share_of(w)) || w->plain_hi <= 0 || w->plain_lo <= 0)
			continue;
		/* the share at the walls' ends: least saved, most saved */
		double a = 1 - w->edited_hi / w->plain_lo, b = 1 - w->edited_lo / w->plain_hi;
		least = fmin(least, fmax(b < a ? b : a, 0));
		most = fmax(most, a > b ? a : b);
	}
	if (m > 0 && isfinite(least)) {
		*lo = least / m;
		*hi = most / m;
	}
}

char *edit_words(const struct edit_site *s)
{
	if (s->chosen < 0)
		return xstrdup("no edit compiled");
	const struct edit_candidate *c = &s->cands[s->chosen];
	return c->header ? xasprintf("%s in place of %s", c->header, s->header)
			 : xasprintf("%s removed", s->header);
}

void edit_apply(const struct advice_input *in, const struct edit_evidence *ev, struct fix *f, struct edit_said *said)
{
	*said = (struct edit_said){ .sites = xcalloc(ev->nsites + 1, sizeof(char *)) };
	struct strvec failed = { 0 };
	double lo = INFINITY, hi = 0, least = 0, middle = 0, most = 0;
	for (size_t s = 0; s < ev->nsites; s++) {
		const struct edit_site *site = &ev->sites[s];
		if (site->chosen < 0) {
			struct strvec tried = { 0 };
			for (size_t c = 0; c < site->ncands; c++)
				if (site->cands[c].error)	/* each failed, compiled or proven as the line removed */
					strvec_pushf(&tried, "%s: %s", site->cands[c].header ? site->cands[c].header : "removed",
						     site->cands[c].error);
			char *list = strvec_join(&tried, "; ");
			strvec_pushf(&failed, "%s:%lu (%s): no edit compiles with its %zu TU%s (%s)", site->file, site->line,
				     site->header, site->ntus, rule_plural(site->ntus), list);
			free(list);
			strvec_clear(&tried);
			continue;
		}
		const struct carry carry = carry_of(in, site);
		for (size_t k = 0; k < site->nwalls; k++) {
			size_t tu = site->walls[k].tu;
			double slo, shi, saving = saving_of(in, site, k, &carry, &slo, &shi);
			if (isnan(saving))
				continue;
			rule_add_proven(f, tu, saving);
			least += slo, middle += saving, most += shi;
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
		said->sites[s] = xasprintf("%s:%lu: %s compiles with its %zu TU%s (%s)", site->file, site->line, words,
					   site->ntus, rule_plural(site->ntus), timed);
		free(timed);
		free(words);
		strvec_clear(&walls);
	}
	/* The range: the timed walls' ends, widened by the carried TUs' bracket. */
	bool walled = isfinite(lo), bracketed = middle > 0 && most > least;
	if (f->ntus && (walled || bracketed)) {
		f->own_lo = (walled ? lo : 1) * (bracketed ? least / middle : 1);
		f->own_hi = (walled ? hi : 1) * (bracketed ? most / middle : 1);
	}
	said->failed = failed.n ? strvec_join(&failed, "; ") : NULL;
	strvec_clear(&failed);
}

void edit_said_free(struct edit_said *said, const struct edit_evidence *ev)
{
	for (size_t s = 0; s < ev->nsites; s++)
		free(said->sites[s]);
	free(said->sites);
	free(said->failed);
}

char *edit_measured_by(const struct edit_evidence *ev)
{
	size_t carried = 0, side_by_side = 0, alone = 0, together = 0, paired = 0;
	const char *curve = NULL;
	for (size_t s = 0; s < ev->nsites; s++)
		for (size_t k = 0; ev->sites[s].chosen >= 0 && k < ev->sites[s].nwalls; k++) {
			const struct edit_wall *w = &ev->sites[s].walls[k];
			carried += !w->measured;
			side_by_side += w->measured && w->at_once > 1 && !w->as_built;
			alone += w->measured && w->as_built && w->at_once == 1;
			together += w->measured && w->as_built && w->at_once > 1;
			paired += w->measured && w->alone_in_build && !w->as_built;
			curve = w->load_curve ? ev->sites[s].file : curve;
		}
	char *shared = curve ? xasprintf("; the heaviest TU of %s's line, edited: the load curve's rounds of two (the "
					 "curve compiles it so)", curve)
			     : xstrdup("");
	const char *share = " saves its walls' share, the range its ratio edited/plain widened both ways by how far "
			    "the plain walls moved from the recorded build, times Student's t (90 %, a degree of freedom "
			    "a TU)";
	char *said = xasprintf("proven on a copy of the sources (%zu files under %s): the line edited, every TU that "
			       "reaches it compiled with the edit; the %d heaviest of a line's TUs timed as they are and "
			       "edited%s%s%s%s%s%s%s%s", ev->copied, ev->root, EDIT_MEASURED,
			       side_by_side ? ", each as copies side by side (the same neighbours for both)" : "", shared,
			       together ? "; where the build compiled a line's TUs all at once, nothing else beside them, "
					  "all of them are timed so, one wall a side: each" : "",
			       together ? share : "",
			       alone ? "; a TU that its build compiled alone (no neighbour there) is timed alone, one "
				       "wall a side: it" : "",
			       alone ? share : "",
			       paired ? "; a timed TU that its build compiled alone, timed two copies at once, saves the "
					"middle of its walls' share and its edited walls' against its baseline, the range "
					"spanning both" : "",
			       carried ? "; the rest between the median share of their baseline those saved and the "
					 "median seconds, the range spanning both" : "");
	free(shared);
	return said;
}

/* ---- a rule's walk that proves edits (EDIT_RULE_WALK) ---- */

void edit_walk_read(struct advise *ad, void *evidence)
{
	(void)ad;
	edit_probe_read(evidence);
}

void edit_walk_time(struct advise *ad, void *evidence)
{
	edit_probe_time(ad, evidence);
}

double edit_walk_ahead(const void *evidence)
{
	const struct edit_evidence *ev = evidence;
	double ahead = 0;
	for (size_t s = 0; s < ev->nsites; s++)
		for (size_t k = 0; ev->sites[s].chosen >= 0 && k < ev->sites[s].nwalls; k++) {
			const struct edit_wall *w = &ev->sites[s].walls[k];
			if (w->measured)	/* an edited side the load curve times is not ahead */
				ahead += w->plain_ahead_s + (w->load_curve ? 0 : w->edited_ahead_s);
		}
	return ahead;
}

bool edit_walk_edited(struct advise *ad, void *evidence, size_t tu, size_t n, const char *sub,
		      struct compile_command *cmds)
{
	struct edit_evidence *ev = evidence;
	for (size_t s = 0; s < ev->nsites; s++) {
		struct edit_site *site = &ev->sites[s];
		for (size_t k = 0; site->chosen >= 0 && k < site->nwalls; k++) {
			struct edit_wall *w = &site->walls[k];
			if (w->tu != tu || !w->measured)
				continue;
			for (size_t c = 0; c < n; c++) {
				char *name = xasprintf("%s-%zu", sub, c);
				cmds[c] = copy_command(ad, &ad->tus[tu], &site->edited, name, false);
				free(name);
			}
			w->load_curve = true;
			return true;
		}
	}
	return false;
}

json_t *edit_walk_save(const void *evidence)
{
	return edit_probe_save(evidence);
}

bool edit_walk_load(const json_t *saved, const struct advise *ad, void **evidence, char **err)
{
	struct edit_evidence *ev = NULL;
	bool ok = edit_probe_load(saved, ad->ntus, &ev, err);
	*evidence = ev;
	return ok;
}

json_t *edit_walk_document(const void *evidence, const struct advise *ad)
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

void edit_walk_patches(const void *evidence, struct strvec *names, struct strvec *diffs)
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

bool edit_walk_proves(const void *evidence, size_t tu)
{
	const struct edit_evidence *ev = evidence;
	for (size_t s = 0; ev && s < ev->nsites; s++)
		for (size_t k = 0; ev->sites[s].chosen >= 0 && k < ev->sites[s].ntus; k++)
			if (ev->sites[s].tus[k] == tu)
				return true;
	return false;
}

void edit_walk_free(void *evidence)
{
	edit_probe_free(evidence);
}

/* ---- saved in advise --json's model_input, and read back ---- */

json_t *edit_probe_save(const struct edit_evidence *ev)
{
	json_t *sites = json_array();
	for (size_t s = 0; s < ev->nsites; s++) {
		const struct edit_site *site = &ev->sites[s];
		json_t *tus = json_array(), *cands = json_array(), *walls = json_array();
		for (size_t k = 0; k < site->ntus; k++)
			json_array_append_new(tus, json_integer((json_int_t)site->tus[k]));
		for (size_t c = 0; c < site->ncands; c++) {
			const struct edit_candidate *cand = &site->cands[c];
			json_array_append_new(cands, json_pack("{s:o, s:o, s:b, s:b, s:o}", "header",
							       saved_text_json(cand->header), "lines",
							       advise_json_number(cand->lines), "entry", cand->entry, "tried",
							       cand->tried, "error", saved_text_json(cand->error)));
		}
		for (size_t k = 0; k < site->nwalls; k++) {
			const struct edit_wall *w = &site->walls[k];
			json_array_append_new(walls, json_pack("{s:I, s:b, s:o, s:o, s:b, s:I, s:b, s:b, s:o}", "tu", (json_int_t)w->tu,
							       "measured", w->measured, "plain_s",
							       saved_triple_json(w->plain_s, w->plain_lo, w->plain_hi),
							       "edited_s",
							       saved_triple_json(w->edited_s, w->edited_lo, w->edited_hi),
							       "edited_by_load_curve", w->load_curve, "at_once",
							       (json_int_t)w->at_once, "alone_in_build", w->alone_in_build,
							       "as_built", w->as_built, "recorded_s",
							       advise_json_number(w->recorded_s)));
		}
		json_array_append_new(sites, json_pack("{s:s, s:I, s:o, s:s, s:o, s:o, s:I, s:o, s:o}", "file", site->file,
						       "line", (json_int_t)site->line, "text", saved_text_json(site->text),
						       "header", site->header, "tus", tus, "candidates", cands, "chosen",
						       (json_int_t)site->chosen, "walls", walls, "patch",
						       saved_text_json(site->patch)));
	}
	return json_pack("{s:o, s:o, s:I, s:o}", "root", saved_text_json(ev->root), "why_not", saved_text_json(ev->why_not),
			 "copied", (json_int_t)ev->copied, "sites", sites);
}

static bool tu_index(const json_t *v, size_t ntus, size_t *out)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (size_t)json_integer_value(v) >= ntus)
		return false;
	*out = (size_t)json_integer_value(v);
	return true;
}

static bool load_site(const json_t *o, size_t ntus, struct edit_site *site, char **err, size_t s)
{
	const json_t *line = json_object_get(o, "line"), *tus = json_object_get(o, "tus"),
		     *cands = json_object_get(o, "candidates"), *chosen = json_object_get(o, "chosen"),
		     *walls = json_object_get(o, "walls");
	site->file = saved_text(json_object_get(o, "file"));
	site->header = saved_text(json_object_get(o, "header"));
	site->text = saved_text(json_object_get(o, "text"));
	site->patch = saved_text(json_object_get(o, "patch"));
	site->chosen = -1;
	if (!site->file || !site->header || !json_is_integer(line) || json_integer_value(line) < 1 || !json_is_array(tus) ||
	    !json_array_size(tus) || json_array_size(tus) > EDIT_TUS_MAX || !json_is_array(cands) ||
	    json_array_size(cands) > EDIT_TUS_MAX || !json_is_integer(chosen) || json_integer_value(chosen) < -1 ||
	    json_integer_value(chosen) >= (json_int_t)json_array_size(cands) || !json_is_array(walls) ||
	    json_array_size(walls) > json_array_size(tus))
		return fail_with(err, xasprintf("sites[%zu]: not an edit site (file, line, header, tus, candidates, chosen, "
						"walls)", s));
	site->line = (unsigned long)json_integer_value(line);
	site->chosen = (long)json_integer_value(chosen);
	site->tus = xcalloc(json_array_size(tus), sizeof(size_t));
	for (size_t k = 0; k < json_array_size(tus); k++, site->ntus++)
		if (!tu_index(json_array_get(tus, k), ntus, &site->tus[k]))
			return fail_with(err, xasprintf("sites[%zu].tus[%zu]: not a TU", s, k));
	site->cands = xcalloc(json_array_size(cands) + 1, sizeof(*site->cands));
	for (size_t c = 0; c < json_array_size(cands); c++) {
		const json_t *v = json_array_get(cands, c);
		struct edit_candidate *cand = &site->cands[site->ncands++];
		cand->header = saved_text(json_object_get(v, "header"));
		cand->error = saved_text(json_object_get(v, "error"));
		cand->tried = json_is_true(json_object_get(v, "tried"));
		cand->entry = json_is_true(json_object_get(v, "entry"));
		if (!saved_number(json_object_get(v, "lines"), &cand->lines))
			return fail_with(err, xasprintf("sites[%zu].candidates[%zu]: not a candidate (header, lines)", s, c));
	}
	site->walls = xcalloc(json_array_size(walls) + 1, sizeof(*site->walls));
	for (size_t k = 0; k < json_array_size(walls); k++) {
		const json_t *v = json_array_get(walls, k);
		struct edit_wall *w = &site->walls[site->nwalls++];
		const json_t *at_once = json_object_get(v, "at_once");
		*w = (struct edit_wall){ .measured = json_is_true(json_object_get(v, "measured")),
					 .load_curve = json_is_true(json_object_get(v, "edited_by_load_curve")),
					 .at_once = json_is_integer(at_once) && json_integer_value(at_once) > 1 &&
							   json_integer_value(at_once) <= EDIT_TUS_MAX
						       ? (size_t)json_integer_value(at_once) : 1,
					 .alone_in_build = json_is_true(json_object_get(v, "alone_in_build")),
					 .recorded_s = NAN };
		/* Before as_built was said, a TU its build compiled alone was timed
		 * so, one wall a side, where its walls ran alone. */
		const json_t *as_built = json_object_get(v, "as_built");
		w->as_built = as_built ? json_is_true(as_built) : w->alone_in_build && w->at_once == 1;
		const json_t *recorded = json_object_get(v, "recorded_s");
		if (!tu_index(json_object_get(v, "tu"), ntus, &w->tu) ||
		    (recorded && !saved_number(recorded, &w->recorded_s)) ||
		    !saved_triple(json_object_get(v, "plain_s"), &w->plain_s, &w->plain_lo, &w->plain_hi) ||
		    !saved_triple(json_object_get(v, "edited_s"), &w->edited_s, &w->edited_lo, &w->edited_hi))
			return fail_with(err, xasprintf("sites[%zu].walls[%zu]: not a TU's walls (tu, plain_s, edited_s)", s, k));
	}
	return true;
}

bool edit_probe_load(const json_t *saved, size_t ntus, struct edit_evidence **out, char **err)
{
	struct edit_evidence *ev = xcalloc(1, sizeof(*ev));
	*out = ev;
	const json_t *sites = json_object_get(saved, "sites"), *copied = json_object_get(saved, "copied");
	if (!json_is_array(sites) || json_array_size(sites) > EDIT_SITES_MAX || !json_is_integer(copied) ||
	    json_integer_value(copied) < 0)
		return fail_with(err, xasprintf("not sites and copied (at most %d sites)", EDIT_SITES_MAX));
	ev->root = saved_text(json_object_get(saved, "root"));
	ev->why_not = saved_text(json_object_get(saved, "why_not"));
	ev->copied = (size_t)json_integer_value(copied);
	ev->sites = xcalloc(json_array_size(sites) + 1, sizeof(*ev->sites));
	for (size_t s = 0; s < json_array_size(sites); s++)
		if (!load_site(json_array_get(sites, s), ntus, &ev->sites[ev->nsites++], err, s))
			return false;
	return true;
}

void edit_probe_free(struct edit_evidence *ev)
{
	if (!ev)
		return;
	for (size_t s = 0; s < ev->nsites; s++) {
		struct edit_site *site = &ev->sites[s];
		free(site->file);
		free(site->text);
		free(site->header);
		free(site->tus);
		for (size_t c = 0; c < site->ncands; c++) {
			free(site->cands[c].header);
			free(site->cands[c].error);
			strvec_clear(&site->cands[c].opens);
		}
		free(site->cands);
		for (size_t k = 0; k < site->nwalls; k++)
			wall_commands_free(&site->walls[k]);
		free(site->walls);
		free(site->patch);
		source_copy_free(&site->edited);
		strvec_clear(&site->removed_opened);
	}
	free(ev->sites);
	source_copy_free(&ev->pristine);
	free(ev->root);
	free(ev->why_not);
	free(ev);
}
