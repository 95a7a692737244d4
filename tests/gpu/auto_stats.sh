#!/bin/sh
# auto timing and the report's statistics on real GPUs (issue 8): the
# overhead of NCCLTAP_TIMING=auto against no shim, in alternating rounds,
# with how many calls auto timed per size; and a sweep where the report's
# p50-based busbw stands beside nccltap-bench's own busbw at every size from
# 1 MiB. Needs an nccltap install (PREFIX) and 2 GPUs. Writes OUT/summary.txt
# (printed too), OUT/suite.log and OUT/runs.tar.gz (every run's files).
# Usage: auto_stats.sh PREFIX OUT [ROUNDS]    (ROUNDS: default 8)
set -u
prefix=$(cd "$1" && pwd)
out=$2
rounds=${3:-8}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/runs"
export NCCL_NVLS_ENABLE=0 PATH="$prefix/bin:$PATH"
ranks=${NCCLTAP_GPU_RANKS:-2}
bench="nccltap-bench --ranks $ranks"
log=$out/suite.log
say() { echo "== $*" | tee -a "$log"; }

say "machine"
{ nvidia-smi --query-gpu=name,driver_version --format=csv; ldconfig -p | grep -E 'libnccl|libcuda\.so'; } >>"$log" 2>&1

# Overhead: AllReduce 8 B to 1 GiB, 1000 calls per size after 20 of
# warm-up, plain and auto alternating, so that drifts of the machine fall
# on both alike; medians over the rounds (small-op times are bimodal from
# run to run: DESIGN.md).
say "overhead: AllReduce 8 B to 1 GiB, plain and auto alternating, $rounds rounds"
for round in $(seq 1 "$rounds"); do
    for mode in plain auto; do
        d=$out/runs/overhead/$mode-$round
        mkdir -p "$d"
        if [ $mode = plain ]; then
            $bench --op allreduce --bytes 8:1G --iters 1000 --warmup 20 --json "$d/bench.json" >>"$log" 2>&1
        else
            NCCLTAP_TIMING=auto nccltap run --dir "$d" -- \
                $bench --op allreduce --bytes 8:1G --iters 1000 --warmup 20 --json "$d/bench.json" >>"$log" 2>&1
            nccltap report --json "$d" >"$d/report.json" 2>>"$log"
        fi
    done
done

# The sweep: every op, 1 MiB to 1 GiB, under auto (every call at these
# sizes should be timed), the report's p50 against the bench's own timing.
say "sweep: every op, 1 MiB to 1 GiB, auto"
d=$out/runs/sweep
mkdir -p "$d"
NCCLTAP_TIMING=auto nccltap run --dir "$d" -- \
    $bench --op all --bytes 1M:1G --iters 100 --warmup 5 --json "$d/bench.json" >"$d/bench.txt" 2>>"$log"
cat "$d/bench.txt" >>"$log"
nccltap report --json "$d" >"$d/report.json" 2>>"$log"
nccltap report "$d" >"$d/report.txt" 2>>"$log"

say "analysis"
python3 "$here/auto_stats.py" "$out/runs" 2>&1 | tee "$out/summary.txt"
tar -C "$out" -czf "$out/runs.tar.gz" runs && rm -rf "$out/runs"
