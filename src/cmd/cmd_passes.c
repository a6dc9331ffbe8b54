/* buildwall passes: split each TU into the jobs its driver runs (-###,
 * nvcc --dryrun), time every job in isolation, read the compilers' own
 * time reports into four phases per pass, and say whether the TU is
 * host-pass or device-pass dominant. The build directory is only read. */
#define _GNU_SOURCE
#include "arch_plan.h"
#include "cli.h"
#include "progress.h"
#include "tmpdir.h"
#include "busy.h"
#include "jobs.h"
#include "ninja.h"
#include "ninja_log.h"
#include "json_facts.h"
#include "out_json.h"
#include "options.h"
#include "out_table.h"
#include "pass_probe.h"
#include "passes.h"
#include "proc.h"
#include "snapshot.h"
#include "stats.h"
#include "steps.h"
#include "util.h"
#include "whatif.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall passes [-C BUILD_DIR] (TARGET... | --all | --top K) [-r REPEATS] [--kernels]\n"
	"                        [--front-end S] [--codegen-share P] [--parallel P] [--timeout S] [--json]\n"
	"\n"
	"Split each TU into the jobs its compiler driver runs (clang/hipcc/gcc -###, nvcc\n"
	"--dryrun), time every job in isolation with all outputs in a private temp dir, and\n"
	"label it: pass (host, device per arch, other), arch, tool. Each pass is split into\n"
	"four phases from the compilers' own reports (Wall column): front end, LLVM IR\n"
	"generation, optimizer, machine code generation (clang -ftime-report per cc1 job;\n"
	"nvcc --time, -fdevice-time-trace and the host compiler's -ftime-report; gcc\n"
	"-ftime-report, where optimizer and code generation are one figure).\n"
	"\n"
	"Walls, CPU and RSS come from plain runs; the instrumented runs give the phases,\n"
	"scaled to the plain walls (instrumentation slows what it measures).\n"
	"\n"
	"Verdict per TU: the pass that holds most of the job time and the phase that holds\n"
	"most of it, with the evidence behind the playbook's fixes (a device pass that\n"
	"parses torch, from preprocessing the TU as pp does); the playbook's marks (host\n"
	"front end > S seconds, codegen > P of a device pass) beside it.\n"
	"\n";

struct passes {
	const char *dir;
	struct ninja_build build;
	struct pass_probe probe;	/* the TUs and their breakdowns */
	long top;
	bool all;
	struct strvec stripped;
	const char *chosen_by;	/* --top: ".ninja_log" or "re-timing" */
	/* Per TU of several device archs: one whole compile with them side
	 * by side (nvcc --threads N), timed rather than inferred. */
	struct side_by_side {
		bool ran;
		double wall_s;
		long peak_kb;
		char *failure;	/* its first error line, or why it failed */
	} *side;
};

static void add_tu(struct passes *ps, size_t edge)
{
	const struct ninja_edge *e = &ps->build.edges[edge];
	struct compile_command cmd = { 0 };
	steps_check_built(ps->dir, e);
	char *sub = xasprintf("tu-%zu", ps->probe.ntus);
	steps_prepare(ps->dir, e, sub, &cmd, &ps->stripped);
	free(sub);
	pass_probe_add(&ps->probe, e->outputs.v[0], edge, &cmd);
}

/* --top K: the slowest compile steps of the last build in .ninja_log; when
 * the log lacks some of them, of one re-run of each instead (those runs
 * then count as the TUs' whole runs). */
static void choose_top(struct passes *ps, bool *selected)
{
	struct ninja_build *b = &ps->build;
	double *seconds = xcalloc(b->n + 1, sizeof(double));
	char *err = NULL;
	if (!durations_from_dir(ps->dir, b, seconds, NULL, &err))
		warn("%s; choosing the TUs by re-timing them", err);
	free(err);
	bool logged = true;
	size_t nselected = 0;
	for (size_t i = 0; i < b->n; i++) {
		logged &= !selected[i] || !isnan(seconds[i]);
		nselected += selected[i];
	}
	size_t k = nselected < (size_t)ps->top ? nselected : (size_t)ps->top;
	ps->chosen_by = logged ? ".ninja_log" : "re-timing";
	size_t *order = xcalloc(k + 1, sizeof(size_t));
	if (logged) {
		steps_keep_slowest(b, seconds, k, selected, order);
		for (size_t i = 0; i < k; i++)
			add_tu(ps, order[i]);
		free(order);
		free(seconds);
		return;
	}
	for (size_t i = 0; i < b->n; i++)
		if (selected[i])
			add_tu(ps, i);
	pass_probe_time_whole(&ps->probe);
	for (size_t i = 0; i < ps->probe.ntus; i++)
		seconds[ps->probe.tus[i].edge] = ps->probe.tus[i].failed ? -1 : ps->probe.tus[i].walls[0];
	steps_keep_slowest(b, seconds, k, selected, order);
	free(seconds);
	/* The TUs kept, slowest first; the others freed. */
	size_t n = ps->probe.ntus;
	struct pass_tu *kept = xcalloc(k + 1, sizeof(*kept));
	for (size_t i = 0; i < n; i++) {
		struct pass_tu *t = &ps->probe.tus[i];
		size_t at = 0;
		while (at < k && order[at] != t->edge)
			at++;
		if (at < k) {
			kept[at] = *t;
		} else {
			ps->probe.failures -= t->failed;	/* a step we will not report */
			pass_tu_free(t);
		}
	}
	free(order);
	free(ps->probe.tus);
	ps->probe.tus = kept;
	ps->probe.cap = k;
	ps->probe.ntus = k;
}

static void select_tus(struct passes *ps, char **patterns, size_t npatterns)
{
	struct ninja_build *b = &ps->build;
	bool *selected = xcalloc(b->n, sizeof(bool));
	steps_select("passes", b, patterns, npatterns, selected);
	if (ps->top) {
		choose_top(ps, selected);
	} else {
		for (size_t i = 0; i < b->n; i++)
			if (selected[i])
				add_tu(ps, i);
	}
	free(selected);
}

/* ---- rendering ---- */

static const char *const phase_titles[NPHASES] = { "front end", "IR gen", "optimizer", "codegen" };

static char *pass_name(const struct pass *p)
{
	return p->arch ? xasprintf("%s %s", pass_kind_name(p->kind), p->arch) : xstrdup(pass_kind_name(p->kind));
}

/* One sentence: the verdict and the figures behind it. */
static const char *const phase_words[NPHASES] = { "front end", "LLVM IR generation", "optimizer",
						  "machine code generation" };

static size_t device_passes(const struct breakdown *bd)
{
	size_t n = 0;
	for (size_t i = 0; i < bd->n; i++)
		n += bd->passes[i].kind == PASS_DEVICE;
	return n;
}

/* "96 registers" (nvcc), "128 VGPRs, 0 AGPRs, 48 SGPRs" (AMDGPU). */
static char *kernel_registers_text(const struct kernel_fact *k)
{
	if (k->registers >= 0)
		return xasprintf("%ld registers", k->registers);
	return xasprintf("%ld VGPRs, %ld AGPRs, %ld SGPRs", k->vgprs, k->agprs, k->sgprs);
}

static void render_kernels(const struct pass_tu *t)
{
	if (!t->kernels_probed)
		return;
	if (!t->kernels.n) {
		printf("kernels: the device compiler reported none\n\n");
		return;
	}
	struct table *tab = table_new();
	const char *cols[] = { "kernel", "arch", "registers", "spilled", "stack/scratch B", "shared/LDS B", "occupancy",
			       "code KiB" };
	for (size_t c = 0; c < 8; c++)
		table_column(tab, cols[c], c >= 2);
	for (size_t i = 0; i < t->kernels.n; i++) {
		const struct kernel_fact *k = &t->kernels.v[i];
		char *regs = kernel_registers_text(k);
		table_cell(tab, "%s", k->name);
		table_cell(tab, "%s", k->arch);
		table_cell(tab, "%s", regs);
		if (k->spill_stores >= 0)
			table_cell(tab, "%ld B stored, %ld B loaded", k->spill_stores, k->spill_loads);
		else
			table_cell(tab, "%ld VGPRs, %ld SGPRs", k->vgpr_spills, k->sgpr_spills);
		table_cell(tab, "%ld", k->stack_bytes);
		table_cell(tab, "%ld", k->shared_bytes);
		if (k->occupancy >= 0)
			table_cell(tab, "%ld waves/SIMD", k->occupancy);
		else
			table_cell(tab, "-");
		if (k->code_bytes >= 0)
			table_cell(tab, "%.1f", k->code_bytes / 1024.0);
		else
			table_cell(tab, "-");
		free(regs);
	}
	printf("kernels (what the device compiler reports: %s; code from the device object's symbols):\n",
	       t->cmd.compiler == COMPILER_NVCC ? "ptxas -v" : "-Rpass-analysis=kernel-resource-usage");
	table_print(tab, stdout);
	table_free(tab);
	for (size_t i = 0; i < t->kernels.ncode; i++)
		printf("%s%s %.1f KiB", i ? ", " : "device code (executable sections): ", t->kernels.code[i].arch,
		       t->kernels.code[i].text_bytes / 1024.0);
	printf("\n%s", t->kernels.ncode ? "\n" : "");
}

/* The answer first (which pass, which phase, with shares), then the
 * evidence behind the playbook's fixes, then its marks. */
static char *verdict_text(const struct passes *ps, const struct pass_tu *t)
{
	const struct verdict *v = &t->bd.verdict;
	char *heaviest = v->heaviest ? pass_name(v->heaviest) : xstrdup("none");
	struct strvec parts = { 0 };
	if (v->kind == VERDICT_MIXED) {
		strvec_pushf(&parts, "mixed: no pass holds half the job time (most: %s pass, %.0f%%)", heaviest,
			     isnan(v->heaviest_share) ? 0 : 100 * v->heaviest_share);
	} else {
		if (v->kind == VERDICT_DEVICE && device_passes(&t->bd) > 1)
			strvec_pushf(&parts, "device-pass dominant: the device passes hold %.0f%% of the job time (most: %s)",
				     100 * v->heaviest_share, heaviest);
		else
			strvec_pushf(&parts, "%s: the %s pass holds %.0f%% of the job time", v->kind == VERDICT_HOST
				     ? "host-pass dominant" : "device-pass dominant", heaviest, 100 * v->heaviest_share);
		if (v->phase >= 0)
			strvec_pushf(&parts, "%s %.0f%% of it (%.2f s)", v->phase == PHASE_CODEGEN && v->heaviest->backend_combined
				     ? "optimizer and codegen" : phase_words[v->phase], 100 * v->phase_share,
				     v->heaviest->phase[v->phase]);
	}
	if (t->device_frameworks.n) {
		char *list = strvec_join(&t->device_frameworks, ", ");
		strvec_pushf(&parts, "device pass parses %s (%.2f s of front end)", list, t->device_framework_front_end);
		free(list);
	}
	if (t->host_frameworks.n) {
		char *list = strvec_join(&t->host_frameworks, ", ");
		strvec_pushf(&parts, "host pass parses %s", list);
		free(list);
	}
	if (v->kind == VERDICT_DEVICE && v->phase == PHASE_CODEGEN)
		strvec_push(&parts, "kernel work: machine code generation (unrolling, register pressure)");
	const struct kernel_fact *worst = kernel_facts_worst(&t->kernels);
	if (v->kind == VERDICT_DEVICE && worst) {
		char *regs = kernel_fact_summary(worst);
		strvec_pushf(&parts, "worst kernel %s (%s): %s", worst->name, worst->arch, regs);
		free(regs);
	}
	char *device = v->device_pass ? pass_name(v->device_pass) : NULL;
	char *fe = isnan(v->host_front_end) ? xstrdup("host front end unknown")
		   : xasprintf("host front end %.2f s %s %.0f s", v->host_front_end, v->host_crossed ? ">" : "<=",
			       ps->probe.th.front_end_s);
	char *cg = isnan(v->device_codegen_share) ? xstrdup("no device pass")
		   : xasprintf("codegen %.0f%% of %s %s %.0f%%", 100 * v->device_codegen_share, device,
			       v->device_crossed ? ">" : "<=", 100 * ps->probe.th.codegen_share);
	strvec_pushf(&parts, "marks: %s, %s", fe, cg);
	char *text = strvec_join(&parts, "; ");
	strvec_clear(&parts);
	free(heaviest);
	free(device);
	free(fe);
	free(cg);
	return text;
}

static void cell_seconds(struct table *tab, double s)
{
	if (isnan(s))
		table_cell(tab, "-");
	else
		table_cell(tab, "%.2f", s);
}

/* The knobs a TU's archs answer to, by its compiler. */
static const char *arch_list_knob(const struct pass_tu *t)
{
	return t->cmd.compiler == COMPILER_NVCC ? "TORCH_CUDA_ARCH_LIST, -gencode" : "--offload-arch, GPU_ARCHS";
}

/* Those arguments as words (owned). */
static char *side_by_side_flag(const struct pass_tu *t, size_t n)
{
	struct strvec args = { 0 };
	driver_side_by_side(t->cmd.compiler, n, &args);
	char *flag = strvec_join(&args, " ");
	strvec_clear(&args);
	return flag;
}

/* Each TU of several device archs compiled once more with them side by
 * side: its wall and its process tree's peak. */
static void time_side_by_side(struct passes *ps)
{
	ps->side = xcalloc(ps->probe.ntus ? ps->probe.ntus : 1, sizeof(*ps->side));
	for (size_t i = 0; i < ps->probe.ntus; i++) {
		const struct pass_tu *t = &ps->probe.tus[i];
		struct arch_plan ap;
		if (t->failed || !arch_plan_make(&t->bd, &ap))
			continue;
		struct strvec argv = { 0 };
		for (size_t a = 0; a < t->cmd.argv.n; a++)
			strvec_push(&argv, t->cmd.argv.v[a]);
		driver_side_by_side(t->cmd.compiler, ap.n, &argv);
		char *log = xasprintf("%s/side-by-side-%zu.log", tmpdir_path(), i);
		struct proc p = { .argv = argv.v, .env_extra = t->cmd.env.v, .cwd = ps->dir, .out_path = log,
				  .timeout_s = ps->probe.timeout };
		progress_set("%s with its %zu archs side by side", t->name, ap.n);
		proc_run(&p);
		progress_clear();
		proc_exit_if_interrupted();
		struct side_by_side *s = &ps->side[i];
		s->ran = true;
		if (proc_succeeded(&p)) {
			s->wall_s = p.wall_s;
			s->peak_kb = p.peak_kb;
		} else {
			char *line = file_first_error_line(log);
			s->failure = line ? line : proc_failure(&p);
		}
		remove(log);
		free(log);
		strvec_clear(&argv);
		arch_plan_free(&ap);
	}
}

/* Several device archs: each one's share, and all of them side by side. */
static void render_archs(const struct passes *ps, const struct pass_tu *t)
{
	struct arch_plan ap;
	if (!arch_plan_make(&t->bd, &ap))
		return;
	const struct side_by_side *s = &ps->side[t - ps->probe.tus];
	printf("archs (%s): ", arch_list_knob(t));
	for (size_t i = 0; i < ap.n; i++)
		printf("%s%s %.2f s, %.0f%% of the jobs (without it: %.2f s)", i ? "; " : "", ap.archs[i].arch,
		       ap.archs[i].seconds, 100 * ap.archs[i].share, ap.serial_s - ap.archs[i].seconds);
	printf("\n");
	char *flag = side_by_side_flag(t, ap.n);
	printf("%s (the %zu archs side by side): its jobs %.2f s one after another, the longest arch after the rest "
	       "%.2f s", flag, ap.n, ap.serial_s, ap.side_by_side_s);
	free(flag);
	if (ap.side_by_side_peak_kb >= 0) {
		char *after = format_kib(ap.side_by_side_peak_kb);
		printf(", their memory summed %s", after);
		free(after);
	}
	printf("\n");
	if (s->ran && !s->failure) {
		char *before = format_kib(t->peak_kb), *after = format_kib(s->peak_kb);
		printf("compiled so: %.2f s (whole TU as it is %.2f s, %+.0f%%), peak %s (as it is %s)\n\n", s->wall_s,
		       t->wall.median, t->wall.median > 0 ? 100 * (s->wall_s - t->wall.median) / t->wall.median : 0, after,
		       before);
		free(before);
		free(after);
	} else if (s->ran) {
		printf("compiled so: failed (%s)\n\n", s->failure);
	}
	arch_plan_free(&ap);
}

static json_t *json_archs(const struct passes *ps, const struct pass_tu *t)
{
	struct arch_plan ap;
	if (!arch_plan_make(&t->bd, &ap))
		return json_null();
	const struct side_by_side *s = &ps->side[t - ps->probe.tus];
	json_t *archs = json_array();
	for (size_t i = 0; i < ap.n; i++)
		json_array_append_new(archs, json_pack("{s:s, s:o, s:f, s:o, s:o}", "arch", ap.archs[i].arch, "seconds",
			json_seconds(ap.archs[i].seconds), "share", round(ap.archs[i].share * 1000) / 1000, "without_s",
			json_seconds(ap.serial_s - ap.archs[i].seconds),
			"peak_kib", ap.archs[i].peak_kb >= 0 ? json_integer(ap.archs[i].peak_kb) : json_null()));
	json_t *compiled = !s->ran ? json_null() : s->failure ? json_pack("{s:s}", "failure", s->failure)
		: json_pack("{s:o, s:o}", "wall_s", json_seconds(s->wall_s), "peak_kib", s->peak_kb > 0 ? json_integer(s->peak_kb) : json_null());
	char *flag = side_by_side_flag(t, ap.n);
	json_t *o = json_pack("{s:o, s:{s:s, s:I, s:o, s:o, s:o, s:o}}", "archs", archs, "side_by_side", "flag",
		flag, "n", (json_int_t)ap.n, "jobs_serial_s", json_seconds(ap.serial_s), "jobs_side_by_side_s",
		json_seconds(ap.side_by_side_s), "jobs_peak_kib", ap.side_by_side_peak_kb >= 0 ? json_integer(ap.side_by_side_peak_kb) : json_null(),
		"compiled", compiled);
	free(flag);
	arch_plan_free(&ap);
	return o;
}

static void render_tu_detail(const struct passes *ps, const struct pass_tu *t)
{
	printf("%s%s%s (%s): %zu jobs, timed by %s", c_bold(stdout), t->name, c_reset(stdout),
	       compiler_name(t->cmd.compiler), t->jobs.n, t->timed_by);
	if (t->peak_kb > 0) {
		char *mem = format_kib(t->peak_kb);
		printf("; its peak memory %s (%s)", mem, t->peak_by);
		free(mem);
	}
	printf("\n");
	struct table *tab = table_new();
	const char *cols[] = { "#", "pass", "arch", "tool", "wall s", "cpu s", "peak RSS", "instrumented s" };
	for (size_t c = 0; c < 8; c++)
		table_column(tab, cols[c], c == 0 || c >= 4);
	double plain = 0, slowed = 0;
	for (size_t i = 0; i < t->jobs.n; i++) {
		const struct job *j = &t->jobs.v[i];
		const struct job_time *jt = &t->times[i];
		table_cell(tab, "%zu", i + 1);
		table_cell(tab, "%s", pass_kind_name(j->pass));
		table_cell(tab, "%s", j->arch ? j->arch : "");
		table_cell(tab, "%s", j->tool);
		cell_seconds(tab, jt->wall);
		cell_seconds(tab, jt->cpu);
		if (jt->maxrss_kb >= 0) {
			char *mem = format_kib(jt->maxrss_kb);
			table_cell(tab, "%s", mem);
			free(mem);
		} else {
			table_cell(tab, "-");
		}
		if (isnan(jt->instrumented)) {
			table_cell(tab, "-");
		} else {
			table_cell(tab, "%.2f (%+.0f%%)", jt->instrumented,
				   jt->wall > 0 ? 100 * (jt->instrumented - jt->wall) / jt->wall : 0);
			plain += jt->wall;
			slowed += jt->instrumented;
		}
	}
	table_print(tab, stdout);
	table_free(tab);
	if (slowed > 0)
		printf("measured: walls, CPU and RSS of plain runs; phases from instrumented runs (%s), scaled to the plain "
		       "walls; the instrumentation cost %+.2f s (%+.0f%%) on those jobs\n",
		       t->cmd.compiler == COMPILER_NVCC ? "-fdevice-time-trace, -Xcompiler -ftime-report" : "-ftime-report",
		       slowed - plain, plain > 0 ? 100 * (slowed - plain) / plain : 0);
	double overhead = t->wall.median - t->bd.jobs_sum;
	printf("jobs sum %.2f s; whole TU %.2f s (driver and process overhead %+.2f s, %+.0f%%)\n\n", t->bd.jobs_sum,
	       t->wall.median, overhead, t->wall.median > 0 ? 100 * overhead / t->wall.median : 0);
	render_archs(ps, t);

	tab = table_new();
	table_column(tab, "pass", false);
	table_column(tab, "seconds", true);
	table_column(tab, "share", true);
	for (int k = 0; k < NPHASES; k++)
		table_column(tab, phase_titles[k], true);
	table_column(tab, "other", true);
	table_column(tab, "heaviest passes", false);
	bool combined = false;
	for (size_t i = 0; i < t->bd.n; i++) {
		const struct pass *p = &t->bd.passes[i];
		char *name = pass_name(p);
		table_cell(tab, "%s", name);
		free(name);
		table_cell(tab, "%.2f", p->seconds);
		table_cell(tab, "%.0f%%", t->bd.jobs_sum > 0 ? 100 * p->seconds / t->bd.jobs_sum : 0);
		for (int k = 0; k < NPHASES; k++) {
			if (k == PHASE_CODEGEN && p->backend_combined && !isnan(p->phase[k])) {
				table_cell(tab, "%.2f*", p->phase[k]);
				combined = true;
			} else {
				cell_seconds(tab, p->phase[k]);
			}
		}
		table_cell(tab, "%.2f", p->other);
		char heavy[256] = "";
		for (size_t h = 0; h < p->nheaviest && h < 3; h++) {
			size_t len = strlen(heavy);
			snprintf(heavy + len, sizeof(heavy) - len, "%s%s %.2f", h ? ", " : "", p->heaviest[h].name,
				 p->heaviest[h].seconds);
		}
		table_cell(tab, "%s", heavy);
	}
	table_print(tab, stdout);
	table_free(tab);
	if (combined)
		printf("* gcc reports optimizer and code generation as one figure (phase opt and generate)\n");
	render_kernels(t);
	char *v = verdict_text(ps, t);
	printf("verdict: %s%s%s\n\n", c_bold(stdout), v, c_reset(stdout));
	free(v);
}

/* The device archs over all TUs, in order of first appearance. */
static void collect_archs(const struct passes *ps, struct strvec *archs)
{
	for (size_t i = 0; i < ps->probe.ntus; i++)
		for (size_t p = 0; !ps->probe.tus[i].failed && p < ps->probe.tus[i].bd.n; p++) {
			const struct pass *pass = &ps->probe.tus[i].bd.passes[p];
			if (pass->kind == PASS_DEVICE && pass->arch && !strvec_contains(archs, pass->arch))
				strvec_push(archs, pass->arch);
		}
}

static void render_summary(const struct passes *ps)
{
	struct strvec archs = { 0 };
	collect_archs(ps, &archs);
	struct table *tab = table_new();
	table_column(tab, "TU", false);
	table_column(tab, "wall s", true);
	table_column(tab, "jobs s", true);
	table_column(tab, "host s", true);
	for (size_t a = 0; a < archs.n; a++) {
		char *title = xasprintf("%s s", archs.v[a]);
		table_column(tab, title, true);
		free(title);
	}
	for (int k = 0; k < NPHASES; k++)
		table_column(tab, phase_titles[k], true);
	table_column(tab, "verdict", false);
	for (size_t i = 0; i < ps->probe.ntus; i++) {
		const struct pass_tu *t = &ps->probe.tus[i];
		table_cell(tab, "%s", t->name);
		if (t->failed) {
			table_cell(tab, "FAILED");
			for (size_t c = 0; c < 2 + archs.n + NPHASES + 1; c++)
				table_cell(tab, "-");
			continue;
		}
		cell_seconds(tab, t->wall.median);
		cell_seconds(tab, t->bd.jobs_sum);
		double host = NAN, phase[NPHASES];
		phases_unknown(phase);
		for (size_t p = 0; p < t->bd.n; p++) {
			const struct pass *pass = &t->bd.passes[p];
			if (pass->kind == PASS_HOST)
				host = pass->seconds;
			for (int k = 0; k < NPHASES; k++)
				if (!isnan(pass->phase[k]))
					phase[k] = (isnan(phase[k]) ? 0 : phase[k]) + pass->phase[k];
		}
		cell_seconds(tab, host);
		for (size_t a = 0; a < archs.n; a++) {
			double s = NAN;
			for (size_t p = 0; p < t->bd.n; p++)
				if (t->bd.passes[p].kind == PASS_DEVICE && t->bd.passes[p].arch &&
				    !strcmp(t->bd.passes[p].arch, archs.v[a]))
					s = t->bd.passes[p].seconds;
			cell_seconds(tab, s);
		}
		for (int k = 0; k < NPHASES; k++)
			cell_seconds(tab, phase[k]);
		table_cell(tab, "%s", verdict_name(t->bd.verdict.kind));
	}
	table_print(tab, stdout);
	table_free(tab);
	strvec_clear(&archs);
	printf("phases summed over the TU's passes; verdict: the pass holding most of the job time (mixed: none holds "
	       "half); the playbook's marks (host front end > %.0f s, codegen > %.0f%% of a device pass) are in each "
	       "TU's detail\n", ps->probe.th.front_end_s, 100 * ps->probe.th.codegen_share);
}

static void render_table(const struct passes *ps)
{
	printf("%spasses%s: %zu TU%s in %s%s%s, %ld repeat%s (medians)\n", c_bold(stdout), c_reset(stdout), ps->probe.ntus,
	       ps->probe.ntus == 1 ? "" : "s", ps->dir, ps->chosen_by ? ", the slowest by " : "",
	       ps->chosen_by ? ps->chosen_by : "", ps->probe.repeats, ps->probe.repeats == 1 ? "" : "s");
	printf("measured: wall (monotonic clock), CPU = user+sys incl. children, a job's RSS = its largest process's, "
	       "a TU's memory = the most its processes held at once; phases from the Wall column of the compilers' own "
	       "reports\n\n");
	bool detail = !ps->all && !ps->top;
	for (size_t i = 0; detail && i < ps->probe.ntus; i++)
		if (!ps->probe.tus[i].failed)
			render_tu_detail(ps, &ps->probe.tus[i]);
	if (!detail || ps->probe.ntus > 1)
		render_summary(ps);
}


/* A count the compiler reports, or null where it does not. */

static json_t *json_tu(const struct passes *ps, const struct pass_tu *t)
{
	json_t *o = json_build("{s:s, s:s, s:s}", "target", t->name, "compiler", compiler_name(t->cmd.compiler),
			      "status", t->failed ? "failed" : "ok");
	if (t->failed) {
		json_object_set_new(o, "failure", json_string(t->failure));
		return o;
	}
	json_object_set_new(o, "timed_by", json_string(t->timed_by));
	json_object_set_new(o, "wall_s", json_seconds(t->wall.median));
	json_object_set_new(o, "wall", json_summary(t->wall));
	json_object_set_new(o, "cpu_s", json_seconds(t->cpu.median));
	json_object_set_new(o, "max_rss_kib", json_integer(t->maxrss_kb));
	json_object_set_new(o, "peak_kib", t->peak_kb > 0 ? json_integer(t->peak_kb) : json_null());
	json_object_set_new(o, "peak_by", t->peak_kb > 0 ? json_string(t->peak_by) : json_null());
	json_object_set_new(o, "jobs_sum_s", json_seconds(t->bd.jobs_sum));
	json_t *jobs = json_array();
	for (size_t i = 0; i < t->jobs.n; i++) {
		const struct job *j = &t->jobs.v[i];
		const struct job_time *jt = &t->times[i];
		json_t *argv = json_array();
		for (size_t a = 0; a < j->argv.n; a++)
			json_array_append_new(argv, json_string(j->argv.v[a]));
		json_array_append_new(jobs, json_build("{s:I, s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"index", (json_int_t)i + 1, "pass", pass_kind_name(j->pass),
			"arch", j->arch ? json_string(j->arch) : json_null(), "tool", j->tool,
			"wall_s", json_seconds(jt->wall), "cpu_s", json_seconds(jt->cpu),
			"instrumented_wall_s", json_seconds(jt->instrumented),
			"max_rss_kib", jt->maxrss_kb >= 0 ? json_integer(jt->maxrss_kb) : json_null(),
			"phases", json_phases(jt->phase, jt->backend_combined),
			"heaviest", json_heaviest(jt->heaviest, jt->nheaviest), "argv", argv));
	}
	json_object_set_new(o, "jobs", jobs);
	json_t *passes = json_array();
	for (size_t i = 0; i < t->bd.n; i++)
		json_array_append_new(passes, json_pass_breakdown(&t->bd.passes[i]));
	json_object_set_new(o, "passes", passes);
	json_object_set_new(o, "archs", json_archs(ps, t));
	json_t *kernels = t->kernels_probed ? json_array() : json_null();
	for (size_t i = 0; i < t->kernels.n; i++) {
		const struct kernel_fact *k = &t->kernels.v[i];
		json_array_append_new(kernels, json_kernel(k));
	}
	json_object_set_new(o, "kernels", kernels);
	json_t *code = t->kernels_probed ? json_array() : json_null();
	for (size_t i = 0; i < t->kernels.ncode; i++)
		json_array_append_new(code, json_build("{s:s, s:I}", "arch", t->kernels.code[i].arch, "text_bytes",
						       (json_int_t)t->kernels.code[i].text_bytes));
	json_object_set_new(o, "device_code", code);
	const struct verdict *v = &t->bd.verdict;
	char *text = verdict_text(ps, t);
	char *heaviest = v->heaviest ? pass_name(v->heaviest) : NULL;
	char *device = v->device_pass ? pass_name(v->device_pass) : NULL;
	json_t *dev_fw = json_array(), *host_fw = json_array();
	for (size_t i = 0; i < t->device_frameworks.n; i++)
		json_array_append_new(dev_fw, json_string(t->device_frameworks.v[i]));
	for (size_t i = 0; i < t->host_frameworks.n; i++)
		json_array_append_new(host_fw, json_string(t->host_frameworks.v[i]));
	json_object_set_new(o, "verdict", json_build("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:b, s:o, s:o}",
		"kind", verdict_name(v->kind), "text", text,
		"phase", v->phase >= 0 ? json_string(phase_keys[v->phase]) : json_null(),
		"phase_share", isnan(v->phase_share) ? json_null() : json_real(round(v->phase_share * 1000) / 1000),
		"device_frameworks", dev_fw, "device_framework_front_end_s",
		t->device_frameworks.n ? json_seconds(t->device_framework_front_end) : json_null(),
		"host_frameworks", host_fw, "host_front_end_s", json_seconds(v->host_front_end),
		"host_crossed", v->host_crossed,
		"device_codegen_share", isnan(v->device_codegen_share) ? json_null() : json_real(round(v->device_codegen_share * 1000) / 1000),
		"device_pass", device ? json_string(device) : json_null(), "device_crossed", v->device_crossed,
		"heaviest_pass", heaviest ? json_string(heaviest) : json_null(),
		"heaviest_share", isnan(v->heaviest_share) ? json_null() : json_real(round(v->heaviest_share * 1000) / 1000)));
	free(text);
	free(heaviest);
	free(device);
	return o;
}

static void render_json(const struct passes *ps)
{
	json_t *doc = json_document("passes", ps->dir, ps->probe.failures);
	json_object_set_new(doc, "method", json_build("{s:I, s:s, s:o}", "repeats", (json_int_t)ps->probe.repeats,
		"measured", "wall (monotonic clock) of each job and of the whole TU, taken in turn, medians of the repeats; "
		"phases from the Wall column of clang/gcc -ftime-report, nvcc --time and -fdevice-time-trace",
		"chosen_by", ps->chosen_by ? json_string(ps->chosen_by) : json_null()));
	json_object_set_new(doc, "thresholds", json_build("{s:o, s:f}", "front_end_s", json_seconds(ps->probe.th.front_end_s),
							 "codegen_share", ps->probe.th.codegen_share));
	json_t *tus = json_array();
	for (size_t i = 0; i < ps->probe.ntus; i++)
		json_array_append_new(tus, json_tu(ps, &ps->probe.tus[i]));
	json_object_set_new(doc, "tus", tus);
	json_print(doc);
}

static bool parse_codegen_share(void *share, const char *value, char **err)
{
	char *copy = xstrdup(value);
	size_t n = strlen(copy);
	bool percent = n && copy[n - 1] == '%';
	if (percent)
		copy[n - 1] = '\0';
	double v;
	bool ok = parse_double(copy, &v);
	free(copy);
	if (ok && (percent || v > 1))
		v /= 100;
	if (!ok || v <= 0 || v >= 1)
		return fail_with(err, xasprintf("--codegen-share wants a share between 0 and 1, or a percentage: '%s'", value));
	*(double *)share = v;
	return true;
}

int cmd_passes(int argc, char **argv)
{
	struct passes ps = { .dir = ".", .probe = { .repeats = 1, .parallel = 1, .th = { 5.0, 0.7 } } };
	bool json = false, kernels = false;
	const struct opt opts[] = {
		OPT_DIR(&ps.dir),
		OPT_FLAG(0, "all", &ps.all, "every compile step"),
		OPT_FLAG(0, "kernels", &kernels, "also each kernel's registers, spills, stack and shared memory, as\n"
		  "the device compiler reports them (one more compile per TU, per arch for HIP)"),
		OPT_TOP(&ps.top, 1, "the K slowest compile steps (from .ninja_log, else re-timed)"),
		OPT_INT('r', "repeats", &ps.probe.repeats, "R", "runs of the TU and of each job; medians are reported (default 1)", 1, 1000),
		OPT_SECONDS(0, "front-end", &ps.probe.th.front_end_s, "S", "the host front-end mark in seconds (default 5)"),
		OPT_CALL(0, "codegen-share", &ps.probe.th.codegen_share, "P", "the device codegen mark, 0-1 or a percentage (default 70%)", parse_codegen_share),
		OPT_PARALLEL(&ps.probe.parallel, "probe P TUs at once (default 1; contention inflates walls)"),
		OPT_TIMEOUT(&ps.probe.timeout, "give up on a compile or job after S seconds (counts as failed)"),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("passes", argc, argv, opts, usage);
	size_t npatterns = (size_t)(argc - first);
	if (!npatterns && !ps.all && !ps.top)
		usage_error("passes", "name a TARGET, or use --all or --top K");
	if (npatterns && (ps.all || ps.top))
		usage_error("passes", "TARGET and --all/--top exclude each other");
	if (ps.all && ps.top)
		usage_error("passes", "--all and --top exclude each other");

	snapshot_guard(ps.dir);
	ninja_load(ps.dir, &ps.build);
	ps.probe.dir = ps.dir;
	ps.probe.build = &ps.build;
	warn_if_busy();
	select_tus(&ps, argv + first, npatterns);
	steps_note_stripped(&ps.stripped);
	pass_probe_run(&ps.probe);
	time_side_by_side(&ps);
	pass_probe_find_frameworks(&ps.probe);
	if (kernels)
		pass_probe_find_kernels(&ps.probe, NULL);
	if (json)
		render_json(&ps);
	else
		render_table(&ps);
	int status = failures_status(ps.probe.failures, "TU", "");
	for (size_t i = 0; ps.side && i < ps.probe.ntus; i++)
		free(ps.side[i].failure);
	free(ps.side);
	pass_probe_free(&ps.probe);
	strvec_clear(&ps.stripped);
	ninja_build_free(&ps.build);
	return status;
}
