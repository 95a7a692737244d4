#!/bin/sh
# Instructions the shim adds to one intercepted call, background thread
# included, counted by valgrind's callgrind on the simulator (repeatable, not
# a timing): one rank, 8 B AllReduce, runs of N1 and N2 calls with and
# without the shim, NCCLTAP_TIMING=off; added instructions per call =
# ((I_shim(N2) - I_shim(N1)) - (I_plain(N2) - I_plain(N1))) / (N2 - N1).
# Workloads: `bench`, nccltap-bench (each call between its own event
# pair, as an application times it); `burst`, tests/apps/api_exercise
# (calls back to back, nothing else). Other NCCLTAP_ variables set by the
# caller apply to the shim's runs, e.g. NCCLTAP_CALLSITE_DEPTH=8.
# Usage: tests/perf/callgrind_cost.sh BUILD_DIR [bench|burst] [N1 N2]
set -eu
build=$(cd "$1" && pwd)
workload=${2:-bench}
n1=${3:-20000}
n2=${4:-40000}
shim=$build/lib/libnccltap.so
sim=$build/lib/nccltap/sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case $workload in
bench) set -- "$build/bin/nccltap-bench" --op allreduce --bytes 8 --warmup 0 --iters ;;
burst) set -- "$build/bin/api_exercise" burst ;;
*) echo "usage: $0 BUILD_DIR [bench|burst] [N1 N2]" >&2; exit 2 ;;
esac

instructions() { # preload calls
    preload=$1 calls=$2
    shift 2
    LD_LIBRARY_PATH=$sim LD_PRELOAD=$preload NCCLTAP_TIMING=off NCCLSIM_LAT_US=0 NCCLTAP_DIR=$tmp/out \
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$@" "$calls" >/dev/null 2>"$tmp/log"
    callgrind_annotate "$tmp/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

p1=$(instructions "" "$n1" "$@"); p2=$(instructions "" "$n2" "$@")
s1=$(instructions "$shim" "$n1" "$@"); s2=$(instructions "$shim" "$n2" "$@")
echo "workload: $workload"
echo "plain: $p1 ($n1 calls) $p2 ($n2 calls)"
echo "shim:  $s1 ($n1 calls) $s2 ($n2 calls)"
echo "added instructions per call: $(( ((s2 - s1) - (p2 - p1)) / (n2 - n1) ))"
