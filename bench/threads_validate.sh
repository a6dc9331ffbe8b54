#!/bin/sh
# Does the jobs rule's "archs side by side" hold? On the small CUDA demo
# configured for two archs (ARCHS, sm_80,sm_90), built once:
#  1. advise -j JOBS (2) -r 1 --json: the kernel TUs' archs, the heaviest
#     two timed apart and with --threads 2, and what the rule chose;
#  2. the setting it weighed with the archs side by side (its -j, wall and
#     peak, from the rule's words) against TRIALS (2) clean builds of a
#     copy whose nvcc rule runs --threads 2, at that -j; and the setting
#     without (the fastest -j that fits) against clean builds of the
#     tree as it is at that -j.
# Markdown rows on stdout, to append to bench/RESULTS.md with the date,
# commit and machine.
. "$(dirname "$0")/lib.sh"
jobs=${JOBS:-2} trials=${TRIALS:-2} archs=${ARCHS:-sm_80,sm_90}
demo=$work/demo
"$here/examples/demo-module/configure" --size small --backend cuda --arch "$archs" "$demo" >/dev/null
ninja -C "$demo" -j "$jobs" >/dev/null
"$bw" advise -C "$demo" -j "$jobs" -r 1 --json >"$work/advise.json" 2>"$work/advise.err"
# The rule's two settings from its words: "-j N, W s, P at its peak".
python3 - "$work/advise.json" >"$work/settings" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["fixes"] + d["not_applicable"] if f["fix"] == "jobs"][0]
words = f.get("evidence") or f.get("checked") or ""
s = re.findall(r"-j (\d+), ([0-9.]+) s(?:, ([0-9.]+ [KMG]iB) at its peak)?", words)
side = re.search(r"(?:With them side by side|with them:) -j (\d+), ([0-9.]+) s", words)
apart = re.search(r"(?:fastest without is) -j (\d+), ([0-9.]+) s", words)
chosen = (f.get("title") or "").startswith("run each TU")
print("chosen" if chosen else "not-chosen")
print(" ".join(side.groups()) if side else "- -")
print(" ".join(apart.groups()) if apart else "%d %s" % (d["jobs"] or 2, d["baseline"]["predicted"]["wall_s"]))
for t in f["probes"]["timed"]:
    print("# %s: apart %s s, side by side %s s, peaks %s / %s KiB%s" % (t["target"], t["apart_s"], t["side_by_side_s"], t["apart_peak_kib"], t["side_by_side_peak_kib"], ", " + t["error"] if t["error"] else ""))
PY
{ read -r verdict; read -r side_j side_s; read -r apart_j apart_s; } <"$work/settings"
grep '^#' "$work/settings"
threads=$work/threads
cp -a "$demo" "$threads"
sed -i 's/^cuda_cflags = .*/& --threads 2/' "$threads/build.ninja"
ninja -C "$threads" -t clean >/dev/null
ninja -C "$threads" -j "$jobs" >/dev/null
echo "| demo (small, cuda, $archs) | -j | predicted | measured: median of $trials clean builds (min-max) | error |"
echo "|---|---|---|---|---|"
if [ "$side_j" != - ]; then
	"$bw" wall -C "$threads" -n "$trials" -j "$side_j" --no-control --json >"$work/side.json" 2>/dev/null
	m=$(field "$work/side.json" 'd["wall_s"]["median"]')
	echo "| archs side by side (--threads 2), the rule $verdict | $side_j | $side_s s | $m s ($(field "$work/side.json" '"%.2f-%.2f" % (d["wall_s"]["min"], d["wall_s"]["max"])')) | $(percent "$side_s" "$m") % |"
fi
"$bw" wall -C "$demo" -n "$trials" -j "$apart_j" --no-control --json >"$work/apart.json" 2>/dev/null
m=$(field "$work/apart.json" 'd["wall_s"]["median"]')
echo "| archs one after another | $apart_j | $apart_s s | $m s ($(field "$work/apart.json" '"%.2f-%.2f" % (d["wall_s"]["min"], d["wall_s"]["max"])')) | $(percent "$apart_s" "$m") % |"
