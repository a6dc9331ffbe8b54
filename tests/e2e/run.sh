#!/bin/sh
# Run every e2e test script; print the total as "e2e: N passed, N failed".
# A script with a line "# e2e: slow" (a second backend, the distcc
# cluster, ab's whole clean builds) runs only with E2E_SLOW=1, which CI
# sets (.ci/run); the rest keep `make test` under 15 minutes here.
here=$(cd "$(dirname "$0")" && pwd)
E2E_RESULTS=$(mktemp)
# Scratch shared by the scripts: the demo module is built once, here.
E2E_WORK=$(mktemp -d "${TMPDIR:-/tmp}/bw-e2e-work.XXXXXX")
export E2E_RESULTS E2E_WORK
trap 'rm -rf "$E2E_RESULTS" "$E2E_WORK"' EXIT
skipped=
for t in "$here"/t[0-9]*.sh; do
	if [ "${E2E_SLOW:-0}" != 1 ] && grep -q '^# e2e: slow' "$t"; then
		skipped="$skipped $(basename "$t" .sh)"
		continue
	fi
	echo "# $(basename "$t")"
	start=$(date +%s)
	sh "$t" || echo "0 1" >>"$E2E_RESULTS"
	echo "# $(basename "$t") took $(($(date +%s) - start)) s"
done
passed=$(awk '{ p += $1 } END { print p + 0 }' "$E2E_RESULTS")
failed=$(awk '{ f += $2 } END { print f + 0 }' "$E2E_RESULTS")
echo "e2e: $passed passed, $failed failed${skipped:+ (slow, run with E2E_SLOW=1:$skipped)}"
[ "$failed" -eq 0 ]
