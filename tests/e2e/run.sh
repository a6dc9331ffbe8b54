#!/bin/sh
# Run every e2e test script; print the total as "e2e: N passed, N failed".
#
# A script with a line "# e2e: alone" compares compile times (a planted
# ratio, a prediction against a build, an A/A test): those run one at a
# time with nothing beside them, first (they build the shared demo module).
# The rest assert no timing a second job could bend; they run E2E_JOBS at
# once (default 2), each one's output printed whole when it ends.
here=$(cd "$(dirname "$0")" && pwd)
E2E_RESULTS=$(mktemp)
# Scratch shared by the scripts: the demo module is built once, here.
E2E_WORK=$(mktemp -d "${TMPDIR:-/tmp}/bw-e2e-work.XXXXXX")
export E2E_RESULTS E2E_WORK
trap 'rm -rf "$E2E_RESULTS" "$E2E_WORK"' EXIT

# run_one SCRIPT: run it, its output and time after its name.
run_one() {
	echo "# $(basename "$1")"
	start=$(date +%s)
	sh "$1" || echo "0 1" >>"$E2E_RESULTS"
	echo "# $(basename "$1") took $(($(date +%s) - start)) s"
}

if [ "${1:-}" = --one ]; then	# a worker of the second phase
	mkdir -p "$E2E_WORK/logs"
	log=$E2E_WORK/logs/$(basename "$2").log
	run_one "$2" >"$log" 2>&1
	flock "$E2E_WORK/logs" cat "$log"
	exit 0
fi

alone= beside=
for t in "$here"/t[0-9]*.sh; do
	if grep -q '^# e2e: alone' "$t"; then alone="$alone $t"; else beside="$beside $t"; fi
done
for t in $alone; do run_one "$t"; done
# shellcheck disable=SC2086
printf '%s\n' $beside | xargs -P "${E2E_JOBS:-2}" -n 1 sh "$0" --one

passed=$(awk '{ p += $1 } END { print p + 0 }' "$E2E_RESULTS")
failed=$(awk '{ f += $2 } END { print f + 0 }' "$E2E_RESULTS")
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
