#!/bin/sh
# Instructions the per-op file (.ops, written by default) adds per timed
# op, counted by callgrind on the simulator (repeatable, not a timing): one
# rank, 8 B AllReduce under nccltap-bench, NCCLTAP_TIMING=all, runs of N1
# and N2 calls with NCCLTAP_OPS_MAX_MB=0 (no file) and 256 (the default);
# added instructions per op = ((I_256(N2) - I_256(N1)) - (I_0(N2) - I_0(N1))) / (N2 - N1).
# All of it is in the reducer thread: the call itself is not changed.
# Usage: tests/perf/ops_file_cost.sh BUILD_DIR [N1 N2]
set -eu
build=$(cd "$1" && pwd)
n1=${2:-20000}
n2=${3:-40000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

instructions() { # max_mb calls
    rm -rf "$tmp/out"
    LD_LIBRARY_PATH=$build/lib/nccltap/sim LD_PRELOAD=$build/lib/libnccltap.so NCCLTAP_TIMING=all \
        NCCLTAP_OPS_MAX_MB=$1 NCCLSIM_LAT_US=0 NCCLTAP_DIR=$tmp/out \
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$build/bin/nccltap-bench" \
        --op allreduce --bytes 8 --warmup 0 --iters "$2" >/dev/null 2>"$tmp/log"
    callgrind_annotate "$tmp/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

o1=$(instructions 0 "$n1"); o2=$(instructions 0 "$n2")
f1=$(instructions 256 "$n1"); f2=$(instructions 256 "$n2")
echo "NCCLTAP_OPS_MAX_MB=0:   $o1 ($n1 calls) $o2 ($n2 calls)"
echo "NCCLTAP_OPS_MAX_MB=256: $f1 ($n1 calls) $f2 ($n2 calls)"
echo "added instructions per timed op: $(( ((f2 - f1) - (o2 - o1)) / (n2 - n1) ))"
