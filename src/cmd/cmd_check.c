/* buildwall check: a CI gate. The clean builds in the tree's .ninja_log
 * against a budget, or against the recorded builds of a reference (a
 * commit, a label) with regression's statistics; exit 1 when over, with
 * the reason in one line: how much, its interval, and the TU that grew
 * most with the header group its preprocessed lines grew by. */
#define _GNU_SOURCE
#include "abstats.h"
#include "build_record.h"
#include "busy.h"
#include "cli.h"
#include "control.h"
#include "growth.h"
#include "history_db.h"
#include "log_view.h"
#include "options.h"
#include "out_json.h"
#include "out_table.h"
#include "regression.h"
#include "stats.h"
#include "trial.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_EXIT_OVER 1
#define CHECK_REFERENCE_BUILDS 30	/* the newest reference builds compared */

static const char usage[] =
	"usage: buildwall check [-C BUILD_DIR | --from DOC --module NAME] (--budget S | --against REF\n"
	"                       [--max-regression P]) [--builds N] [--no-control] [--module NAME]\n"
	"                       [--any-machine] [--db PATH] [--json]\n"
	"       buildwall check [-C BUILD_DIR] --against-dir REF_DIR [-j N] [--builds N]\n"
	"                       [--max-regression P] [--no-control] [--timeout S] [--json]\n"
	"\n"
	"Exit 0 when the module's wall is within, 1 when it is over, with the reason in one\n"
	"line. The candidate is the last N clean builds (every compile step ran) in BUILD_DIR's\n"
	"own .ninja_log (default 5): build, or rebuild a few times, then check; or the last N\n"
	"trials of a saved 'wall --json' document (--from).\n"
	"\n"
	"--budget S: over when the candidate's median wall exceeds S seconds ('30', '30s', '2m').\n"
	"--against REF: the recorded clean builds (buildwall record) of the same module on this\n"
	"machine (same CPUs and model; --any-machine: any) whose commit is REF (a hash prefix,\n"
	"or a name git resolves in the sources: main, HEAD~1) or whose label is REF (K=V); the\n"
	"newest 30, less any that is one of the candidate's builds. The estimate is candidate /\n"
	"reference, the ratio of the geometric mean walls, with a 95 % Student's t interval on\n"
	"the difference of mean log walls (variance pooled); over when it is slower by more than\n"
	"P (default 5 %) and slower beyond noise: the interval's lower end is above 1 (the\n"
	"sides are builds of different sittings: the interval holds the noise within each,\n"
	"not the machine's drift between them, and the stricter end guards against it).\n"
	"Outliers first: on each side, a\n"
	"wall slower than its side's median by more than 3.5 median absolute deviations and\n"
	"more than 10 % (a cold build after a checkout, a busy runner) is fenced, named and left\n"
	"out; one such build would widen the interval past any regression worth catching\n"
	"(bench/check_power.sh measures the gate with and without). With fewer than 3 builds in all\n"
	"there is no interval: it says too few to decide and exits 0. Named with it: the steps\n"
	"whose median duration grew most, and for the first the header group whose lines grew\n"
	"most in one of its passes, when both sides were recorded with --pp.\n"
	"\n"
	"A machine drifts between sittings (a shared runner 10-30 % slower an hour later) and\n"
	"moves a whole side. So each build carries its sitting's control compile: a small C++\n"
	"TU buildwall carries, compiled with the build's own compiler (record and wall time it;\n"
	"check times it now for candidate builds of the last 30 minutes that have none). When\n"
	"every build on both sides has one, the walls are compared in units of it, and the\n"
	"line says so with the machine's own drift; otherwise (builds recorded without one,\n"
	"--no-control) the raw walls, and it says that.\n"
	"\n"
	"--against-dir REF_DIR: one sitting instead of two. REF_DIR is a build dir of the\n"
	"reference (another checkout, configured as this one); both are rebuilt clean in turn,\n"
	"ABBA then BAAB (as ab does), N pairs (--builds, default 5), and judged by ab's paired\n"
	"statistics: over when the candidate is slower by more than P and the pairs' one-sided\n"
	"95 % lower bound is above 1. A drift of the machine falls on both sides alike; the\n"
	"control compile is timed before the first build and after each, and each wall is\n"
	"judged over the control around it (--no-control: the raw walls), so a neighbour\n"
	"that starts between the two builds of a pair moves both. Both trees are left built,\n"
	"as wall leaves its tree.\n"
	"\n";

struct check {
	const char *dir, *against, *module, *from, *against_dir;
	double budget, max_regression, timeout;
	long builds, jobs;
	struct ab_result pairs;	/* --against-dir: the pairs' comparison */
	double *pair_walls[2];	/* and their walls: the reference's, the candidate's */
	double *pair_controls[2];	/* each build's control around it; NULL: the raw walls */
	char *pair_control_by;	/* "g++, 2 at once", or NULL */
	double pair_raw_ratio;	/* the pairs' raw walls compared, beside */
	bool any_machine, no_control;
	struct record_context ctx;
	struct build_record *cand;
	size_t ncand;
	struct history_build *ref;
	size_t nref;
	char *ref_name;		/* how the reference is shown: "main@1a2b3c4d", "variant=fused" */
	struct regression reg;
	bool *ref_fenced, *cand_fenced;	/* per build, the outliers left out */
	/* What the verdict rests on: each build's wall, or its wall in units
	 * of its sitting's control (relative); the raw walls' ratio beside. */
	bool relative;
	double *ref_basis, *cand_basis;
	double *cand_control;	/* per candidate build, 0: none */
	struct control now;	/* measured now for the candidate builds that had none */
	char **cand_control_by;	/* the compiler that ran each, or NULL */
	double raw_ratio, ref_control, cand_control_median;	/* the controls' medians */
	char *raw_because;	/* why not relative, or NULL */
	double cand_median;
	bool over_budget;
	struct grown grew[GROWTH_STEPS];	/* the steps that grew most, largest first */
	size_t ngrew;
	char *reason;
};

static bool parse_budget(void *value, const char *arg, char **err)
{
	char *copy = xstrdup(arg);
	size_t n = strlen(copy);
	double scale = 1, v;
	if (n && (copy[n - 1] == 's' || copy[n - 1] == 'm')) {
		scale = copy[n - 1] == 'm' ? 60 : 1;
		copy[n - 1] = '\0';
	}
	bool ok = parse_double(copy, &v) && v > 0;
	free(copy);
	if (!ok)
		return fail_with(err, xasprintf("--budget takes seconds ('30', '30s') or minutes ('2m'), not '%s'", arg));
	*(double *)value = v * scale;
	return true;
}

static bool parse_regression(void *value, const char *arg, char **err)
{
	double v;
	char *why = NULL;
	if (!parse_share("--max-regression", arg, &v, &why))
		return ok_unless(err, why);
	if (!(v >= 0 && v < 10))
		return fail_with(err, xasprintf("--max-regression must lie between 0 and 1000 %%, not '%s'", arg));
	*(double *)value = v;
	return true;
}

/* The log's builds as they are read, oldest first: the last `builds`
 * that ran every compile step kept (oldest first), and how many builds
 * came after the newest of them. */
struct candidates {
	struct check *c;
	const struct build_outputs *outputs;
	long after_last;
};

static void keep_candidate(struct log_view *v, void *ctx)
{
	struct candidates *k = ctx;
	struct check *c = k->c;
	struct build_record r;
	build_record_from_view(&r, v, k->outputs, c->ctx.module);
	if (!r.complete) {
		build_record_free(&r);
		k->after_last++;
		return;
	}
	if (c->ncand == (size_t)c->builds) {
		build_record_free(&c->cand[0]);
		memmove(&c->cand[0], &c->cand[1], (c->ncand - 1) * sizeof(c->cand[0]));
		c->ncand--;
	}
	c->cand[c->ncand++] = r;
	k->after_last = 0;
}

/* The last `builds` clean builds of the tree's log, newest first. */
static void read_candidate(struct check *c)
{
	/* The graph only to resolve a commit's name in the sources' git tree:
	 * the rest needs the outputs alone (a check answers in a blink). */
	struct build_outputs o;
	build_outputs_load(&o, c->dir);
	const char *module = c->module ? c->module : o.module;
	if (c->against && !strchr(c->against, '=')) {
		struct ninja_build b;
		ninja_load(c->dir, &b);
		record_context_init(&c->ctx, c->dir, &b, module, false);
		ninja_build_free(&b);
	} else {
		record_context_init(&c->ctx, c->dir, NULL, module, false);
	}
	char *log = path_in(c->dir, ".ninja_log");
	struct candidates k = { c, &o, 0 };
	c->cand = xcalloc((size_t)c->builds, sizeof(*c->cand));
	long nbuilds;
	char *err = NULL;
	if (!log_view_each(NULL, log, keep_candidate, &k, &nbuilds, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	/* Kept oldest first: the newest first from here on. */
	for (size_t i = 0; i < c->ncand / 2; i++) {
		struct build_record t = c->cand[i];
		c->cand[i] = c->cand[c->ncand - 1 - i];
		c->cand[c->ncand - 1 - i] = t;
	}
	if (c->ncand && k.after_last)
		warn("the latest %ld build%s in %s did not run every compile step: the candidate starts %ld builds back",
		     k.after_last, k.after_last == 1 ? "" : "s", log, k.after_last);
	if (!c->ncand)
		die(EXIT_BAD_INPUT, "%s: none of its %ld build%s ran every compile step: build the module from clean, then check",
		    log, nbuilds, nbuilds == 1 ? "" : "s");
	free(log);
	build_outputs_free(&o);
}

/* The last `builds` builds of a saved wall (or log) document, newest first. */
static void read_candidate_document(struct check *c)
{
	struct build_record *all;
	size_t n;
	char *err = NULL;
	if (!build_records_from_file(c->from, c->module, &all, &n, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	record_context_init(&c->ctx, NULL, NULL, c->module, false);
	size_t first = n > (size_t)c->builds ? n - (size_t)c->builds : 0;
	c->cand = xcalloc(n - first, sizeof(*c->cand));
	for (size_t i = n; i-- > first;)
		c->cand[c->ncand++] = all[i];
	for (size_t i = 0; i < first; i++)
		build_record_free(&all[i]);
	free(all);
}

static bool is_hex(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return n >= 4 && !s[n];
}

/* A name git resolves in the sources' work tree: its full hash, or NULL. */
static char *resolve_commit(const struct check *c, const char *ref)
{
	if (!c->ctx.source_dir)
		return NULL;
	char *spec = xasprintf("%s^{commit}", ref);
	char *argv[] = { "git", "rev-parse", "--verify", "--quiet", spec, NULL };
	char *hash = record_first_line(argv, c->ctx.source_dir, NULL);
	free(spec);
	return hash;
}

static bool is_candidate(const struct check *c, const char *identity)
{
	for (size_t i = 0; i < c->ncand; i++)
		if (!strcmp(c->cand[i].identity, identity))
			return true;
	return false;
}

static void read_reference(struct check *c, struct history_db *h)
{
	struct history_filter f = { .module = c->ctx.module, .complete = true, .limit = CHECK_REFERENCE_BUILDS };
	if (!c->any_machine) {
		f.cpus = c->ctx.cpus;
		f.model = c->ctx.model;
	}
	char *commit = NULL, *err;
	if (strchr(c->against, '=')) {
		f.label = c->against;
		c->ref_name = xstrdup(c->against);
	} else {
		bool hex = is_hex(c->against);
		commit = hex ? xstrdup(c->against) : resolve_commit(c, c->against);
		if (!commit)
			die(EXIT_BAD_INPUT, "--against %s: neither K=V nor a commit git knows in %s", c->against,
			    c->ctx.source_dir ? c->ctx.source_dir : "the sources (no git work tree)");
		f.commit = commit;
		c->ref_name = hex ? xstrndup(commit, 12) : xasprintf("%s@%.12s", c->against, commit);
	}
	struct history_build *all;
	size_t n;
	if (!history_db_builds(h, &f, &all, &n, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	if (!n && commit && strlen(commit) < 40) {	/* a prefix git may still resolve in full */
		char *full = resolve_commit(c, commit);
		if (full) {
			f.commit = full;
			history_builds_free(all, n);
			if (!history_db_builds(h, &f, &all, &n, &err))
				die(EXIT_BAD_INPUT, "%s", err);
		}
		free(full);
	}
	c->ref = xcalloc(n ? n : 1, sizeof(*c->ref));
	size_t own = 0;
	for (size_t i = 0; i < n; i++) {
		if (is_candidate(c, all[i].identity)) {
			own++;
			history_build_clear(&all[i]);
			continue;
		}
		c->ref[c->nref++] = all[i];
	}
	free(all);
	free(commit);
	if (!c->nref && own)
		die(EXIT_BAD_INPUT, "%s: the only recorded builds matching %s are the candidate's own (%zu): record the "
		    "reference's builds, or check fewer --builds", h->path, c->against, own);
	if (!c->nref)
		die(EXIT_BAD_INPUT, "%s: no recorded clean build of %s matches %s%s%s (buildwall record -C DIR%s)", h->path,
		    c->ctx.module, c->against, c->any_machine ? "" : " on this machine: ",
		    c->any_machine ? "" : c->ctx.model, strchr(c->against, '=') ? " --label K=V" : " at that commit");
}

/* Each candidate build's control: its document's, the history's (when it
 * was recorded), or one timed now for the builds of this sitting (the
 * last CONTROL_SITTING_S seconds, by the log's times). None when the
 * reference has none to compare with, or with --no-control. */
static void candidate_controls(struct check *c, struct history_db *h)
{
	c->cand_control = xcalloc(c->ncand, sizeof(double));
	c->cand_control_by = xcalloc(c->ncand, sizeof(char *));
	if (c->no_control)
		return;
	for (size_t i = 0; i < c->nref; i++)
		if (!(c->ref[i].control > 0))
			return;
	bool this_sitting = false;
	for (size_t i = 0; i < c->ncand; i++) {
		if (c->cand[i].control > 0) {
			c->cand_control[i] = c->cand[i].control;
			c->cand_control_by[i] = xstrdup(c->cand[i].control_by);
		} else {
			c->cand_control[i] = history_db_control(h, c->cand[i].identity, &c->cand_control_by[i]);
		}
		this_sitting |= !(c->cand_control[i] > 0) && control_this_sitting(c->cand[i].built_at);
	}
	if (!this_sitting || c->from)
		return;
	long jobs = 1;
	for (size_t i = 0; i < c->ncand; i++)
		jobs = c->cand[i].jobs > jobs ? c->cand[i].jobs : jobs;
	struct ninja_build b;
	ninja_load(c->dir, &b);
	char *compiler = control_compiler(c->dir, &b), *err = NULL;
	ninja_build_free(&b);
	if (compiler && !control_measure(compiler, control_copies(jobs), CONTROL_RUNS, &c->now, &err)) {
		warn("%s", err);
		free(err);
		control_clear(&c->now);
	} else if (compiler) {
		for (size_t i = 0; i < c->ncand; i++)
			if (!(c->cand_control[i] > 0) && control_this_sitting(c->cand[i].built_at)) {
				c->cand_control[i] = c->now.seconds;
				c->cand_control_by[i] = control_name(&c->now);
			}
	}
	free(compiler);
}

/* Why the raw walls, when every build has no control of one compiler; NULL
 * when they all do (the walls in units of it). */
static char *raw_because(const struct check *c)
{
	if (c->no_control)
		return xstrdup("raw walls (--no-control)");
	size_t missing = 0;
	const char *by = NULL;
	bool mixed = false;
	for (size_t i = 0; i < c->nref + c->ncand; i++) {
		double seconds = i < c->nref ? c->ref[i].control : c->cand_control[i - c->nref];
		const char *who = i < c->nref ? c->ref[i].control_by : c->cand_control_by[i - c->nref];
		if (!(seconds > 0) || !who) {
			missing++;
			continue;
		}
		if (by && strcmp(base_name(by), base_name(who)))
			mixed = true;
		by = by ? by : who;
	}
	if (missing == c->nref + c->ncand)
		return xstrdup("raw walls: no build has a control compile, so a slower machine reads as a slower build");
	if (missing)
		return xasprintf("raw walls: %zu of the %zu builds have no control compile, so a slower machine reads as a "
				 "slower build", missing, c->nref + c->ncand);
	return mixed ? xstrdup("raw walls: the control compiles ran with different compilers or copies at once") : NULL;
}

/* The verdict on the walls in units of their controls where every build
 * has one, else on the raw walls; the raw ratio beside it either way. */
static void judge(struct check *c)
{
	double *ref = xcalloc(c->nref, sizeof(double)), *cand = xcalloc(c->ncand, sizeof(double)),
	       *ref_control = xcalloc(c->nref, sizeof(double));
	for (size_t i = 0; i < c->nref; i++)
		ref[i] = c->ref[i].wall, ref_control[i] = c->ref[i].control;
	for (size_t i = 0; i < c->ncand; i++)
		cand[i] = c->cand[i].wall;
	const struct regression_options o = { c->max_regression, FENCE_FLOOR };
	struct regression raw;
	regression_judge(ref, c->nref, cand, c->ncand, &o, &raw, NULL, NULL);
	c->raw_ratio = raw.ratio;
	c->raw_because = raw_because(c);
	c->ref_basis = xcalloc(c->nref, sizeof(double));
	c->cand_basis = xcalloc(c->ncand, sizeof(double));
	c->relative = !c->raw_because && regression_relative(ref, ref_control, c->nref, c->ref_basis) &&
		      regression_relative(cand, c->cand_control, c->ncand, c->cand_basis);
	if (c->relative) {
		c->ref_control = median_of(ref_control, c->nref);
		c->cand_control_median = median_of(c->cand_control, c->ncand);
	} else {
		memcpy(c->ref_basis, ref, c->nref * sizeof(double));
		memcpy(c->cand_basis, cand, c->ncand * sizeof(double));
	}
	c->ref_fenced = xcalloc(c->nref, sizeof(bool));
	c->cand_fenced = xcalloc(c->ncand, sizeof(bool));
	regression_judge(c->ref_basis, c->nref, c->cand_basis, c->ncand, &o, &c->reg, c->ref_fenced, c->cand_fenced);
	free(ref);
	free(cand);
	free(ref_control);
}

/* --against-dir: the reference's build dir and the candidate's rebuilt
 * clean in turn (ab_side_at's order) until `builds` pairs, compared by
 * ab's paired statistics: both sides of a pair ran minutes apart at most.
 * The control compile is timed before the first build and after each, and
 * each wall is judged over the control around it: a machine that changes
 * speed between the two builds of a pair (a neighbour starting on a
 * shared runner) moves the control with it. */
static void judge_same_sitting(struct check *c)
{
	struct build_spec spec[2];
	const char *dirs[2] = { c->against_dir, c->dir }, *names[2] = { "reference", "candidate" };
	double *walls[2], *controls[2];
	size_t n[2] = { 0, 0 }, pairs = (size_t)c->builds;
	for (int s = 0; s < 2; s++) {
		build_spec_ninja(&spec[s], dirs[s], c->jobs);
		walls[s] = xcalloc(pairs, sizeof(double));
		controls[s] = xcalloc(pairs, sizeof(double));
	}
	struct control_series control = { .without = "the pairs are judged on their raw walls" };
	if (!c->no_control) {
		struct ninja_build b;
		ninja_load(c->dir, &b);
		control.compiler = control_compiler(c->dir, &b);
		control.copies = control_copies(c->jobs > 0 ? c->jobs : cpu_count());
		ninja_build_free(&b);
	}
	if (c->no_control)
		c->raw_because = xstrdup("raw walls (--no-control)");
	else if (!control.compiler)
		c->raw_because = xstrdup("raw walls: no compile step names a compiler to time the control with");
	warn_if_busy();
	control_series_start(&control);
	for (size_t run = 0; n[0] < pairs || n[1] < pairs; run++) {
		int s = ab_side_at(run);
		if (n[s] == pairs)
			continue;
		char *what = xasprintf("%s, build %zu of %zu", names[s], n[s] + 1, pairs);
		struct trial_result r;
		trial_run(&spec[s], what, NULL, c->timeout, &r);
		walls[s][n[s]] = r.wall;
		controls[s][n[s]++] = control_series_next(&control);
		free(what);
	}
	struct ab_result raw;
	ab_compare(walls[0], walls[1], pairs, &raw);
	c->pair_raw_ratio = raw.ratio;
	c->pair_control_by = control_series_name(&control);	/* NULL when one failed */
	if (!c->pair_control_by && !c->raw_because)
		c->raw_because = xstrdup("raw walls: a control compile failed (said above)");
	control_series_clear(&control);
	if (c->pair_control_by) {
		double *basis[2];
		for (int s = 0; s < 2; s++) {
			basis[s] = xcalloc(pairs, sizeof(double));
			regression_relative(walls[s], controls[s], pairs, basis[s]);
			c->pair_controls[s] = controls[s];
		}
		ab_compare(basis[0], basis[1], pairs, &c->pairs);
		free(basis[0]);
		free(basis[1]);
	} else {
		c->pairs = raw;
		free(controls[0]);
		free(controls[1]);
	}
	c->reg = (struct regression){ .n_ref = pairs, .n_cand = pairs, .ref_median = raw.median_a,
				      .cand_median = raw.median_b, .ratio = c->pairs.ratio, .ratio_lo = NAN,
				      .ratio_hi = NAN, .ratio_least = NAN, .decided = pairs >= 2 };
	if (c->reg.decided) {
		c->reg.ratio_lo = c->pairs.ratio_lo, c->reg.ratio_hi = c->pairs.ratio_hi;
		c->reg.ratio_least = c->pairs.ratio_least;
		c->reg.over = regression_over(c->reg.ratio, c->reg.ratio_least, c->max_regression);
	}
	c->cand_median = raw.median_b;
	c->ref_name = xstrdup(c->against_dir);
	for (int s = 0; s < 2; s++) {
		build_spec_free(&spec[s]);
		c->pair_walls[s] = walls[s];
	}
}

/* Lines recorded (--pp) for the newest build of a list that has them. */
static void newest_lines(struct history_db *h, const int64_t *ids, size_t n, struct record_lines **out, size_t *count)
{
	*out = NULL;
	*count = 0;
	for (size_t i = n; i-- > 0 && !*count;) {
		char *err = NULL;
		if (!history_db_lines(h, ids[i], out, count, &err))
			die(EXIT_BAD_INPUT, "%s", err);
	}
}

static void find_growth(struct check *c, struct history_db *h)
{
	/* The reference's steps from the builds it kept: a cold build's
	 * steps are as far out as its wall. */
	int64_t *ids = xcalloc(c->nref + 1, sizeof(int64_t));
	size_t nids = 0;
	for (size_t i = 0; i < c->nref; i++)
		if (!c->ref_fenced[i])
			ids[nids++] = c->ref[i].id;
	struct history_step *steps;
	size_t nsteps;
	char *err = NULL;
	if (!history_db_steps(h, ids, nids, &steps, &nsteps, &err))
		die(EXIT_BAD_INPUT, "%s", err);
	c->ngrew = growth_steps(steps, nsteps, c->cand, c->ncand, c->grew);
	/* Lines are the sources', not the machine's: a build fenced for its
	 * time still has the reference's lines (record --pp keeps them on
	 * the newest build alone, which may be the one fenced). */
	nids = 0;
	for (size_t i = 0; i < c->nref; i++)
		ids[nids++] = c->ref[i].id;
	struct record_lines *ref_lines, *cand_lines = NULL;
	size_t nref_lines, ncand_lines = 0;
	newest_lines(h, ids, nids, &ref_lines, &nref_lines);
	for (size_t b = 0; b < c->ncand && !ncand_lines; b++) {
		int64_t id = history_db_find(h, c->cand[b].identity);
		if (id > 0)
			newest_lines(h, &id, 1, &cand_lines, &ncand_lines);
	}
	if (c->ngrew && nref_lines && ncand_lines)
		growth_lines(&c->grew[0], ref_lines, nref_lines, cand_lines, ncand_lines);
	history_lines_free(ref_lines, nref_lines);
	history_lines_free(cand_lines, ncand_lines);
	history_steps_free(steps, nsteps);
	free(ids);
}

static char *count_text(size_t n)
{
	return n >= 10000 ? xasprintf("%.0fK", (double)n / 1000) : n >= 1000 ? xasprintf("%.1fK", (double)n / 1000)
								 : xasprintf("%zu", n);
}

/* "opus_gemm_0.cuda.o +6.1 s, its host pass parses torch/ATen/c10 again (+118K lines)" */
static char *grown_text(const struct grown *g)
{
	char *text = g->ref_s == 0 ? xasprintf("%s +%.1f s (a new step)", g->target, g->cand_s)
				   : xasprintf("%s +%.1f s", g->target, g->cand_s - g->ref_s);
	if (!g->group)
		return text;
	char *delta = count_text(g->cand_lines - g->ref_lines);
	char *more = g->ref_lines ? xasprintf("its %s pass parses %s more lines of %s", g->pass, delta, g->group)
				  : xasprintf("its %s pass parses %s again (+%s lines)", g->pass, g->group, delta);
	char *out = xasprintf("%s, %s", text, more);
	free(delta);
	free(more);
	free(text);
	return out;
}

/* A build fenced as an outlier: which side, and how far from its side's
 * median (of every build of the side). */
struct fenced_build {
	const char *side, *identity;
	double wall, times_median;
};

static size_t fenced_builds(const struct check *c, struct fenced_build *out)
{
	if (!c->ref_fenced)	/* no recorded reference judged: --budget, --against-dir */
		return 0;
	size_t n = 0;
	double ref_median = median_of(c->ref_basis, c->nref), cand_median = median_of(c->cand_basis, c->ncand);
	for (size_t i = 0; i < c->nref; i++)
		if (c->ref_fenced[i])
			out[n++] = (struct fenced_build){ "reference", c->ref[i].identity, c->ref[i].wall,
							  c->ref_basis[i] / ref_median };
	for (size_t i = 0; i < c->ncand; i++)
		if (c->cand_fenced[i])
			out[n++] = (struct fenced_build){ "candidate", c->cand[i].identity, c->cand[i].wall,
							  c->cand_basis[i] / cand_median };
	return n;
}

/* "geometric means, outliers fenced: reference 8.40 s (2.26x its median)" */
static char *estimator_text(const struct check *c)
{
	struct fenced_build *f = xcalloc(c->nref + c->ncand + 1, sizeof(*f));
	size_t n = fenced_builds(c, f);
	struct strvec names = { 0 };
	for (size_t i = 0; i < n; i++)
		strvec_pushf(&names, "%s %.2f s (%.2fx its median)", f[i].side, f[i].wall, f[i].times_median);
	char *joined = strvec_join(&names, ", ");
	char *text = n ? xasprintf("geometric means, outlier%s fenced: %s", n == 1 ? "" : "s", joined)
		       : xstrdup("geometric means, no outlier fenced");
	free(joined);
	strvec_clear(&names);
	free(f);
	return text;
}

/* What the verdict rests on: "in units of the control compile (g++: 0.50 s
 * in the candidate's sittings, 0.40 s in the reference's: the machine
 * +25 %; raw walls +25 %)", or why the raw walls. */
static char *basis_text(const struct check *c)
{
	if (!c->relative)
		return xstrdup(c->raw_because ? c->raw_because : "raw walls");
	return xasprintf("in units of the control compile (%s: %.2f s in the candidate's sittings, %.2f s in the "
			 "reference's: the machine %+.0f %%; raw walls %+.0f %%)", base_name(c->cand_control_by[0]),
			 c->cand_control_median, c->ref_control, 100 * (c->cand_control_median / c->ref_control - 1),
			 100 * (c->raw_ratio - 1));
}

static void decide(struct check *c)
{
	struct strvec parts = { 0 };
	if (c->budget > 0) {
		c->over_budget = c->cand_median > c->budget;
		strvec_pushf(&parts, "wall %.1f s (median of %zu), %s the %.1f s budget", c->cand_median, c->ncand,
			     c->over_budget ? "over" : "within", c->budget);
	}
	if (c->against || c->against_dir) {
		const struct regression *r = &c->reg;
		double pct = 100 * (r->ratio - 1);
		if (fabs(pct) < 0.5)	/* "+0 % over", never "-0 % under" */
			pct = 0;
		if (r->decided && c->against_dir) {
			char *basis = c->pair_control_by
				? xasprintf("each wall over the control compile timed around it (%s; raw walls %+.0f %%)",
					    c->pair_control_by, 100 * (c->pair_raw_ratio - 1))
				: xstrdup(c->raw_because);
			strvec_pushf(&parts, "wall %.1f s, %+.0f %% %s %s (95 %% CI %+.0f to %+.0f %%, one-sided bound %+.0f "
				     "%%; %zu pairs of clean rebuilds in turn in this sitting, ABBA: a drift of the machine "
				     "falls on both sides; %s)", c->cand_median, pct, pct >= 0 ? "over" : "under", c->ref_name,
				     100 * (r->ratio_lo - 1), 100 * (r->ratio_hi - 1), 100 * (r->ratio_least - 1), c->pairs.n,
				     basis);
			free(basis);
		} else if (r->decided) {
			char *estimator = estimator_text(c), *basis = basis_text(c);
			strvec_pushf(&parts, "wall %.1f s, %+.0f %% %s %s (95 %% CI %+.0f to %+.0f %%, over only past its "
				     "lower end: builds of other sittings; %zu against %zu builds; %s; %s)", c->cand_median, pct,
				     pct >= 0 ? "over" : "under", c->ref_name, 100 * (r->ratio_lo - 1), 100 * (r->ratio_hi - 1),
				     c->ncand, c->nref, estimator, basis);
			free(estimator);
			free(basis);
		} else
			strvec_pushf(&parts, "wall %.1f s, %+.0f %% against %s: too few builds to decide (%zu and %zu; "
				     "3 in all make an interval)", c->cand_median, pct, c->ref_name, c->reg.n_cand, c->reg.n_ref);
		if (r->over || (c->ngrew && r->ratio > 1)) {
			struct strvec names = { 0 };
			for (size_t i = 0; i < c->ngrew; i++)
				strvec_push_nodup(&names, grown_text(&c->grew[i]));
			if (names.n) {
				char *joined = strvec_join(&names, "; ");
				strvec_pushf(&parts, "grew most: %s", joined);
				free(joined);
			}
			strvec_clear(&names);
		}
	}
	c->reason = strvec_join(&parts, "; ");
	strvec_clear(&parts);
}

static const char *verdict_of(const struct check *c)
{
	if (c->over_budget || c->reg.over)
		return "over";
	return (c->against || c->against_dir) && !c->reg.decided ? "undecided" : "within";
}

/* The verdict and why, one line: what a CI log shows. */
static void render_table(const struct check *c)
{
	const char *verdict = verdict_of(c);
	printf("check: %s%s%s: %s\n", strcmp(verdict, "over") ? c_bold(stdout) : c_red(stdout), verdict, c_reset(stdout),
	       c->reason);
}

/* The one-sided bound, or null without an interval. */
static json_t *least_json(const struct regression *r)
{
	return r->decided ? json_real(round(r->ratio_least * 10000) / 10000) : json_null();
}

static void render_json(const struct check *c, const char *db_path)
{
	json_t *doc = json_document("check", c->dir, 0);
	json_t *cand = json_array(), *ref = json_array(), *grew = json_array();
	for (size_t i = 0; i < c->ncand; i++) {
		double control = c->cand_control ? c->cand_control[i] : 0;
		json_array_append_new(cand, json_pack("{s:s, s:o, s:I, s:o}", "identity", c->cand[i].identity, "wall_s",
						      json_seconds(c->cand[i].wall), "steps", (json_int_t)c->cand[i].nsteps,
						      "control_s", control > 0 ? json_seconds(control) : json_null()));
	}
	for (size_t i = 0; i < c->nref; i++)
		json_array_append_new(ref, json_pack("{s:s, s:o, s:o, s:o, s:I, s:o}", "identity", c->ref[i].identity, "commit",
						     c->ref[i].commit ? json_string(c->ref[i].commit) : json_null(), "labels",
						     c->ref[i].labels ? json_string(c->ref[i].labels) : json_null(), "wall_s",
						     json_seconds(c->ref[i].wall), "recorded_at", (json_int_t)c->ref[i].recorded_at,
						     "control_s", c->ref[i].control > 0 ? json_seconds(c->ref[i].control) : json_null()));
	for (size_t i = 0; i < c->ngrew; i++) {
		const struct grown *g = &c->grew[i];
		json_t *lines = g->group ? json_pack("{s:s, s:s, s:I, s:I}", "pass", g->pass, "group", g->group, "reference",
						     (json_int_t)g->ref_lines, "candidate", (json_int_t)g->cand_lines)
					 : json_null();
		json_array_append_new(grew, json_pack("{s:s, s:o, s:o, s:o, s:o}", "target", g->target, "reference_s",
						      json_seconds(g->ref_s), "candidate_s", json_seconds(g->cand_s), "delta_s",
						      json_seconds(g->cand_s - g->ref_s), "lines", lines));
	}
	json_t *fenced = json_array();
	struct fenced_build *f = xcalloc(c->nref + c->ncand + 1, sizeof(*f));
	for (size_t i = 0, n = fenced_builds(c, f); i < n; i++)
		json_array_append_new(fenced, json_pack("{s:s, s:s, s:o, s:f}", "side", f[i].side, "identity", f[i].identity,
							"wall_s", json_seconds(f[i].wall), "times_median",
							round(f[i].times_median * 1000) / 1000));
	free(f);
	char *estimator = xasprintf("the ratio of the geometric mean walls, Student's t on log walls; on each side, "
				    "walls slower than its median by more than %.1f MADs and %.0f %% fenced", FENCE_MADS, 100 * FENCE_FLOOR);
	const struct regression *r = &c->reg;
	json_object_set_new(doc, "module", json_string(c->ctx.module));
	json_object_set_new(doc, "verdict", json_string(verdict_of(c)));
	json_object_set_new(doc, "reason", json_string(c->reason));
	json_object_set_new(doc, "candidate", json_pack("{s:o, s:o}", "builds", cand, "median_wall_s",
							 json_seconds(c->cand_median)));
	json_object_set_new(doc, "budget", c->budget > 0 ? json_pack("{s:o, s:b}", "seconds", json_seconds(c->budget),
								     "over", c->over_budget) : json_null());
	json_object_set_new(doc, "against", c->against ? json_pack("{s:s, s:s, s:s, s:o, s:f, s:s, s:o, s:o, s:o, s:o, s:s, s:b, s:b, s:o}",
		"ref", c->against, "shown_as", c->ref_name, "db", db_path, "builds", ref, "max_regression", c->max_regression,
		"estimator", estimator, "fenced", fenced,
		"ratio", json_real(round(r->ratio * 10000) / 10000),
		"ratio_ci", r->decided ? json_pack("[f, f]", round(r->ratio_lo * 10000) / 10000,
						   round(r->ratio_hi * 10000) / 10000) : json_null(),
		"ratio_least", least_json(r), "gate", "ratio_ci[0]", "decided", r->decided, "over", r->over, "grew", grew)
		: json_null());
	if (c->against_dir) {
		json_t *pairs = json_array();
		for (size_t i = 0; i < c->pairs.n; i++)
			json_array_append_new(pairs, json_pack("{s:o, s:o, s:o, s:o}", "reference_s",
				json_seconds(c->pair_walls[0][i]), "candidate_s", json_seconds(c->pair_walls[1][i]),
				"reference_control_s", c->pair_controls[0] ? json_seconds(c->pair_controls[0][i]) : json_null(),
				"candidate_control_s", c->pair_controls[1] ? json_seconds(c->pair_controls[1][i]) : json_null()));
		json_object_set_new(doc, "against", json_pack("{s:s, s:s, s:s, s:o, s:f, s:f, s:o, s:o, s:s, s:b, s:b, s:s}",
			"ref", c->against_dir, "shown_as", c->ref_name, "basis", "same sitting", "pairs", pairs,
			"max_regression", c->max_regression, "ratio", round(c->reg.ratio * 10000) / 10000,
			"ratio_ci", c->reg.decided ? json_pack("[f, f]", round(c->reg.ratio_lo * 10000) / 10000,
							       round(c->reg.ratio_hi * 10000) / 10000) : json_null(),
			"ratio_least", least_json(&c->reg), "gate", "ratio_least", "decided", c->reg.decided, "over",
			c->reg.over, "estimator",
			"ab's: the geometric mean of the pairs' ratios, Student's t on their logarithms; clean rebuilds "
			"of both dirs in turn, ABBA then BAAB"));
		json_t *against = json_object_get(doc, "against");
		json_object_set_new(against, "control", c->pair_control_by ? json_string(c->pair_control_by) : json_null());
		json_object_set_new(against, "raw_ratio", json_real(round(c->pair_raw_ratio * 10000) / 10000));
		json_object_set_new(against, "raw_because", c->raw_because ? json_string(c->raw_because) : json_null());
	}
	if (c->against) {
		json_t *against = json_object_get(doc, "against");
		json_object_set_new(against, "basis", json_string(c->relative ? "control" : "raw"));
		json_object_set_new(against, "raw_ratio", json_real(round(c->raw_ratio * 10000) / 10000));
		json_object_set_new(against, "control", c->relative
			? json_pack("{s:s, s:o, s:o, s:f}", "compiler", c->cand_control_by[0], "reference_s",
				    json_seconds(c->ref_control), "candidate_s", json_seconds(c->cand_control_median),
				    "machine_ratio", round(c->cand_control_median / c->ref_control * 10000) / 10000)
			: json_null());
		json_object_set_new(against, "raw_because", c->raw_because ? json_string(c->raw_because) : json_null());
	}
	if (!c->against) {
		json_decref(ref);
		json_decref(grew);
		json_decref(fenced);
	}
	free(estimator);
	json_print(doc);
}

int cmd_check(int argc, char **argv)
{
	struct check c = { .max_regression = 0.05, .builds = 5 };
	const char *db_option = NULL;
	bool json = false;
	const struct opt opts[] = {
		OPT_DIR(&c.dir),
		OPT_CALL(0, "budget", &c.budget, "S", "over when the median wall exceeds S seconds", parse_budget),
		OPT_STRING(0, "against", &c.against, "REF", "a commit (hash, or a name git resolves) or a label K=V"),
		OPT_CALL(0, "max-regression", &c.max_regression, "P", "the slowdown allowed against REF (default 5%)", parse_regression),
		OPT_INT(0, "builds", &c.builds, "N", "the last N clean builds of the log are the candidate (default 5)", 1, 100),
		OPT_MODULE(&c.module),
		OPT_FLAG(0, "any-machine", &c.any_machine, "compare with builds recorded on any machine"),
		OPT_STRING(0, "from", &c.from, "DOC", "the candidate: a saved 'wall --json' document's trials"),
		OPT_FLAG(0, "no-control", &c.no_control, "compare the raw walls, not in units of the control compile"),
		OPT_STRING(0, "against-dir", &c.against_dir, "REF_DIR",
			   "a reference build dir, rebuilt in turn with this one in this sitting (ABBA)"),
		OPT_BUILD_JOBS(&c.jobs, "--against-dir: ninja -j (default $MAX_JOBS, else ninja's own default)"),
		OPT_TIMEOUT(&c.timeout, "--against-dir: give up on a build after S seconds (exit 3)"),
		OPT_DB(&db_option),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("check", argc, argv, opts, usage);
	if (first < argc)
		usage_error("check", "unexpected argument '%s'", argv[first]);
	if (!(c.budget > 0) && !c.against && !c.against_dir)
		usage_error("check", "give --budget S, --against REF, or both (or --against-dir REF_DIR)");
	if (c.against_dir && (c.against || c.from || c.any_machine))
		usage_error("check", "--against-dir rebuilds both dirs here: --against, --from and --any-machine go with "
			    "recorded builds");
	if (c.against_dir && c.builds < 2)
		usage_error("check", "--against-dir needs 2 pairs at least (--builds 2)");
	if ((c.jobs || c.timeout > 0) && !c.against_dir)
		usage_error("check", "-j and --timeout go with --against-dir (check runs no build otherwise)");
	if (c.from && c.dir)
		usage_error("check", "--from reads the candidate from a document: -C goes with a build dir");
	if (c.from && !c.module)
		usage_error("check", "--from needs --module NAME (a document does not say which module it is)");
	if (c.from) {
		read_candidate_document(&c);
	} else if (c.against_dir) {
		c.dir = c.dir ? c.dir : ".";
		ninja_check_dir(c.dir);
		ninja_check_dir(c.against_dir);
		struct build_outputs o;
		build_outputs_load(&o, c.dir);
		record_context_init(&c.ctx, NULL, NULL, c.module ? c.module : o.module, false);
		build_outputs_free(&o);
		if (!c.jobs)
			c.jobs = jobs_from_env("check");
		judge_same_sitting(&c);
	} else {
		c.dir = c.dir ? c.dir : ".";
		ninja_check_dir(c.dir);
		read_candidate(&c);
	}
	if (!c.against_dir) {
		double *walls = xcalloc(c.ncand, sizeof(double));
		for (size_t i = 0; i < c.ncand; i++)
			walls[i] = c.cand[i].wall;
		c.cand_median = median_of(walls, c.ncand);
		free(walls);
	}

	char *db_path = history_db_path(db_option);
	if (c.against) {
		struct history_db h;
		char *err = NULL;
		if (!history_db_open(&h, db_path, false, &err))
			die(EXIT_BAD_INPUT, "%s", err);
		read_reference(&c, &h);
		candidate_controls(&c, &h);
		judge(&c);
		find_growth(&c, &h);
		history_db_close(&h);
	}
	decide(&c);
	const char *verdict = verdict_of(&c);
	if (json)
		render_json(&c, db_path);
	else
		render_table(&c);
	int status = strcmp(verdict, "over") ? EXIT_OK : CHECK_EXIT_OVER;
	for (size_t i = 0; i < c.ncand; i++)
		build_record_free(&c.cand[i]);
	free(c.cand);
	history_builds_free(c.ref, c.nref);
	for (size_t i = 0; i < c.ngrew; i++)
		grown_clear(&c.grew[i]);
	free(c.ref_fenced);
	free(c.cand_fenced);
	free(c.ref_basis);
	free(c.cand_basis);
	for (size_t i = 0; c.cand_control_by && i < c.ncand; i++)
		free(c.cand_control_by[i]);
	free(c.cand_control_by);
	free(c.cand_control);
	free(c.raw_because);
	for (int s = 0; s < 2; s++) {
		free(c.pair_walls[s]);
		free(c.pair_controls[s]);
	}
	free(c.pair_control_by);
	control_clear(&c.now);
	free(c.ref_name);
	free(c.reason);
	free(db_path);
	record_context_free(&c.ctx);
	return status;
}
