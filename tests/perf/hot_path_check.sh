#!/bin/sh
# Shows that the shim's hot path neither allocates nor locks: N calls under
# callgrind with NCCLTAP_TIMING=all (the hot path with events), then every
# call site in libnccltap.so of malloc, calloc, realloc, free and the
# pthread mutex and condition functions, with how often it ran. Anything
# that ran about N times would be on the hot path; exit 1 if so.
# Usage: tests/perf/hot_path_check.sh BUILD_DIR [N]
set -eu
build=$(cd "$1" && pwd)
n=${2:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LD_LIBRARY_PATH=$build/lib/nccltap/sim LD_PRELOAD=$build/lib/libnccltap.so NCCLTAP_TIMING=all \
    NCCLSIM_LAT_US=0 NCCLTAP_DIR=$tmp/out valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" \
    "$build/bin/api_exercise" burst "$n" >/dev/null 2>&1
callgrind_annotate --tree=caller "$tmp/cg" 2>/dev/null | python3 -c '
import re, sys
n = int(sys.argv[1])
callers, bad = [], False
watched = re.compile(r"malloc\.c:(malloc|calloc|realloc|free) |pthread_mutex_lock|pthread_cond")
for line in sys.stdin:
    if " < " in line:
        callers.append(line.rstrip())
        continue
    if "*  " in line and watched.search(line):
        for c in callers:
            if "libnccltap" in c:
                calls = int(re.search(r"\((\d+)x\)", c).group(1))
                print("  %8d calls of %s from %s" % (calls, line.split("*")[1].split("[")[0].strip(),
                                                     c.split("<")[1].split("[")[0].strip()))
                bad |= calls >= n // 2
    callers = []
print("FAIL: called about once per NCCL call" if bad else "ok: no allocation or lock per call")
sys.exit(1 if bad else 0)
' "$n"
