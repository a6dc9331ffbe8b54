# trace on the HIP demo: every job traced, both device arches apart, the
# framework's headers in the baseline kernel's device passes but not the
# optimized one's, --kernels per arch, --project; the build dirs stay
# byte-identical. Slow: the HIP demo built, and a kernel TU traced.
# e2e: slow
. "$(dirname "$0")/lib.sh"

# ---- HIP: every job traced, both arches apart ----
if command -v clang++-19 >/dev/null 2>&1 && H=$(demo_built_for hip opus_gemm_0.cuda.o); then
	before=$(tree_hash "$H")
	run 0 "trace a baseline HIP kernel TU, with its kernels" "$BW" trace -C "$H" opus_gemm_0.cuda.o --rows 0 --kernels --json
	cp "$T/out" "$T/hip.json"
	check "HIP: host and both device arches, each traced" [ "$(json "$T/hip.json" '[(p["name"], p["tus"], p["total_s"] > 0) for p in d["passes"]]')" = "[('host', 1, True), ('device gfx90a', 1, True), ('device gfx942', 1, True)]" ]
	check "HIP baseline: the framework's headers cost each device pass time" [ "$(json "$T/hip.json" 'all(p["frameworks_s"] > 0.2 and p["frameworks_s"] < p["headers_s"] for p in d["passes"])')" = True ]
	check "HIP: pybind11 parsed in the gfx942 pass, via the launcher" [ "$(json "$T/hip.json" '[h["included_via"][0]["via"].split("/")[-1] for h in d["headers"] if h["pass"] == "device gfx942" and h["name"].endswith("pybind11/pybind11.h")]')" = "['launcher.h']" ]
	check "HIP: self times add up" [ "$(adds_up "$T/hip.json")" = True ]
	# which short headers a trace records depends on the granularity and the
	# load; launcher.h (it includes pybind11) always is
	check "HIP: the project's own headers (its -I dir outside /usr) are the project's, in every pass" [ "$(json "$T/hip.json" 'all([g["headers"] for g in p["header_groups"] if g["group"] == "project"] == [sum(1 for h in d["headers"] if h["pass"] == p["name"] and "/demo-module/include/" in h["name"])] and any(h["pass"] == p["name"] and h["name"].endswith("/opus/launcher.h") for h in d["headers"]) for p in d["passes"])')" = True ]
	check "HIP --kernels: the kernel per arch from the traced device jobs, with its code" [ "$(json "$T/hip.json" '[(k["arch"], k["vgprs"] > 0, k["spills"], k["code_bytes"] > 0) for k in d["kernels"]]')" = "[('gfx90a', True, 0, True), ('gfx942', True, 0, True)]" ]
	check "HIP: the traced compile beside the build's own time" [ "$(json "$T/hip.json" 'd["tus"][0]["traced_compile_s"] > 0 and d["tus"][0]["logged_s"] > 0')" = True ]
	check "HIP tree byte-identical" [ "$(tree_hash "$H")" = "$before" ]
	O=$T/hip-optimized
	"$(dirname "$0")/../../examples/demo-module/configure" --size small --variant optimized --backend hip "$O" >/dev/null
	run 0 "trace the optimized HIP kernel TU" "$BW" trace -C "$O" opus_gemm_0.cuda.o --rows 0 --json
	check "HIP optimized: no framework header in any device pass" [ "$(json "$T/out" '[(p["name"], p["frameworks_s"]) for p in d["passes"] if p["name"] != "host"]')" = "[('device gfx90a', 0.0), ('device gfx942', 0.0)]" ]
	# --project on the optimized TU (a second of compiling, not thirteen).
	run 0 "trace --project: another root" "$BW" trace -C "$O" opus_gemm_0.cuda.o --project "$O" --json
	check "--project the build dir: none of the demo's headers is the project's" [ "$(json "$T/out" '[g["group"] for p in d["passes"] for g in p["header_groups"] if g["group"] == "project"]')" = "[]" ]
	root=$(cd "$(dirname "$0")/../.." && pwd)
	run 0 "trace --project, relative to where it runs (not to -C)" sh -c 'cd "$1" && shift && exec "$@"' sh "$root" \
		"$BW" trace -C "$O" opus_gemm_0.cuda.o --project examples/demo-module/include --json
	check "--project examples/demo-module/include: the demo's headers are the project's in every pass" [ "$(json "$T/out" '[[g["headers"] > 0 for g in p["header_groups"] if g["group"] == "project"] for p in d["passes"]]')" = "[[True], [True], [True]]" ]
	run 2 "trace --project that is no directory" "$BW" trace -C "$O" opus_gemm_0.cuda.o --project "$O/build.ninja"
	contains "$T/err" "--project $O/build.ninja: not a directory" "says so, in one line"
fi
finish
