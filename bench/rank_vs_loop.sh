#!/bin/sh
# The hand-made way to rank TUs, against buildwall rank, on the demo module:
#   for each object: ninja -t commands X.o > cmd.sh; rm -f X.o; time sh cmd.sh
# The loop runs on a throwaway copy of the build dir (it deletes objects);
# rank runs on the original, which it leaves byte-identical. Prints both
# rankings and the ratio of their walls, all from this one run.
. "$(dirname "$0")/lib.sh"
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a - b }'; }

"$here/examples/demo-module/configure" --size "${DEMO_SIZE:-small}" "$work/demo" >/dev/null
ninja -C "$work/demo" >/dev/null

cp -a "$work/demo" "$work/copy"
echo "== the bash loop (on a copy) =="
start=$(now)
for o in $(ninja -C "$work/copy" -t targets all | sed -n 's/^\([^:]*\.o\): .*/\1/p'); do
	(cd "$work/copy" && ninja -t commands -s "$o" >cmd.sh && rm -f "$o" &&
		s=$(now) && sh cmd.sh && e=$(now) && echo "$o $(minus "$e" "$s")") >>"$work/loop.txt"
done
loop_wall=$(minus "$(now)" "$start")
sort -k2 -rn "$work/loop.txt" | awk '{ printf "%2d  %-28s %7.2f s\n", NR, $1, $2 }'

echo
echo "== buildwall rank =="
start=$(now)
"$bw" rank -C "$work/demo"
rank_wall=$(minus "$(now)" "$start")

echo
awk -v l="$loop_wall" -v r="$rank_wall" \
	'BEGIN { printf "loop: %.1f s   buildwall rank: %.1f s   ratio rank/loop: %.2f\n", l, r, r / l }'
echo "(the loop also deleted and rewrote objects in its copy; rank left the original untouched)"
