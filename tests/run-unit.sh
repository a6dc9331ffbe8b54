#!/bin/sh
# Run every unit test binary (cmocka prints each test) and total the tests.
# They run a CPU's worth plus one at once: the load probe's tests sleep for
# most of their time, and each test holds whatever the machine's load (none
# times against a fixed number). Their outputs are printed in the order given.
passed=0 failed=0 broken=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
lanes=$(($(nproc 2>/dev/null || echo 1) + 1))
i=0
for t in "$@"; do
	i=$((i + 1))
	printf '%s %s\n' "$i" "$t"
done | xargs -P "$lanes" -L 1 sh -c '"$2" >"$0/$1.log" 2>&1; echo $? >"$0/$1.rc"' "$dir"
i=0
for t in "$@"; do
	i=$((i + 1))
	log=$dir/$i.log
	rc=$(cat "$dir/$i.rc" 2>/dev/null || echo 127)
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
