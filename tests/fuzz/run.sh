#!/bin/sh
# Run each fuzz harness for $FUZZ_SECONDS under ASan+UBSan, as many at once
# as CPUs ($FUZZ_JOBS); print one line per harness (runs, seconds, corpus
# size) and "fuzz: N passed, N failed".
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
# One harness: its log in build-fuzz/NAME.log, its exit in NAME.rc.
fuzz_one() {
	name=${1##*/fuzz_}
	corpus=build-fuzz/corpus/$name
	# shellcheck disable=SC2046
	"$1" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/"$name"- "$corpus" $(seeds_of "$name") \
		>"build-fuzz/$name.log" 2>&1
	echo $? >"build-fuzz/$name.rc"
}
# A crash's frames name the function and line where clang-19's symbolizer is.
symbolizer=/usr/lib/llvm-19/bin/llvm-symbolizer
[ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"
# As many harnesses at once as CPUs (each is one process, one CPU): they
# all run $secs, so a batch ends together.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
for bin in "$@"; do
	name=${bin##*/fuzz_}
	mkdir -p "build-fuzz/corpus/$name" build-fuzz/artifacts
	rm -f "build-fuzz/$name.rc"
	fuzz_one "$bin" &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for bin in "$@"; do
	name=${bin##*/fuzz_}
	log=build-fuzz/$name.log
	rc=$(cat "build-fuzz/$name.rc" 2>/dev/null || echo "?")
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	if [ "$rc" = 0 ]; then
		passed=$((passed + 1))
		echo "ok - fuzz_$name: ${runs:-?} runs in $secs s, 0 crashes, corpus $(ls "build-fuzz/corpus/$name" | wc -l) inputs"
	else
		failed=$((failed + 1))
		echo "not ok - fuzz_$name (exit $rc); the input is in build-fuzz/artifacts/, the log in $log"
		grep -E 'ERROR|invariant|SUMMARY|^ +#[0-9]+ .* in [a-z_]+ ' "$log" | head -n 8 | sed 's/^/    /'
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
