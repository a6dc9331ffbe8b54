#!/bin/sh
# Do a TU's jobs, each re-run alone, add up to the TU compiled whole? On the
# demo's planted TUs (the codegen-bound kernel, the host-heavy kernel, the
# gcc dispatcher): passes -r TRIALS (the whole TU's wall and each job's,
# medians), the job sum over the whole wall, and what -ftime-report costs
# the plain compiler job. Fails when a TU's sum is off its wall by more
# than GOAL % (15). TRIALS (3).
. "$(dirname "$0")/lib.sh"
trials=${TRIALS:-3} goal=${GOAL:-15}
"$here/examples/demo-module/configure" --size "${DEMO_SIZE:-small}" "$work/demo" >/dev/null
ninja -C "$work/demo" -j 2 >/dev/null
"$bw" passes -C "$work/demo" -r "$trials" opus_gemm_bigtile.cuda.o opus_epilogue.cuda.o opus_dispatch.o --json >"$work/passes.json"
python3 - "$work/passes.json" "$goal" <<'PY'
import json, sys
d, goal = json.load(open(sys.argv[1])), float(sys.argv[2])
print("| TU | compiler | whole TU: median (min-max) | jobs' sum | sum / whole | instrumented / plain |")
print("|---|---|---|---|---|---|")
missed = 0
for t in d["tus"]:
    ratio = t["jobs_sum_s"] / t["wall_s"]
    inst = [(j["instrumented_wall_s"], j["wall_s"]) for j in t["jobs"] if j["instrumented_wall_s"] and j["wall_s"]]
    cost = sum(i for i, _ in inst) / sum(w for _, w in inst) if inst else float("nan")
    miss = abs(ratio - 1) > goal / 100
    missed += miss
    print(f"| {t['target']} | {t['compiler']} | {t['wall']['median']:.2f} s ({t['wall']['min']:.2f}-{t['wall']['max']:.2f}) "
          f"| {t['jobs_sum_s']:.2f} s | {ratio:.3f}{' MISS' if miss else ''} | {cost:.2f}x |")
print(f"\n{missed} of {len(d['tus'])} TUs off by more than {goal:.0f} %")
sys.exit(1 if missed else 0)
PY
