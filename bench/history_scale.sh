#!/bin/sh
# history and check at scale: 10,000 recorded builds of a 1,000-TU module
# (10 million step rows). The module is a real ninja tree (its graph from
# ninja, three clean builds in its .ninja_log); buildwall records one build,
# which creates the file with its schema, and the other 9,999 are added in
# bulk with python3's sqlite3 as docs/db.md describes them. Then each
# command is timed (median of 5) beside a floor: sqlite3's own count of
# the builds, a process that opens the same file and reads its index.
# Fails when history or check takes 0.2 s or more.
#   BUILDS (default 10000), TUS (default 1000), KEEP=1 keeps the files.
set -eu
BW=${BUILDWALL:-$(cd "$(dirname "$0")/.." && pwd)/build/buildwall}
BUILDS=${BUILDS:-10000}
TUS=${TUS:-1000}
work=$(mktemp -d "${TMPDIR:-/tmp}/bw-history-bench.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
dir=$work/mod db=$work/history.db
mkdir -p "$dir"

python3 - "$dir" "$TUS" <<'EOF'
import sys
d, n = sys.argv[1], int(sys.argv[2])
with open(f"{d}/build.ninja", "w") as f:
    f.write("rule cc\n  command = cc -c $in -o $out\nrule link\n  command = cc -shared $in -o $out\n")
    for i in range(n):
        f.write(f"build tu_{i}.o: cc tu_{i}.c\n")
    f.write("build mod.so: link " + " ".join(f"tu_{i}.o" for i in range(n)) + "\n")
with open(f"{d}/.ninja_log", "w") as f:
    f.write("# ninja log v5\n")
    for b in range(3):
        t = 0
        for i in range(n):
            f.write(f"{t}\t{t + 1000 + 10 * b}\t0\ttu_{i}.o\t{i:x}\n")
            t += 10
        f.write(f"{t + 1000}\t{t + 2000}\t0\tmod.so\tffff\n")
EOF
"$BW" record -C "$dir" --db "$db" --label branch=main >/dev/null

start=$(date +%s)
python3 - "$db" "$BUILDS" <<'EOF'
import random, sqlite3, sys
db, n = sys.argv[1], int(sys.argv[2])
c = sqlite3.connect(db)
(module, machine, identity) = c.execute("select module_id, machine_id, identity from builds").fetchone()
targets = [r[0] for r in c.execute("select id from targets order by id")]
rng = random.Random(1)
cur = c.cursor()
cur.execute("begin")
for b in range(1, n):
    wall = 30 + rng.random()
    cur.execute("insert into builds (identity, module_id, machine_id, commit_id, dirty, recorded_at, source, jobs,"
                " wall_s, steps, complete) values (?, ?, ?, ?, 0, ?, 'bench', 2, ?, ?, 1)",
                (f"bench-{b}", module, machine, f"{b // 100:040x}", 1700000000 + b, wall, len(targets)))
    bid = cur.lastrowid
    cur.execute("insert into labels values (?, 'branch', ?)", (bid, "main" if b % 2 else "topic"))
    cur.executemany("insert into steps values (?, ?, ?)", ((bid, t, 1 + rng.random()) for t in targets))
c.commit()
print(f"# {n} builds, {c.execute('select count(*) from steps').fetchone()[0]} step rows")
EOF
echo "# filled in $(($(date +%s) - start)) s; the file is $(du -h "$db" | cut -f1)"

# The median of 5 wall times of a command, in seconds.
timed() {
	python3 - "$@" <<'EOF'
import statistics, subprocess, sys, time
walls = []
for _ in range(5):
    t = time.monotonic()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    walls.append(time.monotonic() - t)
print(f"{statistics.median(walls):.4f}")
EOF
}
floor=$(timed sqlite3 "$db" "select count(*) from builds")
hist=$(timed "$BW" history mod --db "$db")
hist_json=$(timed "$BW" history --db "$db" --json)
check=$(timed "$BW" check -C "$dir" --db "$db" --against branch=main --builds 3)
"$BW" check -C "$dir" --db "$db" --against branch=main --builds 3 || true
printf '%-34s %8s %10s\n' "" "seconds" "x floor"
for row in "sqlite3 count (floor):$floor" "history mod:$hist" "history --json (every module):$hist_json" "check --against branch=main:$check"; do
	name=${row%:*} s=${row##*:}
	printf '%-34s %8s %10s\n' "$name" "$s" "$(python3 -c "print(f'{$s / $floor:.1f}')")"
done
python3 -c "import sys; sys.exit(0 if max($hist, $hist_json, $check) < 0.2 else 1)" ||
	{ echo "history_scale: a command took 0.2 s or more" >&2; exit 1; }
