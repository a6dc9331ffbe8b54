# passes on a C toy (--top, --all, a job that fails, bad options) and on
# the HIP demo (the clang driver's jobs re-run one by one): jobs, passes,
# phases, verdicts and kernels, which are shares and counts, not walls.
. "$(dirname "$0")/lib.sh"

run 2 "passes needs a TARGET, --all or --top" "$BW" passes -C .
one_line "$T/err" "usage error in one line"
run 2 "--codegen-share must be a share" "$BW" passes --codegen-share 2x --all
contains "$T/err" "--codegen-share wants a share" "names the bad option"

# --top on a gcc build: chosen from .ninja_log, cc1 + as, gcc's phases.
build_toy "$T/toy"
before=$(tree_hash "$T/toy")
run 0 "passes --top 1 on the toy" "$BW" passes -C "$T/toy" --top 1 --json
cp "$T/out" "$T/toy.json"
check "toy tree byte-identical" [ "$(tree_hash "$T/toy")" = "$before" ]
check "the slowest TU from .ninja_log" [ "$(json "$T/toy.json" '(d["method"]["chosen_by"], [t["target"] for t in d["tus"]])')" = "('.ninja_log', ['c.o'])" ]
check "gcc's jobs: cc1 then as, host pass" [ "$(tu_eval "$T/toy.json" c.o '[(j["tool"], j["pass"]) for j in t["jobs"]]')" = "[('cc1', 'host'), ('as', 'host')]" ]
check "gcc front end and combined back end read" [ "$(tu_eval "$T/toy.json" c.o 't["passes"][0]["phases"]["front_end"] > 0 and t["passes"][0]["phases"]["codegen"] > 0 and t["passes"][0]["optimizer_in_codegen"]')" = True ]
check "each job has wall, CPU and peak RSS" [ "$(tu_eval "$T/toy.json" c.o 'all(j["wall_s"] > 0 and j["cpu_s"] >= 0 and j["max_rss_kib"] > 0 for j in t["jobs"])')" = True ]
cp -a "$T/toy" "$T/nolog" && rm "$T/nolog/.ninja_log"
run 0 "passes --top 1 without .ninja_log" "$BW" passes -C "$T/nolog" --top 1 --json
check "without a log, the slowest by re-timing" [ "$(json "$T/out" '(d["method"]["chosen_by"], [t["target"] for t in d["tus"]])')" = "('re-timing', ['c.o'])" ]
run 0 "passes --all --parallel 2" "$BW" passes -C "$T/toy" --all --parallel 2 --json
check "--parallel 2: every TU probed, jobs listed and timed" [ "$(json "$T/out" '[(t["target"], t["status"], [j["tool"] for j in t["jobs"]], all(j["wall_s"] > 0 for j in t["jobs"])) for t in d["tus"]]')" = "[('a.o', 'ok', ['cc1', 'as'], True), ('b.o', 'ok', ['cc1', 'as'], True), ('c.o', 'ok', ['cc1', 'as'], True)]" ]
check "--parallel 2: build dir byte-identical" [ "$(tree_hash "$T/toy")" = "$before" ]
run 0 "passes --all table" "$BW" passes -C "$T/toy" --all
contains "$T/out" "verdict" "summary table has a verdict column"
contains "$T/out" "a.o" "summary table lists every TU"
run 0 "passes table for one TU" "$BW" passes -C "$T/toy" b.o
contains "$T/out" "verdict: host-pass dominant: the host pass holds 100% of the job time" "the detail table states the verdict and why"
contains "$T/out" "marks: host front end" "the playbook's marks stand beside the verdict"
contains "$T/out" "measured: walls, CPU and RSS of plain runs; phases from instrumented runs (-ftime-report)" "says the phases come from an instrumented run"
contains "$T/out" "jobs sum" "the detail table compares job sum and TU wall"
contains "$T/out" "cc1" "the detail table lists the jobs"

# A job that fails on its own: which job, and its output's tail; exit 3.
mkdir -p "$T/bin"
cat >"$T/bin/clang" <<'EOF'
#!/bin/sh
for a; do
	if [ "$a" = "-###" ]; then
		echo 'clang version 99 (fake)' >&2
		echo ' "/bin/true" "-cc1" "-triple" "x86_64-pc-linux-gnu"' >&2
		echo ' "/bin/sh" "-c" "echo the assembler choked >&2; exit 1"' >&2
		exit 0
	fi
done
exec gcc "$@"
EOF
chmod +x "$T/bin/clang"
TOY_CC="$T/bin/clang" build_toy "$T/fake"
before=$(tree_hash "$T/fake")
run 3 "a failing job exits 3" "$BW" passes -C "$T/fake" a.o
contains "$T/err" "a.o: job 2 of 2 (other sh) failed (exit status 1)" "names the failing job"
contains "$T/err" "the assembler choked" "shows the job's output tail"
check "fake tree byte-identical" [ "$(tree_hash "$T/fake")" = "$before" ]

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
