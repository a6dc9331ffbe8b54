#!/bin/sh
# How close buildwall's predictions come to builds, one concern a script,
# each run once and its result appended to bench/RESULTS.md (newest first)
# with the date, the commit, the machine, its load and the command: the
# goals are judged there over repeated runs, never in a test (a 2-core VM
# moves 10-30 % within minutes).
#   rank    rank's prediction against clean builds (rank_validate.sh)
#   passes  a TU's jobs re-run alone against the TU whole (passes_validate.sh)
#   sim     sim --from rank against clean builds at -j 1 and 2 (sim_validate.sh)
#   advise  advise's plan against the demo built with each step's fixes
#           (advise_validate.sh, the small demo)
#   narrow  narrow's saving against the narrow variant, by ab (narrow_validate.sh)
#   distcc  sim --remote and advise --launcher against a build through a
#           loopback cluster (distcc_validate.sh)
#   check   check's false positives and power on this machine's noise
#           (check_power.sh)
# ONLY="rank advise" runs those alone; RESULTS=FILE appends elsewhere.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
results=${RESULTS:-$here/bench/RESULTS.md}
concerns=${ONLY:-rank passes sim advise narrow distcc check}
export BUILDWALL=${BUILDWALL:-$here/build/buildwall}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

script_of() {
	case $1 in
	rank | passes | narrow | distcc) echo "bench/$1_validate.sh" ;;
	sim) echo "bench/sim_validate.sh" ;;
	advise) echo "MODULE=demo DEMO_SIZE=small bench/advise_validate.sh" ;;
	check) echo "bench/check_power.sh" ;;
	*) return 1 ;;
	esac
}

# The machine as what it is: CPUs, model, memory, and whether a VM.
machine() {
	model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	mem=$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)
	virt=$(systemd-detect-virt 2>/dev/null || true)
	kind=host
	[ -n "$virt" ] && [ "$virt" != none ] && kind="VM ($virt)"
	[ -z "$virt" ] && grep -q hypervisor /proc/cpuinfo && kind=VM
	echo "a $(nproc)-CPU $kind, ${model:-unknown CPU}, $mem GiB"
}

status=0
for c in $concerns; do
	line=$(script_of "$c") || { echo "accuracy.sh: no concern '$c' (rank passes sim advise narrow distcc check)" >&2; exit 2; }
	load_before=$(cut -d' ' -f1 /proc/loadavg)
	start=$(date +%s)
	echo "== $c: $line"
	(cd "$here" && env $line) >"$out" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	cat "$out"
	case $c/$rc in
	check/0) verdict="measured (the goals are the table's to judge)" ;;
	*/0) verdict="goal met" ;;
	*/1) verdict="goal missed" ;;
	*) verdict="did not run to the end (exit $rc)" status=1 ;;
	esac
	commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)
	git -C "$here" diff --quiet HEAD -- . ':!bench/RESULTS.md' 2>/dev/null || commit="$commit with uncommitted changes"
	python3 - "$results" "$out" "$c" "$(date +%Y-%m-%d)" "$(machine)" "$load_before" "$(cut -d' ' -f1 /proc/loadavg)" \
		"$commit" "make bench-accuracy ONLY=$c ($line)" "$took" "$verdict" <<'PY'
import os, sys
path, body, concern, date, machine, load0, load1, commit, command, took, verdict = sys.argv[1:]
text = open(path).read()
# Its tables as tables, every other line (warnings, notes) as code; a
# blank line between the two kinds.
out, last = [], None
for line in open(body).read().splitlines():
    kind = "table" if line.startswith("|") else "blank" if not line.strip() else "text"
    if kind != "blank" and last not in (None, "blank", kind):
        out.append("")
    out.append(line if kind != "text" else "    " + line)
    last = kind
entry = (f"## Accuracy: {concern} ({date})\n\n"
         f"Machine: {machine}; load average {load0} at the start, {load1} at the end. "
         f"Commit: {commit}. Command: `{command}`. Took {took} s. **{verdict}.**\n\n"
         + "\n".join(out).strip("\n") + "\n\n")
cut = text.find("\n## ") + 1 or len(text)
tmp = path + ".tmp"
with open(tmp, "w") as f:
    f.write(text[:cut] + entry + text[cut:])
os.replace(tmp, path)
PY
	echo "== $c: $verdict ($took s), appended to $results"
done
exit $status
