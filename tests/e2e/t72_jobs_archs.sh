# The jobs rule and TUs compiled for several device archs: advise lists
# each kernel TU's archs from nvcc's own --dryrun, times the heaviest of
# two archs both ways (one after another, and side by side with
# --threads 2), and weighs -j with them side by side against -j without,
# held to the memory there is. Whether the flag pays on this machine is a
# timing, not asserted; the choice is asserted on fixed numbers instead:
# the document's timed walls planted (side by side at 0.5x, and at 1x)
# and re-planned with --from and --memory.
# e2e: aside
. "$(dirname "$0")/lib.sh"

command -v nvcc >/dev/null 2>&1 || { not_ok "nvcc on PATH (CI has nvcc 13)"; finish; exit 0; }
A=$T/twoarch
mkdir -p "$A/src" "$A/build"
for k in 0 1; do
	cat >"$A/src/k$k.cu" <<CU
template <int N> __global__ void scale$k(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		for (int r = 0; r < N; r++)
			v = v * 1.0001f + r;
		x[i] = v;
	}
}
template __global__ void scale$k<8>(float *, int);
template __global__ void scale$k<16>(float *, int);
void launch$k(float *x, int n) { scale$k<8><<<(n + 255) / 256, 256>>>(x, n); }
CU
done
cat >"$A/build/build.ninja" <<'N'
rule nvcc
  command = nvcc -O2 -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -c $in -o $out
rule so
  command = g++ -shared $in -o $out
build k0.o: nvcc ../src/k0.cu
build k1.o: nvcc ../src/k1.cu
build lib.so: so k0.o k1.o
N
if ! ninja -C "$A/build" >"$T/build.log" 2>&1; then
	not_ok "the two-arch tree builds with nvcc" "$(tail -n 20 "$T/build.log")"
	finish
	exit 0
fi
before=$(tree_hash "$A")

run 0 "advise on two TUs of two archs each" "$BW" advise -C "$A/build" -j 1 -r 2 --json
cp "$T/out" "$T/advise.json"
quiet_stderr "$T/err" "advise on the two-arch tree"
# jobs_fix FILE EXPR: EXPR over the jobs rule's entry f (a fix, or a rule
# that does not apply: its words in "checked").
jobs_fix() { json "$T/$1" "[(f$2) for f in d['fixes'] + d['not_applicable'] if f['fix'] == 'jobs'][0]"; }
check "each TU's archs from nvcc's --dryrun: two TUs of several" [ "$(jobs_fix advise.json "['probes']['tus_of_several_archs']")" = 2 ]
check "both timed apart and with --threads 2: walls and peaks" [ "$(jobs_fix advise.json "['probes']['timed']" | python3 -c 'import sys, ast; t = ast.literal_eval(sys.stdin.read()); print(sorted((x["target"], x["archs"], x["flag"], x["apart_s"] > 0, x["side_by_side_s"] > 0, x["apart_peak_kib"] > 0, x["error"]) for x in t))')" = "[('k0.o', 2, '--threads 2', True, True, True, None), ('k1.o', 2, '--threads 2', True, True, True, None)]" ]
check "the jobs rule weighs them, chosen or not, and names the flag" [ "$(jobs_fix advise.json ".get('title', '') + ' ' + (f.get('evidence') or f.get('checked') or '')" | grep -c -- '--threads 2\|side by side')" -ge 1 ]
check "advise leaves the tree byte-identical" [ "$(tree_hash "$A")" = "$before" ]

# plant WALL_RATIO OUT: the document with each timed TU's side-by-side
# wall at that ratio of its wall apart.
plant() {
	python3 - "$T/advise.json" "$1" "$T/$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["model_input"]["rules"]["jobs"]["timed"]:
    t["side_by_side_s"] = t["apart_s"] * float(sys.argv[2])
    t["apart_peak_kib"], t["side_by_side_peak_kib"] = 100 * 1024, 110 * 1024
json.dump(d, open(sys.argv[3], "w"))
PY
}
# With 250M there is room for one TU's peak, not two at once: -j 1.
plant 0.5 fast.json
run 0 "advise --from, side by side planted at 0.5x, --memory 250M" "$BW" advise --from "$T/fast.json" -j 1 --memory 250M --json
cp "$T/out" "$T/fast-plan.json"
check "side by side chosen: the rule says so, at -j 1 under the memory" [ "$(jobs_fix fast-plan.json "['title'].startswith('run each TU') and '-j 1' in f['evidence'] and 'x0.50' in f['evidence']")" = True ]
check "its predicted wall below the baseline's: the archs' time halved" [ "$(json "$T/fast-plan.json" '[f["predicted"]["wall_s"] < 0.8 * d["baseline"]["predicted"]["wall_s"] for f in d["fixes"] if f["fix"] == "jobs"][0]')" = True ]
plant 1.0 flat.json
run 0 "advise --from, side by side planted at 1x" "$BW" advise --from "$T/flat.json" -j 1 --memory 250M --json
check "no faster side by side: not chosen, and said" [ "$(jobs_fix out ".get('title', '').startswith('run each TU'), 'would not be faster' in (f.get('evidence') or f.get('checked') or '')")" = "(False, True)" ]

# A saved document whose timed TU has one arch is refused in one line.
python3 - "$T/advise.json" "$T/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["model_input"]["rules"]["jobs"]["timed"][0]["archs"] = 1
json.dump(d, open(sys.argv[2], "w"))
PY
run 2 "advise --from a document with a timed TU of one arch" "$BW" advise --from "$T/bad.json"
one_line "$T/err" "its error is one line"
contains "$T/err" "rules.jobs: timed[0]" "the error names the entry"
finish
