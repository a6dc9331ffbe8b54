#!/bin/sh
# Does advise predict the wall after each fix before it is made? On a
# module's baseline: advise's plan, then the module built with the plan's
# fixes so far for every step, and TRIALS rounds of one clean rebuild of
# each, interleaved (baseline, step 1, step 2, ...), so that drift hits
# every step alike. Per step: the prediction with its range, the median
# measured wall and the error, as predicted and rebased on the baseline
# measured beside the steps. Fails when a rebased step misses by more than
# 10 % (or 1 s) and its measured median lies outside its range.
#
# MODULE=demo (the demo module: configure --fixes; DEMO_SIZE=small|full,
# default full, BACKEND auto) or MODULE=torch-ext (bench/gen_torch_ext.py:
# a real torch CUDA extension, needs torch and nvcc; INSTANCES 6, ARCH
# sm_90). START=FIXES starts from a partly fixed variant. What advise
# itself took is printed as a ratio to the module's clean build, both
# measured in the same run (the goal: at most 2). TRIALS (3),
# JOBS (2), TRIES (6). In two parts, where one sitting is too long:
# PHASE=plan (the baseline and advise; KEEP=FILE saves its document),
# then PHASE=measure PLAN=FILE (the steps of that plan, interleaved with
# the baseline, which is built anew); PLAN may name several plans of the
# same fixes (advise run in other sittings): each gets its table against
# the same measured walls. BASE (3) clean builds give the baseline's
# median.
#
# One clean build varies by +-10 % on a shared machine: the recorded
# build advise starts from is made a typical one (a clean build within 3 %
# of the median of three, trying up to TRIES times), and the script says
# how typical it was.
. "$(dirname "$0")/lib.sh"
trials=${TRIALS:-3} jobs=${JOBS:-2} size=${DEMO_SIZE:-full} backend=${BACKEND:-auto} module=${MODULE:-demo}
start_fixes=${START:-} tries=${TRIES:-6} phase=${PHASE:-all} base_builds=${BASE:-3}
build_dir() { # DIR: where its build.ninja is
	if [ "$module" = torch-ext ]; then echo "$1/build"; else echo "$1"; fi
}
configure() { # DIR FIXES JOBS: configure and build once (PHASE=measure: the
	# first timed clean rebuild builds it)
	case $module in
	demo) "$here/examples/demo-module/configure" --size "$size" --backend "$backend" --fixes "${2:-none}" "$1" >/dev/null ;;
	torch-ext) python3 "$here/bench/gen_torch_ext.py" "$1" --fixes "$2" --instances "${INSTANCES:-6}" --arch "${ARCH:-sm_90}" ;;
	*) echo "advise_validate.sh: MODULE is demo or torch-ext, not '$module'" >&2; exit 2 ;;
	esac
	[ "$phase" = measure ] || ninja -C "$(build_dir "$1")" -j "$3" >/dev/null
}
clean_build() { # DIR JOBS -> one clean rebuild's wall
	"$bw" wall -C "$(build_dir "$1")" -n 1 -j "$2" --json >"$1.wall.json"
	field "$1.wall.json" "d['wall_s']['median']"
}
known_fix() { # FIX: does the module have a variant for it?
	case $module/$1 in
	demo/split | demo/fused | demo/launchers | demo/leak | demo/flat | demo/narrow | */jobs) return 0 ;;
	torch-ext/split | torch-ext/fused | torch-ext/raw | torch-ext/flat | torch-ext/narrow) return 0 ;;
	esac
	return 1
}

if [ "$phase" = measure ]; then
	set -- ${PLAN:?PHASE=measure needs PLAN=advise.json}
	cp "$1" "$work/advise.json"
	configure "$work/step0" "$start_fixes" "$jobs"
else
	set -- "$work/advise.json"
	configure "$work/step0" "$start_fixes" "$jobs"
	"$bw" wall -C "$(build_dir "$work/step0")" -n "$base_builds" -j "$jobs" --json >"$work/base3.json" 2>/dev/null
	typical=$(field "$work/base3.json" "d['wall_s']['median']") w=$typical try=0
	for try in $(seq "$tries"); do	# the recorded build advise starts from
		w=$(clean_build "$work/step0" "$jobs")
		awk -v w="$w" -v m="$typical" 'BEGIN { e = w - m; exit !((e < 0 ? -e : e) <= 0.03 * m) }' && break
	done
	echo "baseline ($module${start_fixes:+ with $start_fixes}, -j $jobs on $(nproc) CPUs): median of $base_builds clean builds $typical s; the one advise starts from $w s (try $try)"
	start=$(now)
	"$bw" advise -C "$(build_dir "$work/step0")" -j "$jobs" --json >"$work/advise.json"
	# What advise costs, against the clean build measured in this run.
	took=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
	echo "advise took $took s: $(awk -v t="$took" -v m="$typical" 'BEGIN { printf "%.2f", t / m }') clean builds (their median above); $(field "$work/advise.json" "', '.join('%s %.1f s' % (k, v) for k, v in d['spent_s'].items() if k != 'total')")"
	[ -z "${KEEP:-}" ] || cp "$work/advise.json" "$KEEP"
	[ "$phase" = plan ] && exit 0
fi

fixes=$start_fixes j=$jobs k=0
: >"$work/steps"
for fix in $(field "$work/advise.json" "' '.join(s['fix'] for s in d['plan'])"); do
	if ! known_fix "$fix"; then
		echo "the plan's step $((k + 1)) ($fix) has no variant in $module: measured up to step $k"
		break
	fi
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

cat >"$work/table.py" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
# The machine's phase moves every step alike (here a clean build of the
# same tree varies by 10-20 % between phases, and a plan made in another
# sitting meets another phase): each table is printed as predicted, then
# rebased on the baseline measured beside the steps (the ratio to the
# baseline is what advise predicts). A step misses when, rebased, it is
# off by more than 10 % (or 1 s) and outside its range.
walls = {}
for line in open(sys.argv[2]):
    k, t, w = line.split()
    walls.setdefault(int(k), []).append(float(w))
names = {0: "baseline"}
for line in open(sys.argv[3]):
    k, fix, _ = line.split()
    names[int(k)] = fix
if [names[k] for k in sorted(names) if k] != [s["fix"] for s in d["plan"]][:len(names) - 1]:
    print("its plan's steps are not the ones measured: %s" % ", ".join(s["fix"] for s in d["plan"]))
    print("misses 1")
    sys.exit(0)
steps = [d["baseline"]["predicted"]] + [s["predicted"] for s in d["plan"]]
misses = 0
for rebase in (False, True):
    factor = statistics.median(walls[0]) / steps[0]["wall_s"] if rebase else 1
    if rebase:
        print("rebased: every prediction x %.3f (the baseline measured beside the steps over the one predicted)" % factor)
    for k in sorted(walls):
        wall, p = statistics.median(walls[k]), steps[k]
        lo, hi, predicted = factor * p["range_s"][0], factor * p["range_s"][1], factor * p["wall_s"]
        err = abs(predicted - wall)
        inside = lo <= wall <= hi
        miss = err > max(0.1 * wall, 1.0) and not inside
        misses += miss and rebase
        print("%-4d %-10s %9.2f s %6.2f-%6.2f s %13.2f s (%5.2f-%5.2f) %6.1f%%%s" % (k, names[k], predicted, lo, hi,
              wall, min(walls[k]), max(walls[k]), 100 * err / wall, "  MISS" if miss else "" if err <= 0.1 * wall else "  (in range)"))
print("misses %d" % misses)
PY
status=0
for plan in "$@"; do
	[ $# -eq 1 ] || echo "plan: $plan"
	python3 "$work/table.py" "$plan" "$work/walls" "$work/steps" >"$work/table"
	printf '%-4s %-10s %11s %15s %30s %7s\n' step fix predicted range "measured: median (min-max)" error
	grep -v '^misses' "$work/table"
	echo "at the end: $(field "$plan" "' -> '.join(d['final']['critical_path'])") ($(field "$plan" "d['final']['critical_path_s']") s predicted)"
	grep -q '^misses 0$' "$work/table" || { echo "a step, rebased, is off by more than 10 % (or 1 s) and outside its range"; status=1; }
done
echo "(measured: $trials rounds of one clean rebuild per step, interleaved)"
exit $status
