# record, history and check on small trees with made-up logs (the demo's
# builds are t90's): idempotent records, two writers at once, a record
# killed mid-write, the regression decision on known walls, bad input.
# e2e: aside
. "$(dirname "$0")/lib.sh"

export BUILDWALL_DB="$T/history.db"
sql() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$@"; }

# A tree: two TUs and a link, its .ninja_log holding one build per wall
# given (a.o takes half of it, b.o a third).
toy_tree() {
	dir=$1
	shift
	mkdir -p "$dir"
	printf 'rule cc\n  command = cc -c $in -o $out\nrule link\n  command = cc -shared $in -o $out\nbuild a.o: cc a.c\nbuild b.o: cc b.c\nbuild toymod.so: link a.o b.o\n' >"$dir/build.ninja"
	# awk, not python: the 100 trees of the two-writers test below
	awk 'BEGIN { print "# ninja log v5"
		for (i = 1; i < ARGC; i++) { ms = int(ARGV[i] * 1000 + 0.5)
			printf "0\t%d\t0\tb.o\t2\n0\t%d\t0\ta.o\t1\n%d\t%d\t0\ttoymod.so\t3\n", int(ms / 3), int(ms / 2), int(ms / 2), ms } }' "$@" >"$dir/.ninja_log"
}

# ---- record: keys, idempotence, documents ----
toy_tree "$T/base" 10 10.4 9.7 10.1
before=$(tree_hash "$T/base")
run 0 "record --all: every build the log holds" "$BW" record -C "$T/base" --all --label branch=main --json
cp "$T/out" "$T/rec.json"
check "four builds added, each whole" [ "$(json "$T/rec.json" '(d["added"], [b["steps"] for b in d["builds"]], [b["wall_s"] for b in d["builds"]])')" = "(4, [3, 3, 3, 3], [10.0, 10.4, 9.7, 10.1])" ]
check "the module is the linked output's name" [ "$(json "$T/rec.json" 'd["module"]')" = toymod ]
check "record leaves the tree byte-identical" [ "$(tree_hash "$T/base")" = "$before" ]
run 0 "record the latest build again" "$BW" record -C "$T/base" --label branch=main
contains "$T/out" "already recorded" "the same build is one row"
check "still four builds" [ "$(sql "$BUILDWALL_DB" 'select count(*) from builds')" = 4 ]
"$BW" log -C "$T/base" --json >"$T/log.json"
run 0 "record --from the same build's log document" "$BW" record --from "$T/log.json" --module toymod --json
check "a log document of a recorded build adds nothing" [ "$(json "$T/out" 'd["added"]')" = 0 ]
"$BW" wall --clean true -n 2 --json -- true >"$T/wall.json" 2>/dev/null
run 0 "record --from a wall document: a build per trial" "$BW" record --from "$T/wall.json" --module walled --json
check "two trials, two builds" [ "$(json "$T/out" 'd["added"]')" = 2 ]

# ---- check: budget, against a label and a commit-less reference ----
toy_tree "$T/slow" 12.1 12.4 11.9
run 1 "check --against: 20 % slower is over (exit 1)" "$BW" check -C "$T/slow" --builds 3 --against branch=main
echo "# $(cat "$T/out")"
one_line "$T/out" "the reason in one line"
contains "$T/out" "% over branch=main (95 % CI +" "how much, with the interval"
contains "$T/out" "grew most: a.o +1.0 s" "the step that grew most, by its median"
toy_tree "$T/same" 10.2 9.9 10.3
same_tree=$(tree_hash "$T/same")
run 0 "check --against: the same walls are within" "$BW" check -C "$T/same" --builds 3 --against branch=main
check "check leaves the tree byte-identical" [ "$(tree_hash "$T/same")" = "$same_tree" ]
contains "$T/out" "check: within:" "says within"
toy_tree "$T/one" 30
"$BW" record -C "$T/base" --label variant=x --db "$T/one.db" >/dev/null
run 0 "check: one build against one is too few to decide (exit 0)" "$BW" check -C "$T/one" --against variant=x --db "$T/one.db"
contains "$T/out" "too few builds to decide (1 and 1" "says too few"
run 1 "check --budget 20s on a 30 s build: over" "$BW" check -C "$T/one" --budget 20s
run 0 "check --budget 1m: within" "$BW" check -C "$T/one" --budget 1m
run 0 "check --budget --json: the verdict, no reference" "$BW" check -C "$T/one" --budget 1m --json
check "check --budget --json: within, the budget, no against" [ "$(json "$T/out" '(d["verdict"], d["budget"], d["against"], d["candidate"]["median_wall_s"])')" = "('within', {'seconds': 60.0, 'over': False}, None, 30.0)" ]
run 0 "check --json" "$BW" check -C "$T/same" --builds 3 --against branch=main --budget 11 --json
check "check --json: the verdict, both tests, the builds compared" [ "$(json "$T/out" '(d["verdict"], d["budget"]["over"], d["against"]["over"], len(d["candidate"]["builds"]), len(d["against"]["builds"]))')" = "('within', False, False, 3, 4)" ]
# ---- one cold build cannot blind the gate ----
# The reference's first build cold (8.4 s against 3.7 s), then a TU made
# 55 % slower: unfenced the interval spanned -31 to +132 % and said within.
toy_tree "$T/coldref" 8.4 3.7 3.72 3.68
"$BW" record -C "$T/coldref" --all --label variant=ref --db "$T/cold.db" >/dev/null
toy_tree "$T/coldcand" 5.74 5.69 5.78
run 1 "check: a cold build in the reference, a 55 % slower candidate: over" "$BW" check -C "$T/coldcand" --builds 3 --against variant=ref --db "$T/cold.db"
echo "# $(cat "$T/out")"
one_line "$T/out" "the reason in one line"
contains "$T/out" "outlier fenced: reference 8.40 s (2.26x its median)" "names the cold build it fenced"
contains "$T/out" "geometric means" "says the estimator"
run 1 "check --json: the same" "$BW" check -C "$T/coldcand" --builds 3 --against variant=ref --db "$T/cold.db" --json
check "check --json names the fenced build: side, wall, how far from the median" [ "$(json "$T/out" '[(f["side"], f["wall_s"], f["times_median"]) for f in d["against"]["fenced"]]')" = "[('reference', 8.4, 2.264)]" ]
check "check --json: the ratio of the kept builds, its interval above +40 %" [ "$(json "$T/out" '(round(d["against"]["ratio"], 2), d["against"]["ratio_ci"][0] > 1.4, "fenced" in d["against"]["estimator"])')" = "(1.55, True, True)" ]
toy_tree "$T/coldsame" 3.71 3.66 3.75
run 0 "check: the same walls against the cold reference: within" "$BW" check -C "$T/coldsame" --builds 3 --against variant=ref --db "$T/cold.db"
# Lines are the sources', not the machine's: record --pp keeps them on
# the newest build, and that build fenced for its time still names the
# header lines that grew.
toy_tree "$T/linesref" 3.7 3.72 3.68 8.4
printf 'int a;\n' >"$T/linesref/a.c"
printf 'int b;\n' >"$T/linesref/b.c"
"$BW" record -C "$T/linesref" --all --pp --label variant=ref --db "$T/lines.db" >/dev/null
toy_tree "$T/linescand" 5.74 5.69 5.78
printf '#include <stdio.h>\n#include <string.h>\nint a;\n' >"$T/linescand/a.c"
cp "$T/linesref/b.c" "$T/linescand/b.c"
"$BW" record -C "$T/linescand" --all --pp --label variant=cand --db "$T/lines.db" >/dev/null
run 1 "check: the reference's newest build, the one with lines, fenced" "$BW" check -C "$T/linescand" --builds 3 --against variant=ref --db "$T/lines.db"
contains "$T/out" "outlier fenced: reference 8.40 s" "the build with lines is the one fenced"
contains "$T/out" "grew most: a.o +1.0 s, its host pass parses " "its lines still name the pass that grew"
# ---- a slower machine is not a slower build ----
# The same build in two sittings, the machine 25 % slower in the second:
# its walls and its controls both 25 % longer (saved wall documents, fixed
# numbers). In units of the control it is within; raw, it was over.
wall_doc() {
	python3 - "$@" <<'PY'
import json, sys
path, scale = sys.argv[1], float(sys.argv[2])
walls, controls = [10.0, 10.3, 9.8], [0.400, 0.410, 0.396]
json.dump({"schema": "buildwall/1", "version": 1, "command": "wall", "build_command": "ninja -C drift", "jobs": 2,
           "control": {"compiler": "g++", "runs": 3},
           "trials": [{"trial": k + 1, "wall_s": round(w * scale, 4), "cpu_s": round(2 * w * scale, 4),
                       "control_s": round(c * scale, 4)} for k, (w, c) in enumerate(zip(walls, controls))]},
          open(path, "w"))
PY
}
wall_doc "$T/first.json" 1
wall_doc "$T/later.json" 1.25
run 0 "record --from a wall document: each trial's control kept" "$BW" record --from "$T/first.json" --module drift --label sitting=first --db "$T/drift.db" --json
check "the controls recorded with the builds" [ "$(json "$T/out" '[b["control_s"] for b in d["builds"]]')" = "[0.4, 0.41, 0.396]" ]
run 0 "check: the machine 25 % slower, the build not: within" "$BW" check --from "$T/later.json" --module drift --against sitting=first --db "$T/drift.db"
echo "# $(cat "$T/out")"
contains "$T/out" "+0 % over sitting=first" "the build itself did not move"
contains "$T/out" "in units of the control compile (g++: 0.50 s in the candidate's sittings, 0.40 s in the reference's: the machine +25 %; raw walls +25 %)" "says what the verdict rests on, with the machine's drift"
run 1 "check --no-control: the same builds read 25 % over" "$BW" check --from "$T/later.json" --module drift --against sitting=first --db "$T/drift.db" --no-control
contains "$T/out" "raw walls (--no-control)" "says it compared the raw walls"
run 0 "check --json: the basis and the machine's ratio" "$BW" check --from "$T/later.json" --module drift --against sitting=first --db "$T/drift.db" --json
check "check --json: control basis, the build's ratio 1, the machine's 1.25, raw 1.25" [ "$(json "$T/out" '(d["against"]["basis"], d["against"]["ratio"], d["against"]["control"]["machine_ratio"], d["against"]["raw_ratio"], [0.49 < b["control_s"] < 0.52 for b in d["candidate"]["builds"]])')" = "('control', 1.0, 1.25, 1.25, [True, True, True])" ]
wall_doc "$T/nocontrol.json" 1.25
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [t.pop("control_s") for t in d["trials"]]; d["build_command"]="ninja -C other"; json.dump(d, open(sys.argv[1], "w"))' "$T/nocontrol.json"
run 1 "check: a candidate without controls is judged raw" "$BW" check --from "$T/nocontrol.json" --module drift --against sitting=first --db "$T/drift.db"
contains "$T/out" "raw walls: 3 of the 6 builds have no control compile, so a slower machine reads as a slower build" "and says why"
run 2 "check --from needs --module" "$BW" check --from "$T/later.json" --against sitting=first --db "$T/drift.db"
run 2 "check --from with -C is refused" "$BW" check -C "$T/base" --from "$T/later.json" --module drift --against sitting=first --db "$T/drift.db"
run 2 "check --from a missing document" "$BW" check --from "$T/nothere.json" --module drift --against sitting=first --db "$T/drift.db"
one_line "$T/err" "check --from a missing document: one line"
contains "$T/err" "nothere.json: unable to open" "the file named, no line number of a file that is not there"
run 0 "history shows each build's control" "$BW" history drift --db "$T/drift.db"
contains "$T/out" "control s" "a control column"
contains "$T/out" "control: the machine's speed in each build's sitting" "and the spread of the controls"

# Planted live: a compiler that sleeps (0.1 s a step, then 0.3 s in a
# slower "sitting"): record and check time the control with it, both
# sides move 3x (a little less: starting a process costs the same), and
# check says within; raw it is over. Within by 50 %, not the default 5 %:
# a process's start on a busy runner moves a 0.3 s build by more than 5 %
# (a CI run read "over"), and 3x raw is far past either.
sitting=$T/sitting
mkdir -p "$sitting/bin"
{
	printf '#!/bin/sh\n[ "$1" = --version ] && { echo "c++ (sleeps) 1.0"; exit 0; }\n'
	printf 'sleep "$(cat "%s/delay")"\nout=\n' "$sitting"
	printf 'while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\n: >"$out"\n'
} >"$sitting/bin/c++"
chmod +x "$sitting/bin/c++"
printf 'int a;\n' >"$sitting/a.cpp"
printf 'int b;\n' >"$sitting/b.cpp"
printf 'rule cxx\n  command = %s -c $in -o $out\nrule link\n  command = %s -shared $in -o $out\nbuild a.o: cxx a.cpp\nbuild b.o: cxx b.cpp\nbuild slept.so: link a.o b.o\n' "$sitting/bin/c++" "$sitting/bin/c++" >"$sitting/build.ninja"
builds3() { for k in 1 2 3; do ninja -C "$sitting" -t clean >/dev/null && ninja -C "$sitting" -j 1 >/dev/null; done; }
echo 0.1 >"$sitting/delay"
builds3
run 0 "record: the builds of this sitting get a control timed with the build's compiler" "$BW" record -C "$sitting" --all --label sitting=quick --db "$T/live.db" --json
check "three builds, each with the sleeping compiler's control (0.1 s and more)" [ "$(json "$T/out" '(d["control"]["compiler"].endswith("/c++"), [b["control_s"] >= 0.1 for b in d["builds"]])')" = "(True, [True, True, True])" ]
echo 0.3 >"$sitting/delay"
builds3
run 0 "check: everything 3x slower, machine and build alike: within" "$BW" check -C "$sitting" --builds 3 --against sitting=quick --db "$T/live.db" --max-regression 50% --json
check "check timed the control now: the machine about 3x, the build about 1x" [ "$(json "$T/out" '(d["against"]["basis"], 2 < d["against"]["control"]["machine_ratio"] < 3.5, 0.8 < d["against"]["ratio"] < 1.25, d["against"]["raw_ratio"] > 2)')" = "('control', True, True, True)" ]
run 1 "check --no-control: 3x over" "$BW" check -C "$sitting" --builds 3 --against sitting=quick --db "$T/live.db" --no-control

# One sitting: --against-dir rebuilds a reference dir and the candidate
# in turn (ABBA). Each tree's compiler sleeps its own delay: the same
# delay is within, three times the delay over.
sleepy_tree() {
	mkdir -p "$1/bin"
	{
		printf '#!/bin/sh\nsleep "$(cat "%s/delay")"\nout=\n' "$1"
		printf 'while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done\n: >"$out"\n'
	} >"$1/bin/cc"
	chmod +x "$1/bin/cc"
	printf 'int a;\n' >"$1/a.c"
	printf 'int b;\n' >"$1/b.c"
	printf 'rule cc\n  command = %s -c $in -o $out\nrule link\n  command = %s -shared $in -o $out\nbuild a.o: cc a.c\nbuild b.o: cc b.c\nbuild sleepy.so: link a.o b.o\n' "$1/bin/cc" "$1/bin/cc" >"$1/build.ninja"
	echo "$2" >"$1/delay"
}
sleepy_tree "$T/ref-dir" 0.1
sleepy_tree "$T/same-dir" 0.1
sleepy_tree "$T/slow-dir" 0.3
# The same tree's pairs differ by the machine's jitter alone; the gate
# errs on an unchanged build 5 % of the time at most, and only past its
# allowance: 50 % here, three times the jitter the slow tree plants.
run 0 "check --against-dir: the same tree rebuilt in turn, within" "$BW" check -C "$T/same-dir" --against-dir "$T/ref-dir" --builds 3 -j 1 --max-regression 50% --json
check "check --against-dir --json: three pairs in one sitting, a ratio near 1" [ "$(json "$T/out" '(d["verdict"], d["against"]["basis"], len(d["against"]["pairs"]), 0.8 < d["against"]["ratio"] < 1.25)')" = "('within', 'same sitting', 3, True)" ]
run 1 "check --against-dir: every step three times slower, over" "$BW" check -C "$T/slow-dir" --against-dir "$T/ref-dir" --builds 3 -j 1
echo "# $(cat "$T/out")"
one_line "$T/out" "the reason in one line"
contains "$T/out" "3 pairs of clean rebuilds in turn in this sitting, ABBA" "says it rests on one sitting"
contains "$T/out" "each wall over the control compile timed around it (" "and on the control timed around each build"
run 1 "check --against-dir --json: 3x slower" "$BW" check -C "$T/slow-dir" --against-dir "$T/ref-dir" --builds 3 -j 1 --json
check "check --against-dir --json: the control with the candidate's compiler around every build, 3x over" [ "$(json "$T/out" '(d["against"]["control"].endswith("/slow-dir/bin/cc, 1 at once"), all(p["reference_control_s"] >= 0.3 and p["candidate_control_s"] >= 0.3 for p in d["against"]["pairs"]), d["against"]["ratio_least"] > 2)')" = "(True, True, True)" ]
# A machine that slows down 1.5x after every build (the link step moves
# it), builds and controls alike; the two trees are the same. ABBA's pairs
# of raw walls fall 1.5x one way, then the other: 1.5, 1/1.5, 1/1.5, a raw
# ratio of 0.87. Each wall over the controls around it (1x before, 1.5x
# after) is the same for every build: a ratio of 1.
drifting_tree() {
	mkdir -p "$1/bin"
	{
		printf '#!/bin/sh
f=$(cat "%s")
' "$2"
		printf 'sleep "$(awk -v f="$f" '"'"'BEGIN { print 0.1 * f }'"'"')"
'
		printf '[ "$1" = -shared ] && awk -v f="$f" '"'"'BEGIN { print 1.5 * f }'"'"' >"%s"
' "$2"
		printf 'out=
while [ $# -gt 0 ]; do [ "$1" = -o ] && out=$2; shift; done
: >"$out"
'
	} >"$1/bin/cc"
	chmod +x "$1/bin/cc"
	printf 'int a;
' >"$1/a.c"
	printf 'int b;
' >"$1/b.c"
	printf 'rule cc\n  command = %s -c $in -o $out\nrule link\n  command = %s -shared $in -o $out\nbuild a.o: cc a.c\nbuild b.o: cc b.c\nbuild drift.so: link a.o b.o\n' "$1/bin/cc" "$1/bin/cc" >"$1/build.ninja"
}
echo 1 >"$T/machine"
drifting_tree "$T/drift-ref" "$T/machine"
drifting_tree "$T/drift-cand" "$T/machine"
ninja -C "$T/drift-ref" >/dev/null && ninja -C "$T/drift-cand" >/dev/null
echo 1 >"$T/machine"
run 0 "check --against-dir: a machine slowing after every build, the same trees: within" "$BW" check -C "$T/drift-cand" --against-dir "$T/drift-ref" --builds 3 -j 1 --json
# The verdict's ratio is recomputed from the walls and controls the
# document lists (to their millisecond rounding), the raw one beside.
check "check --against-dir --json: over the controls 1 (0.95-1.05), the raw walls 0.87 (under 0.93)" [ "$(json "$T/out" '(lambda a, g: (abs(g([(p["candidate_s"] / p["candidate_control_s"]) / (p["reference_s"] / p["reference_control_s"]) for p in a["pairs"]]) / a["ratio"] - 1) < 0.02, abs(g([p["candidate_s"] / p["reference_s"] for p in a["pairs"]]) / a["raw_ratio"] - 1) < 0.02, 0.95 < a["ratio"] < 1.05, a["raw_ratio"] < 0.93))(d["against"], lambda v: __import__("math").exp(sum(map(__import__("math").log, v)) / len(v)))')" = "(True, True, True, True)" ]
echo "# $(json "$T/out" 'd["reason"]')"
run 1 "check --against-dir --no-control: the raw walls" "$BW" check -C "$T/slow-dir" --against-dir "$T/ref-dir" --builds 2 -j 1 --no-control --json
check "check --against-dir --no-control --json: no control, the ratio the raw one" [ "$(json "$T/out" '(d["against"]["control"], d["against"]["ratio"] == d["against"]["raw_ratio"], [p["candidate_control_s"] for p in d["against"]["pairs"]], "raw walls (--no-control)" in d["reason"], d["against"]["raw_because"])')" = "(None, True, [None, None], True, 'raw walls (--no-control)')" ]
run 2 "check --against-dir with one pair is refused" "$BW" check -C "$T/slow-dir" --against-dir "$T/ref-dir" --builds 1
run 2 "check --against-dir with --against is refused" "$BW" check -C "$T/slow-dir" --against-dir "$T/ref-dir" --against x=y
run 2 "check -j without --against-dir is refused" "$BW" check -C "$T/slow-dir" --budget 10 -j 2
run 2 "check --against-dir on a dir that is not a build dir" "$BW" check -C "$T/slow-dir" --against-dir "$T/nowhere"

run 0 "history marks the cold build" "$BW" history toymod --db "$T/cold.db"
contains "$T/out" "8.40*" "its wall starred"
contains "$T/out" "*: an outlier among the builds of its commit and labels" "and says what the star means"
run 0 "history --json" "$BW" history toymod --db "$T/cold.db" --json
check "history --json: the cold build fenced, the others not" [ "$(json "$T/out" '[(b["wall_s"], b["fenced"]) for b in d["series"][0]["builds"]]')" = "[(8.4, True), (3.7, False), (3.72, False), (3.68, False)]" ]

run 0 "history" "$BW" history toymod --json
check "history: oldest first, the moved steps" [ "$(json "$T/out" '([b["wall_s"] for b in d["series"][0]["builds"]], d["series"][0]["moved"][0]["target"])')" = "([10.0, 10.4, 9.7, 10.1], 'a.o')" ]
"$BW" history toymod --json >"$T/hist.json"
run 0 "report --from a history document" "$BW" report --from "$T/hist.json" -o "$T/hist.html"
check "the trend: one point per build" [ "$(grep -o '<circle class="point"' "$T/hist.html" | wc -l)" = 4 ]
run 0 "history table" "$BW" history --last 2
contains "$T/out" "toymod on" "history names the module and machine"
contains "$T/out" "walls as each build recorded them" "history says where its walls come from"
contains "$T/out" "walled on" "and every module"

# ---- two writers at once, 50 times ----
i=0
while [ $i -lt 50 ]; do
	toy_tree "$T/par/a$i" "1$i.5"
	toy_tree "$T/par/b$i" "2$i.5"
	i=$((i + 1))
done
i=0
while [ $i -lt 50 ]; do
	"$BW" record -C "$T/par/a$i" --db "$T/par.db" >/dev/null 2>"$T/par-a.err" &
	pa=$!
	"$BW" record -C "$T/par/b$i" --db "$T/par.db" >/dev/null 2>"$T/par-b.err" &
	pb=$!
	wait $pa || cat "$T/par-a.err"
	wait $pb || cat "$T/par-b.err"
	i=$((i + 1))
done
check "two records at once, 50 times: every build landed" [ "$(sql "$T/par.db" 'select count(*) from builds')" = 100 ]
check "and each whole" [ "$(sql "$T/par.db" 'select count(*) from builds b where steps != (select count(*) from steps s where s.build_id = b.id)')" = 0 ]
"$BW" record -C "$T/par/a0" --db "$T/same.db" >/dev/null & pa=$!
"$BW" record -C "$T/par/a0" --db "$T/same.db" >/dev/null & pb=$!
wait $pa; wait $pb
check "the same build by two at once: one row" [ "$(sql "$T/same.db" 'select count(*) from builds')" = 1 ]

# ---- kill -9 mid-write: whole builds only ----
python3 - "$T/big.json" <<'EOF'
import json, sys
n = 100000
steps = [{"output": f"tu_{i}.o", "outputs": [f"tu_{i}.o"], "hash": f"{i:x}", "kind": "compile",
          "start_s": i * 0.001, "end_s": i * 0.001 + 1.0, "duration_s": 1.0, "weighted_s": 1.0, "slot": 0}
         for i in range(n)]
json.dump({"schema": "buildwall/1", "version": 1, "command": "log", "wall_s": n * 0.001 + 1.0, "steps": steps},
          open(sys.argv[1], "w"))
EOF
# One whole record first, timed: the kills land at fractions of it, so on
# any machine they land mid-write (the first at a fifth: a record five
# times as fast as the timed one would be the only way past it).
t0=$(date +%s%N)
"$BW" record --from "$T/big.json" --module whole --db "$T/kill.db" >/dev/null
took_ms=$((($(date +%s%N) - t0) / 1000000))
killed=0
for share in 0.2 0.5 0.8; do
	"$BW" record --from "$T/big.json" --module "big$share" --db "$T/kill.db" >/dev/null 2>&1 &
	pid=$!
	sleep "$(python3 -c "print($took_ms * $share / 1000)")"
	kill -9 $pid 2>/dev/null && killed=$((killed + 1))
	wait $pid 2>/dev/null
done
echo "# kill -9: $killed of 3 records (100k steps each; a whole one took $took_ms ms) killed before they ended"
check "kill -9 mid-write: some records were killed" [ "$killed" -gt 0 ]
check "the db passes PRAGMA integrity_check" [ "$(sql "$T/kill.db" 'pragma integrity_check')" = ok ]
check "only whole builds in it" [ "$(sql "$T/kill.db" 'select count(*) from builds b where steps != (select count(*) from steps s where s.build_id = b.id)')" = 0 ]
run 0 "a later record still lands" "$BW" record --from "$T/big.json" --module big --db "$T/kill.db"
check "whole" [ "$(sql "$T/kill.db" 'select count(*) from steps s join builds b on b.id = s.build_id join modules m on m.id = b.module_id where m.name = "big"')" = 100000 ]

# ---- bad input ----
run 2 "--label needs K=V" "$BW" record -C "$T/base" --label nolabel
one_line "$T/err" "--label: one line"
run 2 "check needs --budget or --against" "$BW" check -C "$T/base"
run 2 "--budget must be a time" "$BW" check -C "$T/base" --budget soon
run 2 "--against a label nothing has" "$BW" check -C "$T/base" --against branch=nowhere
contains "$T/err" "no recorded clean build of toymod matches branch=nowhere" "says what it looked for"
run 2 "history of a module not recorded" "$BW" history nosuch
run 2 "history without a db" "$BW" history --db "$T/none.db"
contains "$T/err" "no history there yet" "says there is none yet"
check "and creates none" [ ! -e "$T/none.db" ]
printf '{"schema": "buildwall/1", "command": "log", "steps": [' >"$T/broken.json"
run 2 "record --from a broken document" "$BW" record --from "$T/broken.json" --module m
one_line "$T/err" "a broken document: one line"
contains "$T/err" "broken.json:1:" "names the file and line"
"$BW" rank --help >/dev/null
printf '{"schema": "buildwall/1", "command": "rank", "tus": []}' >"$T/rank.json"
run 2 "record --from a rank document" "$BW" record --from "$T/rank.json" --module m
contains "$T/err" "record takes log, wall and advise documents" "says which documents it takes"
head -c 8192 /dev/urandom >"$T/corrupt.db"
sum=$(sha256sum <"$T/corrupt.db")
run 2 "a corrupt db is reported" "$BW" record -C "$T/base" --db "$T/corrupt.db"
one_line "$T/err" "a corrupt db: one line"
contains "$T/err" "not a buildwall history" "says it is not a history"
check "and never overwritten" [ "$(sha256sum <"$T/corrupt.db")" = "$sum" ]
cp "$BUILDWALL_DB" "$T/newer.db"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("pragma user_version = 7"); c.commit()' "$T/newer.db"
run 2 "a db from a newer schema" "$BW" history --db "$T/newer.db"
contains "$T/err" "schema version 7 is newer than this buildwall's" "says it is newer"
toy_tree "$T/partial" 5
printf '0\t100\t0\ta.o\t9\n' >>"$T/partial/.ninja_log"
run 0 "record an incremental build" "$BW" record -C "$T/partial" --json
check "marked incremental" [ "$(json "$T/out" 'd["builds"][0]["complete"]')" = False ]
run 0 "check after an incremental build: the clean one before it" "$BW" check -C "$T/partial" --budget 10
contains "$T/err" "the latest 1 build in" "warns that the latest build is not the candidate"
printf '# ninja log v5\n0\t100\t0\ta.o\t9\n' >"$T/partial/.ninja_log"
run 2 "check with no clean build in the log" "$BW" check -C "$T/partial" --budget 10
contains "$T/err" "ran every compile step" "says to build from clean"
for c in record history check; do
	run 0 "$c --help" "$BW" $c --help
	contains "$T/out" "usage: buildwall $c" "$c has help"
done
check "nothing written under HOME" [ ! -e "$HOME/.local/share/buildwall/history.db" ] || [ -n "${BUILDWALL_KEEP_HOME_DB:-}" ]
finish
