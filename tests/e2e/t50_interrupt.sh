# The safety guarantees under stress: Ctrl-C midway through rank or passes
# and a compile timeout leave the build dir byte-identical, no compiler running
# and no temp files behind.
. "$(dirname "$0")/lib.sh"

# Is a child of $1 running that is not ninja (nor buildwall's guardian)?
compile_child() {
	for c in $(pgrep -P "$1"); do
		case $(cat "/proc/$c/comm" 2>/dev/null) in
		ninja | buildwall | "") ;;
		*) return 0 ;;
		esac
	done
	return 1
}

demo=$(demo_dir) || { not_ok "demo module builds"; finish; exit 0; }
before=$(tree_hash "$demo")
mkdir "$T/tmp"

for sig in INT TERM; do
	TMPDIR="$T/tmp" "$BW" rank -C "$demo" >"$T/out" 2>"$T/err" &
	pid=$!
	# Wait until a compile (a child of buildwall other than ninja's quick
	# -t queries) is running, then interrupt.
	i=0
	while [ $i -lt 200 ] && ! compile_child "$pid"; do sleep 0.1; i=$((i + 1)); done
	check "SIG$sig: a compile was running" compile_child "$pid"
	sleep 1
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	check "SIG$sig: exit 130" [ "$rc" -eq 130 ]
	contains "$T/err" "interrupted" "SIG$sig: says it was interrupted"
	sleep 0.2
	check "SIG$sig: no compiler left running" no_process "$demo"
	check "SIG$sig: build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
	check "SIG$sig: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]
done

TMPDIR="$T/tmp" run 3 "compile timeout exits 3" "$BW" rank -C "$demo" --timeout 1 opus_gemm_bigtile.cuda.o
contains "$T/err" "opus_gemm_bigtile.cuda.o: compile failed (timed out after 1 s)" "timeout reported per TU"
check "timeout: no compiler left running" no_process "$demo"
check "timeout: build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
check "timeout: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]

# passes runs the driver's jobs one by one: the same guarantees.
TMPDIR="$T/tmp" "$BW" passes -C "$demo" opus_gemm_bigtile.cuda.o >"$T/out" 2>"$T/err" &
pid=$!
i=0
while [ $i -lt 200 ] && ! compile_child "$pid"; do sleep 0.1; i=$((i + 1)); done
sleep 1
kill -INT "$pid"
wait "$pid"
check "passes, SIGINT: exit 130" [ $? -eq 130 ]
sleep 0.2
check "passes, SIGINT: no compiler left running" no_process "$demo"
check "passes, SIGINT: build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
check "passes, SIGINT: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]
TMPDIR="$T/tmp" run 3 "passes: a timeout exits 3" "$BW" passes -C "$demo" --timeout 1 opus_gemm_bigtile.cuda.o
contains "$T/err" "opus_gemm_bigtile.cuda.o: the compile failed (timed out after 1 s)" "passes: timeout reported"
check "passes, timeout: build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
check "passes, timeout: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]
finish
