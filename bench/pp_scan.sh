#!/bin/sh
# How fast the line-marker scanner reads preprocessed output: g++ -E of a
# pybind11 TU (real markers, real line lengths), concatenated to >= 200 MB,
# scanned by `buildwall pp FILE` beside `wc -l` on the same file, best of
# three runs each after a warm-up read (so both read from the page cache).
# Prints MB/s for both and their ratio; the target is >= 1 GB/s. Peak RSS
# shows the file is streamed, not loaded.
. "$(dirname "$0")/lib.sh"
best() { # command...: the best wall of three runs, in seconds
	b=
	for _ in 1 2 3; do
		s=$(now)
		"$@" >/dev/null
		t=$(awk -v a="$s" -v b="$(now)" 'BEGIN { printf "%.4f", b - a }')
		b=$(awk -v t="$t" -v b="${b:-$t}" 'BEGIN { print (t < b ? t : b) }')
	done
	echo "$b"
}

printf '#include <pybind11/pybind11.h>\nint f() { return 1; }\n' >"$work/bind.cpp"
# shellcheck disable=SC2046
g++ -E $(python3-config --includes) "$work/bind.cpp" -o "$work/one.ii"
one=$(wc -c <"$work/one.ii")
copies=$((200000000 / one + 1))
i=0
while [ "$i" -lt "$copies" ]; do cat "$work/one.ii"; i=$((i + 1)); done >"$work/big.ii"
mb=$(awk -v b="$(wc -c <"$work/big.ii")" 'BEGIN { printf "%.0f", b / 1e6 }')
cat "$work/big.ii" >/dev/null
wc_s=$(best wc -l "$work/big.ii")
pp_s=$(best "$bw" pp "$work/big.ii" --json)
/usr/bin/time -f %M -o "$work/rss" "$bw" pp "$work/big.ii" --json >/dev/null
wc_rate=$(awk -v m="$mb" -v t="$wc_s" 'BEGIN { printf "%.0f", m / t }')
pp_rate=$(awk -v m="$mb" -v t="$pp_s" 'BEGIN { printf "%.0f", m / t }')
printf '%-22s %8s %9s %8s\n' "" MB seconds "MB/s"
printf '%-22s %8s %9s %8s\n' "wc -l" "$mb" "$wc_s" "$wc_rate"
printf '%-22s %8s %9s %8s\n' "buildwall pp (scan)" "$mb" "$pp_s" "$pp_rate"
echo "pp/wc time ratio: $(awk -v a="$pp_s" -v b="$wc_s" 'BEGIN { printf "%.1f", a / b }'); peak RSS of pp: $(cat "$work/rss") KiB"
[ "$pp_rate" -ge 1000 ] && echo "the scanner reads >= 1 GB/s" || { echo "the scanner reads < 1 GB/s"; exit 1; }
