# Never change or lose the user's data: ninja's logs survive every probe
# (long logs ninja would recompact, headers it would delete), a full or
# missing TMPDIR, failed writes, hanging drivers, absurd inputs, SIGKILL.
# e2e: aside
. "$(dirname "$0")/lib.sh"

logs_hash() { cat "$1/.ninja_log" "$1/.ninja_deps" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# A module of 24 TUs and a link, built five times: 125 lines in .ninja_log,
# more than 100 and more than 3 per output, so any ninja tool that loads
# the log would recompact it down to one build.
many=$T/many
mkdir -p "$many/src"
{
	printf 'rule cc\n  command = gcc -MMD -MF $out.d -c $in -o $out\n  depfile = $out.d\n  deps = gcc\n'
	printf 'rule link\n  command = gcc -shared $in -o $out\n'
	objs=
	for i in $(seq 1 24); do
		printf 'int f%d(void) { return %d; }\n' "$i" "$i" >"$many/src/t$i.c"
		printf 'build t%d.o: cc src/t%d.c\n' "$i" "$i"
		objs="$objs t$i.o"
	done
	printf 'build mod.so: link%s\n' "$objs"
} >"$many/build.ninja"
for b in 1 2 3 4 5; do ninja -C "$many" -t clean >/dev/null && ninja -C "$many" >/dev/null; done
lines=$(wc -l <"$many/.ninja_log")
check "five builds: 125 steps in .ninja_log ($lines lines)" [ "$lines" -eq 126 ]
check "five builds: .ninja_deps written" [ -s "$many/.ninja_deps" ]

# probe DIR LABEL: every probe, then the logs and the tree as they were.
probe() {
	dir=$1 label=$2
	logs=$(logs_hash "$dir") tree=$(tree_hash "$dir")
	for cmd in "rank t3.o" "passes t3.o" "pp t3.o" "leak t3.o" "sim -j 2" "sim -j 2 --remote 2 --probe-local" \
		"record --all --db $T/probe.db" "check --builds 2 --budget 1000 --db $T/probe.db" "log"; do
		# shellcheck disable=SC2086
		"$BW" $cmd -C "$dir" >"$T/out" 2>"$T/err"
		rc=$?
		if [ "$(logs_hash "$dir")" = "$logs" ] && [ "$(tree_hash "$dir")" = "$tree" ]; then
			ok "$label: ${cmd%% --db*} (exit $rc) leaves .ninja_log, .ninja_deps and the tree byte-identical"
		else
			not_ok "$label: ${cmd%% --db*} changed the tree" "$(wc -l <"$dir/.ninja_log") log lines now; $(cat "$T/err")"
		fi
	done
	"$BW" survey "$dir" --record --db "$T/probe.db" >"$T/out" 2>"$T/err"
	rc=$?
	check "$label: survey --record (exit $rc) leaves .ninja_log, .ninja_deps and the tree byte-identical" \
		[ "$(logs_hash "$dir")$(tree_hash "$dir")" = "$logs$tree" ]
}
probe "$many" "five builds"
run 0 "five builds: log --all-builds" "$BW" log --all-builds --json -C "$many"
check "five builds: log still counts five builds" [ "$(json "$T/out" 'len(d["builds"])')" = 5 ]

for header in "garbage: not a log" "# ninja log v3" "# ninja log v4" "# ninja log v99"; do
	d=$T/h-$(echo "$header" | tr -c 'a-z0-9\n' '_')
	cp -a "$many" "$d"
	{ echo "$header"; tail -n +2 "$many/.ninja_log"; } >"$d/.ninja_log"
	probe "$d" "header '$header'"
done
d=$T/h-garbage__not_a_log
run 0 "garbage log: rank still ranks, with a warning" "$BW" rank -C "$d" t3.o
contains "$T/err" ".ninja_log:1: not a .ninja_log" "garbage log: rank names the bad log"
run 2 "garbage log: sim refuses it" "$BW" sim -C "$d" -j 2
one_line "$T/err" "garbage log: one line"
run 0 "v4 log: log reads it" "$BW" log -C "$T/h-__ninja_log_v4"

# A CMake-generated tree (its phony edges, RERUN_CMAKE rule, object dirs)
# rebuilt five times: the same promise.
if command -v cmake >/dev/null; then
	cm=$T/cmake
	mkdir -p "$cm/src"
	srcs=
	for i in $(seq 1 24); do
		printf 'int g%d() { return %d; }\n' "$i" "$i" >"$cm/src/g$i.cpp"
		srcs="$srcs g$i.cpp"
	done
	printf 'cmake_minimum_required(VERSION 3.16)\nproject(t CXX)\nadd_library(t SHARED%s)\n' "$srcs" >"$cm/src/CMakeLists.txt"
	cmake -S "$cm/src" -B "$cm/b" -G Ninja >/dev/null 2>&1
	for b in 1 2 3 4 5; do ninja -C "$cm/b" -t clean >/dev/null && ninja -C "$cm/b" >/dev/null; done
	check "CMake tree: more than 100 lines in .ninja_log" [ "$(wc -l <"$cm/b/.ninja_log")" -gt 100 ]
	logs=$(logs_hash "$cm/b") tree=$(tree_hash "$cm/b")
	for cmd in "rank CMakeFiles/t.dir/g3.cpp.o" "passes CMakeFiles/t.dir/g3.cpp.o" "pp --all" "sim -j 2" \
		"sim -j 2 --remote 4 --probe-local" "log"; do
		# shellcheck disable=SC2086
		run 0 "CMake tree: $cmd" "$BW" $cmd -C "$cm/b"
		check "CMake tree: $cmd leaves the logs and the tree byte-identical" \
			[ "$(logs_hash "$cm/b")$(tree_hash "$cm/b")" = "$logs$tree" ]
	done
	run 0 "CMake tree: record --all --pp" "$BW" record -C "$cm/b" --all --pp --label v=a --db "$T/cm.db" --json
	check "CMake tree: five clean builds of libt, 25 steps each, lines per group" [ "$(json "$T/out" '(d["module"], [(b["steps"], b["complete"]) for b in d["builds"]], d["builds"][-1]["lines"] > 0)')" = "('libt', [(25, True), (25, True), (25, True), (25, True), (25, True)], True)" ]
	# Builds of about a second each: a busy minute on the runner can slow
	# the last two past 5 %; what is checked here is the tree, not the gate.
	run 0 "CMake tree: check --against the builds just recorded" "$BW" check -C "$cm/b" --builds 2 --against v=a --max-regression 100% --db "$T/cm.db"
	contains "$T/out" "2 against 3 builds" "CMake tree: check leaves the candidate's own builds out of the reference"
	check "CMake tree: record and check leave the logs and the tree byte-identical" \
		[ "$(logs_hash "$cm/b")$(tree_hash "$cm/b")" = "$logs$tree" ]
	run 0 "CMake tree: survey of the dir above the build dir" "$BW" survey "$cm" --json
	check "CMake tree: survey finds the build dir, its five builds, 24 dispatchers by their sources" [ "$(json "$T/out" '[(m["module"], m["builds"], m["clean"], m["roles"]["dispatcher"]["steps"]) for m in d["modules"]]')" = "[('libt', 5, True, 24)]" ]
	check "CMake tree: survey leaves the logs and the tree byte-identical" \
		[ "$(logs_hash "$cm/b")$(tree_hash "$cm/b")" = "$logs$tree" ]
	run 0 "CMake tree: log --all-builds" "$BW" log --all-builds --json -C "$cm/b"
	check "CMake tree: still five builds" [ "$(json "$T/out" 'len(d["builds"])')" = 5 ]
	run 0 "CMake tree: log with the graph" "$BW" log --json -C "$cm/b"
	check "CMake tree: 24 host TUs and the link, by their sources" [ "$(json "$T/out" '(d["by_kind"]["host TU"]["steps"], d["by_kind"]["link"]["steps"])')" = "(24, 1)" ]
else
	echo "# skipped: no cmake for the CMake tree"
fi

# One envelope for every command's document.
envelope='sorted(k for k in ("schema", "version", "buildwall_version", "command", "build_dir", "failures", "warnings") if k in d) == sorted(["schema", "version", "buildwall_version", "command", "build_dir", "failures", "warnings"]) and d["version"] == 1 and isinstance(d["warnings"], list)'
for cmd in "rank t3.o" "passes t3.o" "pp t3.o" "leak t3.o" "sim -j 2" "log"; do
	# shellcheck disable=SC2086
	run 0 "${cmd%% *} --json" "$BW" $cmd -C "$many" --json
	check "${cmd%% *} --json: the shared envelope" [ "$(json "$T/out" "$envelope and d['command'] == '${cmd%% *}' and d['build_dir'] == '$many'")" = True ]
done
run 0 "survey --json" "$BW" survey "$many" --json
check "survey --json: the shared envelope" [ "$(json "$T/out" "$envelope and d['command'] == 'survey' and d['build_dir'] is None")" = True ]
run 0 "wall --json" "$BW" wall -n 1 --json -- true
check "wall --json: the shared envelope" [ "$(json "$T/out" "$envelope and d['build_dir'] is None")" = True ]
run 0 "rank --json on the garbage-log tree warns" "$BW" rank -C "$T/h-garbage__not_a_log" t3.o --json
check "rank --json: the warning is in warnings[]" [ "$(json "$T/out" 'any("not a .ninja_log" in w for w in d["warnings"])')" = True ]

# The snapshot guard: a compile that writes into the build dir is an error.
stray=$T/stray
mkdir -p "$stray/bin"
printf '#!/bin/sh\ntouch stray.txt\nexec gcc "$@"\n' >"$stray/bin/gcc"
chmod +x "$stray/bin/gcc"
printf 'int s;\n' >"$stray/s.c"
printf 'rule cc\n  command = %s -c $in -o $out\nbuild s.o: cc s.c\n' "$stray/bin/gcc" >"$stray/build.ninja"
ninja -C "$stray" >/dev/null && rm -f "$stray/stray.txt"
run 4 "a compile writing into the build dir: exit 4" "$BW" rank -C "$stray"
contains "$T/err" "stray.txt (new)" "the guard names what changed"

# 1. Absurd durations from --from are located errors, and nothing hangs.
rank_doc() { printf '{"schema": "buildwall/1", "command": "rank", "tus": [{"target": "t1.o", "wall_s": %s}]}\n' "$1" >"$T/rank.json"; }
rank_doc -5
run 2 "sim --from: a negative wall_s is bad input" timeout -k 5 20 "$BW" sim -C "$many" -j 2 --from "$T/rank.json"
contains "$T/err" "rank.json: tus[0].wall_s (t1.o): -5 is not a duration" "sim --from: the bad duration is located"
rank_doc '"fast"'
run 2 "sim --from: a non-number wall_s is bad input" "$BW" sim -C "$many" --from "$T/rank.json"
contains "$T/err" "tus[0].wall_s (t1.o): not a number of seconds" "sim --from: says it is not a number"
rank_doc 1e300
run 2 "sim --from: an absurd wall_s is bad input" "$BW" sim -C "$many" --from "$T/rank.json"
run 2 "sim --from: a missing file" "$BW" sim -C "$many" --from "$T/nonexistent.json"
contains "$T/err" "nonexistent.json: No such file or directory" "sim --from: a missing file is named plainly"
check "sim --from: no :-1:-1: location" sh -c "! grep -q -- ':-1:' '$T/err'"

# 2. A missing or full TMPDIR is named as such, exit 4.
TMPDIR=$T/no-such-dir run 4 "a missing TMPDIR: exit 4" "$BW" rank -C "$many" t1.o
contains "$T/err" "TMPDIR=$T/no-such-dir is not a directory" "a missing TMPDIR is named"
full=$T/full
mkdir -p "$full"
if mount -t tmpfs -o size=128k tmpfs "$full" 2>/dev/null; then
	dd if=/dev/zero of="$full/fill" bs=4k 2>/dev/null
	TMPDIR=$full run 4 "a full TMPDIR: exit 4" "$BW" rank -C "$many" t1.o
	contains "$T/err" "no space left in TMPDIR $full" "a full TMPDIR is named"
	TMPDIR=$full run 4 "a full TMPDIR: pp exits 4 too" "$BW" pp -C "$many" t1.o
	rm -f "$full/fill"
	# 3. A report onto a full disk: exit 4 and no file left.
	dd if=/dev/zero of="$full/fill" bs=4k 2>/dev/null
	"$BW" rank --json -C "$many" t1.o >"$full/rank.json" 2>"$T/err"
	check "rank --json onto a full disk: exit 4" [ $? -eq 4 ]
	check "rank --json onto a full disk: no file left" [ ! -e "$full/rank.json" ]
	contains "$T/err" "cannot write standard output: No space left on device" "a full disk is named"
	run 4 "log --trace onto a full disk: exit 4" "$BW" log -C "$many" --trace "$full/trace.json"
	check "log --trace onto a full disk: no partial trace" [ -z "$(ls "$full" | grep -v '^fill$')" ]
	umount "$full"
else
	echo "# skipped: the full-TMPDIR checks need 'mount -t tmpfs' (root)"
fi
run 4 "log --json > /dev/full: exit 4" sh -c "'$BW' log --json -C '$many' >/dev/full"
contains "$T/err" "cannot write standard output: No space left on device" "log: the failed write is named"
run 4 "rank > /dev/full: exit 4" sh -c "'$BW' rank -C '$many' t1.o >/dev/full"

# 4. passes --timeout covers the driver's own -### listing.
hang=$T/hang
mkdir -p "$hang/bin"
cat >"$hang/bin/clang" <<'EOF'
#!/bin/sh
for a in "$@"; do [ "$a" = "-###" ] && exec sleep 41.25; done
exec gcc "$@"
EOF
chmod +x "$hang/bin/clang"
printf 'int h;\n' >"$hang/h.c"
printf 'rule cc\n  command = %s -c $in -o $out\nbuild h.o: cc h.c\n' "$hang/bin/clang" >"$hang/build.ninja"
ninja -C "$hang" >/dev/null
start=$(date +%s)
run 3 "passes --timeout 2: a hanging -### is a failure" timeout -k 5 30 "$BW" passes -C "$hang" --timeout 2 h.o
check "passes --timeout 2: gives up within 10 s" [ $(($(date +%s) - start)) -lt 10 ]
contains "$T/err" "timed out after 2 s" "passes: the driver's timeout is named"
check "passes: the hanging driver is gone" no_process "sleep 41.25"

# 6. --build N allocates by the builds the log has, not by N.
run_rss 2 "log --build 1000000000" "$BW" log --build 1000000000 -C "$many"
contains "$T/err" "goes back past the oldest of its 5 builds" "log --build: says how many builds there are"
check "log --build 1000000000: peak RSS $(cat "$T/rss") KiB, under 200 MiB" [ "$(cat "$T/rss")" -lt 204800 ]

# 7. nvcc --dryrun settings that expand each other are bounded.
nv=$T/nvcc
mkdir -p "$nv/bin"
cat >"$nv/bin/nvcc" <<'EOF'
#!/bin/sh
echo '#$ A0=xxxxxxxxxxxxxxxx'
i=0
while [ $i -lt 25 ]; do echo "#\$ A$((i + 1))=\$A$i\$A$i"; i=$((i + 1)); done
echo '#$ gcc -c $A25 -o x.o'
EOF
chmod +x "$nv/bin/nvcc"
printf 'rule nv\n  command = %s -c $in -o $out\nbuild k.o: nv k.cu\n' "$nv/bin/nvcc" >"$nv/build.ninja"
printf '__global__ void k() {}\n' >"$nv/k.cu"
touch "$nv/k.o"
start=$(date +%s)
run_rss 3 "passes: an exploding --dryrun is refused" timeout -k 5 30 "$BW" passes -C "$nv" k.o
contains "$T/err" "its settings expand past 1048576 bytes" "passes: the expansion bound is named"
check "passes: refused within 5 s" [ $(($(date +%s) - start)) -lt 5 ]
check "passes: peak RSS $(cat "$T/rss") KiB, under 200 MiB" [ "$(cat "$T/rss")" -lt 204800 ]

# 8. A huge name does not pad every row of a table.
python3 -c "
print('# ninja log v5')
for i, o in enumerate(['a.o', 'b.o', 'x' * 10000000 + '.o', 'c.o', 'd.o']):
    print(f'{i * 10}\t{i * 10 + 5}\t0\t{o}\tab')" >"$T/huge.log"
run 0 "log: a 10 MB name" "$BW" log "$T/huge.log"
check "log: the table stays small ($(wc -c <"$T/out") bytes)" [ "$(wc -c <"$T/out")" -lt 10000 ]
contains "$T/out" "xxx...xxx" "log: the long name is elided in the middle"
run 0 "log --json: a 10 MB name" "$BW" log --json "$T/huge.log"
check "log --json keeps the name whole" [ "$(json "$T/out" 'max(len(s["output"]) for s in d["steps"])')" = 10000002 ]

# 9. A tab in a name is read as ninja writes it.
printf '# ninja log v5\n0\t100\t0\ta.o\taa\n0\t250\t0\tdir\twith tab.o\tbb\n' >"$T/tab.log"
run 0 "log: a tab inside an output name" "$BW" log --json "$T/tab.log"
check "log: the name with its tab" [ "$(json "$T/out" 'sorted(s["output"] for s in d["steps"])[1]')" = "$(printf 'dir\twith tab.o')" ]
cp -a "$many" "$T/tabbed"
printf '0\t100\t0\tstale\tname.o\tcc\n' >>"$T/tabbed/.ninja_log"
run 0 "sim: a log with a tab in a name" "$BW" sim -C "$T/tabbed" -j 2
run 0 "rank: a log with a tab in a name" "$BW" rank -C "$T/tabbed" t2.o

# 10. SIGKILL: nothing buildwall started outlives it, and a temp dir left
# by a run whose guardian died too is removed by the next run.
slow=$T/slow
mkdir -p "$slow/bin" "$T/tmp"
printf '#!/bin/sh\nsleep 37.75\nexec gcc "$@"\n' >"$slow/bin/gcc"
chmod +x "$slow/bin/gcc"
printf 'int w;\n' >"$slow/w.c"
printf 'rule cc\n  command = gcc -c $in -o $out\nbuild w.o: cc w.c\n' >"$slow/build.ninja"
ninja -C "$slow" >/dev/null
sed -i "s#command = gcc#command = $slow/bin/gcc#" "$slow/build.ninja"
before=$(tree_hash "$slow")
TMPDIR=$T/tmp "$BW" rank -C "$slow" >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 100 ] && no_process "sleep 37.75"; do sleep 0.1; i=$((i + 1)); done
check "SIGKILL: the compile was running" pgrep -f "sleep 37.75"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
sleep 2
check "SIGKILL: no process buildwall started is alive 2 s later" no_process "sleep 37.75"
check "SIGKILL: the temp dir is gone" [ -z "$(ls -A "$T/tmp")" ]
check "SIGKILL: build dir byte-identical" [ "$(tree_hash "$slow")" = "$before" ]
mkdir -p "$T/tmp/buildwall.Zq9xYw/sub"
touch "$T/tmp/buildwall.Zq9xYw/.lock" "$T/tmp/buildwall.Zq9xYw/sub/a.o"
TMPDIR=$T/tmp run 0 "the next run" "$BW" rank -C "$many" t1.o
contains "$T/err" "removed $T/tmp/buildwall.Zq9xYw, left behind by a buildwall run that was killed" "the next run removes a dead run's temp dir and says so"
check "no temp dir survives the next run" [ -z "$(ls -A "$T/tmp")" ]

# 11. The rest, one line each.
cp -a "$many" "$T/emptylog"
printf '# ninja log v5\n' >"$T/emptylog/.ninja_log"
run 2 "sim on a log with no build: bad input" "$BW" sim -C "$T/emptylog" -j 2
contains "$T/err" "no build recorded yet" "sim: says the log has no build"
run 2 "sim --fuse a.o,a.o: bad input" "$BW" sim -C "$many" --fuse t1.o,t1.o
contains "$T/err" "--fuse t1.o,t1.o names t1.o twice" "sim --fuse: a step named twice, not a cycle"
printf '# 1 "a.c"\n# 3\262 "a.c"\n' >"$T/raw.ii"
run 2 "pp: a marker with a raw byte" "$BW" pp "$T/raw.ii"
contains "$T/err" 'unexpected \xB2 after the line number' "pp: the raw byte is shown escaped"
check "pp: no raw byte in the message" sh -c "! LC_ALL=C grep -q \"\$(printf '\\262')\" '$T/err'"
finish
