# rank on the HIP build of the demo (Debian's clang-19 or clang-22, gfx90a
# and gfx942, -nogpulib -nogpuinc): the same planted slowest TU, found
# through the clang driver. Slow: the HIP demo is built for it.
# e2e: slow
. "$(dirname "$0")/lib.sh"

if ! command -v clang++-19 >/dev/null && ! command -v clang++-22 >/dev/null; then
	not_ok "clang++-19 or clang++-22 installed (make test installs clang-19)"
	finish
	exit 0
fi
demo=$(demo_dir hip) || { not_ok "HIP demo module builds"; finish; exit 0; }
ok "HIP demo module builds"
contains "$demo/build.ninja" "--offload-arch=gfx90a --offload-arch=gfx942 -nogpulib -nogpuinc" "HIP for gfx90a and gfx942"
before=$(tree_hash "$demo")
# One TU at a time: the planted ratio is of isolated compiles; two at once
# paired bigtile with a quick TU in one run and the runner-up with another
# in the next, and the ratio read 1.2 to 1.9 on the same tree.
run 0 "rank on the HIP demo (contention from its recorded build)" "$BW" rank -C "$demo" -j 2 --contention log --json
cp "$T/out" "$T/hip.json"
check "build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
check "kernel TUs recognised as clang" [ "$(json "$T/hip.json" 'sorted(set(t["compiler"] for t in d["tus"]))')" = "['clang', 'gcc']" ]
check "planted slowest TU ranks first" [ "$(json "$T/hip.json" 'd["tus"][0]["target"]')" = opus_gemm_bigtile.cuda.o ]
echo "# slowest / runner-up = $(json "$T/hip.json" 'round(d["tus"][0]["wall_s"] / d["tus"][1]["wall_s"], 2)')"
finish
