#!/bin/sh
# Run every unit test binary (cmocka prints each test) and total the tests.
passed=0 failed=0 broken=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for t in "$@"; do
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log")
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log")
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	# A crash or a failing group setup counts as a failure too.
	if [ "$rc" -ne 0 ] && [ -z "$f" ]; then broken=$((broken + 1)); echo "CRASHED: $t (exit $rc)"; fi
done
echo "unit: $passed passed, $((failed + broken)) failed"
[ "$failed" -eq 0 ] && [ "$broken" -eq 0 ]
