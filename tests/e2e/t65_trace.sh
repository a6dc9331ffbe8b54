# trace: existing traces read (the fixtures' clang and nvcc traces),
# bad and odd input, the gcc fallback on a toy, and a compile traced on
# the CUDA demo with nvcc's device header costs (HIP's are t66's). Self
# times add up to the passes' header time; the build dirs stay
# byte-identical.
. "$(dirname "$0")/lib.sh"
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)

# ---- existing traces ----
mkdir -p "$T/traces/with space"
cp "$fixtures"/traces/*.json "$T/traces/"
cp "$fixtures/timereport/cuda_nvcc13_fdevice-time-trace.json" "$T/traces/with space/<script>nvcc.json"
echo '[{"directory": "/src", "command": "cc -c a.c", "file": "a.c"}]' >"$T/traces/compile_commands.json"
run 0 "trace on a directory of traces" "$BW" trace "$T/traces" --rows 0 --json
cp "$T/out" "$T/files.json"
check "every pass apart: host, gfx90a, gfx940, sm_80, sm_90" [ "$(json "$T/files.json" '[p["name"] for p in d["passes"]]')" = "['host', 'device gfx90a', 'device gfx940', 'device sm_80', 'device sm_90']" ]
check "five traces read, one JSON file skipped" [ "$(json "$T/files.json" '(d["inputs"]["traces"], d["inputs"]["skipped"])')" = "(5, 1)" ]
contains "$T/err" "compile_commands.json: not a trace (no traceEvents); skipped" "the skipped file is named"
check "clang 19's replayed gfx90a job: its front end and headers" [ "$(json "$T/files.json" '[(p["front_end_s"], p["headers_s"]) for p in d["passes"] if p["name"] == "device gfx90a"]')" = "[(1.093871, 1.017073)]" ]
check "self times add up to each pass's header and template time" [ "$(adds_up "$T/files.json")" = True ]
check "the heaviest header and what it includes, apart" [ "$(json "$T/files.json" '[(h["name"].split("/")[-1], h["inclusive_s"], h["self_s"]) for h in d["headers"] if h["pass"] == "device gfx90a"][:2]')" = "[('__clang_hip_runtime_wrapper.h', 0.819916, 0.002327), ('complex', 0.417497, 0.000295)]" ]
check "a nested header's chain" [ "$(json "$T/files.json" '[h["included_via"][0]["via"].split("/")[-1] for h in d["headers"] if h["pass"] == "device gfx90a" and h["name"].endswith("/complex")][0]')" = "__clang_hip_runtime_wrapper.h" ]
check "nvcc's host pass is gcc's: no front end or header split" [ "$(json "$T/files.json" '[(p["front_end_s"], p["headers_s"]) for p in d["passes"] if p["name"] == "host"][0][0]')" = None ]
check "nvcc's device pass: cicc's headers and NVVM phases" [ "$(json "$T/files.json" '[(p["headers_s"], [x["name"] for x in p["phases"]][:2]) for p in d["passes"] if p["name"] == "device sm_80"][0]')" = "(0.286073, ['CUDA C++ Front-End', 'gcc (preprocessing 1)'])" ]
check "template sets fold the arguments (clang 19 and 15 host traces)" [ "$(json "$T/files.json" '[(t["count"], t["self_s"]) for t in d["template_sets"] if t["pass"] == "host" and t["name"] == "HIP_vector_type<$>"]')" = "[(54, 0.038437)]" ]
run 0 "trace --pass gfx90a --rows 2 (a table)" "$BW" trace "$T/traces" --pass gfx90a --rows 2
contains "$T/out" "device gfx90a" "the arch asked for"
check "--pass: only that arch's rows" [ "$(grep -c 'device gfx940\|device sm_\|^host ' "$T/out")" = 0 ]
contains "$T/out" "headers by inclusive parse time" "the headers table"
run 0 "trace --pass device --json" "$BW" trace "$T/traces" --pass device --json
check "--pass device: every device arch, no host" [ "$(json "$T/out" '[p["name"] for p in d["passes"]]')" = "['device gfx90a', 'device gfx940', 'device sm_80', 'device sm_90']" ]

# ---- bad input ----
head -c 5000 "$fixtures/traces/clang19_replay-host.json" >"$T/cut.json"
run 2 "a truncated trace is bad input" "$BW" trace "$T/cut.json"
contains "$T/err" "buildwall: $T/cut.json:1:5001: unexpected end of file (a truncated trace?)" "names the file, its line and column"
one_line "$T/err" "truncated trace: one line"
printf '{"traceEvents": [\n {"ph": "X", "name": "Source" "dur": 1}]}\n' >"$T/broken.json"
run 2 "broken JSON is bad input" "$BW" trace "$T/broken.json"
contains "$T/err" "broken.json:2:31: expected ',' or '}'" "line and column of the fault"
echo '{"name": "not a trace"}' >"$T/other.json"
run 0 "JSON that is no trace: a note, not an error" "$BW" trace "$T/other.json" --json
check "nothing read from it" [ "$(json "$T/out" '(d["inputs"]["traces"], d["inputs"]["skipped"], d["passes"])')" = "(0, 1, [])" ]
printf '{"traceEvents":[{"ph":"X","name":"Source","ts":1,"dur":5,"pid":1,"tid":1,"args":{"detail":"/x/caf\351.h"}}]}' >"$T/latin1.json"
run 0 "a header path that is not UTF-8" "$BW" trace "$T/latin1.json" --json
check "its name reads back with U+FFFD" [ "$(json "$T/out" '[h["name"] for h in d["headers"]] == ["/x/caf\ufffd.h"]')" = True ]
latin1_file=$(printf '%s/caf\351.json' "$T")
cp "$T/latin1.json" "$latin1_file"
run 0 "a trace whose file name is not UTF-8" "$BW" trace "$latin1_file" --json
check "its TU and file read back with U+FFFD" [ "$(json "$T/out" '[(t["tu"].endswith("caf\ufffd.json"), t["file"].endswith("caf\ufffd.json")) for t in d["tus"]]')" = "[(True, True)]" ]
run 2 "--pass wants host, device or an arch" "$BW" trace "$T/traces" --pass gpu
one_line "$T/err" "bad --pass: one line"
run 2 "a missing trace file" "$BW" trace "$T/nothing.json"
contains "$T/err" "nothing.json" "names it"
run 2 "--kernels with trace files: a usage error" "$BW" trace "$T/traces" --kernels
one_line "$T/err" "--kernels with files: one line"
run 2 "trace needs something to read or compile" "$BW" trace -C "$T"
one_line "$T/err" "no targets: one line"

# ---- gcc TUs: no trace, passes' phases instead ----
build_toy "$T/toy"
before=$(tree_hash "$T/toy")
run 0 "trace --all on a gcc toy" "$BW" trace -C "$T/toy" --all --json
contains "$T/err" "gcc writes no time trace: 3 TUs get passes' phases (-ftime-report) instead" "says why there is no trace"
check "each gcc TU gets its phases" [ "$(json "$T/out" '[(u["tu"], u["compiler"], u["passes"][0]["pass"], u["passes"][0]["phases"]["front_end"] is not None and u["passes"][0]["phases"]["codegen"] is not None) for u in d["untraced"]]')" = "[('a.o', 'gcc', 'host', True), ('b.o', 'gcc', 'host', True), ('c.o', 'gcc', 'host', True)]" ]
check "toy tree byte-identical" [ "$(tree_hash "$T/toy")" = "$before" ]

# ---- CUDA: nvcc's device traces ----
if command -v nvcc >/dev/null 2>&1 && C=$(demo_dir); then
	before=$(tree_hash "$C")
	run 0 "trace a baseline CUDA kernel TU, with its kernels" "$BW" trace -C "$C" opus_gemm_0.cuda.o --rows 0 --kernels --json
	cp "$T/out" "$T/cuda.json"
	check "CUDA: host and the sm_80 device pass" [ "$(json "$T/cuda.json" '[p["name"] for p in d["passes"]]')" = "['host', 'device sm_80']" ]
	check "CUDA: cicc's device header costs, the framework's among them" [ "$(json "$T/cuda.json" '[p["headers_s"] > 0.5 and p["frameworks_s"] > 0.2 for p in d["passes"] if p["name"] == "device sm_80"]')" = "[True]" ]
	check "CUDA: the host pass is gcc's, timed but not split" [ "$(json "$T/cuda.json" '[(p["total_s"] > 0, p["front_end_s"]) for p in d["passes"] if p["name"] == "host"]')" = "[(True, None)]" ]
	check "CUDA: self times add up" [ "$(adds_up "$T/cuda.json")" = True ]
	check "CUDA --kernels: ptxas -v and the kept cubin" [ "$(json "$T/cuda.json" '[(k["arch"], 0 < k["registers"] < 255, k["spills"], k["code_bytes"] > 0) for k in d["kernels"]]')" = "[('sm_80', True, 0, True)]" ]
	check "CUDA tree byte-identical" [ "$(tree_hash "$C")" = "$before" ]
fi
finish
