#!/bin/sh
# The whole test suite, as CI runs it: a warnings-as-errors build, then the
# same tests again under AddressSanitizer and UndefinedBehaviorSanitizer,
# then the unit and shim tests (the threads of the shim: the application's,
# the reducer, fork, constructors) under ThreadSanitizer.
# Usage: tests/run.sh [build-directory-prefix]   (default: build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$top/build}
jobs=$(nproc 2>/dev/null || echo 2)
tests=
. "$top/tools/deps.sh"

# run_suite DIR [CMAKE_ARGS...]; $tests: a ctest -R filter (default: all).
run_suite() {
    dir=$1; shift
    cmake -S "$top" -B "$dir" -DNCCLTAP_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$jobs"
    (cd "$dir" && ctest --output-on-failure -j "$jobs" ${tests:+-R "$tests"})
}

echo "== release build, warnings as errors"
run_suite "$prefix"
echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
run_suite "$prefix-asan" -DCMAKE_BUILD_TYPE=Debug -DNCCLTAP_SANITIZE=address,undefined
echo "== ThreadSanitizer: unit and shim tests"
tests='^(units|shim\.|security\.)' run_suite "$prefix-tsan" -DCMAKE_BUILD_TYPE=Debug -DNCCLTAP_SANITIZE=thread
