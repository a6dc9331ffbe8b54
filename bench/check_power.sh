#!/bin/sh
# check's gate against realistic noise: how often it says "over" (exit 1)
# when a regression of 0, 5, 10, 20 or 50 % is planted, at 3 and 5 builds
# a side, with and without the outlier fence.
#
# The noise is this machine's: BUILDS clean rebuilds (buildwall wall -n)
# of a small g++ tree (TUS template-heavy TUs at -j JOBS), each wall's
# log over their median a residual. The simulation (check_power.c, with
# check's own regression_judge) draws each build's wall from those
# residuals, a build cold with probability COLD slower by COLD_FACTOR
# (2.27: the issue's cold-cache build, 8.4 s against 3.7 s), and forces
# one cold build into the reference in a second scenario.
#
# Then the drift between sittings: SITTINGS sets (default 5) of PER
# clean builds (5) each, GAP seconds apart (60), each build with the
# control compile of its trial (wall -C times it before and after each);
# the simulator's --sittings mode judges a reference from one sitting
# against a candidate from another, on the raw walls and in units of the
# controls, as measured and with 0-25 % more drift (SITTINGS=0: skip).
#
# NEIGHBOUR=1 plants a shared runner's neighbour through all of it: a
# loop busy on one CPU for spans of 1-60 s, idle for as long (random),
# so a quiet machine shows the noise and the drift a busy one has.
# SITTINGS_OUT=FILE keeps the sittings' builds ("SITTING WALL CONTROL"
# lines), so the simulator can judge them again (bench/data/).
#
# BUILDS (default 16), TUS (4), JOBS (2), TRIALS (4000), COLD (0.1),
# COLD_FACTOR (2.27), CHECK_POWER (the simulator; default: make builds it).
. "$(dirname "$0")/lib.sh"
if [ "${NEIGHBOUR:-0}" = 1 ]; then
	span() { echo $(($(od -An -N2 -tu2 /dev/urandom) % 60 + 1)); }
	(
		trap 'exit 0' TERM
		while :; do
			timeout "$(span)" sh -c 'while :; do :; done' || true
			sleep "$(span)"
		done
	) 2>/dev/null &
	neighbour=$!
	trap 'kill "$neighbour" 2>/dev/null; pkill -P "$neighbour" 2>/dev/null; rm -rf "$work"' EXIT
	echo "# a neighbour busy on one CPU for spans of 1-60 s, idle for as long"
fi
builds=${BUILDS:-16} tus=${TUS:-4} jobs=${JOBS:-2}
sim=${CHECK_POWER:-}
if [ -z "$sim" ]; then
	make -s -C "$here" build/bench/check_power
	sim=$here/build/bench/check_power
fi

tree=$work/tree
mkdir -p "$tree"
{
	printf 'rule cxx\n  command = g++ -O1 -std=c++17 -fPIC -c $in -o $out\n'
	printf 'rule link\n  command = g++ -shared $in -o $out\n'
	objs=
	i=0
	while [ "$i" -lt "$tus" ]; do
		printf 'build tu_%d.o: cxx tu_%d.cpp\n' "$i" "$i"
		objs="$objs tu_$i.o"
		i=$((i + 1))
	done
	printf 'build toy.so: link%s\n' "$objs"
} >"$tree/build.ninja"
i=0
while [ "$i" -lt "$tus" ]; do
	# std::regex and a map of functions per TU: about 3 s of g++ each here
	cat >"$tree/tu_$i.cpp" <<CPP
#include <functional>
#include <map>
#include <regex>
#include <string>
int tu_$i(const std::string &s) {
	std::map<std::string, std::function<int(int)>> m{{"a", [](int x) { return x + $i; }}};
	std::regex r("([a-z]+)_$i");
	std::smatch g;
	return std::regex_search(s, g, r) ? m["a"]((int)g.size()) : 0;
}
CPP
	i=$((i + 1))
done
ninja -C "$tree" >"$work/ninja.out" || { cat "$work/ninja.out"; exit 3; }
"$bw" wall -C "$tree" -n "$builds" -j "$jobs" --no-control --json >"$work/wall.json"
python3 - "$work/wall.json" "$work/residuals" <<'PY'
import json, math, statistics, sys
walls = [t["wall_s"] for t in json.load(open(sys.argv[1]))["trials"]]
median = statistics.median(walls)
open(sys.argv[2], "w").write("".join(f"{math.log(w / median):.6f}\n" for w in walls))
print("# walls: " + " ".join(f"{w:.2f}" for w in walls))
print(f"# {len(walls)} clean builds of the toy tree: median {median:.2f} s, "
      f"least {min(walls):.2f}, most {max(walls):.2f} (spread {100 * (max(walls) - min(walls)) / median:.1f} %)")
PY
for scale in 1 2; do
	[ "$scale" = 1 ] || echo "# the same, the residuals doubled: a machine twice as noisy"
	"$sim" "$work/residuals" "${TRIALS:-4000}" "${COLD:-0.1}" "${COLD_FACTOR:-2.27}" "$scale"
done

sittings=${SITTINGS:-5} per=${PER:-5} gap=${GAP:-60}
[ "$sittings" -gt 0 ] || exit 0
echo "# drift between sittings: $sittings sittings of $per clean builds, $gap s apart, each with its control"
: >"$work/sittings"
s=0
while [ "$s" -lt "$sittings" ]; do
	[ "$s" = 0 ] || sleep "$gap"
	"$bw" wall -C "$tree" -n "$per" -j "$jobs" --json >"$work/sitting.json"
	python3 - "$work/sitting.json" "$s" >>"$work/sittings" <<'PY'
import json, sys
for t in json.load(open(sys.argv[1]))["trials"]:
    print(sys.argv[2], t["wall_s"], t["control_s"])
PY
	s=$((s + 1))
done
sed 's/^/# sitting, wall, control: /' "$work/sittings"
[ -z "${SITTINGS_OUT:-}" ] || cp "$work/sittings" "$SITTINGS_OUT"
"$sim" --sittings "$work/sittings" "${TRIALS:-4000}"
