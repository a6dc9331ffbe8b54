# survey on trees laid out as aiter and torch lay them out, their logs
# written with known durations (no compile runs): the heaviest module and
# the step that sets it, each module's latest clean build out of a log
# with an incremental one after it, the roles from the sources' text, the
# sources shared by path and by content with what compiling them again
# costs, the bad trees listed with their reason, the cache, --record,
# --pp and --advise, and every tree byte-identical.
# e2e: aside
. "$(dirname "$0")/lib.sh"

export BUILDWALL_CACHE_DIR="$T/cache" BUILDWALL_DB="$T/history.db"
aiter=$T/aiter/jit/build
torch=$T/torch_ext/py311_cu121
mkdir -p "$T/aiter/csrc"
printf '#define __global__\n__global__ void quant(float *x) { x[0] = 1; }\n' >"$T/aiter/csrc/quant.cu"

# module NAME KERNEL_S QUANT_S: an aiter module (a kernel TU, the shared
# quant.cu by path when QUANT_S is not 0, its own copy of act.cpp, a
# binding); its log holds a clean build and then an incremental one.
module() {
	name=$1 kernel_ms=$(($2 * 1000)) quant_ms=$(awk -v s="$3" 'BEGIN { print int(s * 1000) }')
	dir="$aiter/module_$name/build" blob="$aiter/module_$name/blob"
	mkdir -p "$dir" "$blob"
	printf '#define __global__\n__global__ void %s_kernel(float *x) { x[0] = 2; }\n' "$name" >"$blob/${name}_kernel.cu"
	printf 'int act(int x) { return x > 0 ? x : 0; }\n' >"$blob/act.cpp"
	printf '#define PYBIND11_MODULE(n, m) void init_##n(int m)\nPYBIND11_MODULE(%s, m) { (void)m; }\n' "$name" >"$blob/${name}_pybind.cpp"
	{
		printf 'rule cuda_compile\n  command = g++ -x c++ -c $in -o $out\nrule compile\n  command = g++ -c $in -o $out\n'
		printf 'rule link\n  command = g++ -shared $in -o $out\n'
		printf 'build %s_kernel.cuda.o: cuda_compile ../blob/%s_kernel.cu\n' "$name" "$name"
		objs="${name}_kernel.cuda.o act.o ${name}_pybind.o"
		if [ "$quant_ms" != 0 ]; then
			printf 'build quant.cuda.o: cuda_compile ../../../../csrc/quant.cu\n'
			objs="$objs quant.cuda.o"
		fi
		printf 'build act.o: compile ../blob/act.cpp\nbuild %s_pybind.o: compile ../blob/%s_pybind.cpp\n' "$name" "$name"
		printf 'build module_%s.so: link %s\n' "$name" "$objs"
	} >"$dir/build.ninja"
	wall=$kernel_ms
	[ "$((quant_ms + 10000))" -gt "$wall" ] && wall=$((quant_ms + 10000))
	# ninja logs a step as it ends: the lines in order of their end times
	{
		[ "$quant_ms" != 0 ] && printf '0\t%d\t0\tquant.cuda.o\taa%s\n' "$quant_ms" "$name"
		printf '%d\t%d\t0\tact.o\tab%s\n' "$quant_ms" "$((quant_ms + 2000))" "$name"
		printf '%d\t%d\t0\t%s_pybind.o\tac%s\n' "$((quant_ms + 2000))" "$((quant_ms + 10000))" "$name" "$name"
		printf '0\t%d\t0\t%s_kernel.cuda.o\tad%s\n' "$kernel_ms" "$name" "$name"
	} | sort -t "$(printf '\t')" -k2,2n >"$T/lines"
	{
		printf '# ninja log v5\n'
		cat "$T/lines"
		printf '%d\t%d\t0\tmodule_%s.so\tae%s\n' "$wall" "$((wall + 1000))" "$name" "$name"
		# then the binding alone, rebuilt: an incremental build
		printf '0\t8000\t0\t%s_pybind.o\taf%s\n8000\t9000\t0\tmodule_%s.so\tag%s\n' "$name" "$name" "$name" "$name"
	} >"$dir/.ninja_log"
}
module gemm 30 6
module moe 12 6.5
module norm 5 0

# A torch extension as cpp_extension writes it: absolute sources, its
# name the build dir's and the linked .so's; its binding includes a
# stand-in <torch/extension.h> of 300 lines.
mkdir -p "$torch/textmod" "$T/src/textmod" "$T/fw/torch"
awk 'BEGIN { for (i = 0; i < 300; i++) printf "int torch_op_%d(int);\n", i }' >"$T/fw/torch/extension.h"
printf '#define __global__\n__global__ void k0(float *x) { x[0] = 3; }\n' >"$T/src/textmod/kern_0.cu"
printf 'int dispatch(int op) { return op * 2; }\n' >"$T/src/textmod/dispatch.cpp"
printf '#include <torch/extension.h>\n#define PYBIND11_MODULE(n, m) void init_##n(int m)\nPYBIND11_MODULE(textmod, m) { (void)m; }\n' >"$T/src/textmod/bind.cpp"
cat >"$torch/textmod/build.ninja" <<EOF
ninja_required_version = 1.3
cxx = g++
cflags = -DTORCH_EXTENSION_NAME=textmod -isystem $T/fw -fPIC -std=c++17
rule compile
  command = \$cxx -MMD -MF \$out.d \$cflags -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
rule cuda_compile
  command = \$cxx -x c++ -MMD -MF \$out.d \$cflags -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
rule link
  command = \$cxx \$in -shared -o \$out
build kern_0.cuda.o: cuda_compile $T/src/textmod/kern_0.cu
build dispatch.o: compile $T/src/textmod/dispatch.cpp
build bind.o: compile $T/src/textmod/bind.cpp
build textmod.so: link kern_0.cuda.o dispatch.o bind.o
default textmod.so
EOF
printf '# ninja log v5\n0\t4000\t0\tdispatch.o\tba\n4000\t13000\t0\tbind.o\tbb\n0\t20000\t0\tkern_0.cuda.o\tbc\n20000\t21000\t0\ttextmod.so\tbd\n' >"$torch/textmod/.ninja_log"

# Trees that cannot be read.
mkdir -p "$aiter/module_never/build" "$aiter/module_v8/build" "$aiter/module_dirlog/build/.ninja_log" \
	"$aiter/module_broken/build" "$T/notabuild/empty"
cp "$aiter/module_norm/build/build.ninja" "$aiter/module_never/build/"
cp "$aiter/module_norm/build/build.ninja" "$aiter/module_v8/build/"
printf '# ninja log v8\n' >"$aiter/module_v8/build/.ninja_log"
cp "$aiter/module_norm/build/build.ninja" "$aiter/module_dirlog/build/"
printf 'build x.o: nosuchrule x.c\n' >"$aiter/module_broken/build/build.ninja"
printf '# ninja log v5\n0\t1\t0\tx.o\t1\n' >"$aiter/module_broken/build/.ninja_log"
before_aiter=$(tree_hash "$T/aiter")
before_torch=$(tree_hash "$T/torch_ext")

run 0 "survey of an aiter and a torch layout" "$BW" survey "$aiter" "$torch" "$T/notabuild" "$T/nothere" --json
cp "$T/out" "$T/s.json"
read_modules() { json "$T/s.json" "[(m['module'], m['wall_s'], m['clean'], m['builds']) for m in d['modules'] if not m['skipped']]"; }
check "four modules read, heaviest first, each its latest clean build (not the rebuild after it)" [ "$(read_modules)" = "[('module_gemm', 31.0, True, 2), ('textmod', 21.0, True, 1), ('module_moe', 17.5, True, 2), ('module_norm', 11.0, True, 2)]" ]
check "the step that sets each wall, on its critical path" [ "$(json "$T/s.json" "[(m['setter']['target'], m['setter']['seconds'], [s['target'] for s in m['critical_path']]) for m in d['modules'][:3]]")" = "[('gemm_kernel.cuda.o', 30.0, ['gemm_kernel.cuda.o', 'module_gemm.so']), ('kern_0.cuda.o', 20.0, ['kern_0.cuda.o', 'textmod.so']), ('moe_kernel.cuda.o', 12.0, ['moe_kernel.cuda.o', 'module_moe.so'])]" ]
roles() { json "$T/s.json" "[(r, m['roles'][r]['steps'], m['roles'][r]['seconds']) for m in d['modules'] if m['module'] == '$1' for r in ('kernel', 'dispatcher', 'binding', 'link')]"; }
check "roles from the sources' text: gemm's kernel TUs, its dispatcher, its binding, its link" [ "$(roles module_gemm)" = "[('kernel', 2, 36.0), ('dispatcher', 1, 2.0), ('binding', 1, 8.0), ('link', 1, 1.0)]" ]
check "the torch extension's roles" [ "$(roles textmod)" = "[('kernel', 1, 20.0), ('dispatcher', 1, 4.0), ('binding', 1, 9.0), ('link', 1, 1.0)]" ]
check "sources compiled in several modules: quant.cu by path, act.cpp by content (three copies)" [ "$(json "$T/s.json" "[(s['path'].split('/')[-1], s['modules'], s['total_s'], s['once_s'], s['repeated_s']) for s in d['shared_sources']]")" = "[('quant.cu', 2, 12.5, 6.5, 6.0), ('act.cpp', 3, 6.0, 2.0, 4.0)]" ]
check "what compiling them again costs, in all" [ "$(json "$T/s.json" 'd["shared_repeated_s"]')" = 10.0 ]
check "each module's seconds of a shared source" [ "$(json "$T/s.json" "[(i['module'], i['seconds']) for i in d['shared_sources'][0]['in']]")" = "[('module_gemm', 6.0), ('module_moe', 6.5)]" ]
reason() { json "$T/s.json" "[m['skipped'] for m in d['modules'] if m['dir'].endswith('$1')][0]"; }
check "skipped: never built" [ "$(reason module_never/build)" = "never built: a build.ninja and no .ninja_log" ]
check "skipped: a log of another ninja version" sh -c "echo '$(reason module_v8/build)' | grep -q 'version 8 is not supported'"
check "skipped: a log that cannot be read" sh -c "echo '$(reason module_dirlog/build)' | grep -q 'Is a directory'"
check "skipped: a manifest ninja refuses, with ninja's words" sh -c "echo '$(reason module_broken/build)' | grep -q 'nosuchrule'"
check "skipped: not a build dir" sh -c "echo '$(reason notabuild)' | grep -q '^not a build dir'"
check "skipped: no such directory" [ "$(reason nothere)" = "no such directory" ]
check "found and read counted" [ "$(json "$T/s.json" '(d["modules_found"], d["modules_read"], d["command"], d["schema"])')" = "(10, 4, 'survey', 'buildwall/1')" ]
check "survey leaves the aiter tree byte-identical" [ "$(tree_hash "$T/aiter")" = "$before_aiter" ]
check "and the torch tree" [ "$(tree_hash "$T/torch_ext")" = "$before_torch" ]
check "the cache is the user's, outside the trees" [ "$(find "$T/cache" -type f | wc -l)" -gt 0 ]

# The cache: a second survey reads nothing again and says the same; a
# module rebuilt since is read again.
run 0 "survey again, from the cache" "$BW" survey "$aiter" "$torch" "$T/notabuild" "$T/nothere" --json
check "the same document from the cache" [ "$(json "$T/out" 'd["modules"]')" = "$(json "$T/s.json" 'd["modules"]')" ]
run 0 "survey --no-cache" "$BW" survey "$aiter" "$torch" --no-cache --json
check "the same modules without the cache" [ "$(json "$T/out" '[m["wall_s"] for m in d["modules"] if not m["skipped"]]')" = "[31.0, 21.0, 17.5, 11.0]" ]
printf '0\t2000\t0\tact.o\tzy\n0\t8000\t0\tnorm_pybind.o\tzx\n0\t40000\t0\tnorm_kernel.cuda.o\tzz\n40000\t41000\t0\tmodule_norm.so\tzw\n' >>"$aiter/module_norm/build/.ninja_log"
run 0 "survey after a module was rebuilt" "$BW" survey "$aiter" --json
check "the rebuilt module read again: its new clean build heads the table" [ "$(json "$T/out" '[(m["module"], m["wall_s"], m["builds"]) for m in d["modules"][:1]][0]')" = "('module_norm', 41.0, 3)" ]
before_aiter=$(tree_hash "$T/aiter")

# The table.
run 0 "survey's table" "$BW" survey "$aiter" "$torch"
contains "$T/out" "module_norm" "the table names the modules"
contains "$T/out" "norm_kernel.cuda.o 40.00 s" "and what sets each wall"
contains "$T/out" "sources compiled in several modules (same content): 2, 10.0 s compiled again" "the shared sources' total"
contains "$T/out" "skipped $aiter/module_never/build: never built" "the skipped ones with their reason"

# The default places: $AITER_JIT_DIR/build and $TORCH_EXTENSIONS_DIR.
run 0 "survey with no dir: the default places" env AITER_JIT_DIR="$T/aiter/jit" TORCH_EXTENSIONS_DIR="$T/torch_ext" "$BW" survey --json
check "both default places surveyed" [ "$(json "$T/out" '(d["modules_read"], sorted(d["roots"]))')" = "(4, ['$T/aiter/jit/build', '$T/torch_ext'])" ]
run 2 "survey with no dir and no default place" env -u AITER_JIT_DIR -u TORCH_EXTENSIONS_DIR HOME="$T/nohome" sh -c "cd '$T/notabuild' && exec '$BW' survey"
one_line "$T/err" "no default place: one line"
contains "$T/err" "name a dir" "says what to do"
run 2 "--label without --record" "$BW" survey "$aiter" --label a=b
one_line "$T/err" "a usage error: one line"

# A glob, and a dir named with spaces and <script>.
mkdir -p "$T/odd/mod <script>x/build"
cp "$torch/textmod/build.ninja" "$T/odd/mod <script>x/build/"
cp "$torch/textmod/.ninja_log" "$T/odd/mod <script>x/build/"
run 0 "survey of a glob, a dir named with spaces and <script>" "$BW" survey "$T/odd/*" --json
check "the odd dir read" [ "$(json "$T/out" '[m["dir"].endswith("mod <script>x/build") and m["wall_s"] for m in d["modules"]]')" = "[21.0]" ]

# The page of the whole set (report --from a survey document), opened in
# Debian's chromium when it is there.
"$BW" survey "$aiter" "$torch" "$T/odd" --json >"$T/all.json"
run 0 "report --from a survey document" "$BW" report --from "$T/all.json" -o "$T/survey.html"
check "no raw <script> from a dir's name in the page" sh -c "! grep -q '<script>x' '$T/survey.html'"
check "the page names every module read" [ "$(grep -c '<tr class="module">' "$T/survey.html")" = "$(json "$T/all.json" 'd["modules_read"]')" ]
run 2 "a survey document with another" "$BW" report --from "$T/all.json" --from "$T/s.json" -o "$T/two.html"
one_line "$T/err" "drawn alone: one line"
browser="$(cd "$(dirname "$0")" && pwd)/../browser"
if [ -x /usr/bin/chromium ] && [ -f "$browser/node_modules/playwright-core/package.json" ]; then
	node "$browser/check_report.mjs" "$T/survey.html" "$T/survey.png" on >"$T/look.json" 2>"$T/look.err" || cat "$T/look.err" >&2
	check "the page in a browser: no console error, no request but the file" [ "$(json "$T/look.json" '(d["errors"], d["otherRequests"], d["dialogs"])')" = "([], [], [])" ]
	check "a bar and a row per module, heaviest first" [ "$(json "$T/look.json" '(d["wallBars"], d["modules"])')" = "(5, ['module_norm', 'module_gemm', 'textmod', 'textmod', 'module_moe'])" ]
	check "the shared sources as the document has them (the odd dir's copy of textmod shares its three)" [ "$(json "$T/look.json" 'd["sharedSources"]')" = "$(json "$T/all.json" '[s["path"] for s in d["shared_sources"]]')" ]
fi

# A module mid-build: a ninja running in it now.
busy=$T/busy/module_busy/build
mkdir -p "$busy"
printf 'rule wait\n  command = sleep 30 && touch $out\nbuild slow.o: wait\n' >"$busy/build.ninja"
printf '# ninja log v5\n0\t1000\t0\tslow.o\t1\n' >"$busy/.ninja_log"
touch -d '2020-01-01' "$busy/slow.o"
(cd "$busy" && exec ninja -d explain >/dev/null 2>&1) &
ninja_pid=$!
for _ in $(seq 50); do [ "$(cat /proc/$ninja_pid/comm 2>/dev/null)" = ninja ] && pgrep -P $ninja_pid >/dev/null && break; sleep 0.1; done
run 0 "survey while a ninja builds a module" "$BW" survey "$T/busy" --json
check "the module mid-build is skipped, with the ninja that builds it" [ "$(json "$T/out" 'd["modules"][0]["skipped"]')" = "mid-build: ninja (pid $ninja_pid) is building it now" ]
pkill -P $ninja_pid 2>/dev/null
kill $ninja_pid 2>/dev/null
wait $ninja_pid 2>/dev/null

# --record: every module's builds into the history.
run 0 "survey --record" "$BW" survey "$aiter" "$torch" --record --label where=survey --json
check "each module recorded, every build its log holds" [ "$(json "$T/out" '[(m["module"], m["recorded"]["added"], m["recorded"]["builds"]) for m in d["modules"] if not m["skipped"]]')" = "[('module_norm', 3, 3), ('module_gemm', 2, 2), ('textmod', 1, 1), ('module_moe', 2, 2)]" ]
run 0 "history follows a surveyed module" "$BW" history module_gemm --json
check "its clean build in the history" [ "$(json "$T/out" '[b["wall_s"] for s in d["series"] for b in s["builds"]]')" = "[31.0]" ]
check "--record leaves the trees byte-identical" [ "$(tree_hash "$T/aiter")" = "$before_aiter" ]

# --pp: the framework lines each TU parses (the binding's stand-in
# <torch/extension.h>).
run 0 "survey --pp of the torch extension" "$BW" survey "$torch" --pp --json
cp "$T/out" "$T/pp-survey.json"
"$BW" pp -C "$torch/textmod" bind.o --json >"$T/pp.json"
pp_lines=$(json "$T/pp.json" '[g["lines"] for t in d["tus"] for p in t["passes"] for g in p["groups"] if g["name"] == "torch"][0]')
check "the binding's framework lines ($pp_lines, as pp counts them), in one host pass of one module" [ "$(json "$T/pp-survey.json" '(d["framework_lines"]["host"], d["framework_lines"]["device"], d["framework_lines"]["passes"], d["framework_lines"]["modules"])')" = "($pp_lines, 0, 1, 1)" ]
check "about the header's 300 lines" [ "$pp_lines" -ge 300 ] && [ "$pp_lines" -le 302 ]
check "--pp leaves the torch tree byte-identical" [ "$(tree_hash "$T/torch_ext")" = "$before_torch" ]

# --advise 1: advise on the heaviest module (textmod compiles for real).
ninja -C "$torch/textmod" >/dev/null 2>&1 || not_ok "the torch extension builds"
before_torch=$(tree_hash "$T/torch_ext")
run 0 "survey --advise 1" "$BW" survey "$torch" --advise 1 --json
check "advise's summary for the module: its wall and the wall after its plan" [ "$(json "$T/out" 'all(isinstance(d["modules"][0]["advise"][k], float) for k in ("baseline_s", "after_plan_s"))')" = True ]
check "--advise leaves the tree byte-identical" [ "$(tree_hash "$T/torch_ext")" = "$before_torch" ]
run 0 "survey --help" "$BW" survey --help
contains "$T/out" "usage: buildwall survey" "survey has help"
finish
