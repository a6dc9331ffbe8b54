#!/bin/sh
# Run each fuzz harness for $FUZZ_SECONDS under ASan+UBSan; print one line
# per harness (runs, seconds, corpus size) and "fuzz: N passed, N failed".
# Seeds: the fixtures a harness reads plus tests/fuzz/seeds/NAME; the
# corpus a run grows is kept in build-fuzz/corpus/NAME for the next run.
set -u
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../fixtures
secs=${FUZZ_SECONDS:-60}
passed=0 failed=0
seeds_of() {
	case $1 in
	ninja_log) echo "$fixtures/ninja" ;;
	timereport | nvcc) echo "$fixtures/timereport" ;;
	jobs) echo "$fixtures/jobs" ;;
	trace) echo "$fixtures/traces" ;;
	device_code) echo "$fixtures/kernels" ;;
	distcc_log) echo "$fixtures/distcc" ;;
	advise_doc) echo "$fixtures/advise" ;;
	esac
	[ -d "$here/seeds/$1" ] && echo "$here/seeds/$1"
}
for bin in "$@"; do
	name=${bin##*/fuzz_}
	corpus=build-fuzz/corpus/$name
	mkdir -p "$corpus" build-fuzz/artifacts
	log=build-fuzz/$name.log
	# shellcheck disable=SC2046
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix=build-fuzz/artifacts/"$name"- "$corpus" $(seeds_of "$name") >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok - fuzz_$name: ${runs:-?} runs in $secs s, 0 crashes, corpus $(ls "$corpus" | wc -l) inputs"
	else
		failed=$((failed + 1))
		echo "not ok - fuzz_$name (exit $rc); the input is in build-fuzz/artifacts/, the log in $log"
		grep -E 'ERROR|invariant|SUMMARY' "$log" | head -n 5 | sed 's/^/    /'
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
