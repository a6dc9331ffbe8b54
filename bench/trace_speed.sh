#!/bin/sh
# How fast `buildwall trace` reads a large set of real traces, and that its
# memory stays bounded by the aggregates, not the input. The set is made of
# copies of real traces: the test fixtures' (clang 15's driver, clang 19's
# replayed cc1 jobs, nvcc 13's -fdevice-time-trace), the shared fixtures'
# when they sit beside the checkout, and traces recorded here from the demo
# module (clang-19 -ftime-trace of a baseline kernel TU's host and gfx90a
# passes, and of the host-heavy epilogue TU). Prints MB/s and events/s
# beside `cat` of the same files (the floor) and, when CBA=/path/to/
# ClangBuildAnalyzer is given, beside ClangBuildAnalyzer (--all then
# --analyze; clang traces only, so nvcc's are left out of the set then).
# The bar: >= 500 MB/s end to end, peak RSS under a quarter of the input.
#   SIZE_MB=1000 RUNS=3 CBA=... bench/trace_speed.sh
. "$(dirname "$0")/lib.sh"
size_mb=${SIZE_MB:-1000}
runs=${RUNS:-3}
cba=${CBA:-}

src=$work/src
mkdir -p "$src"
for f in "$here"/tests/fixtures/traces/*.json; do cp "$f" "$src/fixture-$(basename "$f")"; done
[ -n "$cba" ] || cp "$here/tests/fixtures/timereport/cuda_nvcc13_fdevice-time-trace.json" "$src/nvcc13.json"
shared=$here/../shared/fixtures
if [ -d "$shared" ]; then
	for d in trace_clang15_driver trace_clang19_driver trace_clang19_replay; do
		for f in "$shared/$d"/*.json; do [ -f "$f" ] && cp "$f" "$src/$d-$(basename "$f")"; done
	done
fi
if command -v clang++-19 >/dev/null 2>&1; then
	demo=$work/demo
	"$here/examples/demo-module/configure" --size small --backend hip "$demo" >/dev/null
	record() { # target, extra flags, trace name
		cmd=$(cd "$demo" && ninja -t commands "$1" | tail -n 1 | sed "s| -o $1| -o $work/out.o|; s|-MMD -MF $1.d||")
		(cd "$demo" && sh -c "$cmd $2 -ftime-trace=$src/$3") >/dev/null 2>&1 || echo "(could not record $3)" >&2
	}
	record opus_gemm_0.cuda.o --cuda-host-only demo-gemm_0-host.json
	record opus_gemm_0.cuda.o "--cuda-device-only --offload-arch=gfx90a" demo-gemm_0-gfx90a.json
	record opus_epilogue.cuda.o --cuda-host-only demo-epilogue-host.json
fi

# The set: copies of those, in directories of 100 files, up to SIZE_MB.
set=$work/set
mkdir -p "$set"
copies=0
total=0
while [ "$total" -lt $((size_mb * 1000000)) ]; do
	d=$set/$((copies / 100))
	mkdir -p "$d"
	for f in "$src"/*.json; do
		cp "$f" "$d/$copies-$(basename "$f")"
		total=$((total + $(wc -c <"$f")))
	done
	copies=$((copies + 1))
done
files=$(find "$set" -name '*.json' | wc -l)
mb=$(awk -v b="$total" 'BEGIN { printf "%.0f", b / 1e6 }')
find "$set" -name '*.json' -exec cat {} + >/dev/null	# warm the page cache

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }

: >"$work/cat.s"
: >"$work/bw.s"
: >"$work/bw.rss"
: >"$work/cba.s"
: >"$work/cba.rss"
i=0
while [ $i -lt "$runs" ]; do
	s=$(now); find "$set" -name '*.json' -exec cat {} + >/dev/null; elapsed "$s" >>"$work/cat.s"
	s=$(now)
	/usr/bin/time -f %M -o "$work/rss" "$bw" trace "$set" --json >"$work/bw.json"
	elapsed "$s" >>"$work/bw.s"
	cat "$work/rss" >>"$work/bw.rss"
	if [ -n "$cba" ]; then
		s=$(now)
		/usr/bin/time -f %M -o "$work/rss1" "$cba" --all "$set" "$work/cba.bin" >/dev/null
		/usr/bin/time -f %M -o "$work/rss2" "$cba" --analyze "$work/cba.bin" >/dev/null
		elapsed "$s" >>"$work/cba.s"
		sort -n "$work/rss1" "$work/rss2" | tail -n 1 >>"$work/cba.rss"
	fi
	i=$((i + 1))
done
events=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["inputs"]["events"])' "$work/bw.json")

row() { # tool seconds rss_kib
	awk -v tool="$1" -v t="$2" -v rss="$3" -v mb="$mb" -v ev="$events" -v bytes="$total" 'BEGIN {
		printf "%-22s %8.3f %9.0f %13.0f %12s %10s\n", tool, t, mb / t, ev / t,
			rss == "" ? "-" : sprintf("%.0f MiB", rss / 1024), rss == "" ? "-" : sprintf("%.3f", rss * 1024 / bytes)
	}'
}
echo "trace set: $files files, $mb MB, $events events (of $(ls "$src" | wc -l) real traces); medians of $runs runs, $(nproc) CPUs"
printf '%-22s %8s %9s %13s %12s %10s\n' tool seconds "MB/s" "events/s" "peak RSS" "RSS/input"
row "cat (the floor)" "$(median <"$work/cat.s")" ""
bw_s=$(median <"$work/bw.s")
bw_rss=$(median <"$work/bw.rss")
row "buildwall trace" "$bw_s" "$bw_rss"
if [ -n "$cba" ]; then
	cba_s=$(median <"$work/cba.s")
	row "ClangBuildAnalyzer" "$cba_s" "$(median <"$work/cba.rss")"
	awk -v a="$cba_s" -v b="$bw_s" 'BEGIN { printf "buildwall is %.1fx faster than ClangBuildAnalyzer on the same set\n", a / b }'
fi
ok=$(awk -v mb="$mb" -v t="$bw_s" -v rss="$bw_rss" -v bytes="$total" \
	'BEGIN { print (mb / t >= 500 && rss * 1024 < bytes / 4) ? 1 : 0 }')
[ "$ok" = 1 ] && echo "trace reads >= 500 MB/s with RSS under a quarter of the input" ||
	{ echo "trace misses the bar (>= 500 MB/s, RSS < input / 4)"; exit 1; }
