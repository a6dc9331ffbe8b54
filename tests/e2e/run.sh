#!/bin/sh
# Run every e2e test script; print the total as "e2e: N passed, N failed".
# A script with a line "# e2e: slow" (a second backend, the distcc
# cluster, ab's whole clean builds) runs only with E2E_SLOW=1, which CI
# sets (.ci/run); the rest keep `make test` under 10 minutes here.
# Every check holds on a busy machine as on a quiet one (planted facts,
# exits, trees, schemas, the model on saved numbers): none is run twice.
# How close a prediction comes to a build is bench/'s (make bench-accuracy).
# Names as arguments (t94 t90) run only those scripts (make e2e T='t94 t90').
# A script with a line "# e2e: aside" times nothing and changes nothing
# the others share (it may read the demo module: the interrupt checks look
# for the interrupted run's temp dir among running processes, not for
# the demo's path): such scripts run one at a time in a
# second lane beside the rest, in the CPU time their single-threaded
# stretches leave idle; their output follows the first lane's.
# --beside COMMAND (make test's unit tests) runs COMMAND first, while the
# demo module the scripts share builds beside it; a COMMAND that fails
# stops the run there.
here=$(cd "$(dirname "$0")" && pwd)
beside=
if [ "${1:-}" = --beside ]; then
	beside=$2
	shift 2
fi
total=$(mktemp)
# Scratch shared by the scripts: the demo module is built once, here.
E2E_WORK=$(mktemp -d "${TMPDIR:-/tmp}/bw-e2e-work.XXXXXX")
E2E_RESULTS=$E2E_WORK/results
# What the scripts run themselves (ninja, hipcc: hipcc 5.2 leaves an
# empty /tmp/<source>-XXXXXX dir per compile) keeps its temp files here.
mkdir "$E2E_WORK/tmp"
TMPDIR=$E2E_WORK/tmp
# The checks run Debian's python: one first on PATH may be a shim that
# takes 0.3 s to start (pyenv's, 45 ms for Debian's), and the scripts run
# python over a thousand times.
if [ -x /usr/bin/python3 ]; then
	mkdir "$E2E_WORK/bin"
	ln -s /usr/bin/python3 "$E2E_WORK/bin/python3"
	PATH=$E2E_WORK/bin:$PATH
fi
export E2E_RESULTS E2E_WORK TMPDIR PATH
trap 'rm -rf "$total" "$total".* "$E2E_WORK"' EXIT
if [ -n "$beside" ]; then
	"$here/demo_build.sh" "$E2E_WORK/demo" 2>/dev/null &
	build=$!
	$beside
	rc=$?
	wait "$build"
	[ "$rc" -eq 0 ] || exit "$rc"
fi
skipped=
# run_script T RESULTS: run it; its "passed failed" lines land in RESULTS.
run_script() {
	E2E_RESULTS=$2
	: >"$E2E_RESULTS"
	start=$(date +%s)
	sh "$1" || echo "0 1" >>"$E2E_RESULTS"
	echo "# $(basename "$1") took $(($(date +%s) - start)) s"
}
# run_lane RESULTS SCRIPT...: each in turn, their counts added to $total.
run_lane() {
	results=$1
	shift
	for t in "$@"; do
		echo "# $(basename "$t")"
		run_script "$t" "$results"
		cat "$results" >>"$total.$(basename "$results")"
	done
}
first= aside=
for t in "$here"/t[0-9]*.sh; do
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ] && ! printf ' %s ' "$@" | grep -q " ${name%%_*} \| $name "; then
		continue
	fi
	if [ "${E2E_SLOW:-0}" != 1 ] && grep -q '^# e2e: slow' "$t"; then
		skipped="$skipped $name"
		continue
	fi
	if grep -q '^# e2e: aside' "$t"; then
		aside="$aside $t"
	else
		first="$first $t"
	fi
done
aside_pid=
if [ -n "$aside" ]; then
	# While it runs the machine is busy indeed (lib.sh's quiet_stderr).
	: >"$E2E_WORK/aside.running"
	# shellcheck disable=SC2086
	{
		run_lane "$E2E_WORK/results-aside" $aside >"$E2E_WORK/aside.log" 2>&1
		rm -f "$E2E_WORK/aside.running"
	} &
	aside_pid=$!
fi
# shellcheck disable=SC2086
[ -z "$first" ] || run_lane "$E2E_RESULTS" $first
if [ -n "$aside_pid" ]; then
	wait "$aside_pid"
	echo "# beside them:"
	cat "$E2E_WORK/aside.log"
fi
cat "$total".* >"$total" 2>/dev/null
passed=$(awk '{ p += $1 } END { print p + 0 }' "$total")
failed=$(awk '{ f += $2 } END { print f + 0 }' "$total")
echo "e2e: $passed passed, $failed failed${skipped:+ (slow, run with E2E_SLOW=1:$skipped)}"
[ "$failed" -eq 0 ]
