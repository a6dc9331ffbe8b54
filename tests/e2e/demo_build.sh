#!/bin/sh
# demo_build.sh DIR [BACKEND]: configure the small baseline demo module in
# DIR and build it at -j 2, unless DIR holds it built already; the build's
# output in DIR/first-build.log, its tail on stderr when it fails. lib.sh's
# demo_dir calls it, and run.sh ahead of the scripts, beside the unit tests.
d=$1
[ -f "$d/opus_demo.so" ] && exit 0
"$(dirname "$0")/../../examples/demo-module/configure" --size small --backend "${2:-auto}" "$d" >/dev/null &&
	ninja -C "$d" -j 2 >"$d/first-build.log" 2>&1 || { tail -n 20 "$d/first-build.log" >&2; exit 1; }
