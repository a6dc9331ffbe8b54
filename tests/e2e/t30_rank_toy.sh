# rank on a small C build: ranking, JSON, prediction and link timing,
# launcher stripping, a failing TU, and the byte-identical build dir.
. "$(dirname "$0")/lib.sh"

build_toy "$T/toy"
before=$(tree_hash "$T/toy")
run 0 "rank" "$BW" rank -C "$T/toy" -j 3 -r 3 --contention none --json
cp "$T/out" "$T/r.json"
check "build dir byte-identical after rank" [ "$(tree_hash "$T/toy")" = "$before" ]
check "schema version" [ "$(json "$T/r.json" 'd["schema"]')" = "buildwall/1" ]
check "three TUs ranked" [ "$(json "$T/r.json" 'len(d["tus"])')" = 3 ]
check "heaviest TU (c.o) first" [ "$(json "$T/r.json" 'd["tus"][0]["target"]')" = c.o ]
check "sorted by median wall" [ "$(json "$T/r.json" 'all(a["wall_s"] >= b["wall_s"] for a, b in zip(d["tus"], d["tus"][1:]))')" = True ]
check "three repeats each" [ "$(json "$T/r.json" 'set(len(t["walls_s"]) for t in d["tus"])')" = "{3}" ]
check "median within min-max" [ "$(json "$T/r.json" 'all(t["wall_min_s"] <= t["wall_s"] <= t["wall_max_s"] for t in d["tus"])')" = True ]
check "shares add up to 1" [ "$(json "$T/r.json" 'round(sum(t["share"] for t in d["tus"]), 2)')" = 1.0 ]
check "prediction uses -j 3" [ "$(json "$T/r.json" 'd["prediction"]["jobs"]')" = 3 ]
check "critical path ends at the link" [ "$(json "$T/r.json" 'd["prediction"]["critical_path"][-1]["target"]')" = prog ]
check "link time from .ninja_log" [ "$(json "$T/r.json" 'd["prediction"]["critical_path"][-1]["source"]')" = .ninja_log ]
check "other steps: the link and the generated header, with their sources" [ "$(json "$T/r.json" '[(s["target"], s["source"]) for s in d["prediction"]["other_steps"]]')" = "[('gen.h', '.ninja_log'), ('prog', '.ninja_log')]" ]
check "the binding bound is named" [ "$(json "$T/r.json" 'd["prediction"]["binds"] in ("critical path", "total work / jobs") and d["prediction"]["critical_path_s"] > 0 and d["prediction"]["work_bound_s"] > 0')" = True ]
check "at -j 3, three TUs: the critical path binds" [ "$(json "$T/r.json" 'd["prediction"]["binds"]')" = "critical path" ]
# Every step of the critical path is an input of the next, as ninja says
# (-t inputs reads the manifest only).
chain_ok=True
for pair in $(json "$T/r.json" '" ".join(a["target"] + "," + b["target"] for a, b in zip(d["prediction"]["critical_path"], d["prediction"]["critical_path"][1:]))'); do
	ninja -C "$T/toy" -t inputs "${pair#*,}" | grep -qxF "${pair%%,*}" || chain_ok=False
done
check "the critical path is a real chain of dependencies" [ "$chain_ok" = True ]
check "policy from the installed ninja" [ "$(json "$T/r.json" '(d["prediction"]["policy"], d["prediction"]["policy_source"])')" = "('manifest', 'installed ninja 1.11')" ]
# A ninja that says 1.13: rank and sim both start the longest path first.
mkdir -p "$T/n113"
printf '#!/bin/sh
[ "$1" = --version ] && { echo 1.13.1; exit 0; }
exec %s "$@"
' "$(command -v ninja)" >"$T/n113/ninja"
chmod +x "$T/n113/ninja"
PATH="$T/n113:$PATH" run 0 "rank under ninja 1.13" "$BW" rank -C "$T/toy" a.o --json
check "rank under ninja 1.13: longest path first" [ "$(json "$T/out" '(d["prediction"]["policy"], d["prediction"]["policy_source"])')" = "('critical', 'installed ninja 1.13')" ]
PATH="$T/n113:$PATH" run 0 "sim under ninja 1.13" "$BW" sim -C "$T/toy" -j 2 --json
check "sim under ninja 1.13: longest path first" [ "$(json "$T/out" 'd["policy"]')" = critical ]
run 0 "rank --policy overrides" "$BW" rank -C "$T/toy" a.o --policy critical --json
check "rank --policy critical" [ "$(json "$T/out" '(d["prediction"]["policy"], d["prediction"]["policy_source"])')" = "('critical', '--policy')" ]
run 2 "rank --policy junk" "$BW" rank -C "$T/toy" --policy fastest
check "--contention none: none applied" [ "$(json "$T/r.json" 'd["prediction"]["contention"]["samples"]')" = 0 ]
run 2 "rank --contention junk" "$BW" rank -C "$T/toy" --contention sometimes
contains "$T/err" "--contention is measure, log or none" "rank --contention: the choices named"
check "prediction at -j3 = slowest TU + link" [ "$(json "$T/r.json" 'abs(d["prediction"]["wall_s"] - d["tus"][0]["wall_s"] - d["prediction"]["critical_path"][-1]["seconds"]) < 0.01')" = True ]
run 0 "rank table" "$BW" rank -C "$T/toy" --top 2
contains "$T/out" "predicted wall at -j" "table shows the prediction"
contains "$T/out" "critical path (longest chain of dependencies" "table shows the dependency critical path"
contains "$T/out" "binds" "table says which bound binds"
contains "$T/out" "prog" "table names the link step"
contains "$T/out" "(from .ninja_log)" "table says where the link time came from"
contains "$T/out" "(1 more; --top shows the 2 slowest)" "--top limits the rows"
run 0 "rank by glob and basename" "$BW" rank -C "$T/toy" --json 'a*.o' b.o
check "glob + basename select two TUs" [ "$(json "$T/out" 'sorted(t["target"] for t in d["tus"])')" = "['a.o', 'b.o']" ]
run 0 "rank --parallel" "$BW" rank -C "$T/toy" --parallel 2 -r 2
contains "$T/out" "contention" "--parallel warns about contention"
run 0 "rank --parallel, contention measured" "$BW" rank -C "$T/toy" -j 2 --parallel 2 --json
check "contention measured side by side, on every TU" [ "$(json "$T/out" '(d["prediction"]["contention"]["samples"], d["prediction"]["contention"]["source"].startswith("a side-by-side pass"))')" = "(3, True)" ]

# Without .ninja_log the link is re-run on the temp objects.
cp -a "$T/toy" "$T/nolog"
rm "$T/nolog/.ninja_log"
before=$(tree_hash "$T/nolog")
run 0 "rank without .ninja_log" "$BW" rank -C "$T/nolog" --json
check "link re-run on temp objects" [ "$(json "$T/out" 'd["prediction"]["critical_path"][-1]["source"]')" = "re-run link" ]
check "re-run link listed among other steps" [ "$(json "$T/out" '[s["target"] for s in d["prediction"]["other_steps"] if s["source"] == "re-run link"]')" = "['prog']" ]
check "no .ninja_log appeared, tree identical" [ "$(tree_hash "$T/nolog")" = "$before" ]

# A link whose other inputs are missing is not re-run: no time, no failure.
cp -a "$T/nolog" "$T/partial"
rm "$T/partial/b.o"
run 0 "rank one TU, link inputs missing" "$BW" rank -C "$T/partial" --json a.o
check "link (and gen.h, b.o, c.o) left without a time" [ "$(json "$T/out" 'd["prediction"]["steps_without_time"]')" = 4 ]

# Launchers are stripped, and the report says so.
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "$@" >>%s/launched\nexec "$@"\n' "$T" >"$T/bin/ccache"
chmod +x "$T/bin/ccache"
PATH="$T/bin:$PATH" TOY_CC="ccache gcc" build_toy "$T/cached"
rm -f "$T/launched"
PATH="$T/bin:$PATH" run 0 "rank strips ccache" "$BW" rank -C "$T/cached" --json
check "ccache listed as stripped" [ "$(json "$T/out" 'd["method"]["launchers_stripped"]')" = "['ccache']" ]
contains "$T/err" "stripped ccache" "stripped launcher noted"
check "the launcher never ran" [ ! -e "$T/launched" ]

# ccache masquerading as gcc through a PATH of links, as /usr/lib/ccache does.
mkdir -p "$T/fake" "$T/masq"
printf '#!/bin/sh\necho "$@" >>%s/masq-launched\nPATH=${PATH#*:} exec "$(basename "$0")" "$@"\n' "$T" >"$T/fake/ccache"
chmod +x "$T/fake/ccache"
ln -s "$T/fake/ccache" "$T/masq/gcc"
PATH="$T/masq:$PATH" build_toy "$T/masqbuild"
check "the masquerading ccache ran for the build" [ -s "$T/masq-launched" ]
rm "$T/masq-launched"
PATH="$T/masq:$PATH" run 0 "rank behind a masquerading ccache" "$BW" rank -C "$T/masqbuild" --json
check "masquerading ccache listed as stripped" [ "$(json "$T/out" 'd["method"]["launchers_stripped"]')" = "['ccache']" ]
check "the masquerading launcher never ran" [ ! -e "$T/masq-launched" ]

# The safety net: a compiler that writes into the build dir anyway is caught.
mkdir -p "$T/stray/bin"
printf '#!/bin/sh\ntouch stray.txt\nexec gcc "$@"\n' >"$T/stray/bin/cc"
chmod +x "$T/stray/bin/cc"
PATH="$T/stray/bin:$PATH" TOY_CC=cc build_toy "$T/stray/b"
rm "$T/stray/b/stray.txt"
PATH="$T/stray/bin:$PATH" run 4 "rank with a compiler that writes into cwd: exit 4" "$BW" rank -C "$T/stray/b"
contains "$T/err" "changed while buildwall was probing it (1 entry, first: stray.txt (new))" "stray write reported"

# One TU fails: the others are still ranked, exit 3, tree identical.
build_toy "$T/broken"
printf 'int b(void) { return syntax error; }\n' >"$T/broken/src/b.c"
before=$(tree_hash "$T/broken")
mkdir "$T/tmp"
TMPDIR="$T/tmp" run 3 "failing TU exits 3" "$BW" rank -C "$T/broken" --json
cp "$T/out" "$T/f.json"
contains "$T/err" "b.o: compile failed (exit status 1)" "failure names the TU"
contains "$T/err" "error:" "failure shows the compiler's output"
check "failed TU marked, others ranked" [ "$(json "$T/f.json" '[(t["target"], t["status"]) for t in d["tus"]]')" = "[('c.o', 'ok'), ('a.o', 'ok'), ('b.o', 'failed')]" ]
check "build dir identical after a failing TU" [ "$(tree_hash "$T/broken")" = "$before" ]
check "private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]

# Contention bounded by CPU time, planted: rank on one CPU told it has two
# runs its side-by-side pass two compiles to a core, each about twice its
# wall alone for the same work. That wait is not contention a build on two
# cores meets: the share counts only what the CPU time grew.
if command -v taskset >/dev/null 2>&1; then
	mkdir -p "$T/four/src"
	for k in 0 1 2 3; do
		awk -v k=$k 'BEGIN { for (i = 0; i < 900; i++) printf "int c%d_%d(int x) { return x * %d + (x >> 3) - %d; }\n", k, i, i, i }' >"$T/four/src/t$k.c"
	done
	printf 'rule cc\n  command = gcc -O2 -c $in -o $out\nrule link\n  command = gcc -shared $in -o $out\n' >"$T/four/build.ninja"
	for k in 0 1 2 3; do printf 'build t%s.o: cc src/t%s.c\n' $k $k >>"$T/four/build.ninja"; done
	printf 'build lib.so: link t0.o t1.o t2.o t3.o\n' >>"$T/four/build.ninja"
	ninja -C "$T/four" >/dev/null
	run 0 "rank on one CPU, two at once in its side-by-side pass" env BUILDWALL_CPUS=2 taskset -c 0 "$BW" rank -C "$T/four" -r 1 -j 2 --json
	check "the walls alone read the wait as contention, the CPU time does not (3x or more apart)" [ "$(json "$T/out" '(lambda c: (c["bounded"] >= 1, c["wall_share"] >= 0.5, c["share"] <= c["wall_share"] / 3))(d["prediction"]["contention"])')" = "(True, True, True)" ]
else
	not_ok "taskset installed (util-linux)"
fi
finish
