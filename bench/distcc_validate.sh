#!/bin/sh
# Do sim --remote and advise --launcher predict a build through a cluster?
# Three distccd daemons on loopback, one job each (scripts/distcc_loopback.sh),
# the demo's plain C++ backend built through them at -j 3 (wall, with
# distcc's log); sim --remote 3 from the log and from each compile's
# preprocessing timed here (--probe-local), and advise --launcher distcc
# (every TU timed there), against that build and one more right after.
# Fails when a prediction is off both builds by more than GOAL % (10).
. "$(dirname "$0")/lib.sh"
goal=${GOAL:-10}
command -v distccd >/dev/null 2>&1 || { echo "distccd is not installed (scripts/deps.sh test installs distcc)"; exit 2; }
. "$here/scripts/distcc_loopback.sh"
trap 'cluster_stop; rm -rf "$work"' EXIT
cluster_start "$work" || { echo "the loopback daemons did not start"; exit 3; }
D=$work/demo
"$here/examples/demo-module/configure" --size small --backend cpp --launcher distcc "$D" >/dev/null
"$bw" wall -n 1 -j 3 -C "$D" --distcc-log "$work/build.log" --json >"$work/wall.json"
"$bw" log -C "$D" --json >"$work/log.json"
W=$(field "$work/log.json" 'd["wall_s"]')
"$bw" sim -C "$D" -j 3 --remote 3 --local 2 --distcc-log "$work/build.log" --json >"$work/sim.json"
"$bw" sim -C "$D" -j 3 --remote 3 --local 2 --probe-local --json >"$work/probe.json"
"$bw" advise -C "$D" --launcher distcc --parallel 3 -j 3 -r 1 --json >"$work/advise.json"
"$bw" wall -n 1 -j 3 -C "$D" --json >"$work/wall2.json"
W2=$(field "$work/wall2.json" 'd["wall_s"]["median"]')
missed=0
echo "| through distcc, 3 loopback slots, -j 3 | predicted | build before: $W s | build after: $W2 s |"
echo "|---|---|---|---|"
for row in "sim --remote 3 --distcc-log:$work/sim.json:d['predictions'][0]['wall_s']" \
	"sim --remote 3 --probe-local:$work/probe.json:d['predictions'][0]['wall_s']" \
	"advise --launcher distcc:$work/advise.json:d['baseline']['predicted']['wall_s']"; do
	name=${row%%:*} rest=${row#*:}
	p=$(field "${rest%%:*}" "${rest#*:}")
	echo "| $name | $p s | $(percent "$p" "$W") % | $(percent "$p" "$W2") % |"
	within "$p" "$W" "$goal" || within "$p" "$W2" "$goal" || missed=$((missed + 1))
done
echo
echo "$missed of 3 off both builds by more than $goal %"
[ "$missed" -eq 0 ]
