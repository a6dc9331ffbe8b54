# Sourced by the bench scripts: the buildwall under test, a scratch dir
# removed on exit, and a clock.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bw=${BUILDWALL:-$here/build/buildwall}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# within P M PCT: is P within PCT % of M? (exit status)
within() { awk -v p="$1" -v m="$2" -v x="$3" 'BEGIN { e = p - m; exit !((e < 0 ? -e : e) <= x / 100 * m) }'; }
# percent P M: |P - M| / M in percent, one decimal
percent() { awk -v p="$1" -v m="$2" 'BEGIN { e = (p - m) / m; printf "%.1f", 100 * (e < 0 ? -e : e) }'; }
