# ab on the demo: one TU with a change that matters (the instance TU made
# device-only) and with one that does not, a flag the compiler rejects,
# bad input, and Ctrl-C; the build dir byte-identical throughout.
# e2e: slow
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

demo=$(demo_dir) || { not_ok "demo module builds"; finish; exit 0; }
before=$(tree_hash "$demo")
# Three pairs after a warm-up each: with two, a cold first run widens the t
# interval (one degree of freedom: 12.7 standard errors) past 1. The define
# takes the framework out of the TU's host pass: planted far beyond noise.
run 0 "ab on one TU with a define that drops its framework" "$BW" ab -C "$demo" opus_gemm_0.cuda.o --define OPUS_DEVICE_ONLY -n 3 --warmup 1 --json
cp "$T/out" "$T/ab.json"
echo "# $(json "$T/ab.json" 'd["wall"]["verdict"]')"
check "the envelope names ab, one TU" [ "$(json "$T/ab.json" '(d["command"], d["mode"])')" = "('ab', 'one TU')" ]
check "B is faster, the interval excludes 1" [ "$(json "$T/ab.json" 'd["wall"]["differs"] and d["wall"]["ratio_ci"][1] < 1')" = True ]
check "the verdict says by how much" [ "$(json "$T/ab.json" '"B is " in d["wall"]["verdict"] and "faster (95 % CI" in d["wall"]["verdict"]')" = True ]
check "every run has wall, CPU and RSS, in ABBA order" [ "$(json "$T/ab.json" '(d["method"]["order"], all(r["wall_s"] > 0 and r["cpu_s"] > 0 and r["max_rss_kib"] > 0 for r in d["runs"]))')" = "('ABBABA', True)" ]
check "B's label says what changed" [ "$(json "$T/ab.json" 'd["sides"]["B"]["label"]')" = "opus_gemm_0.cuda.o with -DOPUS_DEVICE_ONLY" ]
check "ab leaves the tree byte-identical" [ "$(tree_hash "$demo")" = "$before" ]

# A no-op define on a fast TU (the optimized variant's device-only instance).
opt=${E2E_WORK:?}/demo-optimized
if [ ! -f "$opt/opus_demo.so" ]; then
	"$here/../../examples/demo-module/configure" --size small --variant optimized "$opt" >/dev/null && ninja -C "$opt" -j 2 >/dev/null 2>&1
fi
# Whether a no-op reads as no difference is a coin the test would flip
# once in twenty runs (a 95 % interval): its verdict is checked on equal
# numbers below (--match); here that it runs and says what it compared.
run 0 "ab with a no-op define" "$BW" ab -C "$opt" opus_gemm_0.cuda.o --define UNUSED_MACRO=1 -n 2 --warmup 0 --json
echo "# $(json "$T/out" 'd["wall"]["verdict"]')"
check "no-op: B's label names the define" [ "$(json "$T/out" 'd["sides"]["B"]["label"]')" = "opus_gemm_0.cuda.o with -DUNUSED_MACRO=1" ]
run 0 "ab table, A/A" "$BW" ab -C "$opt" opus_gemm_0.cuda.o -n 2 --warmup 0
contains "$T/out" "B = opus_gemm_0.cuda.o again (an A/A run)" "no change: an A/A run, said"
contains "$T/out" "method: pairs from ABBA blocks" "the table says how it compares"

# A flag the compiler rejects: B's failure, with the compiler's words.
run 3 "a rejected flag exits 3" "$BW" ab -C "$demo" opus_dispatch.o --flags '--no-such-flag-for-buildwall'
contains "$T/err" "B, warm-up (opus_dispatch.o with --no-such-flag-for-buildwall): the compile failed" "names B's compile"
contains "$T/err" "no-such-flag-for-buildwall" "shows the compiler's message"
run 2 "--drop of an argument A does not have" "$BW" ab -C "$demo" opus_dispatch.o --drop -O9
one_line "$T/err" "--drop: one line"
contains "$T/err" "--drop -O9: opus_dispatch.o's command has no such argument" "--drop: says what is missing"
run 2 "ab with nothing to compare" "$BW" ab
contains "$T/err" "name two builds" "says what to name"
run 2 "--a without --b" "$BW" ab --a true
run 2 "a bad --precision" "$BW" ab -C "$demo" opus_dispatch.o --precision 150%
check "bad input leaves the tree byte-identical" [ "$(tree_hash "$demo")" = "$before" ]

# Whole commands: --a/--b with --match.
run 0 "ab of two commands, with --match" "$BW" ab --a 'echo cost 2.0s' --b 'echo cost 1.0s' --match 'cost ([0-9.]+)s' -n 2 --warmup 0 --json
check "--match: the matched numbers compared" [ "$(json "$T/out" '(d["match"]["ratio"], d["mode"])')" = "(0.5, 'commands')" ]
run 0 "ab of two commands that give the same number" "$BW" ab --a 'echo cost 2.0s' --b 'echo cost 2.0s' --match 'cost ([0-9.]+)s' -n 3 --warmup 0 --json
check "equal numbers: no difference detectable, said with the bound" [ "$(json "$T/out" '(d["match"]["differs"], d["match"]["verdict"].startswith("match: no difference detectable: |B/A - 1| < "))')" = "(False, True)" ]

# Ctrl-C midway.
interrupt_midway INT ab "$demo" "$before" "$BW" ab -C "$demo" opus_gemm_bigtile.cuda.o --flags -O0
run 0 "ab --help" "$BW" ab --help
contains "$T/out" "usage: buildwall ab" "ab has help"
finish
