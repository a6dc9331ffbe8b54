#!/bin/sh
# How fast `buildwall log` reads .ninja_log, and that its memory stays
# bounded: two generated logs, 100k and 1M lines (builds of 1000 steps
# appended one after the other, as ninja writes them), each read for the
# latest build and with --all-builds. Prints MB/s beside `wc -l` on the
# same file and the peak RSS; the target is >= 100 MB/s, with the same
# RSS for both sizes.
. "$(dirname "$0")/lib.sh"

gen() { # lines file
	awk -v lines="$1" 'BEGIN {
		print "# ninja log v5"
		srand(7)
		for (i = 0; i < lines; i++) {
			k = i % 1000
			if (k == 0) t = 0
			t += int(rand() * 40) + 1
			d = int(rand() * 20000) + 50
			s = t > d ? t - d : 0
			printf "%d\t%d\t%d\tobj/kernels/instance_%05d.cuda.o\t%08x%08x\n", s, t, 1700000000 + i, k, i * 2654435761 % 4294967296, k
		}
	}' >"$2"
}

printf '%-9s %-12s %9s %9s %10s %9s %10s\n' lines mode MB "wc -l s" "log s" "MB/s" "peak RSS"
ok=1
for n in 100000 1000000; do
	gen "$n" "$work/log"
	mb=$(awk -v b="$(wc -c <"$work/log")" 'BEGIN { printf "%.1f", b / 1e6 }')
	s=$(now); wc -l "$work/log" >/dev/null; wc_s=$(awk -v a="$s" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
	for mode in latest --all-builds; do
		flag=; [ "$mode" = latest ] || flag=$mode
		s=$(now)
		/usr/bin/time -f %M -o "$work/rss" "$bw" log "$work/log" $flag --json >/dev/null
		t=$(awk -v a="$s" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }')
		rate=$(awk -v m="$mb" -v t="$t" 'BEGIN { printf "%.0f", m / t }')
		printf '%-9s %-12s %9s %9s %10s %9s %7s KiB\n' "$n" "$mode" "$mb" "$wc_s" "$t" "$rate" "$(cat "$work/rss")"
		[ "$rate" -ge 100 ] || ok=0
	done
done
[ $ok = 1 ] && echo "log reads >= 100 MB/s" || { echo "log reads < 100 MB/s"; exit 1; }
