#!/bin/sh
# Does advise predict the wall after each fix before it is made? On the
# baseline demo module: advise's plan, then for each step the demo built
# with the plan's fixes so far (configure --fixes) and TRIALS clean
# rebuilds timed (`wall`); per step the predicted and the measured median
# wall and the error. Fails when a step misses by more than 10 % or 1 s,
# whichever is larger. Run it on a quiet machine.
# DEMO_SIZE=small|full (default full), BACKEND (auto), TRIALS (3), JOBS (2).
. "$(dirname "$0")/lib.sh"
trials=${TRIALS:-3} jobs=${JOBS:-2} size=${DEMO_SIZE:-full} backend=${BACKEND:-auto}
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# measure DIR FIXES JOBS: configure, build, and the median of TRIALS clean rebuilds.
measure() {
	"$here/examples/demo-module/configure" --size "$size" --backend "$backend" --fixes "$2" "$1" >/dev/null
	ninja -C "$1" -j "$3" >/dev/null
	"$bw" wall -C "$1" -n "$trials" -j "$3" --json >"$1.wall.json"
	field "$1.wall.json" "d['wall_s']['median']"
}

base=$(measure "$work/step0" none "$jobs")
start=$(now)
"$bw" advise -C "$work/step0" -j "$jobs" --json >"$work/advise.json"
took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
echo "advise took ${took} s; one clean build ($size, $backend, -j $jobs): $(field "$work/step0.wall.json" "d['trials'][0]['wall_s']") s"
printf '%-4s %-10s %12s %24s %8s\n' step fix "predicted s" "measured s (median of $trials)" error
row() { # step fix predicted measured
	err=$(awk -v p="$3" -v m="$4" 'BEGIN { e = p - m; e = e < 0 ? -e : e; printf "%.1f", 100 * e / m }')
	printf '%-4s %-10s %12s %24s %7s%%\n' "$1" "$2" "$3" "$4" "$err"
	awk -v p="$3" -v m="$4" 'BEGIN { e = p - m; e = e < 0 ? -e : e; lim = 0.1 * m; if (lim < 1) lim = 1; exit !(e > lim) }' &&
		echo "step $1 ($2): off by more than 10 % or 1 s" >>"$work/misses"
	return 0
}
row 0 baseline "$(field "$work/advise.json" "d['baseline']['predicted']['wall_s']")" "$base"
fixes= j=$jobs
steps=$(field "$work/advise.json" "' '.join(s['fix'] for s in d['plan'])")
k=0
for fix in $steps; do
	k=$((k + 1))
	if [ "$fix" = jobs ]; then j=$(nproc); else fixes=${fixes:+$fixes,}$fix; fi
	measured=$(measure "$work/step$k" "${fixes:-none}" "$j")
	row "$k" "$fix" "$(field "$work/advise.json" "d['plan'][$k - 1]['predicted']['wall_s']")" "$measured"
done
echo "at the end: $(field "$work/advise.json" "' -> '.join(d['final']['critical_path'])")"
if [ -s "$work/misses" ]; then cat "$work/misses"; exit 1; fi
