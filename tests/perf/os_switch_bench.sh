#!/bin/sh
# What NCCLTAP_OS=switch costs an NCCL call (BENCHMARKS.md, issue 22): 2
# simulated ranks of nccltap-bench, 8 B AllReduce, whose waits sleep (each
# call switches the calling thread out and in), NCCLTAP_OS=switch and off
# alternating; prints each round's mean us per call (the bench's own
# timing) and the switch records of rank 0's file.
# Usage: tests/perf/os_switch_bench.sh BUILD [ROUNDS [ITERS]]
set -e
b=$1; rounds=${2:-8}; iters=${3:-20000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
i=0
while [ $i -lt "$rounds" ]; do
    for os in switch off; do
        rm -rf "$out/d"
        us=$(NCCLTAP_TIMING=off NCCLTAP_OS=$os "$b/bin/nccltap" run --sim --dir "$out/d" -- \
             "$b/bin/nccltap-bench" --ranks 2 --op allreduce --bytes 8 --iters "$iters" --warmup 100 2>/dev/null |
             awk '$1 == 8 { print $6 }')
        n=$(python3 -c 'import glob, json, sys
d = json.load(open(sorted(glob.glob(sys.argv[1] + "/*.json"))[0]))["os"]
print(len(d["off"]), d["lost"])' "$out/d")
        echo "$os $us $n"
    done
    i=$((i + 1))
done
