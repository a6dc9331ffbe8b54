#!/bin/sh
# Does advise predict what narrowing saves? The demo's baseline and its
# narrow variant (configure --fixes narrow) built side by side; advise on
# the baseline; ab of the two (clean rebuilds, ABBA, PAIRS pairs): narrow
# alone over the baseline as advise predicts it against ab's ratio, and
# the binding's compile (its baseline less the saving advise gives it,
# rebased on the baseline's binding measured now) against the narrowed
# binding's. Fails when the ratio is off by more than GOAL % (15) and
# outside ab's interval. DEMO_SIZE (small), JOBS (2), PAIRS (3).
. "$(dirname "$0")/lib.sh"
jobs=${JOBS:-2} pairs=${PAIRS:-3} goal=${GOAL:-15} size=${DEMO_SIZE:-small}
base=$work/base narrow=$work/narrow
"$here/examples/demo-module/configure" --size "$size" "$base" >/dev/null
"$here/examples/demo-module/configure" --size "$size" --fixes narrow "$narrow" >/dev/null
ninja -C "$base" -j "$jobs" >/dev/null
ninja -C "$narrow" -j "$jobs" >/dev/null
"$bw" log -C "$base" --json >"$work/base-log.json"
"$bw" log -C "$narrow" --json >"$work/narrow-log.json"
"$bw" advise -C "$base" -j "$jobs" --json >"$work/advise.json"
"$bw" ab -C "$base" -C "$narrow" -j "$jobs" -n "$pairs" --warmup 0 --json >"$work/ab.json"
pratio=$(field "$work/advise.json" '[f["predicted"]["wall_s"] for f in d["fixes"] if f["fix"] == "narrow"][0] / d["baseline"]["predicted"]["wall_s"]')
mratio=$(field "$work/ab.json" 'd["wall"]["ratio"]')
lo=$(field "$work/ab.json" 'd["wall"]["ratio_ci"][0]') hi=$(field "$work/ab.json" 'd["wall"]["ratio_ci"][1]')
step() { field "$1" "[s['duration_s'] for s in d['steps'] if s['output'] == '$2'][0]"; }
b=$(field "$work/advise.json" '[t["baseline_s"] for t in d["tus"] if t["target"] == "opus_pybind.o"][0]')
s=$(field "$work/advise.json" '[t["saving_s"] for f in d["fixes"] if f["fix"] == "narrow" for t in f["tus"] if t["target"] == "opus_pybind.o"][0]')
now=$(step "$work/base-log.json" opus_pybind.o) narrowed=$(step "$work/narrow-log.json" opus_pybind.o)
pbind=$(awk -v b="$b" -v s="$s" -v n="$now" 'BEGIN { printf "%.2f", (b - s) / b * n }')
echo "| demo ($size), -j $jobs | predicted | measured | error |"
echo "|---|---|---|---|"
echo "| narrow alone / baseline (wall) | $(printf %.3f "$pratio") | $(printf %.3f "$mratio") (ab, $pairs pairs: $(printf %.3f "$lo")-$(printf %.3f "$hi")) | $(percent "$pratio" "$mratio") % |"
echo "| opus_pybind.o narrowed (compile) | $pbind s | $narrowed s (one build) | $(percent "$pbind" "$narrowed") % |"
inside=$(awk -v p="$pratio" -v lo="$lo" -v hi="$hi" 'BEGIN { print (p >= lo && p <= hi) ? "inside" : "outside" }')
echo
echo "advise's ratio is $inside ab's interval"
within "$pratio" "$mratio" "$goal" || [ "$inside" = inside ] || { echo "off by more than $goal % and outside the interval"; exit 1; }
