# Sourced by the bench scripts: the buildwall under test, a scratch dir
# removed on exit, and a clock.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bw=${BUILDWALL:-$here/build/buildwall}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }
