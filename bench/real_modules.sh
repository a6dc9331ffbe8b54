#!/bin/sh
# advise --patch on real public torch extensions, built as their users
# build them: each CHECKOUT copied (it stays as it is), its C++ sources
# JIT-built into one module with Debian's python3-torch
# (torch.utils.cpp_extension.load, is_python_module=False: its ops
# registered, -O3, MAX_JOBS=JOBS; the build dir is load()'s, one
# build.ninja with every TU), advise -j JOBS --project CHECKOUT --patch on
# that build, each patch applied to a second copy (git apply), that copy
# built the same way and its op called from Python, then ab of the two
# builds (clean rebuilds, ABBA, PAIRS pairs). Per module: the proven
# fix, the TUs it counted, its predicted ratio against ab's and whether it
# lies in the range, and what advise cost in builds. Known checkouts (their sources
# and an op to call): rusty1s/pytorch_scatter (tag 2.1.0, CPU ops) and
# pytorch/extension-cpp. JOBS (2), PAIRS (3), PYTHON (/usr/bin/python3:
# Debian's, with python3-torch); KEEP=DIR keeps each
# module's advise and ab documents there.
#   bench/real_modules.sh ~/src/pytorch_scatter ~/src/extension-cpp
. "$(dirname "$0")/lib.sh"
jobs=${JOBS:-2} pairs=${PAIRS:-3}
py=${PYTHON:-/usr/bin/python3}
[ $# -ge 1 ] || { echo "usage: bench/real_modules.sh CHECKOUT..." >&2; exit 2; }
"$py" -c 'import torch' 2>/dev/null || { echo "bench/real_modules.sh: no torch for $py: scripts/deps.sh bench" >&2; exit 2; }

# The module's sources, include dirs, flags and an op call, by what the
# checkout is (its setup.py's name).
describe() {
	if grep -q "torch_scatter" "$1/setup.py" 2>/dev/null; then
		name=torch_scatter_jit
		sources="csrc/scatter.cpp csrc/segment_coo.cpp csrc/segment_csr.cpp csrc/version.cpp csrc/cpu/scatter_cpu.cpp csrc/cpu/segment_coo_cpu.cpp csrc/cpu/segment_csr_cpu.cpp"
		includes="csrc" flags="-O3 -DWITH_PYTHON -Wno-sign-compare"
		op='torch.ops.torch_scatter.scatter_sum(torch.tensor([1., 2, 3, 4]), torch.tensor([0, 0, 1, 1]), 0, None, None).tolist() == [3.0, 7.0]'
	elif grep -q '"extension_cpp"' "$1/setup.py" 2>/dev/null; then
		name=extension_cpp_jit
		sources="extension_cpp/csrc/muladd.cpp"
		includes="" flags="-O3"
		op='torch.ops.extension_cpp.mymuladd(torch.ones(3), torch.ones(3), 1.0).tolist() == [2.0, 2.0, 2.0]'
	else
		echo "bench/real_modules.sh: $1: not a checkout this bench knows" >&2
		exit 2
	fi
}

# jit_build TREE BUILD_DIR: the module built by load() as a user's first call does.
jit_build() {
	MAX_JOBS=$jobs "$py" - "$1" "$2" "$name" "$sources" "$includes" "$flags" <<'EOF'
import os, sys, torch
from torch.utils.cpp_extension import load
tree, build, name, sources, includes, flags = sys.argv[1:]
os.makedirs(build, exist_ok=True)
load(name, [os.path.join(tree, s) for s in sources.split()], extra_cflags=flags.split(),
     extra_include_paths=[os.path.join(tree, i) for i in includes.split()], build_directory=build,
     is_python_module=False, verbose=False)
EOF
}

# fingerprint DIR...: every entry's path, type, size, mode, mtime and content.
fingerprint() {
	for d in "$@"; do
		(cd "$d" && find . -printf '%p %y %s %m %T@\n' | LC_ALL=C sort && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
	done | sha256sum
}

# op_runs TREE BUILD_DIR: its op, called from Python on the built library.
op_runs() {
	"$py" -c "import torch; torch.ops.load_library('$2/$name.so'); assert $op" 2>"$work/op.err"
}

echo "| module | TUs | proven fix (line, edit, TUs) | predicted / baseline (range) | measured (ab, $pairs pairs, 95 % CI) | error | in range | patch applies, builds, op runs | advise's wall / a build |"
echo "|---|---|---|---|---|---|---|---|---|"
for checkout in "$@"; do
	describe "$checkout"
	a=$work/$name-a b=$work/$name-b
	cp -r "$checkout" "$a"
	cp -r "$checkout" "$b"
	t0=$(now)
	jit_build "$a" "$a-build" >"$work/$name-a.log" 2>&1 || { tail -n 20 "$work/$name-a.log" >&2; exit 3; }
	t1=$(now)
	op_runs "$a" "$a-build" || { cat "$work/op.err" >&2; exit 3; }
	# the checkout is the project: its patches apply from its root
	before=$(fingerprint "$a" "$a-build")
	t_advise=$(now)	# advise's wall alone, not the op's call or the fingerprint
	"$bw" advise -C "$a-build" -j "$jobs" --project "$a" --patch "$work/$name-patches" --json >"$work/$name-advise.json"
	t2=$(now)
	[ "$(fingerprint "$a" "$a-build")" = "$before" ] ||
		{ echo "bench/real_modules.sh: advise changed $a or $a-build" >&2; exit 4; }
	ntus=$(field "$work/$name-advise.json" 'len(d["tus"])')
	# none proven: what leak said instead (its line, or why it does not apply)
	proven=$(field "$work/$name-advise.json" '"; ".join("%s: %s:%d, %s, %d TUs" % (f["fix"], s["file"], s["line"], s["candidates"][s["chosen"]]["header"] or "removed", len(s["tus"])) for f in d["fixes"] if f.get("proven") for s in f["probes"]["sites"] if s["chosen"] >= 0) or "none: " + " ".join((c.get("checked") or c.get("measured_by") or "").replace("|", "/") for c in d["fixes"] + d["not_applicable"] if c["fix"] == "leak")')
	cp "$work/$name-advise.json" "${KEEP:-$work}/" 2>/dev/null || :
	applied=yes
	for p in "$work/$name-patches"/*.patch; do
		[ -f "$p" ] || { applied="no patch"; break; }
		(cd "$b" && git apply "$p") || applied=no
	done
	built=no ran=no
	if [ "$applied" = yes ] && jit_build "$b" "$b-build" >"$work/$name-b.log" 2>&1; then
		built=yes
		op_runs "$b" "$b-build" && ran=yes
	fi
	if [ "$built" = yes ]; then
		"$bw" ab -C "$a-build" -C "$b-build" -j "$jobs" -n "$pairs" --warmup 0 --json >"$work/$name-ab.json"
		cp "$work/$name-ab.json" "${KEEP:-$work}/" 2>/dev/null || :
		# the proven fixes together, as the plan has them, else leak alone
		pred=$(field "$work/$name-advise.json" '(lambda b, fs: min(f["predicted"]["wall_s"] for f in fs) / b if fs else float("nan"))(d["baseline"]["predicted"]["wall_s"], [f for f in d["fixes"] if f.get("proven")])')
		lo=$(field "$work/$name-advise.json" '(lambda b, fs: min(f["predicted"]["range_s"][0] for f in fs) / b if fs else float("nan"))(d["baseline"]["predicted"]["wall_s"], [f for f in d["fixes"] if f.get("proven")])')
		hi=$(field "$work/$name-advise.json" '(lambda b, fs: min(f["predicted"]["range_s"][1] for f in fs) / b if fs else float("nan"))(d["baseline"]["predicted"]["wall_s"], [f for f in d["fixes"] if f.get("proven")])')
		m=$(field "$work/$name-ab.json" 'd["wall"]["ratio"]')
		mlo=$(field "$work/$name-ab.json" 'd["wall"]["ratio_ci"][0]') mhi=$(field "$work/$name-ab.json" 'd["wall"]["ratio_ci"][1]')
		inside=$(awk -v m="$m" -v lo="$lo" -v hi="$hi" 'BEGIN { print (m >= lo && m <= hi) ? "yes" : "no" }')
		err="$(percent "$pred" "$m") %"
		pcol="$(printf %.3f "$pred") ($(printf %.3f "$lo")-$(printf %.3f "$hi"))"
		mcol="$(printf %.3f "$m") ($(printf %.3f "$mlo")-$(printf %.3f "$mhi"))"
	else
		pcol=- mcol=- err=- inside=-
	fi
	cost=$(awk -v a="$t2" -v s="$t_advise" -v b="$t1" -v c="$t0" 'BEGIN { printf "%.1f", (a - s) / (b - c) }')
	echo "| $(basename "$checkout") | $ntus | $proven | $pcol | $mcol | $err | $inside | $applied, $built, $ran | $cost |"
done
