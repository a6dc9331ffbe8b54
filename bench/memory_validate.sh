#!/bin/sh
# Does the memory model hold? For each BUILD_DIR (default: the small demo
# module, built here), on a copy of it:
#  1. rank --json: each TU's peak (its process tree's), --contention log,
#     RANK_PARALLEL of them re-run at once (1; a TU's peak is its own,
#     and a many-CPU host's TUs take minutes each);
#  2. at -j 1, 2, 4 and 8 (JOBS_LIST; more jobs than cores still adds memory): sim
#     --from that rank's predicted build peak against the peak of a clean
#     build at that -j (wall -n 1: the whole build's cgroup), error, and
#     whether within GOAL % (15);
#  3. the two ways of measuring a TU's peak against each other: rank with
#     a cgroup per compile and rank with /proc sampled (BUILDWALL_MEMCG=0),
#     the largest difference (where rank could make a cgroup; SAMPLED=0
#     skips it);
#  4. a build held to --memory: LIMIT (default 3/4 of the prediction at
#     the most jobs)
#     given to sim --memory, the -j it picks built in a memory cgroup whose
#     limit is LIMIT (cgroup v1 or v2 as root; else its peak measured), and
#     whether it stayed under.
# Markdown rows on stdout, to append to bench/RESULTS.md with the date,
# commit and machine.
#   bench/memory_validate.sh [BUILD_DIR...]
. "$(dirname "$0")/lib.sh"
goal=${GOAL:-15} jobs_list=${JOBS_LIST:-1 2 4 8} rank_parallel=${RANK_PARALLEL:-1}
most=$(echo "$jobs_list" | tr ' ' '\n' | sort -n | tail -n 1)
if [ $# -eq 0 ]; then
	"$here/examples/demo-module/configure" --size small "$work/demo" >/dev/null
	ninja -C "$work/demo" -j 2 >/dev/null
	set -- "$work/demo"
fi

# run_limited LIMIT_KIB DIR JOBS: a clean build of DIR at -j JOBS in a
# memory cgroup limited to LIMIT_KIB; prints its peak KiB and whether the
# kernel had to kill (oom) or the build failed, or "-" where no cgroup can
# be made here.
run_limited() {
	v1=/sys/fs/cgroup/memory
	if [ -w "$v1" ]; then
		cg=$v1/bw-memory-bench-$$
		mkdir "$cg" && echo $(($1 * 1024)) >"$cg/memory.limit_in_bytes" || { echo "- -"; return; }
		peak_file=memory.max_usage_in_bytes
	elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
		cg=/sys/fs/cgroup/bw-memory-bench-$$
		mkdir "$cg" && echo $(($1 * 1024)) >"$cg/memory.max" || { echo "- -"; return; }
		peak_file=memory.peak
	else
		echo "- -"
		return
	fi
	ninja -C "$2" -t clean >/dev/null
	if sh -c "echo \$\$ >'$cg/cgroup.procs' && exec ninja -C '$2' -j $3" >"$work/limited.log" 2>&1; then ok=built; else ok=failed; fi
	echo "$(($(cat "$cg/$peak_file") / 1024)) $ok"
	rmdir "$cg" 2>/dev/null || true
}

for dir in "$@"; do
	name=$(basename "$dir")
	copy=$work/copy-$name
	rm -rf "$copy"
	cp -a "$dir" "$copy"
	"$bw" rank -C "$copy" -j 2 --parallel "$rank_parallel" --contention log --json >"$work/rank.json" 2>"$work/rank.err"
	echo "| $name: -j | predicted build peak | measured (clean build, its cgroup) | error | within $goal % |"
	echo "|---|---|---|---|---|"
	for j in $jobs_list; do
		"$bw" sim -C "$copy" --from "$work/rank.json" -j "$j" --json >"$work/sim.json"
		"$bw" wall -C "$copy" -n 1 -j "$j" --no-control --json >"$work/wall.json" 2>/dev/null
		p=$(field "$work/sim.json" 'd["predictions"][0]["peak_kib"]')
		m=$(field "$work/wall.json" 'd["trials"][0]["peak_kib"]')
		if within "$p" "$m" "$goal"; then in=yes; else in=no; fi
		echo "| $j | $((p / 1024)) MiB | $((m / 1024)) MiB | $(percent "$p" "$m") % | $in |"
	done
	echo
	if [ "${SAMPLED:-1}" = 1 ] && grep -q '"peak_by": "cgroup' "$work/rank.json"; then
		BUILDWALL_MEMCG=0 "$bw" rank -C "$copy" -j 2 --parallel "$rank_parallel" --contention log --json >"$work/sampled.json" 2>/dev/null
		echo "$name, each TU's peak, sampled from /proc every 20 ms against its cgroup's: $(python3 - "$work/rank.json" "$work/sampled.json" <<'PY'
import json, sys
cg = {t["target"]: t["peak_kib"] for t in json.load(open(sys.argv[1]))["tus"] if t["peak_kib"]}
sa = {t["target"]: t["peak_kib"] for t in json.load(open(sys.argv[2]))["tus"] if t["peak_kib"]}
diffs = sorted((100.0 * (sa[k] - cg[k]) / cg[k], k) for k in cg if k in sa)
print("%d TUs, sampled - cgroup from %+.1f %% (%s) to %+.1f %% (%s)" % (len(diffs), diffs[0][0], diffs[0][1], diffs[-1][0], diffs[-1][1]))
PY
)"
	fi
	p8=$("$bw" sim -C "$copy" --from "$work/rank.json" -j "$most" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["predictions"][0]["peak_kib"])')
	limit=${LIMIT:-$((p8 * 3 / 4))}
	"$bw" sim -C "$copy" --from "$work/rank.json" -j "1-$most" --memory "$((limit * 1024))" --json >"$work/fit.json"
	chosen=$(field "$work/fit.json" '(d["memory"]["fastest_that_fits"] or {"jobs": 0})["jobs"]')
	if [ "$chosen" -gt 0 ]; then
		run_limited "$limit" "$copy" "$chosen" >"$work/limited"
		read -r peak how <"$work/limited"
		predicted=$(field "$work/fit.json" 'd["memory"]["fastest_that_fits"]["peak_kib"]')
		if [ "$peak" = - ]; then
			echo "$name, held to --memory $((limit / 1024)) MiB: sim picked -j $chosen (predicted peak $((predicted / 1024)) MiB); no memory cgroup can be made here to build under it"
		else
			echo "$name, held to --memory $((limit / 1024)) MiB: sim picked -j $chosen (predicted peak $((predicted / 1024)) MiB); built in a cgroup limited to it: $how, peak $((peak / 1024)) MiB"
		fi
	else
		echo "$name, held to --memory $((limit / 1024)) MiB: no -j fits"
	fi
	echo
done
