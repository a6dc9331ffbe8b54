# log and sim: the recorded builds in the fixture logs, the Chrome trace
# read back event by event, the critical path of a toy build, sim's
# replay of the fixture builds, what-if edits, --from a rank document,
# and bad input.
# e2e: aside
. "$(dirname "$0")/lib.sh"
FIX=$(cd "$(dirname "$0")/../fixtures/ninja" && pwd)

# log on a file alone: the latest of three builds.
run 0 "log FILE --json" "$BW" log "$FIX/cuda_sm80_sm90_ninja_log_after_run3" --json
cp "$T/out" "$T/l.json"
check "the latest of three builds" [ "$(json "$T/l.json" '(d["build"]["builds_in_file"], d["build"]["first_line"], len(d["steps"]))')" = "(3, 24, 11)" ]
check "wall = the last end of that build" [ "$(json "$T/l.json" 'd["wall_s"]')" = "$(awk -F'\t' 'NR >= 24 && $2 > m { m = $2 } END { print m / 1000 }' "$FIX/cuda_sm80_sm90_ninja_log_after_run3")" ]
check "weighted times add up to the wall" [ "$(json "$T/l.json" 'abs(sum(s["weighted_s"] for s in d["steps"]) - d["wall_s"]) < 0.02')" = True ]
check "steps sorted by weighted time" [ "$(json "$T/l.json" 'all(a["weighted_s"] >= b["weighted_s"] for a, b in zip(d["steps"], d["steps"][1:]))')" = True ]
check "kinds from the log alone: 10 compiles, 1 link (an object's name does not say what it compiles)" [ "$(json "$T/l.json" '[d["by_kind"][k]["steps"] for k in ("compile", "link")]')" = "[10, 1]" ]
check "without -C: no critical path, and a note" [ "$(json "$T/l.json" '(d["critical_path"], "needs the build dir" in d["note"])')" = "(None, True)" ]
run 0 "log --build 2" "$BW" log "$FIX/cuda_sm80_sm90_ninja_log_after_run3" --build 2 --json
check "--build 2 is the first build" [ "$(json "$T/out" 'd["build"]["first_line"]')" = 2 ]
run 0 "log --all-builds" "$BW" log "$FIX/hip_gfx90a_ninja_log_after_run3" --all-builds
check "three builds listed" [ "$(grep -cE '^ +[0-9]+ +[0-9]+ +11 ' "$T/out")" = 3 ]
run 2 "log of a missing file" "$BW" log "$T/no_such_log"
contains "$T/err" "$T/no_such_log: no such file" "a missing log is named"
one_line "$T/err" "missing log: one line"
run 2 "--build past the oldest" "$BW" log "$FIX/torch211_ninja_log" --build 1
contains "$T/err" "goes back past the oldest of its 1 build" "says how many builds there are"
one_line "$T/err" "in one line"
printf '# ninja log v5\n0\t100\t5\ta.o\tab\n12\tx\t5\tb.o\tcd\n' >"$T/bad_log"
run 2 "corrupt log" "$BW" log "$T/bad_log"
contains "$T/err" "$T/bad_log:3: malformed .ninja_log entry" "file:line of the bad entry"
one_line "$T/err" "corrupt log: one line"
: >"$T/empty_log"
run 2 "empty log" "$BW" log "$T/empty_log"
contains "$T/err" "no builds recorded yet" "an empty log says so"
run 0 "v7 log (ninja 1.13)" "$BW" log "$FIX/torch211_ninja_log" --json
check "v7: 9 steps, eight compiles" [ "$(json "$T/out" '(d["build"]["log_version"], len(d["steps"]), d["by_kind"]["compile"]["steps"])')" = "(7, 9, 8)" ]
# With the graph (a torch cpp_extension tree), kinds come from the sources;
# in an aiter-style tree every object is X.cuda.o, and the dispatcher and
# binding TUs are still host TUs.
for layout in torch aiter; do
	mkdir -p "$T/$layout"
	cp "$FIX/torch211_build.ninja" "$T/$layout/build.ninja"
	cp "$FIX/torch211_ninja_log" "$T/$layout/.ninja_log"
	if [ $layout = aiter ]; then
		sed -i 's/dispatch\.o/dispatch.cuda.o/g; s/bind\.o/bind.cuda.o/g' "$T/$layout/build.ninja" "$T/$layout/.ninja_log"
	fi
	run 0 "log -C on a $layout-style tree" "$BW" log -C "$T/$layout" --json
	check "$layout-style: six kernel TUs (.cu), two host TUs (.cpp), one link" [ "$(json "$T/out" '[d["by_kind"][k]["steps"] for k in ("kernel TU", "host TU", "link")]')" = "[6, 2, 1]" ]
	check "$layout-style: the dispatcher is a host TU" [ "$(json "$T/out" '[s["kind"] for s in d["steps"] if s["output"].startswith("dispatch")]')" = "['host TU']" ]
done
# record and check on the torch extension tree: its module, every compile
# ran, the logs and the tree untouched.
tree=$(tree_hash "$T/torch")
run 0 "record on the torch extension tree" "$BW" record -C "$T/torch" --db "$T/h.db" --label v=a --json
check "torch tree: the module from its .so, a clean build of 9 steps" [ "$(json "$T/out" '(d["module"], d["builds"][0]["steps"], d["builds"][0]["complete"])')" = "('textmod', 9, True)" ]
check "torch tree: kernel and host TUs as recorded" [ "$(python3 -c 'import sqlite3,sys; print(sorted(sqlite3.connect(sys.argv[1]).execute("select kind, count(*) from targets group by kind").fetchall()))' "$T/h.db")" = "[('host TU', 2), ('kernel TU', 6), ('link', 1)]" ]
run 0 "check --budget on the torch extension tree" "$BW" check -C "$T/torch" --budget 60m
run 2 "check --against its own build only: nothing to compare" "$BW" check -C "$T/torch" --against v=a --db "$T/h.db"
contains "$T/err" "the only recorded builds matching v=a are the candidate's own" "says the reference is the candidate itself"
check "record and check leave the torch tree byte-identical" [ "$(tree_hash "$T/torch")" = "$tree" ]

# A built toy: the critical path through ninja's graph, and the trace.
build_toy "$T/toy"
before=$(tree_hash "$T/toy")
run 0 "log -C toy --trace" "$BW" log -C "$T/toy" --json --trace "$T/trace.json"
cp "$T/out" "$T/toy.json"
check "critical path through the graph: the longest TU, then the link" [ "$(json "$T/toy.json" '[s["output"] for s in d["critical_path"]]')" = "['c.o', 'prog']" ]
check "critical path length = c.o + link" [ "$(json "$T/toy.json" 'abs(d["critical_path_s"] - sum(s["duration_s"] for s in d["critical_path"])) < 0.002')" = True ]
# (How the TU itself started is not asserted: a TU spawned in the same ms
# as gen.h ended reads as a slot wait, as ninja records only times.)
check "recorded chain: the link waited for the TU that finished last" [ "$(json "$T/toy.json" '[(s["output"], s["waited_for"]) for s in d["recorded_chain"]][-2:][1:] == [("prog", "dependency")] and d["recorded_chain"][-2]["end_s"] == max(s["end_s"] for s in d["steps"] if s["output"].endswith(".o"))')" = True ]
check "log leaves the tree byte-identical" [ "$(tree_hash "$T/toy")" = "$before" ]
run 0 "log -C toy --trace inside the build dir: written where asked" "$BW" log -C "$T/toy" --trace "$T/toy/inside.json"
check "the trace is there" [ -s "$T/toy/inside.json" ]
rm -f "$T/toy/inside.json"
python3 - "$T/trace.json" "$T/toy.json" >"$T/trace-check" 2>&1 <<'EOF'
import json, sys
trace = json.load(open(sys.argv[1]))
log = json.load(open(sys.argv[2]))
events = trace["traceEvents"]
spans = [e for e in events if e["ph"] == "X"]
steps = {s["output"]: s for s in log["steps"]}
assert len(spans) == len(steps), (len(spans), len(steps))
names = {e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
for e in spans:
    s = steps[e["name"]]
    assert e["pid"] == 1 and e["tid"] in names, e
    assert abs(e["ts"] / 1e6 - s["start_s"]) < 0.001 and abs(e["dur"] / 1e6 - s["duration_s"]) < 0.001, e
    assert e["args"]["duration_s"] == s["duration_s"] and e["args"]["weighted_s"] == s["weighted_s"], e
    assert e["cat"] == s["kind"] and e["tid"] == s["slot"], e
by_slot = {}
for e in spans:
    by_slot.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"]))
for slot, iv in by_slot.items():
    iv.sort()
    assert all(a[1] <= b[0] for a, b in zip(iv, iv[1:])), ("overlap in slot", slot)
print("trace ok", len(spans), "events on", len(by_slot), "slots")
EOF
check "trace read back event by event" grep -q "trace ok" "$T/trace-check"
sed 's/^/# /' "$T/trace-check"
run 2 "--trace into a missing directory" "$BW" log -C "$T/toy" --trace "$T/no/such/dir/t.json"
check "no partial trace left" [ ! -e "$T/no" ]

# log at scale: --json and --trace are streamed; on the demo's logs they
# equal, event for event, what jansson built (the unit test's oracle), and
# a name that is not UTF-8 becomes U+FFFD instead of failing the document.
unit=$(dirname "$BW")/tests/test_log_stream
extra=
for backend in "" hip; do
	d=$E2E_WORK/demo${backend:+-$backend}
	[ -f "$d/.ninja_log" ] && extra="$extra $d/.ninja_log"
done
if [ -x "$unit" ] && [ -n "$extra" ]; then
	check "streamed --json and --trace equal the jansson-built ones on the demo's logs" \
		sh -c 'LOG_STREAM_EXTRA="$1" "$2" 2>&1' sh "$extra" "$unit"
fi
printf '# ninja log v5\n0\t100\t5\tcaf\351.o\tab\n0\t200\t5\t</script>\t"q".o\tcd\n' >"$T/latin1_log"
run 0 "a log with a Latin-1 name" "$BW" log "$T/latin1_log" --json
check "the name reads back with U+FFFD, the rest as it was" [ "$(json "$T/out" 'sorted(s["output"] for s in d["steps"]) == ["</script>\t\"q\".o", "caf\ufffd.o"]')" = True ]

# sim replays the fixture builds (graph from ninja, times from the log).
for f in hip_gfx90a cuda; do
	mkdir -p "$T/fx-$f"
	cp "$FIX/${f}_build.ninja" "$T/fx-$f/build.ninja"
	case $f in hip_gfx90a) log=hip_gfx90a_ninja_log_after_run3 ;; cuda) log=cuda_sm80_sm90_ninja_log_after_run3 ;; esac
	cp "$FIX/$log" "$T/fx-$f/.ninja_log"
	recorded=$("$BW" log -C "$T/fx-$f" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["wall_s"])')
	run 0 "sim on the $f fixture" "$BW" sim -C "$T/fx-$f" -j 2 --policy manifest --json
	predicted=$(json "$T/out" 'd["predictions"][0]["wall_s"]')
	echo "# $f: recorded $recorded s, predicted $predicted s at -j 2"
	check "$f: sim reproduces the recorded wall within 10 %" python3 -c "import sys; sys.exit(0 if abs($predicted - $recorded) / $recorded <= 0.10 else 1)"
done
run 0 "sim -j 1-4 table" "$BW" sim -C "$T/fx-cuda" -j 1-4
contains "$T/out" "binds" "the table says which bound binds"
run 0 "sim bounds" "$BW" sim -C "$T/fx-cuda" -j 1,64 --json
check "-j 1: total work binds and equals the wall" [ "$(json "$T/out" '(lambda p: (p["binds"], abs(p["wall_s"] - p["work_bound_s"]) < 0.01))(d["predictions"][0])')" = "('total work / jobs', True)" ]
check "-j 64: the critical path binds and equals the wall" [ "$(json "$T/out" '(lambda p: (p["binds"], abs(p["wall_s"] - p["critical_path_s"]) < 0.01))(d["predictions"][1])')" = "('critical path', True)" ]
check "policy from the installed ninja" grep -q "installed ninja" "$T/out"

# What-if edits on the toy (c.o is the heaviest TU; prog links all three).
"$BW" log -C "$T/toy" --json >"$T/toy.json"
before=$(tree_hash "$T/toy")
c=$(json "$T/toy.json" '[s for s in d["steps"] if s["output"] == "c.o"][0]["duration_s"]')
run 0 "sim --remove c.o" "$BW" sim -C "$T/toy" -j 1 --remove c.o --json
saved() { json "$T/out" "(lambda p: abs(p['baseline_wall_s'] - p['wall_s'] - $1) < 0.005)(d['predictions'][0])"; }
check "--remove: -j 1 saves exactly c.o's time" [ "$(saved "$c")" = True ]
run 0 "sim --scale c.o=0.5" "$BW" sim -C "$T/toy" -j 1 --scale c.o=0.5 --json
check "--scale: -j 1 saves half of c.o" [ "$(saved "$c / 2")" = True ]
run 0 "sim --split c.o=4 --overhead 0" "$BW" sim -C "$T/toy" -j 8 --split c.o=4 --overhead 0 --json
check "--split at -j 8: saves 3/4 of c.o (its pieces run side by side)" [ "$(saved "$c * 3 / 4")" = True ]
run 0 "sim --fuse a.o,b.o,c.o" "$BW" sim -C "$T/toy" -j 8 --fuse a.o,b.o,c.o --json
check "--fuse at -j 8: the wall is the sum of the three plus the rest" [ "$(json "$T/out" '(lambda p: p["wall_s"] >= p["baseline_wall_s"])(d["predictions"][0])')" = True ]
run 0 "sim --cores 1 -j 3" "$BW" sim -C "$T/toy" -j 3 --cores 1 --json
check "--cores 1: three jobs share one core, no faster than -j 1" [ "$(json "$T/out" '(lambda p: p["wall_s"] >= p["work_bound_s"] - 0.001)(d["predictions"][0])')" = True ]
check "sim leaves the tree byte-identical" [ "$(tree_hash "$T/toy")" = "$before" ]
run 2 "sim edit naming no step" "$BW" sim -C "$T/toy" --remove nothing.o
contains "$T/err" "'nothing.o' names no step" "says which name matched nothing"
run 2 "sim --fuse of a generator and the link" "$BW" sim -C "$T/toy" -j 2 --fuse gen.h,prog
contains "$T/err" "cycle" "a fuse that makes a cycle is refused"
run 2 "sim bad -j" "$BW" sim -C "$T/toy" -j 4-2
one_line "$T/err" "bad -j in one line"

# sim --from a saved rank document.
run 0 "rank --json for sim" "$BW" rank -C "$T/toy" --json
cp "$T/out" "$T/rank.json"
run 0 "sim --from rank.json" "$BW" sim -C "$T/toy" --from "$T/rank.json" -j 1 --json
want=$(python3 -c "import json; r=json.load(open('$T/rank.json')); print(r['serial_sum_s'] + sum(s['seconds'] for s in r['prediction']['other_steps']))")
check "-j 1 from rank = serial sum + the link (from .ninja_log)" [ "$(json "$T/out" "abs(d['predictions'][0]['wall_s'] - $want) < 0.01")" = True ]
printf '{"schema": "buildwall/1", "command": "rank",\n "tus": [ {"target": 1,} ]}\n' >"$T/bad.json"
run 2 "sim --from malformed JSON" "$BW" sim -C "$T/toy" --from "$T/bad.json"
contains "$T/err" "$T/bad.json:2:" "JSON error with its line"
one_line "$T/err" "malformed JSON: one line"

# sim --remote --probe-local: each compile's preprocessing timed here (what
# a distcc client runs before it sends the compile), the rest remote.
before=$(tree_hash "$T/toy")
run 0 "sim --remote 2 --probe-local on a toy" "$BW" sim -C "$T/toy" -j 2 --remote 2 --probe-local --json
check "--probe-local: the 3 compiles timed, none failed" [ "$(json "$T/out" '(d["remote"]["sent"], d["remote"]["split_by_probe"], d["remote"]["probe_failures"])')" = "(3, 3, 0)" ]
check "--probe-local: the tree byte-identical" [ "$(tree_hash "$T/toy")" = "$before" ]
# On the torch extension tree (its sources not here): the c++ compiles'
# preprocessing fails, named, exit 3, each counted all remote; nvcc's .cu
# stays here (distcc does not send it); the tree untouched.
tree=$(tree_hash "$T/torch")
run 3 "--probe-local on the torch tree without its sources: exit 3" "$BW" sim -C "$T/torch" -j 4 --remote 4 --probe-local --json
check "--probe-local: the failed runs counted, the .cu kept here" [ "$(json "$T/out" '(d["remote"]["split_by_probe"], d["remote"]["probe_failures"] > 0, d["remote"]["kept_here"] > 0)')" = "(0, True, True)" ]
contains "$T/err" "preprocessing run" "says which runs failed"
check "--probe-local leaves the torch tree byte-identical" [ "$(tree_hash "$T/torch")" = "$tree" ]
run 2 "--probe-local without --remote" "$BW" sim -C "$T/toy" --probe-local
contains "$T/err" "give --remote N too" "names the missing option"
finish
