# narrow, the fix beyond the playbook, and the demo's narrow variant
# (configure --fixes narrow: <ATen/core/Tensor.h> where only tensors are
# handled, the binding TORCH_LIBRARY with <torch/library.h>): it builds,
# its binding parses no pybind11 nor Python, and on it nothing is left to
# narrow; a candidate whose files the line removed opened before failing
# is not compiled (one TU on the demo's fake framework, one on pybind11);
# two TUs their build compiled at once are timed so; every tree
# byte-identical. (The narrow variant's wall against
# advise's prediction is bench/narrow_validate.sh's.)
# e2e: slow
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

narrow=$T/narrow
"$here/../../examples/demo-module/configure" --size small --fixes narrow "$narrow" >/dev/null
check "the narrow variant builds" ninja -C "$narrow" -j 2

# Preprocessed, the binding parses no pybind11 nor Python any more.
run 0 "pp on the narrow variant's binding" "$BW" pp -C "$narrow" opus_pybind.o --json
check "the narrowed binding parses no pybind11 or Python" [ "$(json "$T/out" '[g["name"] for t in d["tus"] for p in t["passes"] for g in p["groups"] if g["name"] in ("pybind11", "python")]')" = "[]" ]

# Nothing left to narrow: no TU includes an umbrella.
before=$(tree_hash "$narrow")
run 0 "advise on the narrow variant (the binding and the dispatcher)" "$BW" advise -C "$narrow" -j 2 -r 1 opus_pybind.o opus_dispatch.o --json
check "narrow variant: narrow does not apply, no umbrella left" [ "$(json "$T/out" '[c["checked"] for c in d["not_applicable"] if c["fix"] == "narrow"][0].startswith("no TU includes a framework")')" = True ]
check "advise leaves the narrow variant byte-identical" [ "$(tree_hash "$narrow")" = "$before" ]

# A candidate whose header opens nothing the line removed did not open
# fails as that did: it is not compiled. One TU on the demo's fake
# framework: <ATen/core/Tensor.h> on line 1, the umbrella on line 2, code
# that needs the operators' declarations (<ATen/ATen.h>'s).
demo=$(demo_dir) || { not_ok "demo module builds"; finish; exit 0; }
one=$T/one
mkdir -p "$one/src" "$one/build"
cat >"$one/src/first.cpp" <<'EOF'
#include <ATen/core/Tensor.h>
#include <torch/extension.h>

// Needs the operators' declarations: more than <ATen/core/Tensor.h> has.
const char *first_op() { return at::ops::op0::name; }
EOF
flags=$(ninja -C "$demo" -t commands opus_dispatch.o | tail -n 1 | grep -oE -- "(-isystem|-I) ?[^ ]+|-std=[^ ]+|-D[^ ]+" | tr '\n' ' ')
cat >"$one/build/build.ninja" <<EOF
rule cxx
  command = c++ -MMD -MF \$out.d $flags -O2 -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
build first.o: cxx $one/src/first.cpp
EOF
check "the one-TU module builds" ninja -C "$one/build"
one_before=$(tree_hash "$one")
run 0 "advise on the one-TU module" "$BW" advise -C "$one/build" -j 2 -r 1 --parallel 2 --json
site() { json "$T/out" "[s for f in d['fixes'] if f['fix'] == 'narrow' for s in f['probes']['sites']][0]$1"; }
cands() { site "['candidates']" | python3 -c 'import ast,sys; c=ast.literal_eval(sys.stdin.read()); print(eval(sys.argv[1]))' "$1"; }
check "narrow: first.cpp:2, its umbrella" [ "$(json "$T/out" "[(s['file'], s['line'], s['header']) for f in d['fixes'] if f['fix'] == 'narrow' for s in f['probes']['sites']]")" = "[('first.cpp', 2, '<torch/extension.h>')]" ]
check "the line removed compiled and failed with the compiler's error" [ "$(cands '(c[0]["header"], c[0]["tried"], "error:" in c[0]["error"])')" = "(None, True, True)" ]
check "<ATen/core/Tensor.h>, whose files the line removed opened, not compiled, and says why" [ "$(cands '(c[1]["header"], c[1]["tried"], c[1]["error"])')" = "('<ATen/core/Tensor.h>', False, 'first.o: not compiled: the line removed failed, having opened every file <ATen/core/Tensor.h> opens (-H)')" ]
check "<torch/library.h> compiled and failed; <ATen/ATen.h> compiled and won" [ "$(cands '(c[2]["header"], c[2]["tried"], "error:" in c[2]["error"], c[3]["header"], c[3]["tried"], c[3]["error"])')" = "('<torch/library.h>', True, True, '<ATen/ATen.h>', True, None)" ]
check "the chosen one is <ATen/ATen.h>" [ "$(site "['chosen']")" = 3 ]
check "advise leaves the one-TU module byte-identical" [ "$(tree_hash "$one")" = "$one_before" ]

# Past the first window (a framework with no entry headers: pybind11, its
# umbrella through a project header, so leak's line), the tree's headers
# that the line removed opened are not compiled either: the TU's own
# <pybind11/gil.h>, while its code needs pybind11's modules.
two=$T/two
mkdir -p "$two/src" "$two/build"
printf '#pragma once\n#include <pybind11/pybind11.h>\n' >"$two/src/binding.h"
cat >"$two/src/second.cpp" <<'EOF'
#include <pybind11/gil.h>
#include "binding.h"

// Needs pybind11's modules: more than <pybind11/gil.h> brings.
pybind11::object sys_path() { return pybind11::module_::import("sys").attr("path"); }
EOF
sed "s|$one/src/first.cpp|$two/src/second.cpp|; s|first.o|second.o|" "$one/build/build.ninja" >"$two/build/build.ninja"
check "the pybind11 TU builds" ninja -C "$two/build"
two_before=$(tree_hash "$two")
run 0 "advise on the pybind11 TU" "$BW" advise -C "$two/build" -j 2 -r 1 --parallel 2 --json
cands_of() { json "$T/out" "[c for f in d['fixes'] + d['not_applicable'] if f['fix'] == 'leak' for s in (f.get('probes') or {}).get('sites', []) if (s['file'], s['line']) == ('binding.h', 2) for c in s['candidates']]" | python3 -c 'import ast,sys; c=ast.literal_eval(sys.stdin.read()); print(eval(sys.argv[1]))' "$1"; }
check "leak: binding.h:2's line removed fails; after it only the tree's headers, none an entry" [ "$(cands_of '(c[0]["header"], c[0]["tried"], "error:" in c[0]["error"], len(c) > 2 and not any(x["entry"] for x in c[1:]))')" = "(None, True, True, True)" ]
check "<pybind11/gil.h>, which the line removed opened, not compiled, in the tree's window" [ "$(cands_of '[(x["tried"], x["error"]) for x in c if x["header"] == "<pybind11/gil.h>"]')" = "[(False, 'second.o: not compiled: the line removed failed, having opened every file <pybind11/gil.h> opens (-H)')]" ]
check "every other candidate with a verdict compiled and failed with the compiler's error" [ "$(cands_of 'all(x["tried"] and "error:" in x["error"] for x in c if x["header"] != "<pybind11/gil.h>" and x["error"])')" = True ]
check "advise leaves the pybind11 TU byte-identical" [ "$(tree_hash "$two")" = "$two_before" ]

# Two TUs that reach one project header's umbrella, compiled by their
# build at once and nothing else beside them: their walls run as the
# build ran them, both at once, one a side; each saves its walls' share
# of its baseline, its plain wall against its recorded seconds (the
# log's, as the build ran it) said; no load curve is run (the walls ran
# the build's load); --from re-plans the same. Built one at a time, each
# is timed alone.
pair=$T/pair
mkdir -p "$pair/src" "$pair/build"
printf '#pragma once\n#include <torch/extension.h>\n' >"$pair/src/args.h"
for n in a b; do
	printf '#include "args.h"\n\n// Handles tensors only.\nat::Tensor same_%s(const at::Tensor &x) { return x; }\n' "$n" >"$pair/src/$n.cpp"
done
sed "/^build /d" "$one/build/build.ninja" >"$pair/build/build.ninja"
printf 'build a.o: cxx %s/src/a.cpp\nbuild b.o: cxx %s/src/b.cpp\n' "$pair" "$pair" >>"$pair/build/build.ninja"
check "the two-TU module builds, both at once" ninja -C "$pair/build" -j 2
check "its log: the two compiles side by side" python3 -c 'import sys; r=[l.split("\t") for l in open(sys.argv[1]).read().splitlines()[1:]]; sys.exit(not (len(r) == 2 and max(int(x[0]) for x in r) < min(int(x[1]) for x in r)))' "$pair/build/.ninja_log"
pair_before=$(tree_hash "$pair")
run 0 "advise on the two-TU module" "$BW" advise -C "$pair/build" -j 2 -r 1 --parallel 2 --json
cp "$T/out" "$T/pair.json"
walls='(lambda mi: [(w["as_built"], w["at_once"], w["alone_in_build"]) for s in mi["rules"]["leak"]["sites"] for w in s["walls"]])(d["model_input"])'
check "leak's line reaches both; both timed at once as built, one wall a side" [ "$(json "$T/pair.json" "$walls")" = "[(True, 2, False), (True, 2, False)]" ]
share='(lambda mi, f: sorted(abs(t["saving_s"] - (1 - w["edited_s"][0] / w["plain_s"][0]) * mi["seconds"][mi["tus"][w["tu"]]["edge"]]) < 0.01 for t in f["tus"] for s in mi["rules"]["leak"]["sites"] for w in s["walls"] if mi["graph"][mi["tus"][w["tu"]]["edge"]]["output"] == t["target"]))(d["model_input"], [f for f in d["fixes"] if f["fix"] == "leak"][0])'
check "each saves its walls' share of its baseline" [ "$(json "$T/pair.json" "$share")" = "[True, True]" ]
logged=$(python3 -c 'import sys; print(sorted(("%s.o" % x[3][0], (int(x[1]) - int(x[0])) / 1000) for x in (l.split("\t") for l in open(sys.argv[1]).read().splitlines()[1:])))' "$pair/build/.ninja_log")
recorded='sorted((d["model_input"]["graph"][d["model_input"]["tus"][w["tu"]]["edge"]]["output"], round(w["recorded_s"], 3)) for s in d["model_input"]["rules"]["leak"]["sites"] for w in s["walls"])'
check "each wall's recorded seconds are its build's, as the log has them" [ "$(json "$T/pair.json" "$recorded")" = "$logged" ]
check "the proof says so" [ "$(json "$T/pair.json" '"all of them are timed so, one wall a side: each saves its walls'"'"' share" in [f["measured_by"] for f in d["fixes"] if f["fix"] == "leak"][0]')" = True ]
check "no load curve run: the walls ran the build's own load" [ "$(json "$T/pair.json" 'd["model_input"]["load_source"].startswith("none: a proven edit'"'"'s walls ran every TU at once as the recorded builds did")')" = True ]
run 0 "advise --from the two-TU module's document" "$BW" advise --from "$T/pair.json" --json
plan='[(f["fix"], f["tus"], f["measured_by"]) for f in d["fixes"]], [s["predicted"] for s in d["plan"]]'
check "--from re-plans it as it was planned" [ "$(json "$T/out" "$plan")" = "$(json "$T/pair.json" "$plan")" ]
check "advise leaves the two-TU module byte-identical" [ "$(tree_hash "$pair")" = "$pair_before" ]
# The same with a third TU, built one at a time: the two heaviest are
# timed alone each, as built (not all at once), the third carries what
# they saved, and the load curve is not said to stand aside; nor where
# the walls time two TUs of three.
cp -a "$pair/build" "$pair/serial"
(cd "$pair/serial" && rm -f .ninja_log .ninja_deps ./*.o ./*.d)
sed 's/same_a/same_c/' "$pair/src/a.cpp" >"$pair/src/c.cpp"
printf 'build c.o: cxx %s/src/c.cpp\n' "$pair" >>"$pair/serial/build.ninja"
check "the three-TU module builds one TU at a time" ninja -C "$pair/serial" -j 1
serial_before=$(tree_hash "$pair")
run 0 "advise on the three-TU module built one at a time" "$BW" advise -C "$pair/serial" -j 1 -r 1 --parallel 3 --json
serial_walls='(lambda mi: [(w["measured"], w["as_built"], w["at_once"], w["alone_in_build"]) for s in mi["rules"]["leak"]["sites"] for w in s["walls"]])(d["model_input"])'
check "the two heaviest timed alone, as built, one wall a side; the third carried" [ "$(json "$T/out" "$serial_walls")" = "[(True, True, 1, True), (True, True, 1, True), (False, False, 0, False)]" ]
check "the curve not said to stand aside" [ "$(json "$T/out" 'd["model_input"]["load_source"].startswith("none: a proven edit")')" = False ]
check "advise leaves it byte-identical" [ "$(tree_hash "$pair")" = "$serial_before" ]
# a.o and b.o at once, c.o after them: asked of a.o and b.o, their walls
# run at once as built, and the curve still runs for the build's c.o.
cp -a "$pair/serial" "$pair/mixed"
(cd "$pair/mixed" && rm -f .ninja_log .ninja_deps ./*.o ./*.d)
sed -i 's|^build c.o: cxx \(.*\)$|build c.o: cxx \1 \|\| a.o b.o|' "$pair/mixed/build.ninja"
check "the three-TU module builds a.o and b.o at once, then c.o" ninja -C "$pair/mixed" -j 2
mixed_before=$(tree_hash "$pair")
run 0 "advise on a.o and b.o of it" "$BW" advise -C "$pair/mixed" -j 2 -r 1 --parallel 2 a.o b.o --json
check "a.o and b.o timed at once, as built" [ "$(json "$T/out" "$walls")" = "[(True, 2, False), (True, 2, False)]" ]
check "the load curve runs: the build has a compile the walls did not time" [ "$(json "$T/out" 'd["model_input"]["load_source"].startswith("none: a proven edit")')" = False ]
check "advise leaves it byte-identical" [ "$(tree_hash "$pair")" = "$mixed_before" ]
finish
