#!/bin/sh
# Does rank predict the wall of a clean build? On the demo module: rank at
# -j JOBS (every TU re-timed in isolation, contention measured side by
# side), then TRIALS clean rebuilds at -j JOBS (`wall`), right after it.
# Prints the prediction, the measured median and the error; fails past
# GOAL % (15). DEMO_SIZE=small|full (small), VARIANT (baseline), JOBS
# (2), TRIALS (3).
. "$(dirname "$0")/lib.sh"
jobs=${JOBS:-2} trials=${TRIALS:-3} goal=${GOAL:-15}
"$here/examples/demo-module/configure" --size "${DEMO_SIZE:-small}" --variant "${VARIANT:-baseline}" "$work/demo" >/dev/null
ninja -C "$work/demo" -j "$jobs" >/dev/null
"$bw" rank -C "$work/demo" -j "$jobs" --json >"$work/rank.json"
"$bw" wall -C "$work/demo" -n "$trials" -j "$jobs" --json >"$work/wall.json"
predicted=$(field "$work/rank.json" 'd["prediction"]["wall_s"]')
measured=$(field "$work/wall.json" 'd["wall_s"]["median"]')
echo "| demo (${DEMO_SIZE:-small}, ${VARIANT:-baseline}), -j $jobs | predicted | measured: median of $trials (min-max) | error |"
echo "|---|---|---|---|"
echo "| rank | $predicted s | $measured s ($(field "$work/wall.json" '"%.2f-%.2f" % (d["wall_s"]["min"], d["wall_s"]["max"])')) | $(percent "$predicted" "$measured") % |"
echo
echo "contention: $(field "$work/rank.json" '"%(share)s a job beside, the steps %(steps_share)s (the walls alone: %(wall_share)s; %(bounded)s steps bounded by their CPU time) from %(source)s" % d["prediction"]["contention"]')"
within "$predicted" "$measured" "$goal" || { echo "off by more than $goal %"; exit 1; }
