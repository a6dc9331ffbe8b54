# advise on an aiter-shaped tree: every source but the binding compiled by
# hipcc as .cu, the dispatcher too. A TU's role comes from its text: the
# dispatcher defines no kernel, so it is a host TU, and its leak line is
# proven (the framework's narrower header compiles in its place on a copy
# of the tree's sources); a second dispatcher that includes
# the framework only for tensors in its signatures gets the raw-pointer
# rule. On a machine of many CPUs the load curve's at-once level runs
# among the probes. The tree stays byte-identical.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

need_hipcc || exit 0
A=$T/aiter
mkdir -p "$A/fw/torch" "$A/csrc/include" "$A/csrc/kernels" "$A/build"
# A framework laid out like torch's, light to parse: the path is what
# makes it one.
cat >"$A/fw/torch/extension.h" <<'H'
#pragma once
#include <torch/tensor.h>
#define PYBIND11_MODULE(name, m) void pybind_init_##name(int m)
H
cat >"$A/fw/torch/tensor.h" <<'H'
#pragma once
namespace torch {
class Tensor {
public:
	void *data_ptr() const { return p_; }
	long size(int d) const { return d ? 1 : n_; }
private:
	void *p_ = nullptr;
	long n_ = 0;
};
} // namespace torch
H
cat >"$A/csrc/include/gemm_args.h" <<'H'
#pragma once
struct GemmArgs {
	const float *a;
	float *c;
	int n;
};
H
cat >"$A/csrc/include/tensor_util.h" <<'H'
#pragma once
#include <torch/extension.h>
#include "gemm_args.h"
inline GemmArgs args_from(const torch::Tensor &a, torch::Tensor &c)
{
	return GemmArgs{ static_cast<const float *>(a.data_ptr()), static_cast<float *>(c.data_ptr()), (int)a.size(0) };
}
H
cat >"$A/csrc/include/dispatch.h" <<'H'
#pragma once
#include "gemm_args.h"
#include "tensor_util.h"
void gemm_0_launch(const GemmArgs &args);
void gemm_1_launch(const GemmArgs &args);
bool dispatch(int key, const GemmArgs &args);
H
for k in 0 1; do
	cat >"$A/csrc/kernels/gemm_$k.cu" <<H
#include "opus/gpu.h"
#include "gemm_args.h"
__global__ void gemm_$k(const float *a, float *c, int n)
{
	unsigned i = opus_thread_x();
	if ((int)i < n)
		c[i] = opus_fma(a[i], $k.5f, c[i]);
}
void gemm_${k}_launch(const GemmArgs &args)
{
	OPUS_LAUNCH(gemm_$k, dim3(1), dim3(64), args.a, args.c, args.n);
}
H
done
cat >"$A/csrc/dispatch.cu" <<'H'
// aiter's dispatcher: a .cu, compiled by hipcc, defining no kernel.
#include "dispatch.h"
bool dispatch(int key, const GemmArgs &args)
{
	switch (key) {
	case 0: gemm_0_launch(args); return true;
	case 1: gemm_1_launch(args); return true;
	}
	return false;
}
H
cat >"$A/csrc/select.cu" <<'H'
// Picks an instance from the tensors' shapes: the framework only for
// the signature.
#include <torch/extension.h>
int pick(const torch::Tensor &a, const torch::Tensor &c)
{
	return a.size(0) > 64 && c.size(0) > 64 ? 1 : 0;
}
H
cat >"$A/csrc/bind.cpp" <<'H'
#include <torch/extension.h>
#include "dispatch.h"
PYBIND11_MODULE(aiter_demo, m)
{
	(void)m;
}
H
cat >"$A/build/build.ninja" <<H
hipflags = -x hip --offload-arch=gfx90a -nogpulib -nogpuinc -O1 -I$A/csrc/include -I$here/../../examples/demo-module/include -isystem $A/fw
rule hipcc
  command = hipcc \$hipflags -c \$in -o \$out
rule cxx
  command = g++ -std=c++17 -I$A/csrc/include -isystem $A/fw -c \$in -o \$out
rule so
  command = g++ -shared \$in -o \$out
build gemm_0.cuda.o: hipcc $A/csrc/kernels/gemm_0.cu
build gemm_1.cuda.o: hipcc $A/csrc/kernels/gemm_1.cu
build dispatch.cuda.o: hipcc $A/csrc/dispatch.cu
build select.cuda.o: hipcc $A/csrc/select.cu
build bind.o: cxx $A/csrc/bind.cpp
build aiter_demo.so: so gemm_0.cuda.o gemm_1.cuda.o dispatch.cuda.o select.cuda.o bind.o
H
B=$A/build
if ! ninja -C "$B" -j 2 >"$T/build.log" 2>&1 || ! { ninja -C "$B" -t clean >/dev/null && ninja -C "$B" -j 2 >>"$T/build.log" 2>&1; }; then
	not_ok "the aiter-shaped tree builds with hipcc" "$(tail -n 20 "$T/build.log")"
	finish
	exit 0
fi
before=$(tree_hash "$A")
run 0 "advise on the aiter-shaped tree" "$BW" advise -C "$B" -j 2 --json
# Its framework is torch's layout without ATen/core/Tensor.h: narrow's
# probes fail to compile, and that is no failure of the build's.
contains "$T/err" "framework has no <ATen/core/Tensor.h> on its include path that compiles with its command (" "a framework without the narrower header: said so, with the compiler's first error"
contains "$T/err" "): narrow does not apply" "and that narrow does not apply"
quiet_stderr "$T/err" "advise on the aiter-shaped tree"
cp "$T/out" "$T/advise.json"
kind() { json "$T/advise.json" "[(t['kind'], t['device_passes'], t['binding']) for t in d['tus'] if t['target'] == '$1'][0]"; }
check "the hipcc dispatcher is a host TU with device passes" [ "$(kind dispatch.cuda.o)" = "('host TU', True, False)" ]
check "the kernel instances are kernel TUs" [ "$(kind gemm_0.cuda.o) $(kind gemm_1.cuda.o)" = "('kernel TU', True, False) ('kernel TU', True, False)" ]
check "the binding is found by its PYBIND11_MODULE" [ "$(kind bind.o)" = "('host TU', False, True)" ]
tus() { json "$T/advise.json" "[t['target'] for f in d['fixes'] if f['fix'] == '$1' for t in f['tus']]"; }
check "leak: the hipcc dispatcher" [ "$(tus leak)" = "['dispatch.cuda.o']" ]
evidence() { json "$T/advise.json" "[f['evidence'] for f in d['fixes'] if f['fix'] == '$1'][0]"; }
case $(evidence leak) in
*"line to fix: include/tensor_util.h:2: <torch/tensor.h> in place of <torch/extension.h> compiles with its 1 TU"*) ok "leak: the line to fix, proven: the framework's narrower header compiles in its place" ;;
*) not_ok "leak: the line to fix, proven: the framework's narrower header compiles in its place" "$(evidence leak)" ;;
esac
run 0 "leak on the same dispatcher" "$BW" leak -C "$B" dispatch.cuda.o
contains "$T/out" "line to fix: tensor_util.h:2 includes <torch/extension.h>" "leak names the same line"
# narrow, proven: select.cu's own umbrella line edited on a copy of the
# tree's sources (the framework's narrower header compiles in its place),
# select timed as it is and edited; its patch applies and the TU builds.
narrow_site() { json "$T/advise.json" "[(s['file'], s['line'], s['header'], s['chosen'] >= 0 and s['candidates'][s['chosen']]['header'], s['tus'], [w['target'] for w in s['walls'] if w['measured']]) for f in d['fixes'] if f['fix'] == 'narrow' for s in f['probes']['sites']]"; }
check "narrow: select's umbrella line proven: <torch/tensor.h> in its place, select timed with it" [ "$(narrow_site)" = "[('select.cu', 3, '<torch/extension.h>', '<torch/tensor.h>', ['select.cuda.o'], ['select.cuda.o'])]" ]
check "narrow: select's saving the proof's, the fix proven" [ "$(json "$T/advise.json" '[(f["proven"], "select.cuda.o" in [t["target"] for t in f["tus"]], f["evidence"].startswith("select.cuda.o: select.cu:3: <torch/tensor.h> in place of <torch/extension.h> compiles with its 1 TU")) for f in d["fixes"] if f["fix"] == "narrow"]')" = "[(True, True, True)]" ]
run 0 "advise --from --patch: narrow's patch" "$BW" advise --from "$T/advise.json" --patch "$T/patches"
set -- "$T"/patches/*narrow-select.cu-3.patch
check "--patch: one file for narrow's line" [ $# = 1 -a -f "$1" ]
cp -r "$A" "$T/patched"
sed -i "s|$A|$T/patched|g" "$T/patched/build/build.ninja"
check "narrow's patch applies (git apply, from the project's root)" sh -c "cd '$T/patched/csrc' && git apply '$1'"
check "the patched select builds" sh -c "ninja -C '$T/patched/build' -t clean >/dev/null && ninja -C '$T/patched/build' select.cuda.o >'$T/patched.log' 2>&1"
check "raw: the dispatcher that needs the framework for its signatures only" [ "$(tus raw)" = "['select.cuda.o']" ]
case $(evidence raw) in *"only as Tensor"*) ok "raw: says why" ;; *) not_ok "raw: says why" "$(evidence raw)" ;; esac
check "split: nothing (no kernel TU's device pass parses the framework)" [ "$(tus split)" = "[]" ]
# The default repeats: the load curve's levels and the probes have their
# spread, every wall its range.
check "the load curve: alone and two at once, 3 walls a level, or 2 that agree (no -r)" [ "$(json "$T/advise.json" '[(l["jobs"], l["walls"] >= 2) for l in d["baseline"]["load_curve"]["levels"]]')" = "[(1.0, True), (2.0, True)]" ]
check "every predicted wall lies in its range, the range not a point" [ "$(json "$T/advise.json" 'all(p["range_s"][0] <= p["wall_s"] <= p["range_s"][1] for p in [d["baseline"]["predicted"]] + [s["predicted"] for s in d["plan"]]) and d["baseline"]["predicted"]["range_s"][0] < d["baseline"]["predicted"]["range_s"][1]')" = True ]
echo "# plan: $(json "$T/advise.json" '[(s["fix"], s["predicted"]["wall_s"], s["beyond_noise"]) for s in d["plan"]]') from $(json "$T/advise.json" 'd["baseline"]["predicted"]["wall_s"]') s"
# Whether a fix lowers this small tree's wall (and so makes a plan step)
# turns on its timing: empty in some runs. t90 checks -r 1's null.
check "each plan step says whether it is beyond noise, yes or no (the probes repeated)" [ "$(json "$T/advise.json" 'all(isinstance(s["beyond_noise"], bool) for s in d["plan"])')" = True ]
check "advise leaves the tree byte-identical" [ "$(tree_hash "$A")" = "$before" ]
# On a machine of many CPUs the curve's at-once level runs among the
# probes (BUILDWALL_CPUS stands in for one: 5 TUs at -j 8): two copies at
# once in rounds of their own, alone read off the line, and the copies
# beside the probes, the pool no wider than the level (5). (A project
# root that holds none of the sources: no edits proven, which the run
# above checked.)
mkdir "$T/elsewhere"
run 0 "advise as on 8 CPUs" env BUILDWALL_CPUS=8 "$BW" advise -C "$B" -j 8 -r 1 --project "$T/elsewhere" --json
check "many CPUs: 2 at once in a round of its own, 3 copies among the probes, alone read off the line" [ "$(json "$T/out" '(lambda c: ([l["walls"] for l in c["levels"]], [l["jobs"] for l in c["levels"]][:2], 2.5 <= c["levels"][2]["jobs"] <= 5, "3 copies among the probes" in c["measured_by"], "alone where the line" in c["measured_by"]))(d["baseline"]["load_curve"])')" = "([0, 2, 3], [1.0, 2.0], True, True, True)" ]
check "many CPUs: the copies are no probe of the document's" [ "$(json "$T/out" 'any(p["probe"].startswith("load curve copy") for p in d["probes"])')" = False ]
check "many CPUs: every predicted wall lies in its range" [ "$(json "$T/out" 'all(p["range_s"][0] <= p["wall_s"] <= p["range_s"][1] for p in [d["baseline"]["predicted"]] + [s["predicted"] for s in d["plan"]])')" = True ]
check "advise as on 8 CPUs leaves the tree byte-identical" [ "$(tree_hash "$A")" = "$before" ]
# Its table, drawn from its document (the walk's own renderer).
cp "$T/out" "$T/r1.json"
run 0 "advise -r 1, the table" "$BW" advise --from "$T/r1.json"
contains "$T/out" "each probe ran once (-r 1): its savings' spread is unknown, and so is whether a step is beyond noise" "-r 1: the table says beyond noise cannot be told"

# A framework whose headers compile only after the TU's own prelude (as
# clang's HIP wrappers need __host__ where -nogpuinc leaves it undefined):
# the header probe fails by design, the build compiles. One line, exit 0.
P=$T/prelude
mkdir -p "$P/fw/torch" "$P/src"
printf '#pragma once\nPRELUDE_INT framework_value;\n' >"$P/fw/torch/extension.h"
printf '#pragma once\n#define PRELUDE_INT int\n' >"$P/src/prelude.h"
printf '#include "prelude.h"\n#include <torch/extension.h>\nint a(void) { return framework_value; }\n' >"$P/src/a.cpp"
printf 'rule cxx\n  command = g++ -isystem %s/fw -c $in -o $out\nbuild a.o: cxx %s/src/a.cpp\n' "$P" "$P" >"$P/build.ninja"
ninja -C "$P" >/dev/null
before=$(tree_hash "$P")
run 0 "advise where the framework's headers need the TU's prelude" "$BW" advise -C "$P" -j 1 -r 1 --json
quiet_stderr "$T/err" "advise with a prelude"
contains "$T/err" "<torch/extension.h> alone do not compile with a.o's command (" "the header probe's failure: one line, with the compiler's first error"
check "its error is one line of buildwall's" [ "$(grep -vc '^buildwall: ' "$T/err")" = 0 ]
check "advise with a prelude leaves the tree byte-identical" [ "$(tree_hash "$P")" = "$before" ]
finish
