# passes on a C toy: --top, --all, gcc's phases, a job that fails, bad
# options, the byte-identical tree (the demo: t60 with nvcc, t62 with HIP).
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

finish
