# passes --kernels on the CUDA demo: ptxas -v per kernel, one more compile
# of each TU (bigtile's unrolled kernel runs out of registers and spills;
# the epilogue's does not), the cubin's code sizes, and the worst kernel
# named in the device-bound verdict. Slow: bigtile compiled twice.
# e2e: slow
# e2e: aside
. "$(dirname "$0")/lib.sh"
if command -v nvcc >/dev/null; then
	demo=$(demo_dir) || { not_ok "CUDA demo builds"; finish; exit 0; }
	before=$(tree_hash "$demo")
	run 0 "passes --kernels on the CUDA demo's kernel TUs" "$BW" passes -C "$demo" opus_gemm_bigtile.cuda.o opus_epilogue.cuda.o --parallel 2 --kernels --json
	cp "$T/out" "$T/kernels.json"
	check "--kernels leaves the build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
	# --kernels: ptxas -v per kernel. bigtile's 12-deep unroll runs out of
	# registers; the generic instance's small tile does not.
	check "--kernels (nvcc): bigtile's kernel at 255 registers, spilling" [ "$(tu_eval "$T/kernels.json" opus_gemm_bigtile.cuda.o '[(k["arch"], k["registers"], k["spill_stores_bytes"] > 10000) for k in t["kernels"]]')" = "[('sm_80', 255, True)]" ]
	check "--kernels (nvcc): the epilogue's small kernel, no spills" [ "$(tu_eval "$T/kernels.json" opus_epilogue.cuda.o 'len(t["kernels"]) > 0 and all(k["arch"] == "sm_80" and k["registers"] < 255 and k["spills"] == 0 for k in t["kernels"])')" = True ]
	check "--kernels: the device-dominant verdict names the worst kernel" [ "$(tu_eval "$T/kernels.json" opus_gemm_bigtile.cuda.o '"worst kernel " in t["verdict"]["text"] and "255 registers" in t["verdict"]["text"] and ", code " in t["verdict"]["text"]')" = True ]
	check "--kernels (nvcc): code sizes from the cubin, bigtile's 10x the small kernel's" [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c={t["target"]: t["kernels"][0]["code_bytes"] for t in d["tus"] if t["kernels"]}; s={t["target"]: t["device_code"][0]["text_bytes"] for t in d["tus"] if t["device_code"]}; print(c["opus_gemm_bigtile.cuda.o"] > 10 * c["opus_epilogue.cuda.o"] > 0 and s["opus_gemm_bigtile.cuda.o"] >= c["opus_gemm_bigtile.cuda.o"])' "$T/kernels.json")" = True ]
fi

finish
