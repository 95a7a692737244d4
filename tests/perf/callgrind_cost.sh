#!/bin/sh
# Instructions the shim adds to one intercepted call, background thread
# included, counted by valgrind's callgrind on the simulator (repeatable, not
# a timing): one rank, 8 B AllReduce, runs of N1 and N2 calls with and
# without the shim, NCCLTAP_TIMING=off; added instructions per call =
# ((I_shim(N2) - I_shim(N1)) - (I_plain(N2) - I_plain(N1))) / (N2 - N1).
# Usage: tests/perf/callgrind_cost.sh BUILD_DIR [N1 N2]
set -eu
build=$(cd "$1" && pwd)
n1=${2:-20000}
n2=${3:-40000}
app=$build/bin/api_exercise
shim=$build/lib/libnccltap.so
sim=$build/lib/nccltap/sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

instructions() { # preload calls
    LD_LIBRARY_PATH=$sim LD_PRELOAD=$1 NCCLTAP_TIMING=off NCCLSIM_LAT_US=0 NCCLTAP_DIR=$tmp/out \
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$app" burst "$2" >/dev/null 2>"$tmp/log"
    callgrind_annotate "$tmp/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

p1=$(instructions "" "$n1"); p2=$(instructions "" "$n2")
s1=$(instructions "$shim" "$n1"); s2=$(instructions "$shim" "$n2")
echo "plain: $p1 ($n1 calls) $p2 ($n2 calls)"
echo "shim:  $s1 ($n1 calls) $s2 ($n2 calls)"
echo "added instructions per call: $(( ((s2 - s1) - (p2 - p1)) / (n2 - n1) ))"
