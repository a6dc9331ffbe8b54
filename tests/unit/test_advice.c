/* The advice model on a module shaped like the demo: two generated
 * instances and a hand-written kernel that parse the framework in both
 * passes, a codegen-bound kernel, a leaking dispatcher with a std::function
 * table, and a binding TU that needs the framework. */
#include "unit.h"
#include "advice.h"
#include "rule.h"
#include "edit_probe.h"
#include "ninja.h"

#include <math.h>

static const char manifest[] =
	"rule cu\n  command = nvcc -c $in -o $out\n"
	"rule cc\n  command = g++ -c $in -o $out\n"
	"rule link\n  command = g++ $in -o $out\n"
	"build k0.o: cu gen/k0.cu\nbuild k1.o: cu gen/k1.cu\nbuild big.o: cu big.cu\nbuild epi.o: cu epi.cu\n"
	"build disp.o: cc disp.cpp\nbuild bind.o: cc bind.cpp\n"
	"build m.so: link k0.o k1.o big.o epi.o disp.o bind.o\n";

static struct header_cost cuda = { 4, 2, 0.5, 0.5, "<torch/extension.h>", "k0.o" };
static struct header_cost cxx = { 4, 0, 0.3, 0, "<torch/extension.h>", "disp.o" };

struct module {
	struct ninja_build b;
	double seconds[7];
	struct tu_facts tus[6];
	struct advice_input in;
};

static void load(struct module *mod, int jobs)
{
	char *dir = manifest_dir("advice", manifest);
	ninja_load(dir, &mod->b);
	free(dir);
	static const char *const names[] = { "k0.o", "k1.o", "big.o", "epi.o", "disp.o", "bind.o", "m.so" };
	static const double secs[] = { 8, 8, 20, 10, 6, 5, 1 };
	for (size_t i = 0; i < 7; i++)
		mod->seconds[ninja_edge_of(&mod->b, names[i])] = secs[i];
	for (size_t i = 0; i < 6; i++)
		mod->tus[i] = (struct tu_facts){ .edge = (size_t)ninja_edge_of(&mod->b, names[i]), .name = names[i],
						 .scale = 1, .glue = NAN, .table_saving = NAN };
	for (size_t i = 0; i < 4; i++)
		mod->tus[i].kernel = true;
	for (size_t i = 0; i < 2; i++)
		mod->tus[i] = (struct tu_facts){ .edge = mod->tus[i].edge, .name = names[i], .scale = 1, .kernel = true,
						 .generated = true, .host_framework = true, .device_framework = true,
						 .frameworks = "torch/ATen/c10", .cost = &cuda, .glue = 0.2,
						 .table_saving = NAN, .probed = i == 0 };
	struct tu_facts *epi = &mod->tus[3], *disp = &mod->tus[4], *bind = &mod->tus[5];
	epi->host_framework = epi->device_framework = true;
	epi->frameworks = "torch/ATen/c10";
	epi->cost = &cuda;
	mod->tus[2].probed = mod->tus[2].codegen_bound = true;
	disp->host_framework = true;
	disp->frameworks = "torch/ATen/c10";
	disp->leak_chain = "disp.cpp -> opus/args.h -> <torch/extension.h>";
	disp->leak_fix = "opus/args.h:13";
	disp->host_lines = 140000;
	disp->framework_lines = 118000;
	disp->cost = &cxx;
	disp->table_entries = 40;
	disp->table_saving = 1.5;
	bind->host_framework = bind->includes_framework = bind->binding = true;
	bind->cost = &cxx;
	mod->in = (struct advice_input){ .build = &mod->b, .seconds = mod->seconds, .tus = mod->tus, .ntus = 6,
					 .sched = { .jobs = jobs, .policy = POLICY_CRITICAL }, .cpus = 2, .rules = fix_rules };
}

static size_t tu_index(const char *name)
{
	static const char *const names[] = { "k0.o", "k1.o", "big.o", "epi.o", "disp.o", "bind.o" };
	for (size_t i = 0; i < 6; i++)
		if (!strcmp(names[i], name))
			return i;
	return (size_t)-1;
}

static void test_rules_and_savings(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	struct advice a;
	advice_build(&mod.in, &a);
	/* The baseline: 58 s of work on 2 jobs, big.o then the link as the
	 * critical path. */
	assert_true(fabs(a.baseline.work - 29) < 1e-9);
	assert_true(fabs(a.baseline.critical - 21) < 1e-9);
	const struct fix *split = &a.fixes[FIX_SPLIT], *fused = &a.fixes[FIX_FUSED], *launch = &a.fixes[FIX_LAUNCHERS];
	const struct fix *leak = &a.fixes[FIX_LEAK], *flat = &a.fixes[FIX_FLAT], *jobs = &a.fixes[FIX_JOBS];
	/* split: every kernel TU whose device pass parses the framework, its
	 * device cost each. */
	assert_true(split->applies);
	assert_int_equal(split->ntus, 3);
	assert_int_equal(split->tus[2], tu_index("epi.o"));
	for (size_t k = 0; k < 3; k++)
		assert_true(fabs(split->saving[k] - 2) < 1e-9);
	/* fused: the generated instances lose both passes' framework; the
	 * fused host TU costs the headers as the binding TU's host compiler
	 * parses them, an empty TU of that command and the glue once. */
	assert_int_equal(fused->ntus, 2);
	assert_true(fabs(fused->saving[0] - 6) < 1e-9);
	assert_true(fabs(fused->added - (4 + 0.3 + 0.2)) < 1e-9);
	assert_true(fabs(fused->alone.work - (58 - 12 + 4.5) / 2) < 1e-9);
	/* launchers: the hand-written kernel only; its glue goes to bind.o. */
	assert_int_equal(launch->ntus, 1);
	assert_int_equal(launch->tus[0], tu_index("epi.o"));
	assert_true(fabs(launch->added - 0.2) < 1e-9);
	assert_true(fabs(launch->alone.work - (58 - 6 + 0.2) / 2) < 1e-9);
	/* leak: the dispatcher, not the binding TU that includes it itself. */
	assert_int_equal(leak->ntus, 1);
	assert_int_equal(leak->tus[0], tu_index("disp.o"));
	assert_true(fabs(leak->saving[0] - 4) < 1e-9);
	assert_non_null(strstr(leak->evidence, "line to fix: opus/args.h:13"));
	assert_true(flat->applies && fabs(flat->saving[0] - 1.5) < 1e-9);
	/* -j 2 on 2 CPUs: nothing to gain from more jobs. */
	assert_false(jobs->applies);
	assert_non_null(strstr(jobs->not_applicable, "-j 2"));
	/* No TU's narrow headers were measured: narrow does not apply. */
	assert_false(a.fixes[FIX_NARROW].applies);
	assert_non_null(strstr(a.fixes[FIX_NARROW].not_applicable, "no TU includes a framework's umbrella header"));
	for (int id = 0; id < FIX_NARROW; id++)
		assert_true(a.fixes[id].alone.wall < a.baseline.wall);
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* The advice with `ev` as rule id's evidence (the others' none); its fix.
 * Later advice_build calls on mod read the same. */
static const struct fix *with_evidence(struct module *mod, int id, const struct edit_evidence *ev, struct advice *a)
{
	static const void *evidence[NFIXES];
	memset(evidence, 0, sizeof(evidence));
	evidence[id] = ev;
	mod->in.evidence = evidence;
	advice_build(&mod->in, a);
	return &a->fixes[id];
}

/* leak proven: the line edited on a copy reaches disp.o and bind.o
 * (which includes <Python.h> itself, and still counts); disp.o timed 6 ->
 * 3 s, half of its 6 s baseline; bind.o carries between half of its own
 * 5 s (the share) and those 3 s (the seconds: the same headers out of
 * it), 2.75 s, and the range spans both. A line no edit
 * compiled for says what each candidate's compile said. */
static void test_leak_proven(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	size_t tus[] = { tu_index("disp.o"), tu_index("bind.o") };
	struct edit_candidate cands[] = { { .header = NULL, .tried = true, .error = "disp.o: error: 'at' has not been declared" },
					  { .header = "<ATen/core/Tensor.h>", .lines = 900, .tried = true } };
	struct edit_wall walls[] = { { .tu = tus[0], .measured = true, .plain_s = 6, .plain_lo = 5.5,
				       .plain_hi = 6.5, .edited_s = 3, .edited_lo = 2.8, .edited_hi = 3.3 },
				     { .tu = tus[1], .plain_s = NAN, .edited_s = NAN } };
	struct edit_site site = { .file = "include/opus/args.h", .line = 13, .header = "<torch/extension.h>", .tus = tus,
				  .ntus = 2, .cands = cands, .ncands = 2, .chosen = 1, .walls = walls, .nwalls = 2 };
	struct edit_evidence ev = { .root = "/proj", .copied = 9, .sites = &site, .nsites = 1 };
	struct advice a;
	const struct fix *leak = with_evidence(&mod, FIX_LEAK, &ev, &a);
	assert_true(leak->applies && leak->measured);
	assert_int_equal(leak->ntus, 2);
	assert_int_equal(leak->tus[0], tus[0]);
	assert_true(fabs(leak->saving[0] - 3) < 1e-9);
	assert_true(fabs(leak->saving[1] - 2.75) < 1e-9);
	/* the measured savings, not the header probe's 4 s (nor bind.o's 4) */
	assert_true(fabs(leak->alone.work - (58 - 3 - 2.75) / 2) < 1e-9);
	assert_non_null(strstr(leak->evidence, "disp.o: disp.cpp -> opus/args.h -> <torch/extension.h>; line to fix: "
					      "include/opus/args.h:13: <ATen/core/Tensor.h> in place of <torch/extension.h> "
					      "compiles with its 2 TUs"));
	assert_non_null(strstr(leak->evidence, "disp.o 6.00 -> 3.00 s"));
	assert_non_null(strstr(leak->measured_by, "proven on a copy of the sources (9 files under /proj)"));
	assert_non_null(strstr(leak->measured_by, "; the rest between the median share"));	/* bind.o */
	/* its range: the walls' ends (least saved 1 - 3.3/5.5, most 1 - 2.8/6.5),
	 * widened by bind.o's bracket (5.5 or 6 s in all, 5.75 the middle) */
	assert_true(fabs(leak->own_lo - (1 - 3.3 / 5.5) / 0.5 * 5.5 / 5.75) < 1e-9);
	assert_true(fabs(leak->own_hi - (1 - 2.8 / 6.5) / 0.5 * 6 / 5.75) < 1e-9);
	advice_free(&a);

	site.chosen = -1;
	cands[1].error = "bind.o: error: 'PYBIND11_MODULE' was not declared";
	advice_build(&mod.in, &a);
	leak = &a.fixes[FIX_LEAK];
	assert_false(leak->applies);
	assert_non_null(strstr(leak->not_applicable, "include/opus/args.h:13 (<torch/extension.h>): no edit compiles with "
						      "its 2 TUs (removed: disp.o: error: 'at' has not been declared; "
						      "<ATen/core/Tensor.h>: bind.o: error"));
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* narrow proven: disp.o's umbrella line edited on a copy, a narrower
 * header in its place; its code's names said it needs more, the proof
 * says it does not: disp.o timed 6 -> 4 s. A line no edit compiles for
 * keeps its TU whole, with what each candidate said. */
static void test_narrow_proven(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	mod.tus[tu_index("disp.o")].narrow_why_not = "its code uses torch::optional beyond tensors and their registration";
	size_t tus[] = { tu_index("disp.o") };
	struct edit_candidate cands[] = { { .header = NULL, .tried = true, .error = "disp.o: error: 'at' has not been declared" },
					  { .header = "<torch/types.h>", .lines = 240000, .tried = true } };
	struct edit_wall walls[] = { { .tu = tus[0], .measured = true, .plain_s = 6, .plain_lo = 6,
				       .plain_hi = 6, .edited_s = 4, .edited_lo = 4, .edited_hi = 4 } };
	struct edit_site site = { .file = "disp.cpp", .line = 3, .header = "<torch/torch.h>", .tus = tus, .ntus = 1,
				  .cands = cands, .ncands = 2, .chosen = 1, .walls = walls, .nwalls = 1 };
	struct edit_evidence ev = { .root = "/proj", .copied = 9, .sites = &site, .nsites = 1 };
	struct advice a;
	const struct fix *narrow = with_evidence(&mod, FIX_NARROW, &ev, &a);
	assert_true(narrow->applies && narrow->measured);
	assert_int_equal(narrow->ntus, 1);
	assert_true(narrow->proven && narrow->proven[0]);
	assert_true(fabs(narrow->saving[0] - 2) < 1e-9);
	assert_true(fabs(narrow->alone.work - (58 - 2) / 2.0) < 1e-9);
	assert_non_null(strstr(narrow->evidence, "disp.o: disp.cpp:3: <torch/types.h> in place of <torch/torch.h> compiles "
						 "with its 1 TU (disp.o 6.00 -> 4.00 s)"));
	assert_null(strstr(narrow->evidence, "torch::optional"));
	assert_non_null(strstr(narrow->measured_by, "proven on a copy of the sources (9 files under /proj)"));
	assert_null(strstr(narrow->measured_by, "the rest"));	/* its one TU timed: nothing carried */
	advice_free(&a);

	site.chosen = -1;
	cands[1].error = "disp.o: error: 'optional' is not a member of 'torch'";
	advice_build(&mod.in, &a);
	narrow = &a.fixes[FIX_NARROW];
	assert_false(narrow->applies);
	assert_non_null(strstr(narrow->not_applicable, "disp.cpp:3 (<torch/torch.h>): no edit compiles with its 1 TU "
							"(removed: disp.o: error: 'at' has not been declared; "
							"<torch/types.h>: disp.o: error: 'optional'"));
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* A TU the build compiled alone, its walls alone, one a side: the plain
 * wall 6.2 s against its recorded 6 s, the machine moved by 1.033 in this
 * run. It saves its walls' share (1 - 4/6.2) of its baseline; the range
 * takes the ratio 4/6.2 both ways by 1.033 to the power of Student's t for
 * one degree of freedom (6.31): one pair of moments says little of how
 * far a wall moves. A document whose walls ran two copies side by side
 * saves the middle of 1 - 4/6.2 and 1 - 4/6. A TU that had neighbours in
 * the build keeps the walls' share. */
static void test_alone_in_build_bracket(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	size_t tus[] = { tu_index("disp.o") };
	struct edit_candidate cands[] = { { .header = "<torch/types.h>", .lines = 240000, .tried = true } };
	struct edit_wall walls[] = { { .tu = tus[0], .measured = true, .plain_s = 6.2, .plain_lo = 6.2, .plain_hi = 6.2,
				       .edited_s = 4, .edited_lo = 4, .edited_hi = 4, .at_once = 1,
				       .alone_in_build = true, .as_built = true, .recorded_s = NAN } };
	struct edit_site site = { .file = "disp.cpp", .line = 3, .header = "<torch/torch.h>", .tus = tus, .ntus = 1,
				  .cands = cands, .ncands = 1, .chosen = 0, .walls = walls, .nwalls = 1 };
	struct edit_evidence ev = { .root = "/proj", .copied = 9, .sites = &site, .nsites = 1 };
	struct advice a;
	const struct fix *narrow = with_evidence(&mod, FIX_NARROW, &ev, &a);
	double walls_saved = (1 - 4 / 6.2) * 6, against_base = (1 - 4 / 6.0) * 6;
	double moved = pow(6.2 / 6, tan(0.45 * acos(-1)))	/* t, 1 df, 90 % */, least = (1 - 4 / 6.2 * moved) * 6, most = (1 - 4 / 6.2 / moved) * 6;
	assert_true(narrow->applies && narrow->measured);
	assert_true(fabs(narrow->saving[0] - walls_saved) < 1e-9);
	assert_true(fabs(narrow->own_lo - least / walls_saved) < 1e-9);
	assert_true(fabs(narrow->own_hi - most / walls_saved) < 1e-9);
	assert_non_null(strstr(narrow->measured_by, "is timed alone, one wall a side: it saves its walls' share, the "
						    "range its ratio edited/plain widened both ways by how far the plain "
						    "walls moved from the recorded build, times Student's t (90 %"));
	assert_null(strstr(narrow->measured_by, "copies side by side"));	/* none ran so */
	advice_free(&a);
	walls[0].at_once = 2;
	walls[0].as_built = false;
	advice_build(&mod.in, &a);
	double middle = (walls_saved + against_base) / 2;
	assert_true(fabs(a.fixes[FIX_NARROW].saving[0] - middle) < 1e-9);
	assert_true(fabs(a.fixes[FIX_NARROW].own_lo - against_base / middle) < 1e-9);
	assert_non_null(strstr(a.fixes[FIX_NARROW].measured_by, "timed two copies at once, saves the middle"));
	assert_non_null(strstr(a.fixes[FIX_NARROW].measured_by, "each as copies side by side"));
	advice_free(&a);
	walls[0].alone_in_build = false;
	advice_build(&mod.in, &a);
	assert_true(fabs(a.fixes[FIX_NARROW].saving[0] - walls_saved) < 1e-9);
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* Two TUs that the build compiled all at once, nothing else beside them,
 * timed so, one wall a side: each saves its walls' share; their ranges
 * widen each ratio edited/plain by how far their plain walls moved from
 * their recorded seconds, not from their baselines (disp.o: 9.9 s against
 * 9 s as the build ran it, beside bind.o; its baseline, 6 s, is its time
 * alone; bind.o did not move): the root mean square of the two moves,
 * times Student's t for two degrees of freedom (2.92). */
static void test_group_as_built(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	size_t tus[] = { tu_index("disp.o"), tu_index("bind.o") };
	struct edit_candidate cands[] = { { .header = "<torch/types.h>", .lines = 240000, .tried = true } };
	struct edit_wall walls[] = { { .tu = tus[0], .measured = true, .plain_s = 9.9, .plain_lo = 9.9, .plain_hi = 9.9,
				       .edited_s = 6, .edited_lo = 6, .edited_hi = 6, .at_once = 2, .as_built = true,
				       .recorded_s = 9 },
				     { .tu = tus[1], .measured = true, .plain_s = 7.5, .plain_lo = 7.5, .plain_hi = 7.5,
				       .edited_s = 3, .edited_lo = 3, .edited_hi = 3, .at_once = 2, .as_built = true,
				       .recorded_s = 7.5 } };
	struct edit_site site = { .file = "opus/args.h", .line = 13, .header = "<torch/extension.h>", .tus = tus,
				  .ntus = 2, .cands = cands, .ncands = 1, .chosen = 0, .walls = walls, .nwalls = 2 };
	struct edit_evidence ev = { .root = "/proj", .copied = 9, .sites = &site, .nsites = 1 };
	struct advice a;
	const struct fix *leak = with_evidence(&mod, FIX_LEAK, &ev, &a);
	double disp = 1 - 6 / 9.9, bind = 1 - 3 / 7.5, middle = disp * 6 + bind * 5;
	double moved = exp(0.9 * sqrt(2 / (1 - 0.81)) * log(1.1) / sqrt(2));	/* t, 2 df: closed form */
	double least = (1 - 6 / 9.9 * moved) * 6 + (1 - 3 / 7.5 * moved) * 5;
	double most = (1 - 6 / 9.9 / moved) * 6 + (1 - 3 / 7.5 / moved) * 5;
	double median = (disp + bind) / 2;
	assert_true(leak->applies && leak->measured);
	assert_true(fabs(leak->saving[0] - disp * 6) < 1e-9);
	assert_true(fabs(leak->saving[1] - bind * 5) < 1e-9);
	assert_true(fabs(leak->own_lo - disp / median * least / middle) < 1e-9);
	assert_true(fabs(leak->own_hi - bind / median * most / middle) < 1e-9);
	assert_non_null(strstr(leak->measured_by, "where the build compiled a line's TUs all at once, nothing else beside "
						  "them, all of them are timed so, one wall a side: each saves its walls' share"));
	assert_null(strstr(leak->measured_by, "copies side by side"));
	assert_null(strstr(leak->measured_by, "timed alone"));
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* No proof (no copy could be made): the header probe's seconds, said as
 * inferred and why. */
static void test_leak_inferred_says_why(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	struct edit_evidence ev = { .why_not = "the TUs' sources share no directory but /: name it with --project DIR" };
	struct advice a;
	const struct fix *leak = with_evidence(&mod, FIX_LEAK, &ev, &a);
	assert_true(leak->applies && !leak->measured);
	assert_true(fabs(leak->saving[0] - 4) < 1e-9);
	assert_non_null(strstr(leak->measured_by, "inferred, not proven (the TUs' sources share no directory"));
	advice_free(&a);
	ninja_build_free(&mod.b);
}

static void test_plan_does_not_count_twice(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	struct advice a;
	advice_build(&mod.in, &a);
	/* fused saves the most work, then launchers; split then saves nothing
	 * (every device pass it would clean is already framework-free). */
	assert_true(a.nplan >= 3);
	assert_int_equal(a.plan[0].id, FIX_FUSED);
	assert_int_equal(a.plan[1].id, FIX_LAUNCHERS);
	for (size_t s = 0; s < a.nplan; s++)
		assert_int_not_equal(a.plan[s].id, FIX_SPLIT);
	assert_true(fabs(a.plan[1].after.work - (58 - 12 + 4.5 - 6 + 0.2) / 2) < 1e-9);
	for (size_t s = 1; s < a.nplan; s++)
		assert_true(a.plan[s].after.wall < a.plan[s - 1].after.wall);
	/* At the end the codegen-bound kernel and the link set the wall. */
	assert_int_equal(a.nfinal, 2);
	assert_int_equal(a.final_chain[0], mod.tus[2].edge);
	assert_true(fabs(a.final_critical - 21) < 1e-9);
	assert_true(a.plan[a.nplan - 1].after.wall >= 21 - 1e-9);
	advice_free(&a);
	ninja_build_free(&mod.b);
}

static void test_more_jobs(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 1);
	mod.in.cpus = 4;
	struct advice a;
	advice_build(&mod.in, &a);
	/* -j 1: the wall is all the work; at -j 4 the work bound is a quarter. */
	assert_true(fabs(a.baseline.wall - 58) < 1e-9);
	assert_true(a.fixes[FIX_JOBS].applies);
	assert_true(fabs(a.fixes[FIX_JOBS].alone.work - 58.0 / 4) < 1e-9);
	assert_int_equal(a.plan[0].id, FIX_JOBS);
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* The cluster rule: every compile on 6 remote slots, all at once, big.o
 * then the link set the wall; with the network timed, each sent compile's
 * remote part takes its cost besides, and the rule says what was timed. */
static void test_cluster_network(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	double share[7] = { 0 }, network[7];
	for (size_t i = 0; i < 6; i++)
		share[mod.tus[i].edge] = 1;
	for (size_t e = 0; e < 7; e++)
		network[e] = share[e] > 0 ? 0.75 : NAN;
	mod.in.remote = (struct remote_option){ .slots = 6, .speed = 1 };
	mod.in.remote_share = share;
	mod.in.local_probed = 6;
	struct advice a;
	advice_build(&mod.in, &a);
	const struct fix *jobs = &a.fixes[FIX_JOBS];
	assert_true(jobs->applies);
	assert_true(fabs(jobs->alone.wall - (20 + 1)) < 1e-9);
	assert_non_null(strstr(jobs->measured_by, "the network not timed (--probe-net times it)"));
	advice_free(&a);
	/* Timed through the cluster: its durations hold the network. */
	mod.in.launcher = "distcc";
	advice_build(&mod.in, &a);
	assert_non_null(strstr(a.fixes[FIX_JOBS].measured_by, "the network in the baseline's durations (timed "
							      "through distcc)"));
	advice_free(&a);
	mod.in.launcher = NULL;
	struct net_cost nc = { .fixed_s = 0.75, .per_byte_s = 0, .probe_bytes = 8 << 20, .repeats = 3 };
	mod.in.remote_network = network;
	mod.in.network = &nc;
	advice_build(&mod.in, &a);
	assert_true(fabs(a.fixes[FIX_JOBS].alone.wall - (20 + 0.75 + 1)) < 1e-9);
	assert_non_null(strstr(a.fixes[FIX_JOBS].measured_by, "the network 0.750 s a compile + 0.000 s a MiB"));
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* A dispatcher that includes the framework itself for Tensor signatures
 * only: the raw rule, with the header probe's host cost; the binding
 * (not the dispatcher) takes the moved glue. */
static void test_raw_pointers(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	struct tu_facts *disp = &mod.tus[tu_index("disp.o")];
	disp->leak_chain = disp->leak_fix = NULL;
	disp->includes_framework = disp->tensor_only = true;
	struct advice a;
	advice_build(&mod.in, &a);
	const struct fix *raw = &a.fixes[FIX_RAW];
	assert_true(raw->applies);
	assert_int_equal(raw->ntus, 1);
	assert_int_equal(raw->tus[0], tu_index("disp.o"));
	assert_true(fabs(raw->saving[0] - 4) < 1e-9);
	assert_non_null(strstr(raw->evidence, "only as Tensor"));
	assert_false(a.fixes[FIX_LEAK].applies);
	assert_non_null(strstr(a.fixes[FIX_LEAK].not_applicable, "disp.o (only for tensors: see raw)"));
	assert_non_null(strstr(a.fixes[FIX_LEAK].not_applicable, "bind.o (the binding)"));
	/* The launchers' glue joins the binding TU, listed after the dispatcher. */
	bool chosen_launchers = false;
	for (size_t s = 0; s < a.nplan; s++)
		chosen_launchers |= a.plan[s].id == FIX_LAUNCHERS;
	assert_true(chosen_launchers);
	advice_free(&a);
	/* Not the binding, and not a TU whose code uses more than tensors. */
	disp->tensor_only = false;
	advice_build(&mod.in, &a);
	assert_false(a.fixes[FIX_RAW].applies);
	assert_string_equal(a.fixes[FIX_RAW].not_applicable,
			    "no host TU but the binding includes a framework only for tensors in its code (2 host TUs read)");
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* Ranges: the baseline builds' spread scales every duration (the wall
 * with it, exactly); the savings' spread widens a step's range beyond
 * that; a step whose range overlaps the one before is not beyond noise. */
static void test_ranges(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	struct advice a;
	advice_build(&mod.in, &a);
	/* One build, no probe spread: every range is its point. */
	assert_true(fabs(a.baseline_range.lo - a.baseline.wall) < 1e-9);
	assert_true(fabs(a.plan[0].range.hi - a.plan[0].after.wall) < 1e-9);
	assert_true(a.plan[0].distinct);
	double base = a.baseline.wall, first = a.plan[0].after.wall;
	advice_free(&a);

	mod.in.spread_lo = 0.9;
	mod.in.spread_hi = 1.1;
	advice_build(&mod.in, &a);
	assert_true(fabs(a.baseline_range.lo - 0.9 * base) < 1e-9);
	assert_true(fabs(a.baseline_range.hi - 1.1 * base) < 1e-9);
	/* No savings spread yet: the step scales like the baseline. */
	assert_true(fabs(a.plan[0].range.lo - 0.9 * first) < 1e-9);
	assert_true(fabs(a.plan[0].range.hi - 1.1 * first) < 1e-9);
	advice_free(&a);

	for (size_t i = 0; i < 6; i++) {
		mod.tus[i].cost_lo = 0.5;
		mod.tus[i].cost_hi = 1.5;
	}
	mod.in.spread_lo = mod.in.spread_hi = 1;
	advice_build(&mod.in, &a);
	/* Savings at their most give the least wall, and the other way round. */
	assert_true(a.plan[0].range.lo < a.plan[0].after.wall && a.plan[0].after.wall < a.plan[0].range.hi);
	/* The first step saves far more than its spread. */
	assert_true(a.plan[0].distinct);
	advice_free(&a);
	/* The machine's spread is common to every step: it widens the
	 * ranges, not what tells the steps apart. */
	mod.in.spread_lo = 0.5;
	mod.in.spread_hi = 1.5;
	advice_build(&mod.in, &a);
	assert_true(a.plan[0].distinct);
	assert_true(a.plan[0].range.lo < a.baseline_range.hi);
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* The load curve's spread: the baseline, isolated by either end of it and
 * scheduled with that end, comes back as recorded; a step that changes
 * what runs at once (heavy instances fused into one host TU) moves with
 * how much they slowed each other, so its range widens by the curve's. */
static void test_curve_spread_in_ranges(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 8);
	static struct header_cost instance = { 30, 2, 0.5, 0.5, "<torch/extension.h>", "k0.o" };
	for (size_t i = 0; i < 2; i++) {
		mod.tus[i].cost = &instance;
		mod.seconds[mod.tus[i].edge] = 40;
	}
	/* Measured: no slowdown at the median, 1.2 at 8 at the steep end. */
	struct load_curve curve = { .n = 2, .jobs = { 1, 8 }, .slowdown = { 1, 1 }, .lo = { 1, 1 }, .hi = { 1, 1.2 } };
	mod.in.sched.curve = &curve;
	struct advice a;
	advice_build(&mod.in, &a);
	assert_int_equal(a.plan[0].id, FIX_FUSED);
	double base = a.baseline.wall, step = a.plan[0].after.wall;
	struct range alone = a.plan[0].range;
	assert_true(fabs(alone.lo - step) < 1e-9 && fabs(alone.hi - step) < 1e-9);	/* no ends given */
	advice_free(&a);

	/* The recorded build: every TU from 0 at -j 8, the link after them. */
	size_t n = mod.b.n, link = (size_t)ninja_edge_of(&mod.b, "m.so");
	double start[7], end[7], steep_seconds[7];
	for (size_t i = 0; i < n; i++) {
		start[i] = i == link ? 40 : 0;
		end[i] = start[i] + mod.seconds[i];
	}
	struct curve_end_input ends[2] = { { .seconds = mod.seconds } };
	assert_false(load_curve_end(&curve, false, &ends[0].curve));	/* the flat end is the curve */
	assert_true(load_curve_end(&curve, true, &ends[1].curve));
	load_curve_isolate(&ends[1].curve, start, end, n, steep_seconds);
	ends[1].seconds = steep_seconds;
	assert_true(steep_seconds[mod.tus[0].edge] < 40);
	mod.in.curve_ends = ends;
	advice_build(&mod.in, &a);
	assert_true(fabs(a.baseline_range.lo - base) < 1e-9 && fabs(a.baseline_range.hi - base) < 1e-9);
	assert_true(fabs(a.plan[0].after.wall - step) < 1e-9);	/* the median is the median's */
	/* After it big.o sets the wall with fewer beside it: at the steep end
	 * its isolated time is less than recorded, and so is the wall. */
	assert_true(a.plan[0].range.lo < step - 0.5);
	assert_true(fabs(a.plan[0].range.hi - step) < 1e-9);
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* At the end, a TU the plan adds is named on the critical path when it
 * sets the wall: heavy instances (40 s, 32 s of it the framework) fused
 * into one host TU of 25 + 0.3 + 10 s of glue, beside a 26 s binding. */
static void test_final_path_names_the_fused_tu(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 8);
	static struct header_cost instance = { 30, 2, 0.5, 0.5, "<torch/extension.h>", "k0.o" };
	static struct header_cost binding = { 25, 0, 0.3, 0, "<torch/extension.h>", "bind.o" };
	for (size_t i = 0; i < 2; i++) {
		mod.tus[i].cost = &instance;
		mod.tus[i].glue = 10;
		mod.seconds[mod.tus[i].edge] = 40;
	}
	mod.tus[5].cost = &binding;
	mod.seconds[mod.tus[5].edge] = 26;
	struct advice a;
	advice_build(&mod.in, &a);
	assert_int_equal(a.plan[0].id, FIX_FUSED);
	assert_int_equal(a.nfinal, 2);
	assert_string_equal(a.final_names[0], "the fused host TU (new)");
	assert_string_equal(a.final_names[1], "m.so");
	assert_true(fabs(a.final_critical - (25 + 0.3 + 10 + 1)) < 1e-9);
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* The glue measured as one (the fused probe): every instance's together
 * joins the fused TU, carried past the included ones at their share each;
 * the launchers' glue is an instance's share. */
static void test_fused_probe(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	struct fused_cost fc = { .glue = 0.6, .probe = 3.1, .headers = 2.5, .included = 2, .instances = 2,
				 .command_of = "k0.o" };
	for (size_t i = 0; i < 2; i++)
		mod.tus[i].glue = 0.3;
	mod.in.fused = &fc;
	struct advice a;
	advice_build(&mod.in, &a);
	const struct fix *fused = &a.fixes[FIX_FUSED], *launch = &a.fixes[FIX_LAUNCHERS];
	assert_true(fabs(fused->added - (4 + 0.3 + 0.6)) < 1e-9);
	assert_non_null(strstr(fused->measured_by, "the glue of the 2 instances 0.60 s, measured as one: 2 sources "
						  "#included into one TU, its host pass alone with k0.o's command"));
	assert_null(strstr(fused->measured_by, "upper bound"));
	assert_null(strstr(fused->measured_by, "namespace"));
	assert_true(fabs(launch->added - 0.3) < 1e-9);
	assert_non_null(strstr(launch->measured_by, "an instance's share of the fused probe's"));
	advice_free(&a);
	/* instances that define one name each, fused each in a namespace */
	fc.namespaced = true;
	advice_build(&mod.in, &a);
	assert_non_null(strstr(a.fixes[FIX_FUSED].measured_by, "2 sources #included into one TU, each in a namespace of "
								 "its own (as they are, they define one name twice)"));
	assert_true(fabs(a.fixes[FIX_FUSED].added - (4 + 0.3 + 0.6)) < 1e-9);
	advice_free(&a);
	fc.namespaced = false;
	fc.included = 1;
	advice_build(&mod.in, &a);
	assert_non_null(strstr(a.fixes[FIX_FUSED].measured_by, "1 source #included"));
	assert_non_null(strstr(a.fixes[FIX_FUSED].measured_by, "carried to all 2 at 0.30 s each"));
	assert_null(strstr(a.fixes[FIX_FUSED].measured_by, "do not compile as one TU"));
	advice_free(&a);
	fc.apart = true;
	advice_build(&mod.in, &a);
	assert_non_null(strstr(a.fixes[FIX_FUSED].measured_by, "(they do not compile as one TU)"));
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* narrow: each TU's umbrella cost less its narrow headers', where no
 * other fix takes the framework out of that pass; with fused, the fused
 * TU parses the narrow headers instead. The torch TUs set the wall here
 * (the codegen-bound kernel made short). */
static void test_narrow(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	mod.seconds[mod.tus[tu_index("big.o")].edge] = 2;
	struct header_cost narrow_cuda = { 1, 0.5, 0.5, 0.5, "<ATen/core/Tensor.h>", "k0.o" };
	struct header_cost narrow_cxx = { 1, 0, 0.3, 0, "<ATen/core/Tensor.h>", "disp.o" };
	struct header_cost narrow_bind = { 1, 0, 0.3, 0, "<torch/library.h>, <ATen/core/Tensor.h>", "bind.o" };
	for (size_t i = 0; i < 2; i++) {
		mod.tus[i].narrow = &narrow_cuda;
		mod.tus[i].narrow_at = "opus/launcher.h:20";
	}
	mod.tus[tu_index("epi.o")].narrow = &narrow_cuda;
	mod.tus[tu_index("disp.o")].narrow = &narrow_cxx;
	struct tu_facts *bind = &mod.tus[tu_index("bind.o")];
	bind->narrow = &narrow_bind;
	bind->narrow_change = "register its functions with TORCH_LIBRARY";
	mod.in.fused_narrow = &narrow_cxx;
	struct advice a;
	advice_build(&mod.in, &a);
	const struct fix *n = &a.fixes[FIX_NARROW], *fused = &a.fixes[FIX_FUSED];
	assert_true(n->applies);
	assert_int_equal(n->ntus, 5);
	/* Both passes of a kernel TU: (4 - 1) + (2 - 0.5); a host TU's: 4 - 1. */
	assert_true(fabs(n->saving[0] - 4.5) < 1e-9);
	assert_int_equal(n->tus[3], tu_index("disp.o"));
	assert_true(fabs(n->saving[3] - 3) < 1e-9);
	assert_int_equal(n->tus[4], tu_index("bind.o"));
	assert_true(fabs(n->saving[4] - 3) < 1e-9);
	assert_non_null(strstr(n->evidence, "k0.o: <torch/extension.h> at opus/launcher.h:20 -> <ATen/core/Tensor.h>"));
	assert_non_null(strstr(n->evidence, "bind.o: <torch/extension.h> at its #include -> <torch/library.h>, "
					    "<ATen/core/Tensor.h>; and register its functions with TORCH_LIBRARY"));
	assert_non_null(strstr(n->measured_by, "the fused host TU parses <ATen/core/Tensor.h> (1.00 s with disp.o's command)"));
	/* The fused TU narrowed: its headers' 1 s instead of 4 s. */
	assert_true(fabs(fused->added - 4.5) < 1e-9);
	assert_true(fabs(fused->added_narrow - 1.5) < 1e-9);
	/* The plan takes the framework out of the kernels, the leak and the
	 * table, and narrows what is left: bind.o 5 - 3 + the epilogue's glue
	 * 0.2, the fused TU 1.5, the dispatcher's narrowing taken by leak. */
	bool chosen[NFIXES] = { false };
	for (size_t s = 0; s < a.nplan; s++)
		chosen[a.plan[s].id] = true;
	assert_true(chosen[FIX_NARROW] && chosen[FIX_FUSED] && chosen[FIX_LAUNCHERS] && chosen[FIX_LEAK] && chosen[FIX_FLAT]);
	assert_false(chosen[FIX_SPLIT]);
	double work = 2 + 2 + 2 + 4 + 0.5 + (5 - 3 + 0.2) + 1.5 + 1;
	assert_true(fabs(a.plan[a.nplan - 1].after.work - work / 2) < 1e-9);
	advice_free(&a);
	/* A TU whose code needs more of the framework keeps it whole, and says why. */
	for (size_t i = 0; i < 6; i++)
		mod.tus[i].narrow = NULL;
	bind->narrow_why_not = "its code uses torch::empty beyond tensors and their registration";
	advice_build(&mod.in, &a);
	assert_false(a.fixes[FIX_NARROW].applies);
	assert_non_null(strstr(a.fixes[FIX_NARROW].not_applicable, "bind.o: its code uses torch::empty"));
	advice_free(&a);
	ninja_build_free(&mod.b);
}

/* A scale borrowed from a probe taken while the machine ran slower would
 * make bind.o's headers alone (4 + 0.3 s probed) outlast its 5 s: it is
 * lowered to 5 / 4.3, and narrowing saves (4 - 1) of those. */
static void test_scale_capped_at_the_headers(void **state)
{
	(void)state;
	struct module mod;
	load(&mod, 2);
	struct tu_facts *bind = &mod.tus[tu_index("bind.o")], *disp = &mod.tus[tu_index("disp.o")];
	bind->scale = disp->scale = 1.6;
	tu_facts_cap_scale(bind, mod.seconds[bind->edge]);
	tu_facts_cap_scale(disp, mod.seconds[disp->edge]);
	assert_true(fabs(bind->scale - 5 / 4.3) < 1e-12);
	assert_true(fabs(disp->scale - 6 / 4.3) < 1e-12);
	/* One that fits is kept, and so is a TU with no header cost. */
	bind->scale = 1.1;
	tu_facts_cap_scale(bind, mod.seconds[bind->edge]);
	assert_true(bind->scale == 1.1);
	struct tu_facts *big = &mod.tus[tu_index("big.o")];
	big->scale = 3;
	tu_facts_cap_scale(big, mod.seconds[big->edge]);
	assert_true(big->scale == 3);
	struct header_cost narrow_bind = { 1, 0, 0.3, 0, "<torch/library.h>, <ATen/core/Tensor.h>", "bind.o" };
	bind->scale = 1.6;
	tu_facts_cap_scale(bind, mod.seconds[bind->edge]);
	bind->narrow = &narrow_bind;
	struct advice a;
	advice_build(&mod.in, &a);
	const struct fix *n = &a.fixes[FIX_NARROW];
	assert_true(n->applies);
	assert_int_equal(n->tus[n->ntus - 1], tu_index("bind.o"));
	assert_true(fabs(n->saving[n->ntus - 1] - 3 * 5 / 4.3) < 1e-9);
	/* What is left of it is what its narrow headers take, scaled alike. */
	assert_true(5 - n->saving[n->ntus - 1] >= (1 + 0.3) * 5 / 4.3 - 1e-9);
	advice_free(&a);
	ninja_build_free(&mod.b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_scale_capped_at_the_headers),
		cmocka_unit_test(test_fused_probe),
		cmocka_unit_test(test_rules_and_savings),
		cmocka_unit_test(test_leak_proven),
		cmocka_unit_test(test_narrow_proven),
		cmocka_unit_test(test_alone_in_build_bracket),
		cmocka_unit_test(test_group_as_built),
		cmocka_unit_test(test_leak_inferred_says_why),
		cmocka_unit_test(test_plan_does_not_count_twice),
		cmocka_unit_test(test_more_jobs),
		cmocka_unit_test(test_cluster_network),
		cmocka_unit_test(test_raw_pointers),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_curve_spread_in_ranges),
		cmocka_unit_test(test_final_path_names_the_fused_tu),
	};
	return cmocka_run_group_tests_name("advice", tests, NULL, NULL);
}
