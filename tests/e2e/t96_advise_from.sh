# advise --from: the model end to end on fixed numbers. The document is a
# real advise --json run on the small demo (-j 2, the default rounds, on a
# 2-core VM), checked in: its saved measurements re-planned for other job
# counts and policies, compiling nothing, give the plan, ranges and binds
# asserted here exactly, and hold the model's own arithmetic (a serial
# build is the sum of its steps, the critical path is the longest chain
# of the saved graph). report draws it; older or broken documents are
# refused in one line.
# e2e: aside
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
DOC=$here/../fixtures/advise/demo-small.json
cp "$DOC" "$T/doc.json"
# Nothing on the PATH: nothing is compiled, and nothing asked of ninja.
bw_from() { env PATH=/nonexistent "$BW" advise --from "$@"; }

run 0 "advise --from the document, its own -j" bw_from "$T/doc.json" --json
cp "$T/out" "$T/same.json"
# (what the document holds, each field of it: fields a later format adds,
# as a fix's "proven", are not the document's to compare)
check "the plan, fixes, baseline, end and jobs curve as the document saved them, to the last digit" [ "$(python3 -c '
import json, sys
def held(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: held(a[k], b[k]) if k in a else b[k] for k in b if k in a}
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [held(x, y) for x, y in zip(a, b)]
    return b
a, b = (json.load(open(f)) for f in sys.argv[1:])
print([k for k in a if k not in ("from", "spent_s") and a[k] != held(a[k], b.get(k))])' "$DOC" "$T/same.json")" = "[]" ]
check "--from: says where from, and this run compiled nothing" [ "$(json "$T/same.json" '(d["from"] == "'"$T/doc.json"'", d["spent_s"]["probes"], d["spent_s"]["baseline"])')" = "(True, 0.0, 0.0)" ]
check "the baseline at -j 2 reproduces the recorded build within 10 % (the load curve isolates, the scheduler inverts)" [ "$(json "$T/same.json" 'abs(d["baseline"]["predicted"]["wall_s"] - d["baseline"]["recorded_wall_s"]) <= 0.1 * d["baseline"]["recorded_wall_s"]')" = True ]
check "-j 2: narrow, launchers and fused, down to the codegen-bound kernel's chain; the last step within the one before's noise" [ "$(json "$T/same.json" '[(s["fix"], s["predicted"]["wall_s"], s["predicted"]["range_s"], s["predicted"]["binds"], s["beyond_noise"]) for s in d["plan"]]')" = "[('narrow', 21.895, [20.45, 23.81], 'critical path', True), ('launchers', 21.635, [20.146, 23.584], 'critical path', True), ('fused', 21.476, [20.024, 23.451], 'critical path', False)]" ]

# -j 1: the same measurements, another plan.
run 0 "advise --from, -j 1" bw_from "$T/doc.json" -j 1 --json
cp "$T/out" "$T/j1.json"
check "-j 1: the serial baseline is the sum of the saved steps" [ "$(python3 -c 'import json,sys; d, s = (json.load(open(f)) for f in sys.argv[1:]); print(abs(d["baseline"]["predicted"]["wall_s"] - sum(x or 0 for x in s["model_input"]["seconds"])) < 0.0015)' "$T/j1.json" "$DOC")" = True ]
check "-j 1: the critical path is the longest chain of the saved graph" [ "$(python3 -c '
import json, sys
d, s = (json.load(open(f)) for f in sys.argv[1:])
g, sec, memo = s["model_input"]["graph"], s["model_input"]["seconds"], {}
def longest(i):
    if i not in memo:
        memo[i] = (sec[i] or 0) + max([longest(k) for k in g[i]["deps"]] or [0])
    return memo[i]
print(abs(max(longest(i) for i in range(len(g))) - d["baseline"]["predicted"]["critical_path_s"]) < 0.0015)' "$T/j1.json" "$DOC")" = True ]
check "-j 1: the plan is more jobs, then the -j 2 plan; their walls, ranges and binds" [ "$(json "$T/j1.json" '[(s["fix"], s["predicted"]["wall_s"], s["predicted"]["range_s"], s["predicted"]["binds"], s["beyond_noise"]) for s in d["plan"]]')" = "[('jobs', 31.335, [29.443, 33.934], 'total work / jobs', True), ('narrow', 21.895, [20.45, 23.81], 'critical path', True), ('launchers', 21.635, [20.146, 23.584], 'critical path', True), ('fused', 21.476, [20.024, 23.451], 'critical path', False)]" ]
check "-j 1: more jobs alone gives the -j 2 baseline (the 2 CPUs it was measured on)" [ "$(python3 -c 'import json,sys; d, s = (json.load(open(f)) for f in sys.argv[1:]); print([f["predicted"]["wall_s"] for f in d["fixes"] if f["fix"] == "jobs"] == [s["baseline"]["predicted"]["wall_s"]])' "$T/j1.json" "$DOC")" = True ]
check "-j 1: every fix alone, lowest wall first" [ "$(json "$T/j1.json" '[(f["fix"], f["predicted"]["wall_s"]) for f in d["fixes"]]')" = "[('jobs', 31.335), ('narrow', 37.367), ('launchers', 46.615), ('split', 49.392), ('leak', 51.358), ('fused', 51.905), ('flat', 55.498), ('pch', 59.618)]" ]
check "every predicted wall lies in its range" [ "$(json "$T/j1.json" 'all(p["range_s"][0] <= p["wall_s"] <= p["range_s"][1] for p in [d["baseline"]["predicted"]] + [s["predicted"] for s in d["plan"]] + [f["predicted"] for f in d["fixes"]])')" = True ]
check "the measured parts carried over: probes, lines, kernel work" [ "$(python3 -c 'import json,sys; d, s = (json.load(open(f)) for f in sys.argv[1:]); print(all(d[k] == s[k] for k in ("probes", "tus", "kernel_work", "measured")))' "$T/j1.json" "$DOC")" = True ]
# pch: its evidence saved with the rest (the PCH built with the
# dispatcher's command, both host TUs with and without it): re-planned, it
# saves less work than its build costs, at any -j.
check "pch: from the document's evidence, it pays at no job count" [ "$(json "$T/j1.json" '[f["evidence"].split("; ")[-2] for f in d["fixes"] if f["fix"] == "pch"]')" = "['it saves 2.7 s of work against 6.0 s to build it: it pays at no job count']" ]
# The same with a PCH that builds in 0.5 s: at -j 1 its wall alone is the
# serial sum less its savings plus its build, a step of its own.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["model_input"]["rules"]["pch"]["groups"][0]["build_s"] = [0.5, 0.5, 0.5]; json.dump(d, open(sys.argv[2], "w"))' "$DOC" "$T/cheap.json"
run 0 "advise --from, a cheaper PCH, -j 1" bw_from "$T/cheap.json" -j 1 --json
check "a cheaper PCH at -j 1: the serial sum less its savings plus its build" [ "$(python3 -c '
import json, sys
d, s = (json.load(open(f)) for f in sys.argv[1:])
pch = [f for f in d["fixes"] if f["fix"] == "pch"][0]
m = s["model_input"]
build = 0.5 * m["tus"][m["rules"]["pch"]["groups"][0]["donor"]]["scale"]
want = d["baseline"]["predicted"]["wall_s"] - sum(t["saving_s"] for t in pch["tus"]) + build
print(abs(pch["predicted"]["wall_s"] - want) < 0.0015 and "and at -j 1 the wall goes" in pch["evidence"])' "$T/out" "$DOC")" = True ]
run 0 "advise --from, -j 8" bw_from "$T/doc.json" -j 8 --json
check "-j 8: more jobs than the 2 CPUs measured on: the jobs rule does not apply, with the numbers" [ "$(json "$T/out" '[c["checked"] for c in d["not_applicable"] if c["fix"] == "jobs"]')" = "['-j 8 for 5 compile steps on 2 CPUs']" ]
run 0 "advise --from, --policy critical" bw_from "$T/doc.json" --policy critical --json
check "--policy: the policy it was asked" [ "$(json "$T/out" 'd["policy"]')" = critical ]

run 0 "advise --from, the table" bw_from "$T/doc.json" -j 1
contains "$T/out" "predicted wall at -j 1 (manifest order: installed ninja" "the table: the job count asked, the document's policy"
contains "$T/out" "re-planned from $T/doc.json in " "the table says it re-planned, compiling nothing"
contains "$T/out" "kernel work: opus_gemm_bigtile.cuda.o: machine code generation is" "the table names the kernel work"
check "the table: each plan step beyond noise, yes or no (the document's probes ran 3 rounds)" [ "$(grep -cE '^ +[1-9][0-9]* +[a-z]+ .*  (yes|no: overlaps the step before)  ' "$T/out")" = 4 ]

# report draws the document, and the one re-planned from it.
run 0 "report --from the checked-in document" "$BW" report --from "$T/doc.json" -o "$T/page.html"
contains "$T/page.html" "opus_gemm_bigtile.cuda.o" "the page names the TUs"
run 0 "report --from the re-planned document" "$BW" report --from "$T/j1.json" -o "$T/page-j1.html"
contains "$T/page-j1.html" "narrow" "the page draws the plan"

# Older and broken documents: one line, exit 2.
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["model_input"]; json.dump(d, open(sys.argv[2], "w"))' "$DOC" "$T/old.json"
run 2 "a document from before model_input" bw_from "$T/old.json"
one_line "$T/err" "older: one line"
contains "$T/err" "buildwall: $T/old.json:1: an advise document without its saved measurements (model_input): made by an older buildwall" "older: says so"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["model_input"]["format"] = 99; json.dump(d, open(sys.argv[2], "w"))' "$DOC" "$T/newer.json"
run 2 "a document of another format" bw_from "$T/newer.json"
one_line "$T/err" "another format: one line"
contains "$T/err" "model_input format of another buildwall; this buildwall reads format 1" "another format: says so"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["model_input"]["graph"][0]["deps"] = [99]; json.dump(d, open(sys.argv[2], "w"))' "$DOC" "$T/graph.json"
run 2 "a graph step that needs a step it does not have" bw_from "$T/graph.json"
contains "$T/err" "buildwall: $T/graph.json: model_input.graph[0].deps[0]: not another step's index" "a broken field is named"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["model_input"]["seconds"][1] = -3; json.dump(d, open(sys.argv[2], "w"))' "$DOC" "$T/negative.json"
run 2 "a negative duration" bw_from "$T/negative.json"
contains "$T/err" "model_input.seconds[1]: -3 is out of range" "a negative duration is named"
head -c 2000 "$DOC" >"$T/cut.json"
run 2 "a document cut short" bw_from "$T/cut.json"
one_line "$T/err" "cut short: one line"
contains "$T/err" "buildwall: $T/cut.json:" "cut short: names the file and the place"
printf '{"schema": "buildwall/1", "version": 1, "command": "rank", "tus": []}\n' >"$T/rank.json"
run 2 "a rank document" bw_from "$T/rank.json"
contains "$T/err" "not an 'advise --json' document: command is rank" "another command's document is named"
run 2 "no such document" bw_from "$T/none.json"
one_line "$T/err" "missing: one line"
run 2 "--from with options that measure" "$BW" advise --from "$T/doc.json" -C "$T" -r 3
contains "$T/err" "--from re-plans saved measurements: only -j, --policy, --remote, --memory, --patch and --json go with it" "says which options go with --from"
run 2 "--from --remote on a document made without a cluster" bw_from "$T/doc.json" --remote 4
one_line "$T/err" "no cluster: one line"
contains "$T/err" "its measurements hold no cluster (made without --remote)" "no cluster: says how to measure one"
check "the document is left as it was" cmp -s "$DOC" "$T/doc.json"
finish
