# passes on the CUDA demo: nvcc's jobs, passes, phases and verdicts, and
# the byte-identical build dir (the toy, bad input and HIP are t61's and
# t62's; gcc's jobs on the dispatcher, t63's; --kernels, t64's; the
# optimized variant's kernel, t91's; how close the plain job walls add up
# to the plain TU wall, bench/passes_validate.sh's).
. "$(dirname "$0")/lib.sh"
# The demo, CUDA: nvcc's jobs timed by nvcc --time.
if command -v nvcc >/dev/null; then
	demo=$(demo_dir) || { not_ok "CUDA demo builds"; finish; exit 0; }
	before=$(tree_hash "$demo")
	run 0 "passes on the CUDA demo's kernel TUs" "$BW" passes -C "$demo" opus_gemm_bigtile.cuda.o opus_epilogue.cuda.o --parallel 2 --json
	cp "$T/out" "$T/cuda.json"
	quiet_stderr "$T/err" "passes on the demo"
	check "CUDA build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
	check "host jobs: gcc -E, cudafe++, gcc" [ "$(tu_eval "$T/cuda.json" opus_gemm_bigtile.cuda.o '[j["tool"] for j in t["jobs"] if j["pass"] == "host"]')" = "['gcc -E', 'cudafe++', 'gcc']" ]
	check "device jobs per arch: gcc -E, cicc (compute_80), ptxas (sm_80)" [ "$(tu_eval "$T/cuda.json" opus_gemm_bigtile.cuda.o '[(j["tool"], j["arch"]) for j in t["jobs"] if j["pass"] == "device"]')" = "[('gcc -E', 'compute_80'), ('cicc', 'compute_80'), ('ptxas', 'sm_80')]" ]
	check "every job timed, the TU's wall and the jobs' sum measured" [ "$(json "$T/cuda.json" 'all(t["wall_s"] > 0 and t["jobs_sum_s"] > 0 and all(j["wall_s"] is not None and j["wall_s"] >= 0 for j in t["jobs"]) for t in d["tus"])')" = True ]
	check "device-heavy TU: device-pass dominant" [ "$(tu_eval "$T/cuda.json" opus_gemm_bigtile.cuda.o 't["verdict"]["kind"]')" = device ]
	check "host-heavy TU: host-pass dominant" [ "$(tu_eval "$T/cuda.json" opus_epilogue.cuda.o 't["verdict"]["kind"]')" = host ]
	check "bigtile: its device pass and codegen named" [ "$(tu_eval "$T/cuda.json" opus_gemm_bigtile.cuda.o '(t["verdict"]["heaviest_pass"], t["verdict"]["phase"])')" = "('device sm_80', 'codegen')" ]
	check "epilogue: its host pass and front end named" [ "$(tu_eval "$T/cuda.json" opus_epilogue.cuda.o '(t["verdict"]["heaviest_pass"], t["verdict"]["phase"])')" = "('host', 'front_end')" ]
	check "epilogue (baseline): device pass parses torch/ATen/c10, with its front-end seconds" [ "$(tu_eval "$T/cuda.json" opus_epilogue.cuda.o '"device pass parses torch/ATen/c10" in t["verdict"]["text"] and t["verdict"]["device_framework_front_end_s"] > 0')" = True ]
	check "bigtile (framework-free by design): no framework in its device pass" [ "$(tu_eval "$T/cuda.json" opus_gemm_bigtile.cuda.o 't["verdict"]["device_frameworks"]')" = "[]" ]
	check "instrumented walls recorded beside the plain ones" [ "$(tu_eval "$T/cuda.json" opus_epilogue.cuda.o 'all(j["instrumented_wall_s"] is not None for j in t["jobs"] if j["tool"] in ("cicc", "gcc"))')" = True ]
	check "device phases from -fdevice-time-trace" [ "$(tu_eval "$T/cuda.json" opus_gemm_bigtile.cuda.o '[p for p in t["passes"] if p["pass"] == "device"][0]["phases"]["optimizer"] > 0')" = True ]
	echo "# $(tu_eval "$T/cuda.json" opus_gemm_bigtile.cuda.o 't["verdict"]["text"]')"
	echo "# $(tu_eval "$T/cuda.json" opus_epilogue.cuda.o 't["verdict"]["text"]')"
fi


finish
