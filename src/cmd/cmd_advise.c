/* buildwall advise: which of the playbook's fixes to make first and the
 * module's wall after each, predicted from measurements before any change
 * (the model: advise.c). */
#include "advise_render.h"
#include "cli.h"
#include "options.h"
#include "out_json.h"
#include "util.h"

#include <stdbool.h>
#include <string.h>

static const char usage[] =
	"usage: buildwall advise [-C BUILD_DIR] [TARGET...] [-j JOBS] [--policy manifest|critical]\n"
	"                        [--parallel P] [-r R] [--timeout S] [--kernels] [--launcher distcc]\n"
	"                        [--remote N[:SPEED] [--distcc-log FILE | --probe-net]] [--project DIR]\n"
	"                        [--memory SIZE] [--patch DIR] [--json]\n"
	"       buildwall advise --from DOC.json [-j JOBS] [--policy manifest|critical] [--remote N[:SPEED]]\n"
	"                        [--memory SIZE] [--patch DIR] [--json]\n"
	"\n"
	"Say which of the playbook's fixes applies, what each saves and the module's wall\n"
	"after it, predicted before anything is changed; then the plan (the fixes in the\n"
	"order that lowers the predicted wall most, the wall after each step) and what sets\n"
	"the wall at the end. The fixes: split the host and device passes, one fused host\n"
	"TU for generated instances, the framework out of the launchers, the include that\n"
	"leaks it into a host TU, raw pointers in a dispatcher that parses it only for its\n"
	"tensors, a flat table instead of unordered_map<…, std::function>, and more jobs;\n"
	"a codegen-bound kernel is named as kernel work.\n"
	"\n"
	"Measured here, in a private temp dir (the build dir stays byte-identical): the\n"
	"baseline (the last 5 builds in .ninja_log that ran every TU, else every TU re-run\n"
	"as rank does), the load curve (the heaviest host TU compiled alone and as many at\n"
	"once as the build runs, the rounds interleaved; as a proven edit leaves it where it\n"
	"is the heaviest compile, and then its rounds of two are its edited walls; where\n"
	"the build runs 4 or more at once, two at once and copies among the probes, alone\n"
	"read off the line: how much slower a compile runs beside others here; each\n"
	"recorded step's duration is turned into an isolated time by it, and every\n"
	"prediction schedules with it, so a fix that takes heavy TUs out also speeds the\n"
	"ones left), every TU preprocessed as it\n"
	"compiles (pp, leak), the passes of the kernel TUs near the slowest and of one\n"
	"instance per family, and probe TUs compiled with a TU's own command: its framework\n"
	"headers against an empty TU (host and device passes apart), and its dispatch table\n"
	"against a flat one, each run R times.\n"
	"A TU's role comes from its text: a .cu that defines or launches no kernel is a\n"
	"host TU. Every wall is printed with its range (the baseline builds' spread, the\n"
	"probes' and the load curve's), and each step of the plan says whether it is beyond\n"
	"the probes' noise. TARGET limits the TUs considered.\n"
	"\n"
	"--remote N[:SPEED] turns the jobs rule into the cluster's: the compiles sent to N\n"
	"remote slots (hosts SPEED times as fast), -j the slots and the CPUs here, each\n"
	"compile's part there from --distcc-log FILE (the build's DISTCC_VERBOSE=1 log),\n"
	"else its time less its preprocessing, timed here (as sim --remote --probe-local);\n"
	"the wall then and the step that sets it. --probe-net times what sending a compile\n"
	"costs besides (as sim's: probes through distcc to its configured hosts, fixed plus\n"
	"per preprocessed byte), for a build recorded here; without it the network is not\n"
	"timed.\n"
	"\n"
	"--launcher distcc times the baseline on the cluster instead of taking .ninja_log's:\n"
	"every TU sent through distcc (its hosts from DISTCC_HOSTS), P at once (P may pass\n"
	"the CPUs here) and R runs each, as rank --launcher distcc does; no load curve (the\n"
	"compiles do not run beside each other here). The probes still run here, at most\n"
	"one a CPU (a single pass is not a compile distcc can send), and each saving is\n"
	"scaled by its TU's time there over its time here.\n"
	"\n"
	"Memory: each compile's peak is its process tree's (every process it runs at once:\n"
	"nvcc's cicc and ptxas, hipcc's parallel jobs), from a cgroup of its own where\n"
	"buildwall can make one, else sampled from /proc; the build's peak at a -j is the\n"
	"most the steps running at once hold, each its peak from start to end. The jobs\n"
	"rule holds -j to the fastest whose peak fits the memory available (MemAvailable,\n"
	"or a memory cgroup's limit where less) or --memory SIZE, less 10 %; where the\n"
	"build's own -j does not fit, it says so first. Without --memory only the TUs the\n"
	"probes compiled whole (or the baseline re-ran) have a peak, the rest counted as\n"
	"none; --memory compiles each of the rest once for its own.\n"
	"\n"
	"A fix that is an edit of the sources is proven, not inferred: the line that leaks\n"
	"a framework into host TUs is edited on a private copy of the project's sources\n"
	"(under --project DIR, default the common root of the TUs' sources and project\n"
	"headers): removed, else its header replaced by a narrower one of the framework\n"
	"(torch's entry headers and those the header includes, cheapest first by their\n"
	"preprocessed lines), until one compiles with every TU that reaches the line; the\n"
	"heaviest of them are timed with and without it, side by side, and the saving is\n"
	"what the edit took out (a TU its build compiled alone: the middle of that and its\n"
	"edited walls against its baseline, the range spanning both); the header probes\n"
	"of TUs so proven are not run where no other fix reads them. --patch DIR writes\n"
	"each such edit there as a unified diff (git apply, patch -p1), named\n"
	"STEP-RULE-FILE-LINE.patch by its plan step. The sources are checked unchanged at\n"
	"the end (exit 4 if not).\n"
	"\n"
	"--from DOC.json re-plans from the measurements an earlier advise --json saved in\n"
	"its document (model_input: the graph, each step's isolated time, the load curve,\n"
	"every probe's cost), compiling nothing: the plan for another -j or --policy in a\n"
	"second, or with --remote another cluster's slots and speed (each compile's share\n"
	"there as the document measured it: it must have been made with --remote), or\n"
	"with --memory another box's memory (each step's peak as the document measured\n"
	"it). The probes and lines it shows are the document's, from that sitting.\n"
	"\n";

int cmd_advise(int argc, char **argv)
{
	struct advise_options o = { .cmd = "advise", .dir = ".", .parallel = cpu_count() };
	bool json = false;
	const char *patch_dir = NULL;
	const struct opt opts[] = {
		OPT_DIR(&o.dir),
		OPT_BUILD_JOBS(&o.jobs, "the job count to predict the wall for (default $MAX_JOBS, else CPUs)"),
		OPT_POLICY(&o.policy),
		OPT_PARALLEL(&o.parallel, "run P probes at once (default: CPUs; a saving is scaled by its\n"
			     "TU's isolated baseline over its probed wall: the contention cancels;\n"
			     "where the build runs 4 or more compiles at once, at most that many);\n"
			     "with --launcher, the TUs sent at once"),
		OPT_TIMEOUT(&o.timeout, "give up on a compile or probe after S seconds (counts as failed)"),
		OPT_INT('r', "repeats", &o.repeats, "R", "runs of each header, empty and table probe, and walls a level\n"
		  "of the load curve (default 3: fewer gives no spread; without it,\n"
		  "two that agree end a level, and a third round runs only within 2\n"
		  "recorded builds)", 1, 100),
		OPT_FLAG(0, "kernels", &o.kernels, "name the worst kernel of each kernel-work TU (registers, spills,\n"
		  "code size: one more compile of it, as passes --kernels)"),
		OPT_REMOTE(&o.remote, "a cluster of N remote slots for the jobs rule, SPEED times as fast"),
		OPT_DISTCC_LOG(&o.distcc_log, "with --remote: the build's distcc log, each compile's part there"),
		OPT_FLAG(0, "probe-net", &o.probe_net, "with --remote: time what sending a compile costs"),
		OPT_LAUNCHER(&o.launcher, "time the baseline's TUs on the cluster through distcc"),
		OPT_STRING(0, "from", &o.from, "DOC", "re-plan from a saved advise --json document; nothing compiled"),
		OPT_STRING(0, "project", &o.project, "DIR", "the sources' root, where edits are proven on a copy\n"
							     "(default: the TUs' sources' and project headers' common root)"),
		OPT_CALL(0, "memory", &o.memory_kb, "SIZE", "hold -j to SIZE of memory (16G: a CI runner's); each TU's\n"
			 "peak measured (those no probe compiled: once more each)", parse_memory_option),
		OPT_STRING(0, "patch", &patch_dir, "DIR", "write each proven edit into DIR as a patch, named by its plan step"),
		OPT_JSON(&json),
		OPT_TABLE_END,
	};
	int first = parse_options("advise", argc, argv, opts, usage);
	o.targets = argv + first;
	o.ntargets = (size_t)(argc - first);
	/* What measures has nothing to do with saved measurements. */
	if (o.from && (o.ntargets || o.repeats || o.kernels || o.launcher || o.timeout > 0 || o.distcc_log ||
		       o.probe_net || o.project || o.parallel != cpu_count() || strcmp(o.dir, ".")))
		usage_error("advise", "--from re-plans saved measurements: only -j, --policy, --remote, --memory, --patch and "
				      "--json go with it");
	if (o.distcc_log && !o.remote.slots)
		usage_error("advise", "--distcc-log describes a cluster: give --remote N too");
	if (o.probe_net && (!o.remote.slots || o.distcc_log))
		usage_error("advise", o.distcc_log ? "--probe-net times what the --distcc-log holds already: give one"
						   : "--probe-net times a cluster: give --remote N too");
	if (!o.from && !o.jobs)
		o.jobs = jobs_default("advise");
	struct advise *ad = o.from ? advise_from(&o) : advise_collect(&o);
	if (patch_dir)
		advise_write_patches(ad, patch_dir);
	if (json)
		json_print(advise_render_json(ad));
	else
		advise_render_table(ad);
	int status = failures_status(advise_failures(ad), "step", "");
	advise_free(ad);
	return status;
}
