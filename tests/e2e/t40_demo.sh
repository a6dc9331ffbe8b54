# rank on the demo module (real nvcc/clang/gcc compiles): the planted
# slowest TU ranks first, the prediction is sane, the tree is untouched.
# (How close the prediction comes to a build is bench/rank_validate.sh's.)
. "$(dirname "$0")/lib.sh"

demo=$(demo_dir) || { not_ok "demo module builds"; finish; exit 0; }
ok "demo module builds"
before=$(tree_hash "$demo")
# Two TUs at a time: the planted slowest TU (bigtile, about 3x the next
# alone) stays first whatever it is paired with (two at once read the
# ratio 1.3 to 1.7 on one tree); the ratio itself is bench/'s. The
# contention comes from the recorded build (its side-by-side pass, each
# TU compiled once more, is t30's on the toy).
run 0 "rank on the demo" "$BW" rank -C "$demo" -j 2 --parallel 2 --contention log --json
cp "$T/out" "$T/demo.json"
quiet_stderr "$T/err" "rank right after the demo's first build"
check "build dir byte-identical after rank" [ "$(tree_hash "$demo")" = "$before" ]
check "every TU of the demo ranked" [ "$(json "$T/demo.json" 'len(d["tus"])')" = 5 ]
check "planted slowest TU ranks first" [ "$(json "$T/demo.json" 'd["tus"][0]["target"]')" = opus_gemm_bigtile.cuda.o ]
echo "# slowest / runner-up = $(json "$T/demo.json" 'round(d["tus"][0]["wall_s"] / d["tus"][1]["wall_s"], 2)')"
check "prediction between slowest TU and serial sum" [ "$(json "$T/demo.json" 'd["tus"][0]["wall_s"] < d["prediction"]["wall_s"] < d["serial_sum_s"]')" = True ]
check "dependency critical path: the slowest TU, then the link" [ "$(json "$T/demo.json" '[s["target"] for s in d["prediction"]["critical_path"]]')" = "['opus_gemm_bigtile.cuda.o', 'opus_demo.so']" ]
check "contention from the recorded build" [ "$(json "$T/demo.json" 'd["prediction"]["contention"]["samples"] > 0 and "ninja_log" in d["prediction"]["contention"]["source"]')" = True ]
echo "# contention: $(json "$T/demo.json" 'd["prediction"]["contention"]')"
run 0 "sim --from the rank document" "$BW" sim -C "$demo" --from "$T/demo.json" -j 2 --json
check "sim --from takes rank's contention" [ "$(json "$T/out" '(d["contention"]["share"], d["contention"]["source"])')" = "($(json "$T/demo.json" 'd["prediction"]["contention"]["share"]'), \"rank's calibration, in the --from document\")" ]
check "rank names the bound that binds" [ "$(json "$T/demo.json" 'd["prediction"]["binds"] in ("critical path", "total work / jobs")')" = True ]
check "critical path ends at the module .so" [ "$(json "$T/demo.json" 'd["prediction"]["critical_path"][-1]["target"]')" = opus_demo.so ]

# An aiter-style tree names every object X.cuda.o: log still calls the
# dispatcher and pybind TUs host TUs, from their sources.
mkdir -p "$T/aiter"
sed 's/opus_dispatch\.o/opus_dispatch.cuda.o/g; s/opus_pybind\.o/opus_pybind.cuda.o/g' "$demo/build.ninja" >"$T/aiter/build.ninja"
sed 's/opus_dispatch\.o/opus_dispatch.cuda.o/g; s/opus_pybind\.o/opus_pybind.cuda.o/g' "$demo/.ninja_log" >"$T/aiter/.ninja_log"
run 0 "log on the demo, aiter-style names" "$BW" log -C "$T/aiter" --json
check "aiter-style demo: dispatcher and pybind TUs are host TUs" [ "$(json "$T/out" 'sorted((s["output"], s["kind"]) for s in d["steps"] if "dispatch" in s["output"] or "pybind" in s["output"])')" = "[('opus_dispatch.cuda.o', 'host TU'), ('opus_pybind.cuda.o', 'host TU')]" ]
check "aiter-style demo: the kernels are kernel TUs" [ "$(json "$T/out" 'd["by_kind"]["kernel TU"]["steps"]')" = 3 ]
finish
