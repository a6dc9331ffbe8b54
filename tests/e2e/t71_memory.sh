# Memory: each compile's peak is its process tree's, and the job count is
# held to the memory given. Planted: a gcc that first runs three processes
# of 60 MiB side by side for 0.4 s (as nvcc runs its passes with
# --threads), so each TU's tree holds about 200 MiB while its largest
# process holds about 65; two TUs at once need about 400 MiB, which
# --memory 300M does not have (270 MiB usable): the jobs rule lowers -j to
# 1 and says what -j 2 needs. (How close the predicted peak comes to a build's is
# bench/memory_validate.sh's.)
# e2e: aside
. "$(dirname "$0")/lib.sh"

heavy=$T/heavy
mkdir -p "$heavy"
cat >"$heavy/gcc" <<'SH'
#!/bin/sh
for i in 1 2 3; do python3 -c 'import time; b = b"x" * (60 << 20); time.sleep(0.4)' & done
wait
exec gcc "$@"
SH
chmod +x "$heavy/gcc"
d=$T/toy
TOY_CC=$heavy/gcc build_toy "$d"
before=$(tree_hash "$d")

# No contention model (--contention none): more jobs are faster here
# whatever this machine's load, so the memory alone holds -j back.
run 0 "rank on the memory-heavy toy" "$BW" rank -C "$d" -j 2 --parallel 1 --contention none --json
cp "$T/out" "$T/rank.json"
echo "# peak, largest process (KiB): $(json "$T/rank.json" '[(t["target"], t["peak_kib"], t["max_rss_kib"]) for t in d["tus"]]')"
check "each TU's peak is its process tree's: its three processes at once, far above its largest" [ "$(json "$T/rank.json" 'all(t["peak_kib"] > 170 * 1024 and t["peak_kib"] > 2.5 * t["max_rss_kib"] for t in d["tus"])')" = True ]
check "the peak says how it was measured" [ "$(json "$T/rank.json" 'all(("cgroup" in t["peak_by"]) or ("sampled" in t["peak_by"]) for t in d["tus"])')" = True ]
check "rank's prediction at -j 2 carries the peak of two TUs at once" [ "$(json "$T/rank.json" '340 * 1024 < d["prediction"]["peak_kib"] < 500 * 1024')" = True ]

# The same with /proc sampled instead of a cgroup.
run 0 "rank, memory sampled from /proc" env BUILDWALL_MEMCG=0 "$BW" rank -C "$d" --parallel 1 --contention log --json c.o
check "sampled: the tree's peak too" [ "$(json "$T/out" '(d["tus"][0]["peak_kib"] > 170 * 1024, "sampled" in d["tus"][0]["peak_by"])')" = "(True, True)" ]

run 0 "sim --memory 300M from rank's document" "$BW" sim -C "$d" --from "$T/rank.json" -j 1-3 --memory 300M --json
check "sim: the fastest -j under 300M less 10 % is 1" [ "$(json "$T/out" 'd["memory"]["fastest_that_fits"]["jobs"]')" = 1 ]
check "sim: -j 2 would be faster and needs more than there is" [ "$(json "$T/out" '(lambda m: m["faster"]["jobs"] == 2 and m["faster"]["peak_kib"] > m["usable_kib"])(d["memory"])')" = True ]
run 0 "sim --memory 2G" "$BW" sim -C "$d" --from "$T/rank.json" -j 1-3 --memory 2G --json
check "sim: with room, more than one job fits, nothing faster is held back" [ "$(json "$T/out" '(d["memory"]["fastest_that_fits"]["jobs"] >= 2, d["memory"]["faster"])')" = "(True, None)" ]
run 0 "sim --memory, the table" "$BW" sim -C "$d" --from "$T/rank.json" -j 1-3 --memory 300M
contains "$T/out" "the fastest that fits: -j 1" "sim's table names the fastest that fits"
contains "$T/out" "faster: -j 2" "sim's table says what -j 2 needs"
run 2 "sim --memory without peaks: bad input" "$BW" sim -C "$d" -j 2 --memory 300M
one_line "$T/err" "sim --memory without peaks: one line"
run 2 "sim --memory 12Q: bad input" "$BW" sim -C "$d" --memory 12Q
one_line "$T/err" "a bad size: one line"

run 0 "advise -j 2 --memory 300M" "$BW" advise -C "$d" -j 2 -r 1 --memory 300M --json
cp "$T/out" "$T/advise.json"
jobs_fix() { json "$T/advise.json" "[f.get('evidence') or f.get('checked') for f in d['fixes'] + d['not_applicable'] if f['fix'] == 'jobs'][0]"; }
case $(jobs_fix) in
"-j 2 needs "*"more than the "*"usable (--memory less 10 %): the fastest that fits is -j 1, whose peak is "*) ok "advise: -j 2 does not fit, -j 1 does, said first in the jobs rule" ;;
*) not_ok "advise: -j 2 does not fit, -j 1 does, said first in the jobs rule" "$(jobs_fix)" ;;
esac
check "advise: every TU's peak measured for --memory" [ "$(json "$T/advise.json" '(d["memory"]["steps_with_peak"], d["memory"]["fastest_that_fits"]["jobs"], d["memory"]["faster"]["jobs"])')" = "(3, 1, 2)" ]
check "advise: the baseline's peak at -j 2 is more than the usable memory" [ "$(json "$T/advise.json" 'd["baseline"]["predicted"]["peak_kib"] > d["memory"]["usable_kib"]')" = True ]
# The document keeps each step's peak: the table drawn from it, and the
# plan for another box's memory, compile nothing.
run 0 "advise --from its document, the table" env PATH=/nonexistent "$BW" advise --from "$T/advise.json"
contains "$T/out" "DOES NOT FIT" "advise's table says first that -j 2 does not fit"
run 0 "advise --from --memory 2G: another box" env PATH=/nonexistent "$BW" advise --from "$T/advise.json" --memory 2G --json
check "advise --from --memory 2G: -j 2 fits there, the same peaks" [ "$(json "$T/out" '(d["memory"]["fastest_that_fits"]["jobs"], d["memory"]["limit_from"], d["baseline"]["predicted"]["peak_kib"])')" = "(2, '--memory', $(json "$T/advise.json" 'd["baseline"]["predicted"]["peak_kib"]'))" ]
# A kernel TU built for two archs: each arch's share, and the archs side
# by side (nvcc --threads 2) compiled once more: its wall and its peak.
if command -v nvcc >/dev/null 2>&1; then
	k=$T/two
	mkdir -p "$k"
	cat >"$k/k.cu" <<'CU'
__global__ void axpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}
CU
	printf 'rule nvcc\n  command = nvcc -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -c $in -o $out\nbuild k.o: nvcc k.cu\n' >"$k/build.ninja"
	ninja -C "$k" >/dev/null
	run 0 "passes on a TU of two archs" "$BW" passes -C "$k" k.o
	contains "$T/out" "archs (TORCH_CUDA_ARCH_LIST, -gencode): sm_80 " "passes: each arch's share, sm_80"
	contains "$T/out" "; sm_90 " "passes: and sm_90's"
	contains "$T/out" "--threads 2 (the 2 archs side by side): its jobs " "passes: the archs side by side, from their jobs"
	check "passes: nvcc --threads 2 compiled, its wall and its peak measured" grep -qE '^compiled so: [0-9.]+ s \(whole TU as it is [0-9.]+ s, [-+][0-9]+%\), peak [0-9]+ [KMG]i?B' "$T/out"
fi
check "the toy byte-identical after rank, sim and advise" [ "$(tree_hash "$d")" = "$before" ]
# A cgroup buildwall made (buildwall-PID-N) outlives no run of it for
# long: a group still busy when its compile ended is the guardian's to
# remove once the run ends (it waits up to 2 s for the group to empty).
stale_cgroups() {
	find /sys/fs/cgroup -maxdepth 4 -name 'buildwall-[0-9]*-[0-9]*' 2>/dev/null | while read -r cg; do
		pid=${cg##*/buildwall-}
		kill -0 "${pid%%-*}" 2>/dev/null || echo "$cg"
	done
}
for wait in 1 2 3 4 5 6; do
	left=$(stale_cgroups)
	[ -z "$left" ] && break
	sleep 0.5
done
check "no cgroup of a buildwall run that ended is left" [ -z "$left" ]
finish
