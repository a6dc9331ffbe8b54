#!/bin/sh
# Does advise predict the wall after each fix before it is made? On the
# baseline demo module: advise's plan, then the demo built with the plan's
# fixes so far (configure --fixes) for every step, and TRIALS rounds of one
# clean rebuild of each, interleaved (baseline, step 1, step 2, ...), so
# that every step is timed beside the baseline. A shared machine drifts by
# tens of percent over minutes; the ratio of a step to the baseline of the
# same round does not. Per step: the prediction, the raw median wall, the
# median ratio to the baseline times the recorded baseline advise started
# from (what the prediction is of), and the error of that. Fails when a
# step misses by more than 10 % or 1 s, whichever is larger.
# DEMO_SIZE=small|full (default full), BACKEND (auto), TRIALS (3), JOBS (2).
. "$(dirname "$0")/lib.sh"
trials=${TRIALS:-3} jobs=${JOBS:-2} size=${DEMO_SIZE:-full} backend=${BACKEND:-auto}
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
configure() { # DIR FIXES JOBS: configure and build once
	"$here/examples/demo-module/configure" --size "$size" --backend "$backend" --fixes "$2" "$1" >/dev/null
	ninja -C "$1" -j "$3" >/dev/null
}
clean_build() { # DIR JOBS -> one clean rebuild's wall
	"$bw" wall -C "$1" -n 1 -j "$2" --json >"$1.wall.json"
	field "$1.wall.json" "d['wall_s']['median']"
}

configure "$work/step0" none "$jobs"
clean_build "$work/step0" "$jobs" >/dev/null	# the recorded build advise starts from
start=$(now)
"$bw" advise -C "$work/step0" -j "$jobs" --json >"$work/advise.json"
took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }')
recorded=$(field "$work/advise.json" "d['baseline']['recorded_wall_s']")
echo "advise took ${took} s; the clean build it starts from ($size, $backend, -j $jobs): $recorded s"

fixes= j=$jobs k=0
: >"$work/steps"
for fix in $(field "$work/advise.json" "' '.join(s['fix'] for s in d['plan'])"); do
	k=$((k + 1))
	if [ "$fix" = jobs ]; then j=$(nproc); else fixes=${fixes:+$fixes,}$fix; fi
	configure "$work/step$k" "$fixes" "$j"
	echo "$k $fix $j" >>"$work/steps"
done
for t in $(seq "$trials"); do
	echo "0 $t $(clean_build "$work/step0" "$jobs")" >>"$work/walls"
	while read -r k fix j; do
		echo "$k $t $(clean_build "$work/step$k" "$j")" >>"$work/walls"
	done <"$work/steps"
done

printf '%-4s %-10s %11s %12s %17s %9s %7s\n' step fix predicted "measured" "ratio to base" "=> wall" error
python3 - "$work/advise.json" "$work/walls" "$work/steps" "$recorded" >"$work/table" <<'EOF'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
walls = {}
for line in open(sys.argv[2]):
    k, t, w = line.split()
    walls.setdefault(int(k), {})[int(t)] = float(w)
names = {0: "baseline"}
for line in open(sys.argv[3]):
    k, fix, _ = line.split()
    names[int(k)] = fix
recorded = float(sys.argv[4])
predicted = [d["baseline"]["predicted"]["wall_s"]] + [s["predicted"]["wall_s"] for s in d["plan"]]
misses = 0
for k in sorted(walls):
    ratio = statistics.median(walls[k][t] / walls[0][t] for t in walls[k])
    wall = ratio * recorded
    err = abs(predicted[k] - wall)
    miss = err > max(0.1 * wall, 1.0)
    misses += miss
    print("%-4d %-10s %9.2f s %10.2f s %17.3f %7.2f s %6.1f%%%s" % (k, names[k], predicted[k],
          statistics.median(walls[k].values()), ratio, wall, 100 * err / wall, "  MISS" if miss else ""))
print("misses %d" % misses)
EOF
grep -v '^misses' "$work/table"
echo "(measured: median of $trials clean rebuilds per step, interleaved; => wall: the median ratio to the"
echo " baseline of the same round, times the recorded baseline advise started from)"
echo "at the end: $(field "$work/advise.json" "' -> '.join(d['final']['critical_path'])") ($(field "$work/advise.json" "d['final']['critical_path_s']") s predicted)"
grep -q '^misses 0$' "$work/table" || { echo "a step is off by more than 10 % or 1 s"; exit 1; }
