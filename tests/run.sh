#!/bin/sh
# The whole test suite, as CI runs it: a warnings-as-errors build, then the
# same tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
# Usage: tests/run.sh [build-directory-prefix]   (default: build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$top/build}
jobs=$(nproc 2>/dev/null || echo 2)
. "$top/tools/deps.sh"

run_suite() {
    dir=$1; shift
    cmake -S "$top" -B "$dir" -DNCCLTAP_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$jobs"
    (cd "$dir" && ctest --output-on-failure -j "$jobs")
}

echo "== release build, warnings as errors"
run_suite "$prefix"
echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
run_suite "$prefix-asan" -DCMAKE_BUILD_TYPE=Debug -DNCCLTAP_SANITIZE=address,undefined
