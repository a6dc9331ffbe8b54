# wall: N clean rebuilds, per-trial numbers, --match on aiter's coloured
# line, warnings for noise and caches, exit 3 with the tail on failure.
# e2e: aside
. "$(dirname "$0")/lib.sh"

aiter='printf "[aiter] [pid=4242 pname=MainProcess] \033[32mfinish build [module_x], cost 11.1s \033[0m\n"'
run 0 "wall --match" "$BW" wall -n 2 --match 'cost ([0-9.]+)s' --json --clean true -- sh -c "$aiter"
cp "$T/out" "$T/match.json"
check "JSON carries the schema version" [ "$(json "$T/match.json" 'd["schema"]')" = "buildwall/1" ]
check "JSON names the command" [ "$(json "$T/match.json" 'd["command"]')" = wall ]
check "two trials" [ "$(json "$T/match.json" 'len(d["trials"])')" = 2 ]
check "--match extracts 11.1 from every trial" [ "$(json "$T/match.json" '[t["match"] for t in d["trials"]]')" = "[11.1, 11.1]" ]
check "match summary median 11.1" [ "$(json "$T/match.json" 'd["match"]["median"]')" = 11.1 ]
run 0 "wall --match, table" "$BW" wall -n 1 --match 'cost ([0-9.]+)s' --clean true -- sh -c "$aiter"
contains "$T/out" "11.1" "the table shows the matched number"
contains "$T/out" "median" "the summary shows the median"

# Trials that differ by more than 10 %: a noise warning.
printf 0 >"$T/count"
slow='n=$(cat '"$T"'/count); echo $((n+1)) >'"$T"'/count; if [ $n -eq 0 ]; then sleep 0.1; else sleep 0.6; fi'
run 0 "noisy trials" "$BW" wall -n 2 --clean true -- sh -c "$slow"
contains "$T/err" "trials differ by" "noise warning"

# A compiler cache on PATH is reported.
mkdir -p "$T/ccache"
PATH="$T/ccache:$PATH" run 0 "cache on PATH" "$BW" wall -n 1 --clean true -- true
contains "$T/err" "ccache is in use" "cache warning"

# A failing build: exit 3 and the tail of its output.
run 3 "failing build" "$BW" wall -n 2 --clean true -- sh -c 'echo compiling x.cu; echo "x.cu:3: error: boom" >&2; exit 1'
contains "$T/err" "trial 1: build failed (exit status 1)" "failure names the trial and status"
contains "$T/err" "x.cu:3: error: boom" "failure shows the output tail"
run 3 "failing clean" "$BW" wall --clean false -- true
contains "$T/err" "trial 1: clean failed" "failing clean reported"
# A build line that cleans by itself: no clean step, and the report says so.
run 0 "wall without a clean step" "$BW" wall -n 2 -- sh -c 'echo built >>"$0"' "$T/no-clean-runs"
contains "$T/out" "no clean step ran" "wall: says no clean step ran"
check "wall without a clean step: the build ran twice" [ "$(wc -l <"$T/no-clean-runs")" -eq 2 ]
run 0 "wall without a clean step, JSON" "$BW" wall -n 1 --json -- true
check "wall --json: clean_command is null" [ "$(json "$T/out" 'd["clean_command"]')" = None ]
run 3 "trial timeout" "$BW" wall --timeout 0.5 --clean true -- sleep 5
contains "$T/err" "timed out after 0.5 s" "timeout reported"

# Ctrl-C during a trial: exit 130, the build's processes gone.
marker="sleep 31.$$"
"$BW" wall --clean true -- sh -c "$marker; echo built" >"$T/out" 2>"$T/err" &
pid=$!
i=0
# ^: the sleep itself, not the commands that carry its text in their argv
while [ $i -lt 50 ] && ! pgrep -f "^$marker" >/dev/null; do sleep 0.1; i=$((i + 1)); done
check "the build is running" pgrep -f "^$marker"
kill -INT "$pid"
wait "$pid"
check "Ctrl-C during wall exits 130" [ $? -eq 130 ]
sleep 0.2
check "Ctrl-C during wall leaves no build process" no_process "^$marker"

# With -C: ninja -t clean, then ninja; the tree is built afterwards.
build_toy "$T/toy"
run 0 "wall -C" "$BW" wall -n 2 -j 1 -C "$T/toy" --json
cp "$T/out" "$T/c.json"
check "wall -C builds with ninja -j1" [ "$(json "$T/c.json" 'd["build_command"]')" = "ninja -C $T/toy -j1" ]
check "wall -C per-trial CPU and RSS" [ "$(json "$T/c.json" 'all(t["cpu_s"] > 0 and t["max_rss_kib"] > 0 for t in d["trials"])')" = True ]
check "tree is built after wall" [ -f "$T/toy/prog" ]
check "wall -C: each trial carries the control compile around it, with the build's compiler" [ "$(json "$T/c.json" '(d["control"]["compiler"], [t["control_s"] > 0 for t in d["trials"]])')" = "('gcc', [True, True])" ]
MAX_JOBS=3 run 0 "wall honours MAX_JOBS" "$BW" wall -n 1 -C "$T/toy" --no-control --json
check "wall --no-control: none" [ "$(json "$T/out" '(d["control"], d["trials"][0]["control_s"])')" = "(None, None)" ]
check "MAX_JOBS becomes -j3" [ "$(json "$T/out" 'd["build_command"]')" = "ninja -C $T/toy -j3" ]
finish
