#!/bin/sh
# What the Python line costs an NCCL call made from Python (BENCHMARKS.md,
# issue 25): Debian's python3 calls the simulated ncclAllReduce through
# ctypes from one line N and 2N times under callgrind, at
# NCCLTAP_CALLSITE_DEPTH=0 (no sites) and 1 (the native return address and
# the Python line); the difference of the two counts over N is per call.
# Usage: tests/perf/python_callsite_cost.sh BUILD [N]    (N: default 20000)
set -e
b=$(cd "$1" && pwd); n=${2:-20000}
py=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/calls.py" <<'PY'
import ctypes, sys
cuda, nccl = ctypes.CDLL("libcuda.so.1"), ctypes.CDLL("libnccl.so.2")
P = ctypes.c_void_p
dev, ctx, stream, buf = ctypes.c_int(), P(), P(), ctypes.c_uint64()
cuda.cuInit(0); cuda.cuDeviceGet(ctypes.byref(dev), 0)
cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cuda.cuCtxSetCurrent(ctx)
cuda.cuStreamCreate(ctypes.byref(stream), 1); cuda.cuMemAlloc_v2(ctypes.byref(buf), ctypes.c_size_t(4096))
class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]
uid, comm = UniqueId(), P()
nccl.ncclGetUniqueId(ctypes.byref(uid)); nccl.ncclCommInitRank(ctypes.byref(comm), 1, uid, 0)
b, f = P(buf.value), nccl.ncclAllReduce
for _ in range(int(sys.argv[1])):
    f(b, b, ctypes.c_size_t(64), 7, 0, comm, stream)
cuda.cuStreamSynchronize(stream)
PY
count() {  # depth calls -> total instructions
    PYTHONHASHSEED=0 LD_LIBRARY_PATH=$b/lib/nccltap/sim NCCLSIM_LAT_US=0 NCCLTAP_TIMING=off NCCLTAP_OS=off \
    NCCLTAP_CALLSITE_DEPTH=$1 NCCLTAP_DIR=$work/out LD_PRELOAD=$b/lib/libnccltap.so \
        valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$py" "$work/calls.py" "$2" >/dev/null 2>&1
    callgrind_annotate "$work/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
for depth in 0 1; do
    a=$(count $depth "$n"); c=$(count $depth $((2 * n)))
    echo "depth $depth: $(( (c - a) / n )) instructions per call"
done
