#!/bin/sh
# The demo from a fresh checkout: makes sure the packages the build needs
# are there (installs them as root, else names them), builds nccltap without
# its tests in build-demo/ (NCCLTAP_DEMO_BUILD_DIR to choose another), and
# runs `nccltap demo` (nccltap-bench under the shim, a fault injected into
# the simulator, then the report). Arguments go to `nccltap demo`
# (e.g. --scenario hang).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
nccltap_deps_for=build
. "$top/tools/deps.sh"
build=${NCCLTAP_DEMO_BUILD_DIR:-$top/build-demo}
# BUILD_TESTING=OFF: the tests' packages (python3 among them) are not needed.
cmake -S "$top" -B "$build" -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
exec "$build/bin/nccltap" demo --dir "$build/demo-output" "$@"
