# passes on the HIP demo (Debian's clang-19, gfx90a and gfx942): the clang
# driver's jobs re-run one by one, passes per arch, phases, verdicts and
# the AMDGPU kernels. Slow: the HIP demo is built for it (t45 too).
# e2e: slow
. "$(dirname "$0")/lib.sh"

# The demo, HIP: the clang driver's jobs re-run one by one.
if command -v clang++-19 >/dev/null || command -v clang++-22 >/dev/null; then
	demo=$(demo_dir hip) || { not_ok "HIP demo builds"; finish; exit 0; }
	before=$(tree_hash "$demo")
	# Both TUs probed at once (the checks are of shares, which contention
	# leaves alone; it halves the slowest script of the suite).
	run 0 "passes on the HIP demo's planted TUs" "$BW" passes -C "$demo" opus_gemm_bigtile.cuda.o opus_epilogue.cuda.o --parallel 2 --kernels --json
	cp "$T/out" "$T/hip.json"
	check "HIP build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
	check "device jobs carry their gfx arch" [ "$(tu_eval "$T/hip.json" opus_gemm_bigtile.cuda.o '[(j["tool"], j["arch"]) for j in t["jobs"] if j["pass"] == "device"]')" = "[('cc1', 'gfx90a'), ('lld', 'gfx90a'), ('cc1', 'gfx942'), ('lld', 'gfx942')]" ]
	check "passes: host, gfx90a, gfx942, other" [ "$(tu_eval "$T/hip.json" opus_epilogue.cuda.o '[(p["pass"], p["arch"]) for p in t["passes"]]')" = "[('host', None), ('device', 'gfx90a'), ('device', 'gfx942'), ('other', None)]" ]
	check "four phases read for every cc1 job" [ "$(tu_eval "$T/hip.json" opus_gemm_bigtile.cuda.o 'all(all(v is not None for v in j["phases"].values()) for j in t["jobs"] if j["tool"] == "cc1")')" = True ]
	check "device-heavy TU: device-pass dominant (HIP)" [ "$(tu_eval "$T/hip.json" opus_gemm_bigtile.cuda.o 't["verdict"]["kind"]')" = device ]
	check "host-heavy TU: host-pass dominant (HIP)" [ "$(tu_eval "$T/hip.json" opus_epilogue.cuda.o 't["verdict"]["kind"]')" = host ]
	check "bigtile (HIP): a device pass and codegen named" [ "$(tu_eval "$T/hip.json" opus_gemm_bigtile.cuda.o '(t["verdict"]["heaviest_pass"].startswith("device gfx"), t["verdict"]["phase"])')" = "(True, 'codegen')" ]
	check "epilogue (HIP): the host pass and front end named" [ "$(tu_eval "$T/hip.json" opus_epilogue.cuda.o '(t["verdict"]["heaviest_pass"], t["verdict"]["phase"])')" = "('host', 'front_end')" ]
	check "epilogue (HIP, baseline): device pass parses torch/ATen/c10" [ "$(tu_eval "$T/hip.json" opus_epilogue.cuda.o '"device pass parses torch/ATen/c10" in t["verdict"]["text"]')" = True ]
	check "--kernels (AMDGPU): bigtile's four kernels per arch, VGPRs spilled" [ "$(tu_eval "$T/hip.json" opus_gemm_bigtile.cuda.o '[(k["arch"], k["vgprs"] > 0, k["vgpr_spills"] > 1000) for k in t["kernels"]]')" = "[('gfx90a', True, True), ('gfx90a', True, True), ('gfx90a', True, True), ('gfx90a', True, True), ('gfx942', True, True), ('gfx942', True, True), ('gfx942', True, True), ('gfx942', True, True)]" ]
	check "--kernels (AMDGPU): the epilogue's small kernel, no spills, full occupancy data" [ "$(tu_eval "$T/hip.json" opus_epilogue.cuda.o '[(k["arch"], k["spills"], k["occupancy"] > 0) for k in t["kernels"]]')" = "[('gfx90a', 0, True), ('gfx942', 0, True)]" ]
	check "--kernels (AMDGPU): code per arch from the code objects, bigtile's kernels 10x the epilogue's" [ "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); k={t["target"]: t["kernels"] for t in d["tus"]}; print([a["arch"] for a in [t for t in d["tus"] if t["target"] == "opus_gemm_bigtile.cuda.o"][0]["device_code"]] == ["gfx90a", "gfx942"] and min(x["code_bytes"] for x in k["opus_gemm_bigtile.cuda.o"]) > 10 * max(x["code_bytes"] for x in k["opus_epilogue.cuda.o"]))' "$T/hip.json")" = True ]
	check "--kernels: HIP build dir still byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
	cost=$(tu_eval "$T/hip.json" opus_epilogue.cuda.o 'round(sum(j["instrumented_wall_s"] for j in t["jobs"] if j["tool"] == "cc1") / sum(j["wall_s"] for j in t["jobs"] if j["tool"] == "cc1"), 2)')
	echo "# clang-19 -ftime-report runs $cost x the plain cc1 jobs (epilogue, HIP, probed beside bigtile)"
	echo "# $(tu_eval "$T/hip.json" opus_gemm_bigtile.cuda.o 't["verdict"]["text"]')"
	echo "# $(tu_eval "$T/hip.json" opus_epilogue.cuda.o 't["verdict"]["text"]')"
fi

finish
