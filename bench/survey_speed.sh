#!/bin/sh
# How fast `buildwall survey` reads a whole library of JIT modules: N
# modules of S steps each laid out as aiter lays them out (bench/
# survey_tree.py: a tenth of each module's sources shared by all, logs of 3
# clean builds, nothing compiled). Three surveys in one run, each against
# the floor (`cat` of every .ninja_log and build.ninja) and against what
# one module at a time costs today (the sum of `buildwall log -C` runs):
# a first survey (an empty cache: ninja asked for every graph), one after
# every module was rebuilt (the graphs cached, every log new), and one of
# unchanged modules (every reading cached). The target: an unchanged
# survey of 100 x 1,000 steps under 1 s.
. "$(dirname "$0")/lib.sh"
modules=${SURVEY_MODULES:-100}
steps=${SURVEY_STEPS:-1000}
python3 "$here/bench/survey_tree.py" "$work/tree" "$modules" "$steps" 3
export BUILDWALL_CACHE_DIR="$work/cache"
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

s=$(now); cat "$work"/tree/build/*/build/.ninja_log "$work"/tree/build/*/build/build.ninja >/dev/null; floor=$(secs "$s")
s=$(now); for d in "$work"/tree/build/*/build; do "$bw" log -C "$d" >/dev/null; done; logs=$(secs "$s")
s=$(now); "$bw" survey "$work/tree" >/dev/null; first=$(secs "$s")
# Every module rebuilt: each log one build longer (the same times again).
for d in "$work"/tree/build/*/build; do tail -n "$steps" "$d/.ninja_log" >"$work/last" && cat "$work/last" >>"$d/.ninja_log"; done
s=$(now); "$bw" survey "$work/tree" >/dev/null; rebuilt=$(secs "$s")
s=$(now); "$bw" survey "$work/tree" --json >"$work/survey.json"; unchanged=$(secs "$s")
read_n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["modules_read"])' "$work/survey.json")

echo "survey of $modules modules x $steps steps ($read_n read) on $(nproc) CPUs"
printf '%-36s %8s %10s %12s\n' run seconds "x floor" "x log runs"
row() { printf '%-36s %8s %10s %12s\n' "$1" "$2" "$(awk -v a="$2" -v b="$floor" 'BEGIN { printf "%.0f", a / b }')" "$(awk -v a="$2" -v b="$logs" 'BEGIN { printf "%.2f", a / b }')"; }
row "floor: cat of every log and manifest" "$floor"
row "buildwall log -C, one module at a time" "$logs"
row "survey, first (empty cache)" "$first"
row "survey, every module rebuilt" "$rebuilt"
row "survey, unchanged" "$unchanged"
[ "$read_n" = "$modules" ] || { echo "survey read $read_n of $modules modules"; exit 1; }
awk -v u="$unchanged" 'BEGIN { exit !(u < 1) }' && echo "an unchanged survey under 1 s" || { echo "an unchanged survey takes 1 s or more"; exit 1; }
