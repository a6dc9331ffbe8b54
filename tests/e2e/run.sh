#!/bin/sh
# Run every e2e test script; print the total as "e2e: N passed, N failed".
here=$(cd "$(dirname "$0")" && pwd)
E2E_RESULTS=$(mktemp)
# Scratch shared by the scripts: the demo module is built once, here.
E2E_WORK=$(mktemp -d "${TMPDIR:-/tmp}/bw-e2e-work.XXXXXX")
export E2E_RESULTS E2E_WORK
trap 'rm -rf "$E2E_RESULTS" "$E2E_WORK"' EXIT
for t in "$here"/t[0-9]*.sh; do
	echo "# $(basename "$t")"
	start=$(date +%s)
	sh "$t" || echo "0 1" >>"$E2E_RESULTS"
	echo "# $(basename "$t") took $(($(date +%s) - start)) s"
done
passed=$(awk '{ p += $1 } END { print p + 0 }' "$E2E_RESULTS")
failed=$(awk '{ f += $2 } END { print f + 0 }' "$E2E_RESULTS")
echo "e2e: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
