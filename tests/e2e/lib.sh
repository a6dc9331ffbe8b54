# Sourced by every e2e test: assertions that count, a scratch dir, and the
# helpers the tests share (toy builds, tree hashes, JSON queries).
set -u
BW=${BUILDWALL:?set BUILDWALL to the buildwall binary}
RESULTS=${E2E_RESULTS:?run through tests/e2e/run.sh}
T=$(mktemp -d "${TMPDIR:-/tmp}/bw-e2e.XXXXXX")
trap 'rm -rf "$T"' EXIT
# The user's cache (survey's readings, ninja's graphs) stays out of their home.
export BUILDWALL_CACHE_DIR="$T/cache"
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok - $1"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $1"; [ $# -gt 1 ] && printf '%s\n' "$2" | sed 's/^/    /'; }
finish() { echo "$pass $fail" >>"$RESULTS"; }

# run CODE DESC CMD...: run CMD, stdout to $T/out, stderr to $T/err; check its exit code.
run() {
	_want=$1 _desc=$2
	shift 2
	_start=$(date +%s)
	"$@" >"$T/out" 2>"$T/err"
	_rc=$?
	if [ "$_rc" -eq "$_want" ]; then ok "$_desc"; else not_ok "$_desc (exit $_rc, want $_want)" "$(tail -n 5 "$T/err")"; fi
	# Where a script's time goes, for trimming it: the runs of 5 s or more.
	_took=$(($(date +%s) - _start))
	[ "$_took" -lt 5 ] || echo "# ($_took s)"
}
# run_rss CODE DESC CMD...: run, and put the command's peak RSS (KiB) in
# $T/rss (an address-space ulimit would break sanitizer builds).
run_rss() {
	_want=$1 _desc=$2
	shift 2
	python3 -c '
import resource, subprocess, sys
with open(sys.argv[1], "w") as out, open(sys.argv[2], "w") as err:
    rc = subprocess.call(sys.argv[4:], stdout=out, stderr=err)
open(sys.argv[3], "w").write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(rc)' "$T/out" "$T/err" "$T/rss" "$@"
	_rc=$?
	if [ "$_rc" -eq "$_want" ]; then ok "$_desc"; else not_ok "$_desc (exit $_rc, want $_want)" "$(tail -n 5 "$T/err")"; fi
}
# contains FILE TEXT DESC
contains() {
	if grep -qF -- "$2" "$1"; then ok "$3"; else not_ok "$3: no '$2' in $(basename "$1")" "$(head -c 600 "$1")"; fi
}
# quiet_stderr FILE DESC: what a newcomer sees of a command that worked:
# no compiler's error line (a probe that may fail by design says one line
# of its own), and no busy warning unless the machine is busy now (other
# processes on more than half a CPU over a second, from /proc/stat: a
# warning then is true, and said so; so is one while the scripts aside
# run beside this one: run.sh).
quiet_stderr() {
	if grep -E '(^|[: ])(error|fatal error)[: ]' "$1" | grep -qv '^buildwall: '; then
		not_ok "$2: no compiler error" "$(grep -E '(^|[: ])(error|fatal error)[: ]' "$1" | head -5)"
	else
		ok "$2: no compiler error"
	fi
	if ! grep -q 'the machine is busy' "$1"; then
		ok "$2: no busy warning"
	elif [ -e "${E2E_WORK:-/nonexistent}/aside.running" ]; then
		ok "$2: a busy warning while the scripts aside run"
	elif python3 -c '
import time
def idle():
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return f[3] + f[4], sum(f)
i0, t0 = idle(); time.sleep(1); i1, t1 = idle()
import os
busy = (1 - (i1 - i0) / (t1 - t0)) * os.cpu_count()
exit(0 if busy > 0.5 else 1)'; then
		ok "$2: a busy warning, and the machine is busy now"
	else
		not_ok "$2: a busy warning on a machine idle now" "$(grep 'the machine is busy' "$1")"
	fi
}
# need_hipcc: true where hipcc runs; else a failed check (make test
# installs Debian's hipcc) and the script's results written.
need_hipcc() {
	command -v hipcc >/dev/null 2>&1 && return 0
	not_ok "hipcc installed (make test installs Debian's hipcc)"
	finish
	return 1
}
# one_line FILE DESC: bad input is reported in exactly one line
one_line() {
	_lines=$(wc -l <"$1")
	if [ "$_lines" -eq 1 ]; then ok "$2"; else not_ok "$2 ($_lines lines)" "$(cat "$1")"; fi
}
# json FILE EXPR: evaluate a Python expression over the parsed document d
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# tu_eval FILE TARGET EXPR: a Python expression over one TU t of a
# passes/trace document
tu_eval() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d["tus"] if t["target"] == sys.argv[2]][0]; print(eval(sys.argv[3]))' "$@"; }
# check DESC CONDITION-COMMAND...
check() {
	_desc=$1
	shift
	if "$@" >/dev/null; then ok "$_desc"; else not_ok "$_desc"; fi
}
# A fingerprint of every entry under a directory: path, type, size, mode,
# mtime and content hash. Equal fingerprints = byte-identical tree.
tree_hash() {
	(cd "$1" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) | sha256sum | cut -d' ' -f1
}
# Is a process below $1 running that is not ninja (nor buildwall's
# guardian)? Walks every depth: a compile may run under a ninja that
# buildwall started.
compile_child() {
	for c in $(pgrep -P "$1"); do
		case $(cat "/proc/$c/comm" 2>/dev/null) in
		ninja | buildwall | "") compile_child "$c" && return 0 ;;
		*) return 0 ;;
		esac
	done
	return 1
}

# interrupt_midway SIG LABEL DIR HASH CMD...: run CMD with a private
# TMPDIR, send SIG once one of its compiles has run for a second (it may
# take two minutes to start one: advise measures the wall first), and
# check what every interrupt must leave: exit 130, no compiler running,
# DIR hashing to HASH, the temp dir empty.
interrupt_midway() {
	_sig=$1 _label=$2 _dir=$3 _hash=$4
	shift 4
	mkdir -p "$T/tmp"
	TMPDIR="$T/tmp" "$@" >"$T/out" 2>"$T/err" &
	_pid=$!
	_i=0 _seen=no
	# what the loop saw: asked again, a short compile may have ended since
	while [ $_i -lt 1200 ]; do
		if compile_child "$_pid"; then _seen=yes; break; fi
		sleep 0.1
		_i=$((_i + 1))
	done
	check "$_label, SIG$_sig: a compile was running" [ "$_seen" = yes ]
	sleep 1
	kill -"$_sig" "$_pid"
	wait "$_pid"
	_rc=$?
	check "$_label, SIG$_sig: exit 130" [ "$_rc" -eq 130 ]
	contains "$T/err" "interrupted" "$_label, SIG$_sig: says it was interrupted"
	sleep 0.2
	# (its compiles name its private temp dir: outputs, copies; the
	# scripts aside may run the demo's compiles meanwhile)
	check "$_label, SIG$_sig: no compiler left running" no_process "$T/tmp/"
	check "$_label, SIG$_sig: build dir byte-identical" [ "$(tree_hash "$_dir")" = "$_hash" ]
	check "$_label, SIG$_sig: private temp dir removed" [ -z "$(ls -A "$T/tmp")" ]
}

# No process still runs with this text in its command line.
no_process() { ! pgrep -f -- "$1" >/dev/null 2>&1; }

# make_toy DIR [CFLAGS]: a small C module built with ninja: three TUs (c.c
# the heaviest), a generated header, a link step; sources live outside DIR.
make_toy() {
	dir=$1 cflags=${2:-}
	mkdir -p "$dir/src"
	printf 'int a(void) { return 1; }\n' >"$dir/src/a.c"
	printf 'int b(void) { return 2; }\n' >"$dir/src/b.c"
	# c.c: enough code that it clearly takes longest.
	awk 'BEGIN { for (i = 0; i < 600; i++) printf "int c%d(int x) { return x * %d + (x >> 3) - %d; }\n", i, i, i;
	             print "int main(void) { return 0; }" }' >"$dir/src/c.c"
	cat >"$dir/build.ninja" <<NINJA
cc = ${TOY_CC:-gcc}
rule cc
  command = \$cc -MMD -MF \$out.d -O2 $cflags -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
rule gen
  command = printf '#define GEN 1\\n' > \$out
rule link
  command = gcc \$in -o \$out
build gen.h: gen
build a.o: cc src/a.c | gen.h
build b.o: cc src/b.c
build c.o: cc src/c.c
build prog: link a.o b.o c.o
default prog
NINJA
}
build_toy() { make_toy "$@" && ninja -C "$1" >/dev/null; }

# demo_dir [BACKEND]: the small baseline demo module, configured and built
# once per run (shared by the scripts through $E2E_WORK).
demo_dir() {
	d=${E2E_WORK:?}/demo${1:+-$1}
	"$(dirname "$0")/demo_build.sh" "$d" "${1:-auto}" || return 1
	echo "$d"
}

# advise_doc DEMO: advise's document for the demo tree (-j 2 -r 1, as t90
# makes it) in $T/advise.json: t90's, else one made now and kept for the
# scripts after.
advise_doc() {
	if [ ! -s "$E2E_WORK/advise.json" ]; then
		"$BW" advise -C "$1" -j 2 -r 1 --json >"$E2E_WORK/advise.json" 2>/dev/null
		"$BW" log -C "$1" --json >"$E2E_WORK/log.json"
	fi
	cp "$E2E_WORK/advise.json" "$T/advise.json"
}

# demo_built_for BACKEND TARGET: a demo tree with TARGET built: the shared
# module when a script built it (demo_dir), else one with TARGET and its
# inputs alone built (a probe of one TU needs no more).
demo_built_for() {
	if [ -f "${E2E_WORK:?}/demo-$1/opus_demo.so" ]; then
		echo "$E2E_WORK/demo-$1"
		return
	fi
	d=$E2E_WORK/demo-$1-$2
	if [ ! -f "$d/$2" ]; then
		"$(dirname "$0")/../../examples/demo-module/configure" --size small --backend "$1" "$d" >/dev/null &&
			ninja -C "$d" "$2" >"$d/first-build.log" 2>&1 || { tail -n 20 "$d/first-build.log" >&2; return 1; }
	fi
	echo "$d"
}

# trace --json: per pass, the headers' (and templates') self times sum
# to the outermost entries' time, to the microsecond the traces give.
adds_up() {
	json "$1" 'all(abs(sum(h["self_s"] for h in d["headers"] if h["pass"] == p["name"]) - p["headers_s"]) < 1e-6 * (1 + len(d["headers"])) and abs(sum(t["self_s"] for t in d["templates"] if t["pass"] == p["name"]) - p["templates_s"]) < 1e-6 * (1 + len(d["templates"])) for p in d["passes"])'
}
