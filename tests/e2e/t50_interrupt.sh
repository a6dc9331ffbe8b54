# The safety guarantees under stress: Ctrl-C midway through rank or passes
# and a compile timeout leave the build dir byte-identical, no compiler running
# and no temp files behind.
. "$(dirname "$0")/lib.sh"

demo=$(demo_dir) || { not_ok "demo module builds"; finish; exit 0; }
before=$(tree_hash "$demo")
mkdir "$T/tmp"

for sig in INT TERM; do
	interrupt_midway "$sig" rank "$demo" "$before" "$BW" rank -C "$demo"
done

TMPDIR="$T/tmp" run 3 "compile timeout exits 3" "$BW" rank -C "$demo" --timeout 1 opus_gemm_bigtile.cuda.o
contains "$T/err" "opus_gemm_bigtile.cuda.o: compile failed (timed out after 1 s)" "timeout reported per TU"
check "timeout: no compiler left running" no_process "$T/tmp/"
check "timeout: build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
check "timeout: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]

# passes runs the driver's jobs one by one: the same guarantees.
interrupt_midway INT passes "$demo" "$before" "$BW" passes -C "$demo" opus_gemm_bigtile.cuda.o
TMPDIR="$T/tmp" run 3 "passes: a timeout exits 3" "$BW" passes -C "$demo" --timeout 1 opus_gemm_bigtile.cuda.o
contains "$T/err" "opus_gemm_bigtile.cuda.o: the compile failed (timed out after 1 s)" "passes: timeout reported"
check "passes, timeout: build dir byte-identical" [ "$(tree_hash "$demo")" = "$before" ]
check "passes, timeout: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]
finish
