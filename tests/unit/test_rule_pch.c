/* The pch rule on fixed measurements: its evidence as a saved document
 * holds it (the rule's own load), and the model's walls with the PCH a
 * step before the TUs that use it. A module of one framework-free TU
 * (big.o) and two that parse the framework: a.o, whose header leaks it,
 * and the binding b.o. */
#include "unit.h"
#include "advice.h"
#include "ninja.h"
#include "rule.h"
#include "walk.h"

#include <math.h>

static const char manifest[] = "rule cc\n  command = g++ -c $in -o $out\n"
			       "rule link\n  command = g++ $in -o $out\n"
			       "build big.o: cc big.cpp\nbuild a.o: cc a.cpp\nbuild b.o: cc b.cpp\n"
			       "build m.so: link big.o a.o b.o\n";

static struct header_cost cxx = { 4, 0, 0.3, 0, "<torch/extension.h>", "a.o" };

struct module {
	struct ninja_build b;
	double seconds[4];
	struct tu_facts tus[3];
	struct advise ad;	/* what the rule's load reads: the TUs */
	const void *evidence[NFIXES];
	struct advice_input in;
	struct advice a;
};

/* The PCH's document: built in `build` s; a.o 6 -> `a_with` s, b.o 5 ->
 * 1.5 s. */
static char *pch_json(double build, double a_with)
{
	return xasprintf("{\"groups\": [{\"donor\": 1, \"headers\": \"<torch/extension.h>\", \"error\": null, "
			 "\"build_s\": [%g, %g, %g], \"peak_mb\": 466, \"size_mb\": 136, \"users\": ["
			 "{\"tu\": 1, \"plain_s\": [6, 6, 6], \"with_s\": [%g, %g, %g], \"error\": null}, "
			 "{\"tu\": 2, \"plain_s\": [5, 5, 5], \"with_s\": [1.5, 1.5, 1.5], \"error\": null}]}], "
			 "\"host_tus\": 2, \"device_tus\": 0}",
			 build, build, build, a_with, a_with, a_with);
}

static void *load_evidence(struct module *mod, const char *text)
{
	json_error_t jerr;
	json_t *doc = json_loads(text, 0, &jerr);
	assert_non_null(doc);
	void *ev = NULL;
	char *err = NULL;
	bool ok = fix_rules[FIX_PCH]->walk->load(doc, &mod->ad, &ev, &err);
	json_decref(doc);
	if (!ok)
		fprintf(stderr, "load: %s\n", err);
	assert_true(ok);
	return ev;
}

/* The module at -j `jobs` on as many CPUs, big.o taking `big` s, with
 * the pch evidence `text` (NULL: none), advised. */
static void advise_module(struct module *mod, int jobs, double big, const char *text)
{
	*mod = (struct module){ 0 };
	char *dir = manifest_dir("rule-pch", manifest);
	ninja_load(dir, &mod->b);
	free(dir);
	static const char *const names[] = { "big.o", "a.o", "b.o", "m.so" };
	const double secs[] = { big, 6, 5, 1 };
	for (size_t i = 0; i < 4; i++)
		mod->seconds[ninja_edge_of(&mod->b, names[i])] = secs[i];
	for (size_t i = 0; i < 3; i++)
		mod->tus[i] = (struct tu_facts){ .edge = (size_t)ninja_edge_of(&mod->b, names[i]), .name = names[i],
						 .scale = 1, .glue = NAN, .table_saving = NAN };
	struct tu_facts *a = &mod->tus[1], *b = &mod->tus[2];
	a->host_framework = true;
	a->frameworks = "torch/ATen/c10";
	a->leak_chain = "a.cpp -> args.h -> <torch/extension.h>";
	a->leak_fix = "args.h:3";
	a->cost = &cxx;
	b->host_framework = b->includes_framework = b->binding = true;
	b->cost = &cxx;
	mod->ad.ntus = 3;
	void *ev = text ? load_evidence(mod, text) : NULL;
	mod->evidence[FIX_PCH] = ev;
	mod->in = (struct advice_input){ .build = &mod->b, .seconds = mod->seconds, .tus = mod->tus, .ntus = 3,
					 .sched = { .jobs = jobs, .policy = POLICY_CRITICAL }, .cpus = jobs,
					 .rules = fix_rules, .evidence = mod->evidence };
	advice_build(&mod->in, &mod->a);
}

static void module_free(struct module *mod)
{
	advice_free(&mod->a);
	if (mod->evidence[FIX_PCH])
		fix_rules[FIX_PCH]->walk->free((void *)mod->evidence[FIX_PCH]);
	ninja_build_free(&mod->b);
}

static bool near(double x, double want)
{
	return fabs(x - want) < 1e-9;
}

/* One job: the savings add up and the build is paid once. A fix that
 * takes the framework out of a TU (leak) leaves the PCH nothing there:
 * after pch, leak saves a.o's 4 s less the 3 s the PCH saved it. */
static void test_pays_on_one_job(void **state)
{
	(void)state;
	struct module mod;
	char *text = pch_json(2, 3);
	advise_module(&mod, 1, 20, text);
	const struct fix *pch = &mod.a.fixes[FIX_PCH];
	assert_true(near(mod.a.baseline.wall, 32));
	assert_true(pch->applies);
	assert_int_equal(pch->ntus, 2);
	assert_true(near(pch->saving[0], 3) && near(pch->saving[1], 3.5));
	assert_true(near(pch->alone.wall, 32 - 6.5 + 2));
	assert_non_null(strstr(pch->evidence, "a PCH of it built with a.o's command took 2.00 s (466 MB peak, 136 MB on disk)"));
	assert_non_null(strstr(pch->evidence, "a.o 6.00 -> 3.00 s, b.o 5.00 -> 1.50 s"));
	assert_non_null(strstr(pch->evidence, "it saves 6.5 s of work against 2.0 s to build it, and at -j 1 the wall "
					      "goes 32.0 -> 27.5 s"));
	assert_int_equal(mod.a.nplan, 2);
	assert_int_equal(mod.a.plan[0].id, FIX_PCH);
	assert_int_equal(mod.a.plan[1].id, FIX_LEAK);
	assert_true(near(mod.a.plan[1].after.wall, 32 - 4 - 3.5 + 2));	/* not 32 - 4 - 3 - 3.5 + 2 */
	module_free(&mod);
	free(text);
}

/* A group probed beside one left out (every user of it narrowed by a
 * proven edit): the evidence says how many were left out, and why. */
static void test_narrowed_left_out(void **state)
{
	(void)state;
	struct module mod;
	char *text = pch_json(2, 3), *at = strstr(text, "\"device_tus\": 0}");
	assert_non_null(at);
	char *with = xasprintf("%.*s\"device_tus\": 0, \"narrowed_tus\": 3}", (int)(at - text), text);
	advise_module(&mod, 1, 20, with);
	assert_true(mod.a.fixes[FIX_PCH].applies);
	assert_non_null(strstr(mod.a.fixes[FIX_PCH].evidence, "; 3 host TUs left out, a proven edit narrowing the "
								  "framework of every one of its group"));
	module_free(&mod);
	free(with);
	free(text);
}

/* As many jobs as TUs: the PCH's build is a step before its users. */
static void test_as_many_jobs_as_tus(void **state)
{
	(void)state;
	struct module mod;
	/* big.o sets the wall: the TUs it speeds do not. */
	char *text = pch_json(2, 3);
	advise_module(&mod, 3, 20, text);
	assert_true(near(mod.a.fixes[FIX_PCH].alone.wall, 21));
	assert_non_null(strstr(mod.a.fixes[FIX_PCH].evidence, "at -j 3 the wall stays 21.0 s: the TUs it speeds do not set it"));
	module_free(&mod);
	free(text);
	/* Its build holds a.o up: 5 + 3 + 1 against 6 + 1. */
	text = pch_json(5, 3);
	advise_module(&mod, 3, 4, text);
	assert_true(near(mod.a.fixes[FIX_PCH].alone.wall, 9));
	assert_non_null(strstr(mod.a.fixes[FIX_PCH].evidence, "its build, a step before the 2 TUs, holds them up (the wall "
							      "7.0 -> 9.0 s): it pays with fewer jobs"));
	for (size_t s = 0; s < mod.a.nplan; s++)
		assert_int_not_equal(mod.a.plan[s].id, FIX_PCH);
	module_free(&mod);
	free(text);
	/* More to build than it saves: no job count. */
	text = pch_json(7, 3);
	advise_module(&mod, 1, 20, text);
	assert_non_null(strstr(mod.a.fixes[FIX_PCH].evidence, "it saves 6.5 s of work against 7.0 s to build it: it pays "
							      "at no job count"));
	module_free(&mod);
	free(text);
}

/* The critical path after the plan names the PCH's build; a.o, whose
 * framework leak took out, no longer waits for it. */
static void test_final_path_names_the_pch(void **state)
{
	(void)state;
	struct module mod;
	char *text = pch_json(1, 3);
	advise_module(&mod, 3, 2, text);
	assert_int_equal(mod.a.nplan, 2);
	assert_true(near(mod.a.plan[0].after.wall, 1 + 3 + 1));
	assert_true(near(mod.a.plan[1].after.wall, 1 + 1.5 + 1));
	assert_int_equal(mod.a.nfinal, 3);
	assert_string_equal(mod.a.final_names[0], "the PCH of <torch/extension.h> (new)");
	assert_string_equal(mod.a.final_names[1], "b.o");
	assert_string_equal(mod.a.final_names[2], "m.so");
	module_free(&mod);
	free(text);
}

/* The TUs past the measured ones carry their median saving. */
static void test_the_rest_carry_the_median(void **state)
{
	(void)state;
	struct module mod;
	advise_module(&mod, 1, 20,
		      "{\"groups\": [{\"donor\": 1, \"headers\": \"<torch/extension.h>\", \"error\": null, \"build_s\": "
		      "[2, 2, 2], \"peak_mb\": 1, \"size_mb\": 1, \"users\": ["
		      "{\"tu\": 1, \"plain_s\": [6, 6, 6], \"with_s\": [3, 3, 3], \"error\": null}, "
		      "{\"tu\": 2, \"plain_s\": [5, 5, 5], \"with_s\": [1.5, 1.5, 1.5], \"error\": null}, "
		      "{\"tu\": 0, \"measured\": false, \"plain_s\": [null, null, null], \"with_s\": [null, null, null], "
		      "\"error\": null}]}], \"host_tus\": 3, \"device_tus\": 0}");
	const struct fix *pch = &mod.a.fixes[FIX_PCH];
	assert_int_equal(pch->ntus, 3);
	assert_int_equal(pch->tus[2], 0);
	assert_true(near(pch->saving[2], (3 + 3.5) / 2));
	assert_true(near(pch->alone.wall, 32 - 3 - 3.5 - 3.25 + 2));
	assert_non_null(strstr(pch->evidence, "; 1 more carry the median saving of those measured"));
	module_free(&mod);
}

static void test_when_it_does_not_apply(void **state)
{
	(void)state;
	struct module mod;
	advise_module(&mod, 1, 20, NULL);
	assert_false(mod.a.fixes[FIX_PCH].applies);
	assert_string_equal(mod.a.fixes[FIX_PCH].not_applicable, "not measured (a document made before the pch rule)");
	module_free(&mod);
	advise_module(&mod, 1, 20, "{\"groups\": [], \"host_tus\": 1, \"device_tus\": 0}");
	assert_string_equal(mod.a.fixes[FIX_PCH].not_applicable, "each framework is parsed by one host TU a command (1 in "
								 "all): a PCH built for one TU costs more than it saves");
	module_free(&mod);
	advise_module(&mod, 1, 20, "{\"groups\": [], \"host_tus\": 0, \"device_tus\": 0, \"small_tus\": 3, "
				   "\"most_lines\": 300}");
	assert_string_equal(mod.a.fixes[FIX_PCH].not_applicable, "the frameworks the 3 host TUs parse are small (at most "
								 "300 lines a TU, under 20000): a PCH of them would save little");
	module_free(&mod);
	/* Every user's framework narrowed by a proven edit: not probed, and
	 * said so (not as one TU a command, though host_tus counts them). */
	advise_module(&mod, 1, 20, "{\"groups\": [], \"host_tus\": 7, \"device_tus\": 0, \"narrowed_tus\": 7}");
	assert_string_equal(mod.a.fixes[FIX_PCH].not_applicable, "the framework of the 7 host TUs that would share a PCH "
								 "is narrowed by an edit proven on a copy of the sources: "
								 "a PCH is of the headers left after it (advise again once "
								 "its patch is applied)");
	module_free(&mod);
	/* A TU the compiler would not give the PCH to says why. */
	advise_module(&mod, 1, 20,
		      "{\"groups\": [{\"donor\": 1, \"headers\": \"<torch/extension.h>\", \"error\": null, \"build_s\": "
		      "[2, 2, 2], \"peak_mb\": 1, \"size_mb\": 1, \"users\": [{\"tu\": 1, \"plain_s\": [6, 6, 6], "
		      "\"with_s\": [null, null, null], \"error\": \"cc1plus: error: framework.h.gch: not used because "
		      "`__OPTIMIZE__' not defined\"}]}], \"host_tus\": 2, \"device_tus\": 0}");
	assert_string_equal(mod.a.fixes[FIX_PCH].not_applicable,
			    "no TU compiled faster with a PCH: a.o does not take it: cc1plus: error: framework.h.gch: not "
			    "used because `__OPTIMIZE__' not defined");
	module_free(&mod);
}

/* A saved document's pch evidence that is not one: false, with where. */
static void test_load_refuses(void **state)
{
	(void)state;
	struct advise ad = { .ntus = 3 };
	static const char *const bad[][2] = {
		{ "[]", "not groups, host_tus and device_tus" },
		{ "{\"groups\": [{\"donor\": 9}], \"host_tus\": 2, \"device_tus\": 0}", "groups[0]: not a PCH group" },
		{ "{\"groups\": [{\"donor\": 1, \"headers\": \"<x.h>\", \"error\": null, \"build_s\": [1, 1, 1], "
		  "\"peak_mb\": 1, \"size_mb\": 1, \"users\": [{\"tu\": 7, \"plain_s\": [1, 1, 1], \"with_s\": [1, 1, 1]}]}], "
		  "\"host_tus\": 2, \"device_tus\": 0}", "groups[0].users[0]: not a TU with its walls" },
		{ "{\"groups\": [{\"donor\": 1, \"headers\": \"<x.h>\", \"error\": null, \"build_s\": [-1, 1, 1], "
		  "\"peak_mb\": 1, \"size_mb\": 1, \"users\": []}], \"host_tus\": 2, \"device_tus\": 0}", "groups[0]: not a PCH group" },
		/* one TU twice: its step's edges once counted past the fix's TUs */
		{ "{\"groups\": [{\"donor\": 1, \"headers\": \"<x.h>\", \"error\": null, \"build_s\": [1, 1, 1], "
		  "\"peak_mb\": 1, \"size_mb\": 1, \"users\": [{\"tu\": 1, \"plain_s\": [2, 2, 2], \"with_s\": [1, 1, 1]}, "
		  "{\"tu\": 1, \"plain_s\": [2, 2, 2], \"with_s\": [1, 1, 1]}]}], \"host_tus\": 2, \"device_tus\": 0}",
		  "groups[0].users[1]: TU 1 uses a PCH already" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		json_t *doc = json_loads(bad[i][0], 0, NULL);
		void *ev = NULL;
		char *err = NULL;
		assert_false(fix_rules[FIX_PCH]->walk->load(doc, &ad, &ev, &err));
		assert_non_null(strstr(err, bad[i][1]));
		fix_rules[FIX_PCH]->walk->free(ev);
		free(err);
		json_decref(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pays_on_one_job),
		cmocka_unit_test(test_narrowed_left_out),
		cmocka_unit_test(test_as_many_jobs_as_tus),
		cmocka_unit_test(test_final_path_names_the_pch),
		cmocka_unit_test(test_the_rest_carry_the_median),
		cmocka_unit_test(test_when_it_does_not_apply),
		cmocka_unit_test(test_load_refuses),
	};
	return cmocka_run_group_tests_name("rule_pch", tests, NULL, NULL);
}
