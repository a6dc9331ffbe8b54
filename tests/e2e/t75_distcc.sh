# A cluster on loopback: three distccd daemons (Debian's distcc), one job
# each, and the demo module (plain C++ backend, CXX='distcc c++') built
# through them. wall and log say what ran there and here; sim --remote 3
# splits each compile by the log or by its preprocessing timed here; rank
# --launcher distcc ranks the TUs as the cluster compiles them, like a
# local rank; a daemon killed mid-rank sends its TU back here; advise times
# its baseline there; bad input. (How close sim and advise come to the
# build's wall is bench/distcc_validate.sh's.) Slow: builds of the demo
# through it.
# e2e: slow
. "$(dirname "$0")/lib.sh"

if ! command -v distccd >/dev/null 2>&1; then
	not_ok "distccd is installed (scripts/deps.sh test installs distcc)"
	finish
	exit 0
fi

. "$(dirname "$0")/../../scripts/distcc_loopback.sh"
base=$cluster_base ports=$cluster_ports
trap 'cluster_stop; rm -rf "$T"' EXIT
check "three distccd daemons listen on loopback" cluster_start "$T"

D=$T/demo
"$(dirname "$0")/../../examples/demo-module/configure" --size small --backend cpp --launcher distcc "$D" >/dev/null
check "the demo's compiles go through distcc" grep -q '^cxx = distcc c++' "$D/build.ninja"

# ---- the build, through wall: what it sent, where, and the bound ----
run 0 "wall through distcc" "$BW" wall -n 1 -j 3 -C "$D" --distcc-log "$T/build.log" --json
cp "$T/out" "$T/wall.json"
check "wall: 5 compiles sent, none kept here" [ "$(json "$T/wall.json" '(d["cluster"]["trials"][0]["sent"], d["cluster"]["trials"][0]["kept_here"])')" = "(5, 0)" ]
check "wall: the 3 slots offered" [ "$(json "$T/wall.json" 'd["cluster"]["last_trial"]["remote_slots"]')" = 3 ]
check "wall: the slots bound, all in use at once" [ "$(json "$T/wall.json" '(d["cluster"]["last_trial"]["bound"], d["cluster"]["last_trial"]["most_sent_at_once"])')" = "('remote slots', 3)" ]
check "wall: the log kept for log and sim" grep -q 'compiled on 127.0.0.1' "$T/build.log"
built=$(tree_hash "$D")

# ---- log: remote against local ----
run 0 "log: a build behind distcc, without its log" "$BW" log -C "$D"
contains "$T/out" "5 of 5 compiles run behind distcc" "log names the launcher from ninja's commands"
run 0 "log --distcc-log" "$BW" log -C "$D" --distcc-log "$T/build.log"
contains "$T/out" "cluster (distcc): 5 compiles sent to 3 hosts (3 slots offered), 0 kept here" "log: sent and kept"
contains "$T/out" "bound: remote slots" "log: which bound held"
check "log: each TU's host in the table" [ "$(grep -c " 127\.0\.0\.1:$base\| 127\.0\.0\.1:$((base + 1))\| 127\.0\.0\.1:$((base + 2))" "$T/out")" -ge 5 ]
run 0 "log --distcc-log --json" "$BW" log -C "$D" --distcc-log "$T/build.log" --json
cp "$T/out" "$T/log.json"
check "log: the remote holds are most of the compiles' time" [ "$(json "$T/log.json" 'd["cluster"]["there_s"] > 10 * d["cluster"]["here_s"]')" = True ]
check "log: every compile remote, on one of the three ports" [ "$(json "$T/log.json" 'sorted(set(c["host"].split(":")[1].split("/")[0] for c in d["cluster"]["compiles"] if c["remote"])) == sorted("'"$ports"'".split()) and len(d["cluster"]["compiles"]) == 5')" = True ]
check "log: the launcher from the graph" [ "$(json "$T/log.json" '(d["launcher"]["name"], d["launcher"]["compiles_behind_it"])')" = "('distcc', 5)" ]

# ---- sim --remote: the build's own wall, and more slots ----
run 0 "sim --remote 3" "$BW" sim -C "$D" -j 3 --remote 3 --local 2 --distcc-log "$T/build.log" --json
cp "$T/out" "$T/sim.json"
check "sim: every compile split by the log" [ "$(json "$T/sim.json" '(d["remote"]["sent"], d["remote"]["split_by_log"])')" = "(5, 5)" ]
run 0 "sim --remote 6 -j 6" "$BW" sim -C "$D" -j 6 --remote 6 --local 2 --distcc-log "$T/build.log" --json
check "with every TU on its own slot the planted TU sets the wall" [ "$(json "$T/out" 'd["predictions"][0]["sets_wall"]')" = opus_gemm_bigtile.cuda.o ]
P6=$(json "$T/out" 'd["predictions"][0]["wall_s"]')
echo "# sim --remote 6 -j 6 predicts $P6 s"
check "then the critical path binds: more slots cannot beat the planted TU" [ "$(json "$T/out" 'd["predictions"][0]["binds"] == "critical path" and d["predictions"][0]["wall_s"] <= 1.01 * d["predictions"][0]["critical_path_s"]')" = True ]
run 0 "sim --remote 3 table" "$BW" sim -C "$D" -j 3 --remote 3 --local 2 --distcc-log "$T/build.log"
contains "$T/out" "sets the wall" "sim names what sets the wall"
contains "$T/out" "5 compiles by their remote holds" "sim says where the split came from"
# Without the log: each compile's preprocessing (what distcc's client runs
# here) timed here, the rest remote.
run 0 "sim --remote 3 --probe-local" "$BW" sim -C "$D" -j 3 --remote 3 --local 2 --probe-local --json
cp "$T/out" "$T/probe.json"
check "--probe-local: every compile's preprocessing timed" [ "$(json "$T/probe.json" '(d["remote"]["sent"], d["remote"]["split_by_probe"], d["remote"]["probe_failures"])')" = "(5, 5, 0)" ]
check "--probe-local leaves the tree byte-identical" [ "$(tree_hash "$D")" = "$built" ]
run 0 "sim --probe-local table" "$BW" sim -C "$D" -j 3 --remote 3 --probe-local
contains "$T/out" "split by preprocessing timed here" "sim says the split came from the probe"
run 2 "sim --probe-local and --distcc-log" "$BW" sim -C "$D" --remote 3 --probe-local --distcc-log "$T/build.log"
contains "$T/err" "give one" "sim names the clash"

# ---- the network's cost, timed through the cluster ----
# A toy built here: sending its compiles costs what two probes sent
# through these daemons (an empty TU, an 8 MiB one) cost beyond the same
# compiles here.
make_toy "$T/here"
ninja -C "$T/here" -j 2 >/dev/null 2>&1
here=$(tree_hash "$T/here")
run 0 "sim --probe-net on a build recorded here" "$BW" sim -C "$T/here" -j 3 --remote 3 --local 2 --probe-local --probe-net --json
cp "$T/out" "$T/net.json"
echo "# network on loopback: $(json "$T/net.json" 'd["remote"]["network"]')"
# Loopback's cost (a few ms) is within the probes' noise: either part may
# come out 0 (never below), but sending the 8 MiB probe costs something.
check "--probe-net: a compile's cost measured, small on loopback (under 0.5 s, and 0.5 s a MiB)" [ "$(json "$T/net.json" '(lambda n: (0 <= n["fixed_s"] < 0.5, 0 <= n["per_mib_s"] < 0.5, n["fixed_s"] + 8 * n["per_mib_s"] > 0, n["repeats"], n["probe_bytes"]))(d["remote"]["network"])')" = "(True, True, True, 3, 8388608)" ]
check "--probe-net: added to each of the 3 sent compiles" [ "$(json "$T/net.json" '(lambda n: (n["compiles"], n["added_s"] >= 3 * n["fixed_s"] - 1e-9))(d["remote"]["network"])')" = "(3, True)" ]
check "--probe-net leaves the tree byte-identical" [ "$(tree_hash "$T/here")" = "$here" ]
run 0 "advise --remote 3 --probe-net on a build recorded here" "$BW" advise -C "$T/here" -r 1 --remote 3 --probe-net --json
check "advise --probe-net: the network timed on loopback (under 0.5 s a compile)" [ "$(json "$T/out" '(lambda n: (0 <= n["fixed_s"] < 0.5, 0 <= n["per_mib_s"] < 0.5, n["fixed_s"] + 8 * n["per_mib_s"] > 0, n["repeats"]))(d["remote"]["network"])')" = "(True, True, True, 3)" ]
check "advise --probe-net: the cluster rule counts it" [ "$(json "$T/out" '[" a MiB preprocessed (probes through distcc" in f["measured_by"] for f in d["fixes"] if f["fix"] == "jobs"]')" = "[True]" ]
check "advise --probe-net leaves the tree byte-identical" [ "$(tree_hash "$T/here")" = "$here" ]
run 0 "sim --probe-net on the build through distcc" "$BW" sim -C "$D" -j 3 --remote 3 --probe-local --probe-net
contains "$T/out" "not added: the build ran through the cluster, its durations hold it" "--probe-net: not counted twice"
run 2 "sim --probe-net with no remote host" env DISTCC_HOSTS=localhost "$BW" sim -C "$T/here" --remote 3 --probe-local --probe-net
contains "$T/err" "distcc did not send the network probe to a host" "--probe-net: a cluster that takes nothing is named"
run 2 "sim --probe-net without --probe-local" "$BW" sim -C "$T/here" --remote 3 --probe-net
contains "$T/err" "give --probe-local too" "--probe-net needs --probe-local"

# ---- rank through the cluster against a local rank ----
run 0 "local rank" "$BW" rank -C "$D" --parallel 2 --contention none --json
local_first=$(json "$T/out" 'd["tus"][0]["target"]')
check "the local rank strips distcc" [ "$(json "$T/out" 'd["method"]["launchers_stripped"]')" = "['distcc']" ]
run 0 "rank --launcher distcc --parallel 3" "$BW" rank -C "$D" --launcher distcc --parallel 3 --json
cp "$T/out" "$T/rank.json"
check "rank through distcc ranks the same first TU as a local rank ($local_first)" [ "$(json "$T/rank.json" 'd["tus"][0]["target"]')" = "$local_first" ]
check "that first TU is the planted one" [ "$local_first" = opus_gemm_bigtile.cuda.o ]
check "every TU compiled on the cluster" [ "$(json "$T/rank.json" 'all(t["cluster"]["sent"] == 1 and t["cluster"]["kept_here"] == 0 for t in d["tus"])')" = True ]
check "nothing stripped, distcc named" [ "$(json "$T/rank.json" '(d["method"]["launchers_stripped"], d["method"]["launcher"])')" = "([], 'distcc')" ]
check "ranks leave the tree byte-identical" [ "$(tree_hash "$D")" = "$built" ]

# ---- advise with its baseline timed on the cluster ----
run 0 "advise --launcher distcc --parallel 3" "$BW" advise -C "$D" --launcher distcc --parallel 3 -j 3 -r 1 --json
cp "$T/out" "$T/advise-cluster.json"
check "advise --launcher: every TU sent once, none kept here" [ "$(json "$T/advise-cluster.json" '(d["baseline"]["cluster"]["launcher"], d["baseline"]["cluster"]["sent"], d["baseline"]["cluster"]["kept_here"], sorted(t["cluster"]["sent"] for t in d["tus"]))')" = "('distcc', 5, 0, [1, 1, 1, 1, 1])" ]
check "advise --launcher: each TU on one of the three daemons" [ "$(json "$T/advise-cluster.json" 'all(t["cluster"]["host"].split(":")[1].split("/")[0] in "'"$ports"'".split() for t in d["tus"])')" = True ]
check "advise --launcher: the planted TU is the slowest there too" [ "$(json "$T/advise-cluster.json" 'max(d["tus"], key=lambda t: t["baseline_s"])["target"]')" = opus_gemm_bigtile.cuda.o ]
check "advise --launcher: no local load curve, and why" [ "$(json "$T/advise-cluster.json" '(d["baseline"]["load_curve"]["levels"], d["baseline"]["load_curve"]["cores"], "on the cluster" in d["baseline"]["load_curve"]["measured_by"])')" = "([], 0.0, True)" ]
check "advise --launcher: the leak found as without it" [ "$(json "$T/advise-cluster.json" '"leak" in [f["fix"] for f in d["fixes"]]')" = True ]
check "advise --launcher: on 3 slots the planted TU still sets the wall at the end" [ "$(json "$T/advise-cluster.json" 'd["final"]["critical_path"][0]')" = opus_gemm_bigtile.cuda.o ]
check "advise --launcher leaves the tree byte-identical" [ "$(tree_hash "$D")" = "$built" ]
# The table of that walk, from its document: nothing compiled a second time.
run 0 "advise --launcher distcc, the table" "$BW" advise --from "$T/advise-cluster.json"
contains "$T/out" "through distcc: 5 of 5 runs sent to the cluster, 0 kept here" "advise says where the baseline's runs went"
contains "$T/out" "every TU timed on the cluster as rank --launcher distcc does" "advise says how the baseline was timed"
contains "$T/out" "load curve (slowdown by jobs at once): none: the compiles run on the cluster's hosts" "advise says why it has no load curve"
# A source distcc does not know (a .cu; plain C++ here, for g++) compiles
# here: advise counts it as kept and warns that its time is this machine's.
K=$T/kept
mkdir -p "$K"
printf 'int a() { return 1; }\n' >"$K/a.cpp"
printf 'int b() { return 2; }\n' >"$K/b.cu"
printf 'rule cxx\n  command = distcc g++ -x c++ -c $in -o $out\nbuild a.o: cxx a.cpp\nbuild b.o: cxx b.cu\n' >"$K/build.ninja"
ninja -C "$K" >/dev/null 2>&1
kept=$(tree_hash "$K")
run 0 "advise --launcher distcc on a tree with a .cu" "$BW" advise -C "$K" --launcher distcc --parallel 2 -r 1 --json
contains "$T/err" "1 of the baseline's runs compiled here, not on the cluster" "advise warns of the run distcc kept here"
check "advise --launcher: a.o sent, b.o (a .cu) kept here" [ "$(json "$T/out" 'sorted((t["target"], t["cluster"]["sent"], t["cluster"]["kept_here"]) for t in d["tus"])')" = "[('a.o', 1, 0), ('b.o', 0, 1)]" ]
check "advise --launcher leaves that tree byte-identical" [ "$(tree_hash "$K")" = "$kept" ]
# A baseline timed through the cluster holds the network: --probe-net adds
# nothing to it, though the toy's own commands are not behind distcc.
run 0 "advise --launcher distcc --remote 3 --probe-net on a build recorded here" "$BW" advise -C "$T/here" --launcher distcc --parallel 3 -r 1 --remote 3 --probe-net --json
contains "$T/err" "durations were timed through distcc and hold the network already; nothing added" "advise --launcher --probe-net: not counted twice"
check "advise --launcher --probe-net: no network added, the rule says where it is" [ "$(json "$T/out" '(d["remote"]["network"], d["baseline"]["cluster"]["sent"], ["(timed through distcc)" in f["measured_by"] for f in d["fixes"] if f["fix"] == "jobs"])')" = "(None, 3, [True])" ]
check "advise --launcher --probe-net leaves the toy byte-identical" [ "$(tree_hash "$T/here")" = "$here" ]
run 2 "advise --launcher icecc" "$BW" advise -C "$D" --launcher icecc
contains "$T/err" "only distcc is supported" "advise names the one launcher it sends through"

# ---- advise: the jobs rule becomes the cluster's ----
TOY_CC="distcc gcc" make_toy "$T/toy"
DISTCC_VERBOSE=1 DISTCC_LOG="$T/toy.log" ninja -C "$T/toy" -j 3 >/dev/null 2>&1
toy=$(tree_hash "$T/toy")
run 0 "advise --remote 6 --distcc-log" "$BW" advise -C "$T/toy" -r 1 --remote 6 --distcc-log "$T/toy.log" --json
check "advise: the cluster rule applies, from the distcc log" [ "$(json "$T/out" '[(f["title"].startswith("send the compiles to the cluster"), "'"$T/toy.log"'" in f["measured_by"], "sets it" in f["measured_by"]) for f in d["fixes"] if f["fix"] == "jobs"]')" = "[(True, True, True)]" ]
check "advise leaves the toy tree byte-identical" [ "$(tree_hash "$T/toy")" = "$toy" ]
cp "$T/out" "$T/cluster6.json"
run 0 "advise --from that document, another cluster: 12 slots twice as fast" env PATH=/nonexistent "$BW" advise --from "$T/cluster6.json" --remote 12:2 --json
check "--from --remote: the cluster rule on the slots asked, the shares the document measured" [ "$(json "$T/out" '[("12 remote slots offered" in f["evidence"], "(at 2x)" in f["measured_by"]) for f in d["fixes"] if f["fix"] == "jobs"]')" = "[(True, True)]" ]
check "--from --remote: more and faster slots, no slower a wall" [ "$(python3 -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); w = lambda d: [f["predicted"]["wall_s"] for f in d["fixes"] if f["fix"] == "jobs"][0]; print(w(b) <= w(a) + 1e-6)' "$T/cluster6.json" "$T/out")" = True ]
run 0 "advise --remote 6, no distcc log" "$BW" advise -C "$T/toy" -r 1 --remote 6 --json
check "advise: the cluster rule from each compile's preprocessing timed here" [ "$(json "$T/out" '[("less its preprocessing" in f["measured_by"], "timed here for 3 of 3" in f["measured_by"]) for f in d["fixes"] if f["fix"] == "jobs"]')" = "[(True, True)]" ]
check "advise --remote leaves the toy tree byte-identical" [ "$(tree_hash "$T/toy")" = "$toy" ]
run 0 "advise on a build behind distcc, without --remote" "$BW" advise -C "$T/toy" -r 1 --json
check "advise: more jobs than CPUs is the cluster's question" [ "$(json "$T/out" '[c["checked"].startswith("the compiles run behind distcc: --remote N") for c in d["not_applicable"] if c["fix"] == "jobs"]')" = "[True]" ]
run 2 "advise --distcc-log without --remote" "$BW" advise -C "$T/toy" --distcc-log "$T/toy.log"
contains "$T/err" "give --remote N too" "advise names the missing option"
run 0 "advise --probe-net on a build through distcc" "$BW" advise -C "$T/toy" -r 1 --remote 6 --probe-net --json
contains "$T/err" "durations were timed through distcc and hold the network already; nothing added" "advise --probe-net: not counted twice"
check "advise --probe-net through distcc: no network in the document, the rule says where it is" [ "$(json "$T/out" '(d["remote"]["network"], ["the network in the baseline'"'"'s durations (timed through distcc)" in f["measured_by"] for f in d["fixes"] if f["fix"] == "jobs"])')" = "(None, [True])" ]
run 2 "advise --probe-net with --distcc-log" "$BW" advise -C "$T/toy" --remote 6 --distcc-log "$T/toy.log" --probe-net
contains "$T/err" "give one" "advise names the clash"

# ---- a daemon killed mid-rank: its TU runs here instead ----
"$BW" rank -C "$D" --launcher distcc --parallel 3 --json >"$T/killed.json" 2>"$T/killed.err" &
rank_pid=$!
_i=0
while [ $_i -lt 600 ] && ! compile_child "$rank_pid"; do sleep 0.1; _i=$((_i + 1)); done
sleep 2
cluster_stop_daemon "$base"
wait "$rank_pid"
check "rank goes on when a daemon dies (exit 0)" [ $? -eq 0 ]
check "the TU it held ran again, here or on another host, and says so" [ "$(json "$T/killed.json" 'sum(t["cluster"]["cluster_failed"] + t["cluster"]["retried_elsewhere"] for t in d["tus"])')" -ge 1 ]
check "nothing ran on the dead daemon's port after it died" [ "$(json "$T/killed.json" 'all(not (t["cluster"]["host"] or "").startswith("127.0.0.1:'"$base"'/") for t in d["tus"] if t["cluster"]["retried_elsewhere"] or t["cluster"]["cluster_failed"])')" = True ]
check "every TU still timed" [ "$(json "$T/killed.json" 'all(t["status"] == "ok" and t["wall_s"] > 0 for t in d["tus"])')" = True ]
check "the tree byte-identical after the killed daemon" [ "$(tree_hash "$D")" = "$built" ]
check "no distcc client left running" no_process "$D/"

# ---- bad input ----
run 2 "log --distcc-log of a file that is not one" "$BW" log -C "$D" --distcc-log "$D/build.ninja"
contains "$T/err" "no distcc compile in it" "says what is wrong"
one_line "$T/err" "in one line"
run 2 "sim --distcc-log without --remote" "$BW" sim -C "$D" --distcc-log "$T/build.log"
contains "$T/err" "give --remote N too" "names the missing option"
run 2 "sim --remote 0" "$BW" sim -C "$D" --remote 0
contains "$T/err" "--remote wants N[:SPEED]" "says what --remote takes"
run 2 "rank --launcher icecc" "$BW" rank -C "$D" --launcher icecc
contains "$T/err" "only distcc is supported" "names the one launcher rank sends through"
check "bad input leaves the tree byte-identical" [ "$(tree_hash "$D")" = "$built" ]

finish
