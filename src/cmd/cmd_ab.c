/* buildwall ab: is B faster than A, by how much, how sure. Two whole
 * builds (two build dirs, or two commands), or one TU against itself with
 * a change (flags added or dropped, a define, an edited source), run in
 * interleaved ABBA blocks after warm-up runs; the ratio B/A with a 95 %
 * interval (abstats.c). One-TU runs go to the temp dir and leave the build
 * dir byte-identical; whole builds rebuild their trees, as wall does. */
#define _GNU_SOURCE
#include "abstats.h"
#include "busy.h"
#include "cli.h"
#include "cmdline.h"
#include "match.h"
#include "ninja.h"
#include "options.h"
#include "out_json.h"
#include "out_table.h"
#include "proc.h"
#include "progress.h"
#include "snapshot.h"
#include "stats.h"
#include "steps.h"
#include "tmpdir.h"
#include "trial.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall ab (-C DIR_A -C DIR_B [-j JOBS] | --a CMD --b CMD [--clean-a CMD] [--clean-b CMD])\n"
	"                    [--match REGEX] [-n N] [--warmup W] [--precision P [--max M]] [--timeout S] [--json]\n"
	"       buildwall ab [-C DIR] TARGET [--flags 'F...'] [--drop FLAG] [--define NAME[=V]] [--source PATH]\n"
	"                    [-n N] [--warmup W] [--precision P [--max M]] [--timeout S] [--json]\n"
	"\n"
	"Is B faster than A? Whole builds: two build dirs (each run cleans and rebuilds, as\n"
	"wall does) or two shell commands. One TU: A is TARGET's command as ninja has it, B the\n"
	"same with flags added (--flags, split as a shell would), an argument dropped (--drop),\n"
	"a define added (--define), or an edited copy of its source (--source); only that TU\n"
	"is re-run, its outputs in a private temp dir (the build dir stays byte-identical).\n"
	"With no change B is A: an A/A run, for the noise.\n"
	"\n"
	"W warm-up runs of each side (B first, so a rejected flag fails at once), then N pairs\n"
	"in ABBA blocks (A B B A, then B A A B: drift hits both sides alike). Per run: wall,\n"
	"CPU, peak RSS. The estimate is the geometric mean of the pairs' ratios B/A; its 95 %\n"
	"interval Student's t on their logarithms (it holds 95 % at a few pairs). --precision P\n"
	"(a share, or a percentage) goes on in blocks until the interval's half-width is\n"
	"under P, or M pairs (default 30).\n"
	"\n";

struct side {
	const char *name;	/* "A", "B" */
	char *label;		/* what it is, as shown */
	struct build_spec spec;	/* whole builds */
	struct compile_command cmd;	/* one TU */
	double *walls, *cpus, *matches;
	long *rss;
	size_t n, cap;
};

struct ab {
	enum { AB_DIRS, AB_COMMANDS, AB_TU } mode;
	struct strvec dirs;
	const char *a_cmd, *b_cmd, *clean_a, *clean_b, *match, *flags, *source;
	struct strvec drops, defines;
	long pairs, warmup, max, jobs;
	double precision, timeout;
	regex_t re;
	struct side side[2];
	struct ninja_build build;
	const char *target;
	struct ab_result wall, cpu, matched;
	size_t runs;
	char *order;		/* "ABBA…" as run */
};

static bool push_arg(void *list, const char *arg, char **err)
{
	(void)err;
	strvec_push(list, arg);
	return true;
}

static bool parse_precision(void *value, const char *arg, char **err)
{
	double v;
	char *why = NULL;
	if (!parse_share("--precision", arg, &v, &why))
		return ok_unless(err, why);
	if (!(v > 0 && v < 1))
		return fail_with(err, xasprintf("--precision must lie between 0 and 100 %%, not '%s'", arg));
	*(double *)value = v;
	return true;
}

/* ---- the two sides ---- */

static void tu_sides(struct ab *ab, char *target)
{
	const char *dir = ab->dirs.n ? ab->dirs.v[0] : ".";
	snapshot_guard(dir);
	ninja_load(dir, &ab->build);
	bool *selected = xcalloc(ab->build.n, sizeof(bool));
	steps_select("ab", &ab->build, &target, 1, selected);
	long edge = -1;
	for (size_t i = 0; i < ab->build.n; i++)
		if (selected[i]) {
			if (edge >= 0)
				usage_error("ab", "'%s' names more than one compile step; name one", target);
			edge = (long)i;
		}
	free(selected);
	const struct ninja_edge *e = &ab->build.edges[edge];
	ab->target = e->outputs.v[0];
	steps_check_built(dir, e);
	struct strvec stripped = { 0 };
	steps_prepare(dir, e, "a", &ab->side[0].cmd, &stripped);
	steps_prepare(dir, e, "b", &ab->side[1].cmd, &stripped);
	steps_note_stripped(&stripped);
	strvec_clear(&stripped);
	struct compile_command *b = &ab->side[1].cmd;
	struct strvec changes = { 0 };
	for (size_t d = 0; d < ab->drops.n; d++) {
		struct strvec kept = { 0 };
		for (size_t i = 0; i < b->argv.n; i++)
			if (i == 0 || strcmp(b->argv.v[i], ab->drops.v[d]))
				strvec_push(&kept, b->argv.v[i]);
		if (kept.n == b->argv.n)
			usage_error("ab", "--drop %s: %s's command has no such argument", ab->drops.v[d], ab->target);
		strvec_clear(&b->argv);
		b->argv = kept;
		strvec_pushf(&changes, "without %s", ab->drops.v[d]);
	}
	if (ab->flags) {
		struct strvec words = { 0 };
		const char *err = cmdline_split(ab->flags, &words);
		if (err)
			usage_error("ab", "--flags '%s': %s", ab->flags, err);
		for (size_t i = 0; i < words.n; i++)
			strvec_push(&b->argv, words.v[i]);
		strvec_clear(&words);
		strvec_pushf(&changes, "with %s", ab->flags);
	}
	for (size_t d = 0; d < ab->defines.n; d++) {
		strvec_pushf(&b->argv, "-D%s", ab->defines.v[d]);
		strvec_pushf(&changes, "with -D%s", ab->defines.v[d]);
	}
	if (ab->source) {
		char *abs = realpath(ab->source, NULL);	/* the TU runs in the build dir */
		if (!abs)
			usage_error("ab", "--source %s: %s", ab->source, strerror(errno));
		if (!steps_replace_source(e, b, abs))
			usage_error("ab", "%s: its command does not name its source as ninja does; --source cannot replace it",
				    ab->target);
		strvec_pushf(&changes, "compiling %s instead", ab->source);
		free(abs);
	}
	ab->side[0].label = xasprintf("%s as ninja builds it", ab->target);
	char *list = changes.n ? strvec_join(&changes, ", ") : NULL;
	ab->side[1].label = list ? xasprintf("%s %s", ab->target, list) : xasprintf("%s again (an A/A run)", ab->target);
	free(list);
	strvec_clear(&changes);
}

static void build_sides(struct ab *ab)
{
	if (ab->mode == AB_DIRS) {
		for (int s = 0; s < 2; s++) {
			ninja_check_dir(ab->dirs.v[s]);
			build_spec_ninja(&ab->side[s].spec, ab->dirs.v[s], ab->jobs);
			ab->side[s].label = xasprintf("a clean rebuild of %s", ab->dirs.v[s]);
		}
	} else {
		build_spec_shell(&ab->side[0].spec, ab->clean_a, ab->a_cmd);
		build_spec_shell(&ab->side[1].spec, ab->clean_b, ab->b_cmd);
		for (int s = 0; s < 2; s++)
			ab->side[s].label = xstrdup(ab->side[s].spec.build_line);
	}
}

/* ---- running ---- */

static void record(struct side *s, double wall, double cpu, long rss, double match)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->walls = xrealloc(s->walls, s->cap * sizeof(double));
		s->cpus = xrealloc(s->cpus, s->cap * sizeof(double));
		s->matches = xrealloc(s->matches, s->cap * sizeof(double));
		s->rss = xrealloc(s->rss, s->cap * sizeof(long));
	}
	s->walls[s->n] = wall;
	s->cpus[s->n] = cpu;
	s->matches[s->n] = match;
	s->rss[s->n++] = rss;
}

/* One run of side s; `keep`: a measured run (else a warm-up). */
static void run_once(struct ab *ab, int s, bool keep)
{
	struct side *side = &ab->side[s];
	char *what = keep ? xasprintf("%s, run %zu", side->name, side->n + 1) : xasprintf("%s, warm-up", side->name);
	if (ab->mode == AB_TU) {
		char *log = xasprintf("%s/%s.log", tmpdir_path(), side->name);
		struct proc p = { .argv = side->cmd.argv.v, .env_extra = side->cmd.env.v,
				  .cwd = ab->dirs.n ? ab->dirs.v[0] : ".", .out_path = log, .timeout_s = ab->timeout };
		progress_set("[%s] %s", what, ab->target);
		proc_run(&p);
		progress_clear();
		proc_exit_if_interrupted();
		if (!proc_succeeded(&p)) {
			free(proc_report_failure(&p, log, "%s (%s): the compile", what, side->label));
			exit(EXIT_BUILD_FAILED);
		}
		if (keep)
			record(side, p.wall_s, p.cpu_s, p.maxrss_kb, NAN);
		free(log);
	} else {
		struct trial_result r;
		trial_run(&side->spec, what, ab->match ? &ab->re : NULL, ab->timeout, &r);
		if (keep)
			record(side, r.wall, r.cpu, r.maxrss_kb, r.match);
	}
	free(what);
	if (keep) {
		ab->order = xrealloc(ab->order, ab->runs + 2);
		ab->order[ab->runs++] = side->name[0];
		ab->order[ab->runs] = '\0';
	}
}

static void compare(struct ab *ab)
{
	size_t n = ab->side[0].n < ab->side[1].n ? ab->side[0].n : ab->side[1].n;
	ab_compare(ab->side[0].walls, ab->side[1].walls, n, &ab->wall);
	ab_compare(ab->side[0].cpus, ab->side[1].cpus, n, &ab->cpu);
	if (ab->match) {
		bool all = true;
		for (size_t i = 0; i < n; i++)
			all &= ab->side[0].matches[i] > 0 && ab->side[1].matches[i] > 0;
		if (all)
			ab_compare(ab->side[0].matches, ab->side[1].matches, n, &ab->matched);
		else
			warn("--match found no number in some runs; no comparison of it");
	}
}

/* Blocks of two pairs, ABBA then BAAB, until N pairs; with --precision,
 * on until the interval is narrow enough or --max pairs. */
static void run_all(struct ab *ab)
{
	warn_if_busy();
	for (long w = 0; w < ab->warmup; w++) {
		run_once(ab, 1, false);
		run_once(ab, 0, false);
	}
	for (size_t block = 0;; block++) {
		for (size_t k = 0; k < 4; k++) {
			int s = ab_side_at(4 * block + k);
			if ((long)ab->side[s].n < ab->pairs || ab->precision > 0)
				run_once(ab, s, true);
		}
		long done = (long)(ab->side[0].n < ab->side[1].n ? ab->side[0].n : ab->side[1].n);
		if (done < ab->pairs)
			continue;
		if (ab->precision <= 0 || done >= ab->max)
			break;
		compare(ab);
		if (ab_half_width(&ab->wall) <= ab->precision)
			break;
	}
	compare(ab);
}

/* ---- rendering ---- */

static const char *const method_text =
	"pairs from ABBA blocks (A B B A, then B A A B); estimate: the geometric mean of the pairs' ratios B/A; "
	"95 % interval: Student's t on the ratios' logarithms, n - 1 degrees of freedom";

static json_t *json_result(const struct ab_result *r, const char *what)
{
	char *verdict = ab_verdict(r, what);
	json_t *o = json_build("{s:o, s:o, s:f, s:[f, f], s:b, s:s}", "median_a", json_seconds(r->median_a),
			       "median_b", json_seconds(r->median_b), "ratio", round(r->ratio * 10000) / 10000,
			       "ratio_ci", round(r->ratio_lo * 10000) / 10000, round(r->ratio_hi * 10000) / 10000,
			       "differs", r->differs, "verdict", verdict);
	free(verdict);
	return o;
}

static void render_json(const struct ab *ab)
{
	static const char *const modes[] = { "build dirs", "commands", "one TU" };
	json_t *doc = json_document("ab", ab->mode == AB_TU ? (ab->dirs.n ? ab->dirs.v[0] : ".") : NULL, 0);
	json_object_set_new(doc, "mode", json_string(modes[ab->mode]));
	json_t *sides = json_object(), *runs = json_array();
	for (int s = 0; s < 2; s++) {
		const struct side *side = &ab->side[s];
		json_object_set_new(sides, side->name, json_build("{s:s}", "label", side->label));
		for (size_t i = 0; i < side->n; i++)
			json_array_append_new(runs, json_build("{s:s, s:i, s:o, s:o, s:I, s:o}", "side", side->name, "run",
							       (int)i + 1, "wall_s", json_seconds(side->walls[i]),
							       "cpu_s", json_seconds(side->cpus[i]), "max_rss_kib",
							       (json_int_t)side->rss[i], "match", json_seconds(side->matches[i])));
	}
	json_object_set_new(doc, "sides", sides);
	json_object_set_new(doc, "method", json_build("{s:I, s:I, s:s, s:s}", "pairs", (json_int_t)ab->wall.n,
		"warmup", (json_int_t)ab->warmup, "order", ab->order ? ab->order : "", "statistics", method_text));
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(doc, "wall", json_result(&ab->wall, "wall"));
	json_object_set_new(doc, "cpu", json_result(&ab->cpu, "CPU"));
	json_object_set_new(doc, "match", ab->matched.n ? json_result(&ab->matched, "match") : json_null());
	json_print(doc);
}

static void render_table(const struct ab *ab)
{
	printf("%sab%s: A = %s\n    B = %s\n", c_bold(stdout), c_reset(stdout), ab->side[0].label, ab->side[1].label);
	printf("%ld warm-up run%s each, then %zu pairs in ABBA blocks (%s)\n\n", ab->warmup, ab->warmup == 1 ? "" : "s",
	       ab->wall.n, ab->order ? ab->order : "");
	struct table *tab = table_new();
	table_column(tab, "side", false);
	table_column(tab, "median wall s", true);
	table_column(tab, "min-max s", true);
	table_column(tab, "median cpu s", true);
	table_column(tab, "peak RSS", true);
	for (int s = 0; s < 2; s++) {
		const struct side *side = &ab->side[s];
		struct summary w = summarize(side->walls, side->n), c = summarize(side->cpus, side->n);
		long rss = 0;
		for (size_t i = 0; i < side->n; i++)
			rss = side->rss[i] > rss ? side->rss[i] : rss;
		char *mem = format_kib(rss);
		table_cell(tab, "%s", side->name);
		table_cell(tab, "%.2f", w.median);
		table_cell(tab, "%.2f-%.2f", w.min, w.max);
		table_cell(tab, "%.2f", c.median);
		table_cell(tab, "%s", mem);
		free(mem);
	}
	table_print(tab, stdout);
	table_free(tab);
	const struct ab_result *rs[] = { &ab->wall, &ab->cpu, ab->matched.n ? &ab->matched : NULL };
	const char *names[] = { "wall", "CPU", "match" };
	printf("\n");
	for (int k = 0; k < 3; k++) {
		if (!rs[k])
			continue;
		char *v = ab_verdict(rs[k], names[k]);
		printf("%s%s%s  (B/A %.3f, 95 %% CI %.3f-%.3f)\n", k == 0 ? c_bold(stdout) : "", v,
		       k == 0 ? c_reset(stdout) : "", rs[k]->ratio, rs[k]->ratio_lo, rs[k]->ratio_hi);
		free(v);
	}
	printf("method: %s\n", method_text);
}

static void ab_free(struct ab *ab)
{
	for (int s = 0; s < 2; s++) {
		struct side *side = &ab->side[s];
		free(side->label);
		build_spec_free(&side->spec);
		compile_command_clear(&side->cmd);
		free(side->walls);
		free(side->cpus);
		free(side->matches);
		free(side->rss);
	}
	strvec_clear(&ab->dirs);
	strvec_clear(&ab->drops);
	strvec_clear(&ab->defines);
	free(ab->order);
	if (ab->match)
		regfree(&ab->re);
	if (ab->mode == AB_TU)
		ninja_build_free(&ab->build);
}

int cmd_ab(int argc, char **argv)
{
	struct ab ab = { .pairs = 5, .warmup = 1, .max = 30 };
	bool json = false;
	const struct opt opts[] = {
		OPT_CALL('C', NULL, &ab.dirs, "DIR", "a build dir: twice for two whole builds, once for one TU", push_arg),
		OPT_STRING(0, "a", &ab.a_cmd, "CMD", "A's build command (/bin/sh -c)"),
		OPT_STRING(0, "b", &ab.b_cmd, "CMD", "B's build command"),
		OPT_STRING(0, "clean-a", &ab.clean_a, "CMD", "what makes A's next build a clean one"),
		OPT_STRING(0, "clean-b", &ab.clean_b, "CMD", "what makes B's next build a clean one"),
		OPT_BUILD_JOBS(&ab.jobs, "ninja -j for two build dirs (default: ninja's own)"),
		OPT_STRING(0, "match", &ab.match, "REGEX", "also compare a number from the build's output, as wall does"),
		OPT_STRING(0, "flags", &ab.flags, "'F...'", "one TU: B adds these arguments"),
		OPT_CALL(0, "drop", &ab.drops, "FLAG", "one TU: B drops this argument (repeatable)", push_arg),
		OPT_CALL(0, "define", &ab.defines, "NAME[=V]", "one TU: B adds -DNAME[=V] (repeatable)", push_arg),
		OPT_STRING(0, "source", &ab.source, "PATH", "one TU: B compiles this copy of the source"),
		OPT_INT('n', "pairs", &ab.pairs, "N", "measured pairs (default 5)", 2, 10000),
		OPT_INT(0, "warmup", &ab.warmup, "W", "warm-up runs of each side, not measured (default 1)", 0, 100),
		OPT_CALL(0, "precision", &ab.precision, "P", "go on until the interval's half-width is under P", parse_precision),
		OPT_INT(0, "max", &ab.max, "M", "with --precision: at most M pairs (default 30)", 2, 10000),
		OPT_TIMEOUT(&ab.timeout, "give up on a run after S seconds (exit 3)"),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("ab", argc, argv, opts, usage);
	size_t nargs = (size_t)(argc - first);
	bool commands = ab.a_cmd || ab.b_cmd, tu_change = ab.flags || ab.drops.n || ab.defines.n || ab.source;
	if (commands) {
		if (!ab.a_cmd || !ab.b_cmd)
			usage_error("ab", "--a and --b go together");
		if (ab.dirs.n || nargs || tu_change)
			usage_error("ab", "--a/--b compare two commands; -C, TARGET and one-TU changes do not go with them");
		ab.mode = AB_COMMANDS;
	} else if (ab.dirs.n == 2) {
		if (nargs || tu_change)
			usage_error("ab", "two -C dirs compare whole builds; TARGET and one-TU changes do not go with them");
		ab.mode = AB_DIRS;
	} else if (nargs == 1 && ab.dirs.n <= 1) {
		ab.mode = AB_TU;
	} else {
		usage_error("ab", "name two builds (-C DIR_A -C DIR_B, or --a CMD --b CMD) or one TARGET");
	}
	if ((ab.clean_a || ab.clean_b) && ab.mode != AB_COMMANDS)
		usage_error("ab", "--clean-a/--clean-b go with --a/--b");
	if (ab.match && ab.mode == AB_TU)
		usage_error("ab", "--match reads a build's output; it does not go with one TU");
	if (ab.jobs && ab.mode != AB_DIRS)
		usage_error("ab", "-j applies to two build dirs");
	if (ab.match) {
		char *err = NULL;
		if (!regex_compile(&ab.re, ab.match, 0, &err))
			usage_error("ab", "--match: invalid regex '%s': %s", ab.match, err);
	}
	ab.side[0].name = "A";
	ab.side[1].name = "B";
	if (ab.mode == AB_TU)
		tu_sides(&ab, argv[first]);
	else
		build_sides(&ab);
	run_all(&ab);
	if (json)
		render_json(&ab);
	else
		render_table(&ab);
	ab_free(&ab);
	return EXIT_OK;
}
