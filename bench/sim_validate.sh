#!/bin/sh
# Does sim predict the wall? On the demo module: rank's isolated TU times
# (the link from .ninja_log) fed to `sim --from rank.json` at -j 1 and -j 2,
# contention calibrated from the recorded build against those isolated
# times, against the median of TRIALS measured clean rebuilds (`wall`) at
# each job count. Prints the contention applied, each prediction,
# measurement and error; fails when the median error exceeds 5 %. Run it on
# a quiet machine: rank's isolated times are the base of every prediction.
# DEMO_SIZE=small|full (default small), TRIALS (3).
. "$(dirname "$0")/lib.sh"
trials=${TRIALS:-3}

"$here/examples/demo-module/configure" --size "${DEMO_SIZE:-small}" "$work/demo" >/dev/null
ninja -C "$work/demo" >/dev/null
"$bw" rank -C "$work/demo" --json >"$work/rank.json"
"$bw" sim -C "$work/demo" --from "$work/rank.json" -j 1,2 --policy manifest --json >"$work/sim.json"
echo "contention: $(field "$work/sim.json" 'd["contention"]')"
printf '%-4s %12s %14s %8s\n' -j "predicted s" "measured s" error
errors=
for j in 1 2; do
	"$bw" wall -C "$work/demo" -n "$trials" -j "$j" --json >"$work/wall-$j.json"
	predicted=$(field "$work/sim.json" "[p['wall_s'] for p in d['predictions'] if p['jobs'] == $j][0]")
	measured=$(field "$work/wall-$j.json" "d['wall_s']['median']")
	err=$(awk -v p="$predicted" -v m="$measured" 'BEGIN { e = (p - m) / m; printf "%.1f", 100 * (e < 0 ? -e : e) }')
	printf '%-4s %12s %14s %7s%%\n' "$j" "$predicted" "$measured (median of $trials)" "$err"
	errors="$errors $err"
done
median=$(echo $errors | tr ' ' '\n' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
echo "median error: $median %"
awk -v m="$median" 'BEGIN { exit !(m <= 5) }' || { echo "median error over 5 %"; exit 1; }
