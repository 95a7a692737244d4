#!/bin/sh
# The demo from a fresh checkout: installs what the build needs (as root),
# builds, and runs `nccltap demo` (nccltap-bench under the shim, on GPUs when
# present, else on the simulator), which prints the report.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/deps.sh"
cmake -S "$top" -B "$top/build" >/dev/null
cmake --build "$top/build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
exec "$top/build/bin/nccltap" demo --dir "$top/build/demo-output" "$@"
