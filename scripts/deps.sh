#!/bin/sh
# Install the Debian packages a make target needs: as root, with apt-get;
# otherwise print the exact apt-get line and stop.
#   build: compiler, jansson (JSON), SQLite (the history), ninja (buildwall
#          asks ninja itself)
#   test:  + cmocka (unit tests), python3 (JSON checks), the demo's headers,
#          chromium and Node.js (the report's browser tests), then
#          playwright-core from npm into tests/browser (the driver)
#   demo:  + pybind11 and Python headers for the demo module
#   man:   lowdown (the man pages from docs/, for make install)
#   bench: + Debian's torch for Python, its headers (libtorch-dev) and its
#          build helpers (bench/real_modules.sh JIT-builds public extensions
#          with torch.utils.cpp_extension)
#   (clang-19 for the HIP demo: always for test, for demo without nvcc;
#   hipcc for test: the aiter-shaped tree whose .cu dispatcher it compiles;
#   distcc for test: a cluster of loopback daemons the launcher tests build on)
set -eu
what=${1:-build}
pkgs="gcc make libjansson-dev libsqlite3-dev ninja-build"
case $what in
build) ;;
test) pkgs="$pkgs libcmocka-dev python3 pybind11-dev python3-dev procps chromium nodejs lowdown man-db" ;;
demo) pkgs="$pkgs pybind11-dev python3-dev" ;;
man) pkgs="$pkgs lowdown" ;;
bench) pkgs="$pkgs python3-torch libtorch-dev python3-setuptools python3-dev git" ;;
*) echo "deps.sh: unknown set '$what'" >&2; exit 2 ;;
esac
# The demo's kernels need a GPU compiler: nvcc when it is there (CUDA is not
# a Debian package), else Debian's clang-19 builds them as HIP. The tests
# build the HIP variant too, so they always want clang-19.
if [ "$what" = test ] || { [ "$what" = demo ] && ! command -v nvcc >/dev/null 2>&1; }; then
	pkgs="$pkgs clang-19 lld-19 clang-tools-19"
fi
# The fuzz harnesses link libFuzzer and the sanitizers from clang-19's runtime.
# Debian packages npm apart from nodejs (NodeSource's nodejs carries it).
if [ "$what" = test ]; then
	pkgs="$pkgs libclang-rt-19-dev hipcc distcc"
	command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
fi

# The browser tests' driver, pinned by tests/browser/package-lock.json.
browser_driver() {
	[ "$what" = test ] || return 0
	browser=$(cd "$(dirname "$0")/../tests/browser" && pwd)
	[ -f "$browser/node_modules/playwright-core/package.json" ] && return 0
	echo "buildwall: installing playwright-core from npm into tests/browser" >&2
	(cd "$browser" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
}

missing=
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	browser_driver
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "buildwall: missing Debian packages; as root, run:" >&2
	echo "  apt-get install -y$missing" >&2
	exit 1
fi
echo "buildwall: installing from Debian:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
browser_driver
