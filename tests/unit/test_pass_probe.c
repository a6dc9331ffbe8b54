#include "unit.h"
#include "pass_probe.h"
#include "proc.h"
#include "tmpdir.h"

#include <math.h>

/* A probe TU compiled in dir (`compile` -c SOURCE -o NAME.o), its output
 * redirected to the temp dir. */
static struct pass_tu *add_compiled(struct pass_probe *ps, const char *dir, const char *compile, const char *name,
				    const char *ext, const char *text)
{
	char *src = xasprintf("%s/%s%s", dir, name, ext);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	char *line = xasprintf("%s -c %s -o %s.o", compile, src, name);
	struct compile_command cmd = { 0 };
	assert_ok(driver_parse(line, dir, &cmd, &unit_err));
	char *out = tmpdir_subdir(name);
	assert_ok(driver_redirect_outputs(&cmd, out, &unit_err));
	struct pass_tu *t = pass_probe_add(ps, name, 0, &cmd);
	assert_null(cmd.argv.v);	/* taken over */
	free(out);
	free(line);
	free(src);
	return t;
}

/* C++ that takes a second or so to compile: rounds long enough to time. */
static const char heavy[] = "#include <algorithm>\n#include <map>\n#include <sstream>\n#include <string>\n"
			    "#include <unordered_map>\n#include <vector>\n"
			    "int f(const char *s) { std::map<std::string, int> m; m[s] = 1;\n"
			    "  std::unordered_map<std::string, std::vector<int>> u; u[s].push_back(2);\n"
			    "  std::vector<std::string> v{s, s}; std::sort(v.begin(), v.end());\n"
			    "  std::ostringstream o; o << s << m.size() << u.size() << v[0];\n"
			    "  return (int)o.str().size(); }\n";

static void add_probe(struct pass_probe *ps, const char *dir, const char *name, const char *text)
{
	add_compiled(ps, dir, "gcc -O2", name, ".c", text);
}

static void test_host_pass_split_into_phases(void **state)
{
	(void)state;
	char *dir = tmpdir_subdir("pass-probe");
	struct pass_probe ps = { .dir = dir, .repeats = 2, .parallel = 2, .th = { 5.0, 0.7 } };
	add_probe(&ps, dir, "heavy", "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
		  "int f(int x) { char b[64]; snprintf(b, sizeof b, \"%d\", x); return (int)strlen(b) + atoi(b); }\n");
	add_probe(&ps, dir, "broken", "int broken(void) { return }\n");
	pass_probe_run(&ps);
	assert_int_equal(ps.failures, 1);
	const struct pass_tu *t = &ps.tus[0], *bad = &ps.tus[1];
	assert_string_equal(t->name, "heavy");
	assert_false(t->failed);
	/* gcc's jobs: the compiler proper, then the assembler; both host. */
	assert_int_equal(t->jobs.n, 2);
	assert_string_equal(t->jobs.v[0].tool, "cc1");
	assert_int_equal(t->nwalls, 2);
	assert_true(t->wall.median > 0);
	/* One host pass, its front end read from -ftime-report and scaled to
	 * the plain runs: no phase exceeds the pass. */
	assert_true(t->bd.n >= 1 && t->bd.passes[0].kind == PASS_HOST);
	double host = pass_tu_side(t, PASS_HOST);
	assert_true(host > 0 && pass_tu_side(t, PASS_DEVICE) == 0);
	double fe = t->bd.passes[0].phase[PHASE_FRONT_END];
	assert_true(!isnan(fe) && fe > 0 && fe <= host);
	assert_int_equal(t->bd.verdict.kind, VERDICT_HOST);
	/* The broken probe fails at its whole run, and says why. */
	assert_true(bad->failed);
	assert_non_null(strstr(bad->failure, "exit status 1"));
	pass_probe_free(&ps);
	assert_int_equal(ps.ntus, 0);
	free(dir);
}

static bool have(const char *program)
{
	char *path = driver_find_program(program);
	free(path);
	return path != NULL;
}

/* The host pass alone: nvcc's host jobs re-run without cicc (the stub it
 * would write left empty), clang's HIP compile with --cuda-host-only; no
 * device job runs, and the host compiler's seconds leave cudafe++ out. */
static void test_host_only(void **state)
{
	(void)state;
	if (!have("nvcc") || !have("clang-19"))
		skip();
	char *dir = tmpdir_subdir("host-only");
	struct pass_probe ps = { .dir = dir, .repeats = 2, .parallel = 2, .th = { 5.0, 0.7 } };
	static const char kernel[] = "__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n"
				     "void launch(float *x) { scale<<<1, 32>>>(x, 2.0f); }\n";
	add_compiled(&ps, dir, "nvcc -O2 -arch=sm_80", "cuda", ".cu", kernel)->host_only = true;
	add_compiled(&ps, dir, "clang-19 -x hip --offload-arch=gfx90a -nogpulib -nogpuinc -O2", "hip", ".hip",
		     "#define __global__ __attribute__((global))\n"
		     "struct dim3 { unsigned x, y, z; };\n"
		     "extern \"C\" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, void *);\n"
		     "extern \"C\" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, void **);\n"
		     "__global__ void scale(float *x, float a) { x[0] *= a; }\n")->host_only = true;
	add_compiled(&ps, dir, "nvcc -O2 -arch=sm_80", "broken", ".cu", "void broken() { return }\n")->host_only = true;
	pass_probe_run(&ps);
	assert_int_equal(ps.failures, 1);
	const struct pass_tu *cuda = &ps.tus[0], *hip = &ps.tus[1];
	assert_false(cuda->failed);
	assert_int_equal(cuda->jobs.n, 3);
	assert_string_equal(cuda->jobs.v[0].tool, "gcc -E");
	assert_string_equal(cuda->jobs.v[1].tool, "cudafe++");
	assert_string_equal(cuda->jobs.v[2].tool, "gcc");
	assert_int_equal(cuda->nwalls, 2);	/* each round of jobs is one wall */
	double host = pass_tu_side(cuda, PASS_HOST), compiler = pass_tu_host_compiler(cuda);
	assert_true(host > 0 && pass_tu_side(cuda, PASS_DEVICE) == 0);
	assert_true(compiler > 0 && compiler < host);
	assert_false(hip->failed);
	for (size_t i = 0; i < hip->jobs.n; i++)
		assert_int_equal(hip->jobs.v[i].pass, PASS_HOST);
	assert_true(pass_tu_host_compiler(hip) > 0 && pass_tu_side(hip, PASS_DEVICE) == 0);
	assert_true(ps.tus[2].failed);
	pass_probe_free(&ps);
	free(dir);
}

/* A walls-only probe of gcc: its wall is each round of its jobs summed,
 * with no whole run besides. A stand-in runs only when the probe it
 * stands in for fails: skipped beside one that compiles. */
static void test_walls_from_jobs_and_stand_ins(void **state)
{
	(void)state;
	char *dir = tmpdir_subdir("walls-only");
	struct pass_probe ps = { .dir = dir, .repeats = 3, .parallel = 2, .th = { 5.0, 0.7 } };
	static const char fine[] = "int fine(int x) { return x * 3; }\n";
	add_compiled(&ps, dir, "gcc -O2", "fine", ".c", fine)->walls_only = true;
	add_compiled(&ps, dir, "gcc -O2", "broken", ".c", "int broken(void) { return }\n")->walls_only = true;
	add_compiled(&ps, dir, "gcc -O2", "for_fine", ".c", fine)->fallback_for = 0;
	add_compiled(&ps, dir, "gcc -O2", "for_broken", ".c", fine)->fallback_for = 1;
	pass_probe_run(&ps);
	assert_int_equal(ps.failures, 1);
	const struct pass_tu *t = &ps.tus[0];
	assert_false(t->failed);
	assert_int_equal(t->jobs.n, 2);
	assert_int_equal(t->nwalls, 3);
	assert_int_equal(t->runs[0].n, 3);
	assert_int_equal(t->runs[1].n, 3);
	/* Each round's wall is its jobs' sum (a round run beside the one under
	 * way may join the jobs' lists between two of its jobs): in all. */
	double walls = 0, jobs = 0;
	for (size_t k = 0; k < 3; k++) {
		walls += t->walls[k];
		jobs += t->runs[0].walls[k] + t->runs[1].walls[k];
	}
	assert_true(fabs(walls - jobs) < 1e-9);
	assert_non_null(strstr(t->timed_by, "the wall their sum"));
	assert_true(ps.tus[1].failed);
	assert_true(ps.tus[2].skipped && ps.tus[2].nwalls == 0 && !ps.tus[2].failed);
	assert_false(ps.tus[3].skipped);
	assert_int_equal(ps.tus[3].nwalls, 3);
	pass_probe_free(&ps);
	free(dir);
}

/* A walls-only probe alone in a pool of three: its rounds run side by side
 * in the idle slots (their outputs apart), so the probe takes less time
 * than its walls add up to, and every round is recorded. */
static void assert_rounds_side_by_side(const char *dir, const char *compile, const char *name, const char *ext,
				       const char *text)
{
	struct pass_probe ps = { .dir = dir, .repeats = 3, .parallel = 3, .th = { 5.0, 0.7 } };
	add_compiled(&ps, dir, compile, name, ext, text)->walls_only = true;
	double start = monotonic_seconds();
	pass_probe_run(&ps);
	double took = monotonic_seconds() - start;
	const struct pass_tu *t = &ps.tus[0];
	assert_false(t->failed);
	assert_int_equal(t->nwalls, 3);
	assert_int_equal(t->round, 3);
	for (size_t i = 0; i < t->jobs.n; i++)
		assert_int_equal(t->runs[i].n, 3);
	assert_true(took < 0.9 * (t->walls[0] + t->walls[1] + t->walls[2]));
	pass_probe_free(&ps);
}

/* nvcc's rounds (one nvcc --time run each). */
static void test_nvcc_rounds_side_by_side(void **state)
{
	(void)state;
	if (!have("nvcc"))
		skip();
	char *dir = tmpdir_subdir("nvcc-rounds");
	assert_rounds_side_by_side(dir, "nvcc -O2 -arch=sm_80", "kern", ".cu",
				   "__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }\n");
	free(dir);
}

/* Rounds of jobs run side by side too: a walls-only gcc probe and an
 * nvcc host pass alone (each round its jobs one after another, listed
 * anew with temp files of their own). */
static void test_job_rounds_side_by_side(void **state)
{
	(void)state;
	char *dir = tmpdir_subdir("job-rounds");
	assert_rounds_side_by_side(dir, "g++ -O2", "gxx", ".cpp", heavy);
	struct pass_probe ps;
	if (have("nvcc")) {
		ps = (struct pass_probe){ .dir = dir, .repeats = 2, .parallel = 3, .th = { 5.0, 0.7 } };
		struct pass_tu *cuda = add_compiled(&ps, dir, "nvcc -O2 -arch=sm_80", "host", ".cu", heavy);
		cuda->walls_only = cuda->host_only = true;
		pass_probe_run(&ps);
		assert_false(ps.tus[0].failed);
		assert_int_equal(ps.tus[0].nwalls, 2);
		assert_int_equal(ps.tus[0].jobs.n, 3);
		assert_true(pass_tu_host_compiler(&ps.tus[0]) > 0 && pass_tu_side(&ps.tus[0], PASS_DEVICE) == 0);
		pass_probe_free(&ps);
	}
	free(dir);
}

/* Leading TUs (the load curve's copies among advise's probes): one whole
 * run each, started before any other; what ran beside each is read off
 * the runs' spans. */
/* A whole probe whose runs sleep 0.3 s and 1.2 s in turn: its first two
 * walls disagree (4 to 1). Settling, a third run where the budget
 * allows it; where its time is spent, none, the probe kept at two and
 * said unsettled; without settling, every repeat. */
static size_t alternating_walls(const char *dir, struct settle_budget *settle)
{
	struct pass_probe ps = { .dir = dir, .repeats = 3, .parallel = 1, .settle = settle, .th = { 5.0, 0.7 } };
	char *flag = xasprintf("%s/short-next", dir);
	remove(flag);
	struct compile_command turns = { 0 };
	strvec_push(&turns.argv, "sh");
	strvec_push(&turns.argv, "-c");
	strvec_pushf(&turns.argv, "if [ -e '%s' ]; then rm '%s'; sleep 0.3; else touch '%s'; sleep 1.2; fi", flag, flag,
		     flag);
	pass_probe_add(&ps, "turns", 0, &turns)->whole = true;
	pass_probe_run(&ps);
	assert_int_equal(ps.failures, 0);
	size_t n = ps.tus[0].nwalls;
	assert_true(ps.tus[0].unsettled == (n == 2));
	pass_probe_free(&ps);
	remove(flag);
	free(flag);
	return n;
}

static void test_third_run_within_budget(void **state)
{
	(void)state;
	char *dir = tmpdir_subdir("settle");
	struct settle_budget room = { .until = monotonic_seconds() + 600 }, spent = { .until = 1 };
	assert_int_equal(alternating_walls(dir, &room), 3);
	assert_int_equal(room.declined, 0);
	assert_int_equal(alternating_walls(dir, &spent), 2);
	assert_int_equal(spent.declined, 1);
	assert_int_equal(alternating_walls(dir, NULL), 3);
	free(dir);
}

static void test_leads(void **state)
{
	(void)state;
	char *dir = tmpdir_subdir("leads");
	struct pass_probe ps = { .dir = dir, .repeats = 2, .parallel = 3, .th = { 5.0, 0.7 } };
	add_compiled(&ps, dir, "g++ -O2", "one", ".cpp", heavy)->walls_only = true;
	add_compiled(&ps, dir, "g++ -O2", "two", ".cpp", heavy)->walls_only = true;
	for (size_t i = 0; i < 2; i++) {
		struct compile_command sleep = { 0 };
		strvec_push(&sleep.argv, "sleep");
		strvec_push(&sleep.argv, "1");
		pass_probe_add(&ps, "copy", 0, &sleep)->leads = true;
	}
	pass_probe_run(&ps);
	assert_int_equal(ps.failures, 0);
	double first_other = INFINITY, last_lead_start = 0, leads_end = 0;
	for (size_t k = 0; k < ps.nspans; k++) {
		const struct run_span *r = &ps.spans[k];
		if (r->task == 2 || r->task == 3) {
			last_lead_start = r->start > last_lead_start ? r->start : last_lead_start;
			leads_end = r->end > leads_end ? r->end : leads_end;
		} else if (r->start < first_other) {
			first_other = r->start;
		}
	}
	assert_true(last_lead_start <= first_other);	/* the leads first */
	for (size_t i = 2; i < 4; i++) {
		assert_int_equal(ps.tus[i].nwalls, 1);
		assert_int_equal(ps.tus[i].jobs.n, 0);	/* no jobs listed */
		assert_true(fabs(ps.tus[i].walls[0] - 1) < 0.3);
		double beside = pass_probe_running(&ps, i);
		assert_true(beside >= 2 && beside <= 3 + 1e-9);	/* never past the pool's width */
	}
	/* While they ran, at most three at once: one probe beside the two. */
	for (size_t k = 0; k < ps.nspans; k++) {
		const struct run_span *r = &ps.spans[k];
		size_t at_once = 0;
		for (size_t j = 0; r->start < leads_end && j < ps.nspans; j++)
			at_once += ps.spans[j].start <= r->start && ps.spans[j].end > r->start;
		assert_true(at_once <= 3 || r->start >= leads_end);
	}
	assert_int_equal(ps.tus[0].nwalls, 2);
	assert_int_equal(ps.tus[1].nwalls, 2);
	assert_true(pass_probe_running(&ps, 99) == 0);	/* never ran */
	pass_probe_free(&ps);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_pass_split_into_phases),
		cmocka_unit_test(test_host_only),
		cmocka_unit_test(test_walls_from_jobs_and_stand_ins),
		cmocka_unit_test(test_nvcc_rounds_side_by_side),
		cmocka_unit_test(test_job_rounds_side_by_side),
		cmocka_unit_test(test_leads),
		cmocka_unit_test(test_third_run_within_budget),
	};
	return cmocka_run_group_tests_name("pass_probe", tests, NULL, NULL);
}
