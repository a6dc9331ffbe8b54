#!/bin/sh
# Does ab's 95 % interval mean 95 %? A against A (one TU of the demo, the
# same command on both sides) RUNS times for each N in SIZES: the share of
# runs that claim a difference (nominal: 5 %) and the interval's median
# width, which should shrink as N grows. A fast TU keeps it short: the
# optimized demo's device-only instance (about a second).
# SIZES (default "3 6 12"), RUNS (20), TARGET (opus_gemm_0.cuda.o).
. "$(dirname "$0")/lib.sh"
sizes=${SIZES:-3 6 12} runs=${RUNS:-20} target=${TARGET:-opus_gemm_0.cuda.o}

"$here/examples/demo-module/configure" --size small --variant optimized "$work/demo" >/dev/null
ninja -C "$work/demo" >/dev/null
printf '%-4s %6s %18s %22s\n' N runs "false positives" "median CI width"
for n in $sizes; do
	: >"$work/widths"
	fp=0
	for r in $(seq "$runs"); do
		"$bw" ab -C "$work/demo" "$target" -n "$n" --json >"$work/ab.json"
		[ "$(field "$work/ab.json" 'd["wall"]["differs"]')" = True ] && fp=$((fp + 1))
		field "$work/ab.json" 'd["wall"]["ratio_ci"][1] - d["wall"]["ratio_ci"][0]' >>"$work/widths"
	done
	width=$(sort -n "$work/widths" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	printf '%-4s %6s %11s (%3.0f %%) %21.1f %%\n' "$n" "$runs" "$fp" "$(awk -v f="$fp" -v r="$runs" 'BEGIN { print 100 * f / r }')" "$(awk -v w="$width" 'BEGIN { print 100 * w }')"
done
