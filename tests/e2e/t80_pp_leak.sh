# pp and leak: the planted leak chain of the demo's dispatcher and its
# line to fix (past the TU's own <Python.h>, which comes first), the kernel TUs whose device pass parses the framework (CUDA
# and HIP), none of it in the optimized variant, preprocessed files and
# stdin, counts against awk, bad input, a TU that fails to preprocess, and
# the build dir left byte-identical.
# e2e: aside
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
configure=$here/../../examples/demo-module/configure
chain='src/opus_dispatch.cpp -> opus/dispatch.h -> opus/instances.h -> opus/tensor_args.h -> <torch/extension.h>'

# The baseline demo as it is built for the other tests (the default backend).
D=$(demo_dir) || { not_ok "demo module builds"; finish; exit 0; }
before=$(tree_hash "$D")
run 0 "leak on the dispatcher" "$BW" leak -C "$D" opus_dispatch.o
contains "$T/out" "$chain" "the planted chain, down to the heavy header"
contains "$T/out" "line to fix: opus/tensor_args.h:13 includes <torch/extension.h>" "names the planted project header and its line"
contains "$T/out" "first match: <Python.h>" "the TU's own <Python.h> comes first"
contains "$T/out" "  the chain: examples/demo-module/$chain" "and the line to fix is on torch's chain, past it"
check "the include line is the one in the header" [ "$(sed -n 13p "$here/../../examples/demo-module/include/opus/tensor_args.h")" = "#include <torch/extension.h>" ]
run 0 "leak --json" "$BW" leak -C "$D" opus_dispatch.o --json
check "JSON: the fix, and the files of the chain it is on" [ "$(json "$T/out" '(d["tus"][0]["passes"][0]["fix"], [[l["file"] for l in c["links"]][1:] for c in d["tus"][0]["passes"][0]["chains"]][:2])')" = "({'file': 'opus/tensor_args.h', 'line': 13}, [['<Python.h>'], ['opus/dispatch.h', 'opus/instances.h', 'opus/tensor_args.h', '<torch/extension.h>']])" ]
check "JSON: the first match is the TU's own Python; torch brings in most of the TU" [ "$(json "$T/out" 'd["tus"][0]["passes"][0]["first_match"]["group"] == "python" and d["tus"][0]["passes"][0]["chains"][1]["lines"] > 50000')" = True ]

run 0 "pp --all" "$BW" pp -C "$D" --all
contains "$T/out" "2 TUs parse a host-only framework in a device pass" "the kernel TUs whose device pass parses it are counted"
run 0 "pp --all --json" "$BW" pp -C "$D" --all --json
cp "$T/out" "$T/all.json"
marked() { json "$1" 'sorted(t["target"] for t in d["tus"] if "torch" in t["device_parses_host_only"])'; }
check "marked: the epilogue and the generic instance, not bigtile" [ "$(marked "$T/all.json")" = "['opus_epilogue.cuda.o', 'opus_gemm_0.cuda.o']" ]
check "every TU has a host pass; kernel TUs a device pass" [ "$(json "$T/all.json" '[(t["target"], [p["device"] for p in t["passes"]]) for t in d["tus"]][0][1]')" = "[False, True]" ]
check "host totals add up: code + markers" [ "$(json "$T/all.json" 'all(p["total_lines"] == p["code_lines"] + p["marker_lines"] == sum(g["lines"] for g in p["groups"]) + p["marker_lines"] for t in d["tus"] for p in t["passes"])')" = True ]
check "the dispatcher's host pass parses torch" [ "$(json "$T/all.json" '[t for t in d["tus"] if t["target"] == "opus_dispatch.o"][0]["passes"][0]["heavy_groups"]')" = "['torch', 'pybind11', 'python']" ]
check "pp and leak left the build dir byte-identical" [ "$(tree_hash "$D")" = "$before" ]

# One TU in detail, against awk over the same -E output.
run 0 "pp one TU" "$BW" pp -C "$D" opus_dispatch.o --top 3
contains "$T/out" "heavy host-only headers are parsed here: torch/ATen/c10" "the heavy group note"
contains "$T/out" "'buildwall leak opus_dispatch.o'" "points at leak"
src=$(ninja -C "$D" -t commands opus_dispatch.o | tail -n 1)
# The same command, preprocessed by hand: its flags, -c and -o replaced by
# -E, and no depfile (-MMD -MF), which would land in the shared demo dir
# while the other lane probes it.
pp_cmd=$(printf '%s\n' "$src" | sed -e 's/ -c / /' -e 's/ -o [^ ]*//' -e 's/ -MMD//' -e 's/ -MF [^ ]*//')
(cd "$D" && eval "$pp_cmd -E" >"$T/dispatch.ii")
check "the hand -E left the demo dir as it was" [ "$(tree_hash "$D")" = "$before" ]
run 0 "pp FILE.ii of the same TU" "$BW" pp "$T/dispatch.ii" --json
check "same total as the TU's own run" [ "$(json "$T/out" 'd["tus"][0]["passes"][0]["total_lines"]')" = "$(json "$T/all.json" '[t for t in d["tus"] if t["target"] == "opus_dispatch.o"][0]["passes"][0]["total_lines"]')" ]
check "total = awk's NR" [ "$(json "$T/out" 'd["tus"][0]["passes"][0]["total_lines"]')" = "$(awk 'END { print NR }' "$T/dispatch.ii")" ]
awk -f "$here/../unit/pp_ref.awk" "$T/dispatch.ii" | tail -n +2 | sort -t "$(printf '\t')" -k1,1nr -k2 | head -n 1 >"$T/top"
check "top file and its lines = awk's" [ "$(json "$T/out" '"%d\t%s" % (d["tus"][0]["passes"][0]["top_files"][0]["lines"], d["tus"][0]["passes"][0]["top_files"][0]["marker_name"])')" = "$(cat "$T/top")" ]
run 0 "pp - (stdin)" sh -c "'$BW' pp - --json <'$T/dispatch.ii'"
check "stdin counts the same" [ "$(json "$T/out" 'd["tus"][0]["passes"][0]["total_lines"]')" = "$(awk 'END { print NR }' "$T/dispatch.ii")" ]
run 0 "leak FILE.ii" "$BW" leak "$T/dispatch.ii" --project "$here/../../examples/demo-module"
contains "$T/out" "opus/tensor_args.h -> " "the chain from a file (names spelled from the project)"
run 0 "leak --pattern" "$BW" leak -C "$D" opus_dispatch.o --pattern '/opus/gemm_args\.h$'
contains "$T/out" "-> opus/tensor_args.h -> opus/gemm_args.h" "a pattern of the user's own"

# The optimized variant: no leak, no device pass parsing the framework.
O=$T/optimized
"$configure" --size small --variant optimized "$O" >/dev/null
run 0 "leak on the optimized dispatcher" "$BW" leak -C "$O" opus_dispatch.o
contains "$T/out" "nothing leaks in" "no chain in the optimized dispatcher"
run 0 "pp --all on the optimized variant" "$BW" pp -C "$O" --all --json
check "no TU's device pass parses the framework" [ "$(json "$T/out" 'sum(len(t["device_parses_host_only"]) for t in d["tus"])')" = 0 ]
check "the optimized dispatcher is lean" [ "$(json "$T/out" '[t for t in d["tus"] if t["target"] == "opus_dispatch.o"][0]["passes"][0]["weight"]')" = lean ]

# HIP (clang-19): device passes per arch, from -###.
if command -v clang++-19 >/dev/null 2>&1; then
	H=$T/hip
	"$configure" --size small --backend hip "$H" >/dev/null
	run 0 "pp --all on HIP" "$BW" pp -C "$H" --all --json
	check "HIP: gfx90a and gfx942 device passes" [ "$(json "$T/out" '[p["pass"] for p in d["tus"][0]["passes"]]')" = "['host', 'device gfx90a', 'device gfx942']" ]
	check "HIP: the same TUs marked" [ "$(marked "$T/out")" = "['opus_epilogue.cuda.o', 'opus_gemm_0.cuda.o']" ]
	run 0 "leak --device on a HIP kernel TU" "$BW" leak -C "$H" opus_gemm_0.cuda.o --device
	contains "$T/out" "device gfx942 pass" "the device passes are followed too"
	contains "$T/out" "opus/launcher.h -> <pybind11/pybind11.h>" "the kernel's chain to pybind11"
fi

# Bad input: one line, file:line, exit 2; no crash on odd but valid input.
printf '# 1 "x.c"\nint a;\n# 2 "unterminated\n' >"$T/bad.ii"
run 2 "malformed marker" "$BW" pp "$T/bad.ii"
contains "$T/err" "buildwall: $T/bad.ii:3: line marker: the file name has no closing" "file:line of the bad marker"
one_line "$T/err" "malformed marker: one line"
printf '# 1 "x.c"\n# 1 "a.h" 1\n# 2 "x.c" 2\n# 3 "x.c" 2\n' >"$T/unbalanced.ii"
run 2 "unbalanced return" "$BW" leak "$T/unbalanced.ii"
contains "$T/err" "$T/unbalanced.ii:4: line marker returns to \"x.c\" but no #include is open" "the unbalanced return is named"
one_line "$T/err" "unbalanced return: one line"
sed 's/$/\r/' "$T/dispatch.ii" >"$T/crlf.ii"
run 0 "CRLF line ends" "$BW" pp "$T/crlf.ii" --json
check "CRLF counts as LF" [ "$(json "$T/out" 'd["tus"][0]["passes"][0]["total_lines"]')" = "$(awk 'END { print NR }' "$T/dispatch.ii")" ]
{ printf '# 1 "x.c"\n'; head -c 8000000 /dev/zero | tr '\0' 'a'; printf '\nint b;\n'; } >"$T/long.ii"
run 0 "an 8 MB line" "$BW" pp "$T/long.ii" --json
check "the long line is one line" [ "$(json "$T/out" 'd["tus"][0]["passes"][0]["top_files"][0]["lines"]')" = 2 ]
run 2 "pp --parallel beyond the process table" "$BW" pp --parallel 4096 "$T/bad.ii"
contains "$T/err" "--parallel takes a whole number from 1 to 256" "pp --parallel 4096 is refused, with the limit"
run 2 "a missing file" "$BW" pp "$T/none.ii"
contains "$T/err" "$T/none.ii: No such file" "names the missing file"
run 2 "no arguments" "$BW" pp
contains "$T/err" "name a TARGET" "says what to name"
run 2 "--all with a target" "$BW" leak -C "$D" --all opus_dispatch.o
run 2 "a bad --group" "$BW" pp --group 'x=(' "$T/dispatch.ii"
contains "$T/err" "bad regex" "the bad regex is named"
run 2 "--lean above --heavy" "$BW" pp --lean 500K --heavy 400K "$T/dispatch.ii"
run 2 "a bad --pattern" "$BW" leak --pattern '[' "$T/dispatch.ii"
run 2 "--project that is no directory" "$BW" leak --project "$T/none" "$T/dispatch.ii"
run 2 "an unknown target" "$BW" pp -C "$D" nope.o
run 2 "targets and files mixed" "$BW" leak -C "$D" opus_dispatch.o "$T/dispatch.ii"
contains "$T/err" "name targets or preprocessed files" "says not both"
one_line "$T/err" "mixed arguments: one line"
run 0 "pp --help" "$BW" pp --help
contains "$T/out" "usage: buildwall pp" "pp has help"
run 0 "leak --help" "$BW" leak --help
contains "$T/out" "usage: buildwall leak" "leak has help"

# A TU that fails to preprocess: exit 3 with the compiler's own words.
mkdir -p "$T/broken/src"
printf '#include "missing_header.h"\nint x;\n' >"$T/broken/src/x.c"
printf 'int y;\n' >"$T/broken/src/y.c"
cat >"$T/broken/build.ninja" <<'NINJA'
rule cc
  command = gcc -O2 -c $in -o $out
build x.o: cc src/x.c
build y.o: cc src/y.c
NINJA
before=$(tree_hash "$T/broken")
run 3 "a TU that fails to preprocess" "$BW" pp -C "$T/broken" --all
contains "$T/err" "x.o (host pass): preprocessing failed" "names the TU and the pass"
contains "$T/err" "missing_header.h: No such file or directory" "shows the compiler's output tail"
contains "$T/out" "FAILED" "the row says FAILED"
contains "$T/out" "y.o" "the other TU is still reported"
run 3 "leak on it" "$BW" leak -C "$T/broken" x.o
check "the failing tree is byte-identical" [ "$(tree_hash "$T/broken")" = "$before" ]

# Ctrl-C while preprocessing (a compiler that takes its time): exit 130,
# nothing left running, the tree byte-identical, the temp dir gone.
mkdir -p "$T/slow" "$T/tmp"
printf '#!/bin/sh\nsleep 30\nexec /usr/bin/gcc "$@"\n' >"$T/slow/gcc"
chmod +x "$T/slow/gcc"
TOY_CC=$T/slow/gcc make_toy "$T/toy"
printf '#define GEN 1\n' >"$T/toy/gen.h"
before=$(tree_hash "$T/toy")
TMPDIR="$T/tmp" "$BW" pp -C "$T/toy" --all >"$T/out" 2>"$T/err" &
pid=$!
i=0
while [ $i -lt 100 ] && ! pgrep -f "$T/slow/gcc" >/dev/null; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -INT "$pid"
wait "$pid"
check "pp, SIGINT: exit 130" [ $? -eq 130 ]
sleep 0.2
check "pp, SIGINT: no compiler left running" no_process "$T/slow/gcc"
check "pp, SIGINT: build dir byte-identical" [ "$(tree_hash "$T/toy")" = "$before" ]
check "pp, SIGINT: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]
TMPDIR="$T/tmp" run 3 "pp: a timeout exits 3" "$BW" pp -C "$T/toy" --timeout 1 c.o
contains "$T/err" "c.o (host pass): preprocessing failed (timed out after 1 s)" "pp: the timeout is reported"
check "pp, timeout: no compiler left running" no_process "$T/slow/gcc"
check "pp, timeout: build dir byte-identical" [ "$(tree_hash "$T/toy")" = "$before" ]
check "pp, timeout: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]

# The shared fixtures, when they are beside this checkout (never committed).
pp_dir=$here/../../../shared/fixtures/pp
if [ -f "$pp_dir/torch_ext_gcc12_E.ii.gz" ]; then
	run 0 "the torch extension TU from stdin" sh -c "gzip -dc '$pp_dir/torch_ext_gcc12_E.ii.gz' | '$BW' pp - --json"
	check "376,239 lines, avx512fintrin.h on top with 13,901" [ "$(json "$T/out" '(d["tus"][0]["passes"][0]["total_lines"], d["tus"][0]["passes"][0]["top_files"][0]["lines"], d["tus"][0]["passes"][0]["weight"])')" = "(376239, 13901, 'middle')" ]
	for f in "$pp_dir"/*.ii; do
		run 0 "pp $(basename "$f")" "$BW" pp "$f" --json
		check "$(basename "$f"): total = awk's NR" [ "$(json "$T/out" 'd["tus"][0]["passes"][0]["total_lines"]')" = "$(awk 'END { print NR }' "$f")" ]
	done
fi
finish
