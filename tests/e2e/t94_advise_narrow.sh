# narrow, the fix beyond the playbook, against the demo's narrow variant
# (configure --fixes narrow: <ATen/core/Tensor.h> where only tensors are
# handled, the binding TORCH_LIBRARY with <torch/library.h>): built, its
# wall and its binding's compile against what advise predicted on the
# baseline (t90's document); on the narrow variant nothing is left to
# narrow; every tree byte-identical.
# e2e: timing
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

demo=$(demo_dir) || { not_ok "demo module builds"; finish; exit 0; }
if [ ! -s "$E2E_WORK/advise.json" ]; then
	"$BW" advise -C "$demo" -j 2 -r 1 --json >"$E2E_WORK/advise.json" 2>/dev/null
fi
cp "$E2E_WORK/advise.json" "$T/advise.json"
narrow=$T/narrow
"$here/../../examples/demo-module/configure" --size small --fixes narrow "$narrow" >/dev/null
check "the narrow variant builds" ninja -C "$narrow" -j 2
run 0 "log of the narrow variant's build" "$BW" log -C "$narrow" --json
cp "$T/out" "$T/log.json"

# The wall: advise predicted narrow alone from the baseline's recorded
# build; the narrow variant's first build (clean) measured now. A shared
# machine drifts between the two, so the ratio to the baseline recorded
# then is compared: within 15 %, or the measured wall inside the range.
predicted=$(json "$T/advise.json" '[f["predicted"]["wall_s"] for f in d["fixes"] if f["fix"] == "narrow"][0]')
measured=$(json "$T/log.json" 'd["wall_s"]')
echo "# narrow alone: $predicted s predicted, $measured s measured (baseline recorded $(json "$T/advise.json" 'd["baseline"]["recorded_wall_s"]') s)"
check "the narrow variant's wall is within 15 % of advise's prediction, or inside its range" awk -v p="$predicted" -v m="$measured" -v lo="$(json "$T/advise.json" '[f["predicted"]["range_s"][0] for f in d["fixes"] if f["fix"] == "narrow"][0]')" -v hi="$(json "$T/advise.json" '[f["predicted"]["range_s"][1] for f in d["fixes"] if f["fix"] == "narrow"][0]')" 'BEGIN { e = p - m; exit !((e < 0 ? -e : e) <= 0.15 * m || (m >= lo && m <= hi)) }'
check "the narrow variant builds faster than the baseline recorded" awk -v m="$measured" -v b="$(json "$T/advise.json" 'd["baseline"]["recorded_wall_s"]')" 'BEGIN { exit !(m < 0.9 * b) }'
# The binding's own compile: its baseline less the saving advise gave it.
step() { json "$T/log.json" "[s['duration_s'] for s in d['steps'] if s['output'] == '$1'][0]"; }
base=$(json "$T/advise.json" '[t["baseline_s"] for t in d["tus"] if t["target"] == "opus_pybind.o"][0]')
saving=$(json "$T/advise.json" '[t["saving_s"] for f in d["fixes"] if f["fix"] == "narrow" for t in f["tus"] if t["target"] == "opus_pybind.o"][0]')
echo "# opus_pybind.o: baseline $base s, narrow saves $saving s predicted; measured $(step opus_pybind.o) s"
check "the binding narrowed compiles within 35 % (or 1.5 s) of its baseline less the predicted saving" awk -v b="$base" -v s="$saving" -v m="$(step opus_pybind.o)" 'BEGIN { p = b - s; e = p - m; if (e < 0) e = -e; exit !(s > 0 && (e <= 0.35 * m || e <= 1.5)) }'

# Preprocessed, the binding parses no pybind11 nor Python any more.
run 0 "pp on the narrow variant's binding" "$BW" pp -C "$narrow" opus_pybind.o --json
check "the narrowed binding parses no pybind11 or Python" [ "$(json "$T/out" '[g["name"] for t in d["tus"] for p in t["passes"] for g in p["groups"] if g["name"] in ("pybind11", "python")]')" = "[]" ]

# Nothing left to narrow: no TU includes an umbrella.
before=$(tree_hash "$narrow")
run 0 "advise on the narrow variant (the binding and the dispatcher)" "$BW" advise -C "$narrow" -j 2 -r 1 opus_pybind.o opus_dispatch.o --json
check "narrow variant: narrow does not apply, no umbrella left" [ "$(json "$T/out" '[c["checked"] for c in d["not_applicable"] if c["fix"] == "narrow"][0].startswith("no TU includes a framework")')" = True ]
check "advise leaves the narrow variant byte-identical" [ "$(tree_hash "$narrow")" = "$before" ]
finish
