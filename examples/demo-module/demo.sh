#!/bin/sh
# `make demo`: build both variants of the demo module and run every buildwall
# command on each (wall, rank, passes, log with a Chrome trace, sim of
# splitting the slowest TU, pp --all, leak on the dispatcher, and report:
# advise's which fix first and the wall after each, predicted, printed and
# drawn as one HTML page per variant, beside the build dirs). DEMO_SIZE=small|full (default full), DEMO_TRIALS (3).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bw=${BUILDWALL:-buildwall}
out=${1:-build/demo}
size=${DEMO_SIZE:-full}
trials=${DEMO_TRIALS:-3}
# One job count for the real builds and for rank's prediction.
MAX_JOBS=${MAX_JOBS:-$(nproc)}
export MAX_JOBS

# Where the demo is: step k of the 18 (9 a variant), the time since it
# began, on stderr (the diagnosis itself stays on stdout).
started=$(date +%s) k=0
step() {
	k=$((k + 1))
	e=$(($(date +%s) - started))
	printf '[demo step %d of 18, %d:%02d elapsed] %s\n' "$k" $((e / 60)) $((e % 60)) "$1" >&2
}

median_of() { awk '/^wall:/ { for (i = 1; i <= NF; i++) if ($i == "median") print $(i + 1) }' "$1"; }

for v in baseline optimized; do
	dir=$out/$v
	echo "== $v variant =="
	"$here/configure" --variant "$v" --size "$size" "$dir"
	step "$v: first build (so the tree is built and .ninja_log exists)"
	ninja -C "$dir" >"$dir/first-build.log" 2>&1 || { tail -n 30 "$dir/first-build.log"; exit 3; }
	echo
	step "$v: wall, $trials clean rebuilds"
	"$bw" wall -n "$trials" -C "$dir" | tee "$dir/wall.txt"
	echo
	step "$v: rank, every TU re-run"
	"$bw" rank -C "$dir"
	echo
	step "$v: passes of the 3 slowest TUs"
	"$bw" passes -C "$dir" --top 3
	echo
	step "$v: log and its trace"
	"$bw" log -C "$dir" --trace "$out/$v-build-trace.json"
	echo
	# What splitting the slowest TU in two would do. Each piece pays about
	# the TU's host pass and device front end again (passes: ~1 s), not the
	# module's cheapest TU, which parses the framework in the baseline.
	step "$v: sim of the slowest TU split"
	"$bw" sim -C "$dir" -j "1-$((2 * MAX_JOBS))" --split opus_gemm_bigtile.cuda.o=2 --overhead 1
	echo
	# Where the lines come from, host and device; and the include that lets
	# the framework into the dispatcher (the baseline's leak).
	step "$v: pp of every TU"
	"$bw" pp -C "$dir" --all
	echo
	step "$v: leak on the dispatcher"
	"$bw" leak -C "$dir" opus_dispatch.o
	echo
	# The synthesis: which fix first, and the module's wall after each
	# (advise's table), and the whole diagnosis as one page.
	step "$v: report (advise's probes and plan)"
	"$bw" report -C "$dir" -o "$out/$v-report.html"
	echo
done

b=$(median_of "$out/baseline/wall.txt")
o=$(median_of "$out/optimized/wall.txt")
echo "== median clean-rebuild wall: baseline $b s, optimized $o s (-j $MAX_JOBS) =="
awk -v b="$b" -v o="$o" 'BEGIN { if (o < b) printf "the optimized variant saves %.1f s (%.0f %%)\n", b - o, 100 * (b - o) / b;
                               else { print "unexpected: the optimized variant is not faster"; exit 1 } }'
echo "== the reports: $out/baseline-report.html and $out/optimized-report.html (open them in a browser) =="
e=$(($(date +%s) - started))
echo "== the demo took $((e / 60)) min $((e % 60)) s =="
