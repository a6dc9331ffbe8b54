#!/bin/sh
# buildwall log on generated .ninja_logs of one clean build on 64 slots
# (bench/gen_ninja_log.sh; 100k and 1M steps by default), beside `wc -l`
# (the floor) and, when given by path, Chromium's post_build_ninja_summary.py
# (PBNS=...) and ninjatracing (NINJATRACING=...). Every tool runs once per
# round, interleaved, RUNS rounds; prints medians, peak RSS and the paired
# ratios (each round's peer time over buildwall's), and checks issue 16's
# bars on the largest log: summary <= 0.3 s, --trace and --json <= 1 s,
# peak RSS <= 70 MiB. Downloads nothing.
#   STEPS="100000 1000000" RUNS=3 PBNS=... NINJATRACING=... bench/log_vs_peers.sh
. "$(dirname "$0")/lib.sh"
sizes=${STEPS:-100000 1000000}
runs=${RUNS:-3}
pbns=${PBNS:-}
ninjatracing=${NINJATRACING:-}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# timed NAME CMD...: append "seconds rss_kib" of one run to $work/NAME
timed() {
	name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$work/t" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	tail -n 1 "$work/t" >>"$work/$name"
}

printf '%-9s %-26s %9s %10s %12s\n' steps tool seconds "peak RSS" "peer / bw"
fail=0
for n in $sizes; do
	sh "$here/bench/gen_ninja_log.sh" "$n" 64 >"$work/log"
	mb=$(awk -v b="$(wc -c <"$work/log")" 'BEGIN { printf "%.1f", b / 1e6 }')
	rm -f "$work"/r.*
	i=0
	while [ $i -lt "$runs" ]; do
		timed r.wc wc -l "$work/log"
		timed r.summary "$bw" log "$work/log"
		timed r.trace "$bw" log "$work/log" --trace "$work/trace.json"
		timed r.json "$bw" log "$work/log" --json
		[ -n "$pbns" ] && timed r.pbns python3 "$pbns" --log-file "$work/log"
		[ -n "$ninjatracing" ] && timed r.nt sh -c 'python3 "$1" "$2" >"$3"' sh "$ninjatracing" "$work/log" "$work/nt.json"
		i=$((i + 1))
	done
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/trace.json" || { echo "--trace does not load" >&2; exit 1; }
	row() { # file label [buildwall file to pair with]
		s=$(cut -d' ' -f1 <"$work/$1" | median)
		rss=$(cut -d' ' -f2 <"$work/$1" | sort -n | tail -n 1)
		ratio=-
		if [ -n "${3:-}" ]; then
			ratio=$(paste -d' ' "$work/$1" "$work/$3" | awk '{ print ($3 > 0 ? $1 / $3 : 0) }' | median)
			ratio=$(awk -v r="$ratio" 'BEGIN { printf "%.1fx", r }')
		fi
		printf '%-9s %-26s %9s %7.0f MiB %12s\n' "$n" "$2" "$s" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$ratio"
	}
	echo "# $n steps, $mb MB"
	row r.wc "wc -l (the floor)"
	row r.summary "buildwall log"
	row r.trace "buildwall log --trace"
	row r.json "buildwall log --json"
	[ -n "$pbns" ] && row r.pbns "post_build_ninja_summary" r.summary
	[ -n "$ninjatracing" ] && row r.nt "ninjatracing" r.trace
	last_summary=$(cut -d' ' -f1 <"$work/r.summary" | median)
	last_trace=$(cut -d' ' -f1 <"$work/r.trace" | median)
	last_json=$(cut -d' ' -f1 <"$work/r.json" | median)
	last_rss=$(cat "$work/r.summary" "$work/r.trace" "$work/r.json" | cut -d' ' -f2 | sort -n | tail -n 1)
done
check() { # what value bar unit
	if awk -v v="$2" -v b="$3" 'BEGIN { exit !(v <= b) }'; then
		echo "bar met: $1 $2 $4 <= $3 $4"
	else
		echo "bar missed: $1 $2 $4 > $3 $4"
		fail=1
	fi
}
check "summary" "$last_summary" 0.3 s
check "--trace" "$last_trace" 1 s
check "--json" "$last_json" 1 s
check "peak RSS" "$(awk -v k="$last_rss" 'BEGIN { printf "%.0f", k / 1024 }')" 70 MiB
exit $fail
