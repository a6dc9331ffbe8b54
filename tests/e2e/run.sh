#!/bin/sh
# Run every e2e test script; print the total as "e2e: N passed, N failed".
# A script with a line "# e2e: slow" (a second backend, the distcc
# cluster, ab's whole clean builds) runs only with E2E_SLOW=1, which CI
# sets (.ci/run); the rest keep `make test` under 15 minutes here.
# A script with a line "# e2e: timing" checks what compile times show (a
# planted ratio, a prediction against a build): a shared runner that is
# busy for a minute skews them, so a failed one runs once more and its
# second run counts (with E2E_RETRY=1 set: what it reads of an earlier
# script's measurements it measures again); both are printed, and the
# retry is named in the total.
# Names as arguments (t94 t90) run only those scripts (make e2e T='t94 t90').
here=$(cd "$(dirname "$0")" && pwd)
total=$(mktemp)
# Scratch shared by the scripts: the demo module is built once, here.
E2E_WORK=$(mktemp -d "${TMPDIR:-/tmp}/bw-e2e-work.XXXXXX")
E2E_RESULTS=$E2E_WORK/results
# What the scripts run themselves (ninja, hipcc: hipcc 5.2 leaves an
# empty /tmp/<source>-XXXXXX dir per compile) keeps its temp files here.
mkdir "$E2E_WORK/tmp"
TMPDIR=$E2E_WORK/tmp
export E2E_RESULTS E2E_WORK TMPDIR
trap 'rm -rf "$total" "$E2E_WORK"' EXIT
skipped= retried=
# run_script T: run it; its "passed failed" lines land in $E2E_RESULTS.
run_script() {
	: >"$E2E_RESULTS"
	start=$(date +%s)
	sh "$1" || echo "0 1" >>"$E2E_RESULTS"
	echo "# $(basename "$1") took $(($(date +%s) - start)) s"
}
failed_in() { awk '{ f += $2 } END { exit !(f > 0) }' "$E2E_RESULTS"; }
for t in "$here"/t[0-9]*.sh; do
	name=$(basename "$t" .sh)
	if [ $# -gt 0 ] && ! printf ' %s ' "$@" | grep -q " ${name%%_*} \| $name "; then
		continue
	fi
	if [ "${E2E_SLOW:-0}" != 1 ] && grep -q '^# e2e: slow' "$t"; then
		skipped="$skipped $name"
		continue
	fi
	echo "# $name.sh"
	run_script "$t"
	if failed_in && grep -q '^# e2e: timing' "$t"; then
		echo "# $name.sh failed, and it checks timings: once more, and that run counts"
		retried="$retried $name"
		E2E_RETRY=1 run_script "$t"
	fi
	cat "$E2E_RESULTS" >>"$total"
done
passed=$(awk '{ p += $1 } END { print p + 0 }' "$total")
failed=$(awk '{ f += $2 } END { print f + 0 }' "$total")
echo "e2e: $passed passed, $failed failed${retried:+ (run twice, timing:$retried)}${skipped:+ (slow, run with E2E_SLOW=1:$skipped)}"
[ "$failed" -eq 0 ]
