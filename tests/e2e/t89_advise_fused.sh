# advise's fused probe where the generated instances cannot share a TU as
# they are: two instances (hipcc, a framework light to parse), each
# defining its helper `tile` in an anonymous namespace, so the two
# #included into one TU define it twice. advise fuses them as a
# generator would emit them, each in a namespace of its own, measures the
# glue of both in that one compile, and prints no compiler error nor a
# line that they do not fuse. A framework with no narrower header there:
# narrow's probe fails, said in one line.
# e2e: aside
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

need_hipcc || exit 0
A=$T/tree
B=$A/build
mkdir -p "$A/fw/torch" "$A/csrc" "$B/gen"
cat >"$A/fw/torch/extension.h" <<'H'
#pragma once
namespace torch {
class Tensor {
public:
	void *data_ptr() const { return p; }
	long size(int) const { return n; }
	void *p = nullptr;
	long n = 0;
};
} // namespace torch
#define PYBIND11_MODULE(name, m) void pybind_init_##name(int m)
H
# The generator's instances, in the build dir as a generator writes them.
for k in 0 1; do
	cat >"$B/gen/gemm_$k.cu" <<H
#include "opus/gpu.h"
#include <torch/extension.h>
namespace {
template <int N>
__global__ void tile(float *c, int n)
{
	unsigned i = opus_thread_x();
	if ((int)i < n)
		c[i] += N;
}
} // namespace
void gemm_${k}_launch(const torch::Tensor &c)
{
	OPUS_LAUNCH((tile<$k>), dim3(1), dim3(64), static_cast<float *>(c.data_ptr()), (int)c.size(0));
}
H
done
cat >"$A/csrc/bind.cpp" <<'H'
#include <torch/extension.h>
PYBIND11_MODULE(fused_demo, m)
{
	(void)m;
}
H
cat >"$B/build.ninja" <<H
hipflags = -x hip --offload-arch=gfx90a -nogpulib -nogpuinc -O1 -I$here/../../examples/demo-module/include -isystem $A/fw
rule hipcc
  command = hipcc \$hipflags -c \$in -o \$out
rule cxx
  command = g++ -std=c++17 -isystem $A/fw -c \$in -o \$out
rule so
  command = g++ -shared \$in -o \$out
build gemm_0.cuda.o: hipcc gen/gemm_0.cu
build gemm_1.cuda.o: hipcc gen/gemm_1.cu
build bind.o: cxx $A/csrc/bind.cpp
build fused_demo.so: so gemm_0.cuda.o gemm_1.cuda.o bind.o
H
if ! ninja -C "$B" -j 2 >"$T/build.log" 2>&1; then
	not_ok "the two-instance tree builds with hipcc" "$(tail -n 20 "$T/build.log")"
	finish
	exit 0
fi
printf '#include "%s"\n#include "%s"\n' "$B/gen/gemm_0.cu" "$B/gen/gemm_1.cu" >"$T/both.cu"
check "as they are, the two instances do not compile as one TU" sh -c "! hipcc -x hip --offload-arch=gfx90a -nogpulib -nogpuinc -I'$here/../../examples/demo-module/include' -isystem '$A/fw' -fsyntax-only '$T/both.cu' 2>/dev/null"
before=$(tree_hash "$A")
run 0 "advise on the two-instance tree" "$BW" advise -C "$B" -j 2 -r 1 --json
cp "$T/out" "$T/advise.json"
quiet_stderr "$T/err" "advise on the two-instance tree"
check "no line that the instances do not fuse" sh -c "! grep -q 'do not compile as one TU' '$T/err'"
fused_probes() { json "$T/advise.json" '[(p["probe"].split(" (")[1].split(",")[0], p["status"]) for p in d["probes"] if p["probe"].startswith("fused probe")]'; }
check "the two as they are fail, each in a namespace of its own compiles, the first alone is not needed ($(fused_probes))" [ "$(fused_probes)" = "[('2 instances', 'failed'), ('2 instances', 'ok'), ('its first instance alone', 'skipped')]" ]
fused_words=$(json "$T/advise.json" "[f.get('measured_by') or f.get('checked') for f in d['fixes'] + d['not_applicable'] if f['fix'] == 'fused'][0]")
case $fused_words in
*"2 sources #included into one TU, each in a namespace of its own"*) ok "fused: the glue of both measured in the namespaced TU, said so" ;;
*) not_ok "fused: the glue of both measured in the namespaced TU, said so" "$fused_words" ;;
esac
check "the saved document says how they were fused" [ "$(json "$T/advise.json" '(lambda f: f and (f["namespaced"], f["apart"], f["included"]))(d["model_input"]["fused"])')" = "(True, False, 2)" ]
check "advise leaves the tree byte-identical" [ "$(tree_hash "$A")" = "$before" ]
finish
