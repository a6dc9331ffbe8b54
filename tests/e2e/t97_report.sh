# report: the diagnosis as one HTML page, opened in Debian's chromium
# (headless, driven by playwright-core): no console error, no request but
# the file, the timeline's bars, the passes' groups and the advice's rows as
# the documents have them; the same with JavaScript off; names from the
# build escaped; a 100k-step build still a page of a few MB.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
browser="$here/../browser"

if [ ! -x /usr/bin/chromium ] || [ ! -f "$browser/node_modules/playwright-core/package.json" ]; then
	not_ok "chromium and playwright-core installed (make test installs them: scripts/deps.sh test)"
	finish
	exit 0
fi
# look HTML PNG on|off: what the browser shows, as JSON in $T/look.json
look() {
	node "$browser/check_report.mjs" "$1" "$2" "$3" >"$T/look.json" 2>"$T/look.err" ||
		{ cat "$T/look.err" >&2; echo '{}' >"$T/look.json"; }
}
seen() { json "$T/look.json" "$1"; }

# A toy whose target and header are named <script>alert(1)</script>; the
# header leaks a stand-in torch into the TU.
X="$T/xss"
name='<script>alert(1)</script>'
mkdir -p "$X/src/<script>alert(1)<" "$X/inc/torch"
awk 'BEGIN { for (i = 0; i < 300; i++) printf "int torch_api_%d(int);\n", i }' >"$X/inc/torch/extension.h"
printf '#include <torch/extension.h>\nint leaked(void);\n' >"$X/src/$name"
printf '#include "%s"\nint f(int x) { return x + 1; }\n' "$name" >"$X/src/x.cpp"
cat >"$X/build.ninja" <<NINJA
rule cxx
  command = g++ -isystem inc -MMD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
rule link
  command = g++ -shared \$in -o \$out
build $name.o: cxx src/x.cpp
build lib.so: link $name.o
NINJA
ninja -C "$X" >/dev/null 2>&1 || not_ok "the <script> toy builds"
xss_tree=$(tree_hash "$X")
before=$xss_tree
run 0 "report on the <script> toy" "$BW" report -C "$X" -o "$T/xss.html" -j 2
check "report leaves the tree byte-identical" [ "$(tree_hash "$X")" = "$before" ]
contains "$T/out" "report: $T/xss.html" "says where the page is"
(cd "$X" && "$BW" report -o "$T/dot.html" -j 2 >/dev/null 2>&1)
contains "$T/dot.html" "<title>buildwall report: lib.so ($(basename "$X"))</title>" "-C .: the title names the library and the build dir, not ."
check "the page is there, no temp file beside it" [ -s "$T/xss.html" -a "$(ls "$T" | grep -c 'xss.html.tmp')" = 0 ]
check "the page's mode is a new file's under this umask, not the temp file's 0600" [ "$(stat -c %a "$T/xss.html")" = "$(printf '%o' $((0666 & ~$(umask))))" ]
check "no raw <script>alert in the page" sh -c "! grep -qF '<script>alert' '$T/xss.html'"
contains "$T/xss.html" "&lt;script&gt;alert(1)&lt;/script&gt;.o" "the target escaped"
look "$T/xss.html" "$T/xss.png" on
check "no dialog opens" [ "$(seen 'd["dialogs"]')" = "[]" ]
check "one script element: the page's own" [ "$(seen 'd["scripts"]')" = 1 ]
check "the target shows as text" [ "$(seen '"<script>alert(1)</script>.o" in d["text"]')" = True ]
check "the header shows as text, in the leak chain" [ "$(seen '"<script>alert(1)</script>" in d["text"].split("Leak chains")[1]')" = True ]

contains "$T/out" "advise: " "in-process: prints advise's summary"
contains "$T/out" "plan (predicted" "with the plan"
run 0 "report --json on the toy" "$BW" report -C "$X" -o "$T/xss2.html" -j 2 --json
check "the envelope: what was measured and drawn" [ "$(json "$T/out" '(d["command"], d["drawn"], d["measured"].startswith("advise"))')" = "('report', ['advise', 'log'], True)" ]
# With a history holding the module, the page draws its walls over time.
"$BW" record -C "$X" --db "$T/h.db" --label 'who=<script>alert(2)</script>' >/dev/null
run 0 "report with a history: the trend drawn" "$BW" report -C "$X" -o "$T/trend.html" -j 2 --db "$T/h.db" --json
check "history among what was drawn" [ "$(json "$T/out" '"history" in d["drawn"]')" = True ]
contains "$T/trend.html" 'class="chart trend"' "the trend chart"
contains "$T/trend.html" "who=&lt;script&gt;alert(2)&lt;/script&gt;" "its labels escaped"
check "no raw <script>alert(2) in the page" sh -c "! grep -qF '<script>alert(2)' '$T/trend.html'"

# The small demo's report, from the documents t90 saved (advise --json as
# it ran there, log --json of the same build), and those documents checked
# against what the browser shows.
demo=$(demo_dir) || { not_ok "demo module builds"; finish; exit 0; }
advise_doc "$demo"
cp "$E2E_WORK/log.json" "$T/log.json"
before=$(tree_hash "$demo")
run 0 "report of the small demo" "$BW" report --from "$T/advise.json" --from "$T/log.json" -o "$T/demo.html"
contains "$T/out" "report: $T/demo.html" "says where the page is"
look "$T/demo.html" "$T/demo.png" on
check "no console errors" [ "$(seen 'd["errors"]')" = "[]" ]
check "no request but the file itself" [ "$(seen 'd["otherRequests"]')" = "[]" ]
check "the timeline: one bar per step of the latest build" [ "$(seen 'd["timelineBars"]')" = "$(json "$T/log.json" 'len(d["steps"])')" ]
check "the timeline outlines the critical path" [ "$(seen 'd["critical"]')" = "$(json "$T/log.json" 'len(d["critical_path"])')" ]
check "the passes: one group per TU, with its device arches" [ "$(seen '[(g["tu"], [tuple(p) for p in g["passes"]]) for g in d["passGroups"]]')" = "$(json "$T/advise.json" '[(t["target"], [(p["pass"], p["arch"]) for p in t["passes"]] if t["passes"] else [("whole TU", None)]) for t in d["tus"]]')" ]
check "bigtile's device pass per arch" [ "$(seen '[p for g in d["passGroups"] if g["tu"] == "opus_gemm_bigtile.cuda.o" for p in g["passes"] if p[0] == "device"]')" = "[['device', 'sm_80']]" ]
check "the advice table: the fixes advise gives" [ "$(seen 'sorted(d["fixes"])')" = "$(json "$T/advise.json" 'sorted(f["fix"] for f in d["fixes"])')" ]
check "the plan chart: the baseline and each step" [ "$(seen 'd["planSteps"]')" = "$(json "$T/advise.json" 'len(d["plan"]) + 1')" ]
check "the jobs curve" [ "$(seen 'd["jobsPoints"] >= 8')" = True ]
check "sorting by the wall column" [ "$(seen 'd["sorted"]')" = True ]
check "a screenshot" [ -s "$T/demo.png" ]
look "$T/demo.html" "$T/demo-nojs.png" off
check "JavaScript off: the charts still show" [ "$(seen '(d["chartsVisible"], d["timelineBars"] > 0, len(d["passGroups"]))')" = "(True, True, 5)" ]

# --from: the saved documents drawn, nothing measured.
run 0 "report --from advise and log documents" "$BW" report --from "$T/advise.json" --from "$T/log.json" -o "$T/from.html" --json
check "--from: the envelope says what was drawn" [ "$(json "$T/out" '(d["command"], d["drawn"], d["bytes"] > 10000)')" = "('report', ['advise', 'log'], True)" ]
check "--from: nothing measured, the tree untouched" [ "$(tree_hash "$demo")" = "$before" ]
contains "$T/from.html" "opus/tensor_args.h:13" "--from: the leak's line to fix"
if [ -s "$E2E_WORK/ab.json" ]; then
	run 0 "report --from advise, log and ab (t90's baseline against the optimized variant)" "$BW" report --from "$T/advise.json" --from "$T/log.json" --from "$E2E_WORK/ab.json" -o "$T/ab.html"
	contains "$T/ab.html" "<dt>ab</dt>" "the headline carries ab's medians and verdict"
	check "the plan chart shows ab's measured medians beside the baseline and the last step (the baseline alone when the plan is empty)" [ "$(grep -o '<rect class="measured"' "$T/ab.html" | wc -l)" = "$(json "$T/advise.json" '2 if d["plan"] else 1')" ]
fi

# Bad input: one line, exit 2, no page.
printf '{"schema": "buildwall/1",\n  "command": oops}\n' >"$T/bad.json"
run 2 "--from a broken document" "$BW" report --from "$T/bad.json" -o "$T/bad.html"
one_line "$T/err" "--from a broken document: one line"
contains "$T/err" "bad.json:2:" "names the file and line"
check "no page left" [ ! -e "$T/bad.html" ]
printf '{"schema": "buildwall/1", "command": "pp"}\n' >"$T/pp.json"
run 2 "--from a document report does not draw" "$BW" report --from "$T/pp.json" -o "$T/pp.html"
contains "$T/err" "report draws advise, log, passes, sim, wall, ab, history and survey" "says which it draws"
run 2 "-o into a dir that is not there" "$BW" report --from "$T/log.json" -o "$T/nowhere/r.html"
one_line "$T/err" "-o nowhere: one line"
run 2 "in the build dir without -o" sh -c "cd '$X' && '$BW' report"
contains "$T/err" "name the page with -o FILE" "says to name the page"
check "nothing written into the build dir" [ "$(tree_hash "$X")" = "$xss_tree" ]
# Asked for by -o: the tree guard checks the tree before the page is written.
run 0 "-o inside the build dir: written where asked" "$BW" report -C "$X" -o "$X/page.html" -j 2
check "the page is there" [ -s "$X/page.html" ]

# Scale: a generated 100k-step log (v5) at -j 32.
python3 - "$T/big.log" <<'PY'
import random, sys
random.seed(7)
slots, lines = [0] * 32, []
for i in range(100000):
    s = min(range(32), key=lambda k: slots[k])
    d = int(random.expovariate(1 / 900)) + 5
    lines.append((slots[s] + d, slots[s], "obj/dir%d/file_%d.o" % (i % 97, i), i))
    slots[s] += d
with open(sys.argv[1], "w") as f:
    f.write("# ninja log v5\n")
    for end, start, out, i in sorted(lines):	# ninja logs steps as they end
        f.write("%d\t%d\t0\t%s\t%016x\n" % (start, end, out, i))
PY
run 0 "log --json of a 100k-step log" "$BW" log --json "$T/big.log"
mv "$T/out" "$T/big.json"
run 0 "report --from it" "$BW" report --from "$T/big.json" -o "$T/big.html"
size=$(wc -c <"$T/big.html")
echo "# 100k steps: the page is $size bytes"
check "the page stays under 5 MB" [ "$size" -lt 5000000 ]
look "$T/big.html" "$T/big.png" on
echo "# 100k steps: loaded in $(seen 'd["loadMs"]') ms, $(seen 'd["timelineBars"]') bars, $(seen 'd["aggregated"]') summed buckets"
check "it loads within 5 s" [ "$(seen 'd["loadMs"] < 5000')" = True ]
check "every step counted, short ones summed" [ "$(seen '(d["timelineSteps"], d["timelineBars"] <= 5000, d["aggregated"] > 0)')" = "(100000, True, True)" ]
check "no console errors at scale" [ "$(seen 'd["errors"]')" = "[]" ]

run 0 "report --help" "$BW" report --help
contains "$T/out" "usage: buildwall report" "report has help"
finish
