#!/bin/sh
# The GPU suite: nccltap on real NCCL and GPUs. Needs an nccltap install
# (PREFIX) and at least 2 GPUs. Writes everything under OUT and prints a
# summary from analyze.py. Usage: run_gpu_suite.sh PREFIX OUT
set -u
prefix=$(cd "$1" && pwd)
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PATH="$prefix/bin:$PATH"
ranks=${NCCLTAP_GPU_RANKS:-2}
bench="nccltap-bench --ranks $ranks"
log=$out/suite.log
say() { echo "== $*" | tee -a "$log"; }

say "machine"
{ nvidia-smi --query-gpu=name,driver_version --format=csv; ldconfig -p | grep -E 'libnccl|libcuda\.so'; } >>"$log" 2>&1

say "ABI check against the system nccl.h"
nccl_h=$(ls /usr/include/nccl.h 2>/dev/null || find / -name nccl.h -path '*include*' 2>/dev/null | head -1)
echo "nccl.h: $nccl_h" >>"$log"
if [ -n "$nccl_h" ] && cc -std=gnu11 -Wall -Wextra -I"$here/../../preload" -I"$here/../abi" \
        -I"$(dirname "$nccl_h")" -I/usr/local/cuda/include "$here"/../abi/*.c -o "$out/abi_check" >>"$log" 2>&1; then
    "$out/abi_check" >>"$log" 2>&1
else
    echo "ABI check not built" >>"$log"
fi

say "completeness and accuracy: every op, 8 B to 1 GiB, NCCLTAP_TIMING=all, per-call times"
NCCLTAP_TIMING=all NCCLTAP_OPS_JSONL=1 nccltap run --dir "$out/all" -- \
    $bench --op all --bytes 8:1G --iters 20 --warmup 0 --per-call --json "$out/all/bench.json" >>"$log" 2>&1
nccltap report --json "$out/all" >"$out/all/report.json" 2>>"$log"
nccltap report "$out/all" >"$out/all/report.txt" 2>>"$log"

say "the same in auto"
nccltap run --dir "$out/auto" -- $bench --op all --bytes 8:1G --iters 20 --warmup 0 --json "$out/auto/bench.json" >>"$log" 2>&1
nccltap report --json "$out/auto" >"$out/auto/report.json" 2>>"$log"

say "overhead: AllReduce 8 B to 1 GiB, without the shim, auto, all; alternating, 3 rounds"
for round in 1 2 3; do
    for mode in plain auto all; do
        d=$out/overhead/$mode-$round
        mkdir -p "$d"
        if [ $mode = plain ]; then
            $bench --op allreduce --bytes 8:1G --iters 200 --warmup 20 --json "$d/bench.json" >>"$log" 2>&1
        else
            NCCLTAP_TIMING=$mode nccltap run --dir "$d" -- \
                $bench --op allreduce --bytes 8:1G --iters 200 --warmup 20 --json "$d/bench.json" >>"$log" 2>&1
        fi
    done
done

if python3 -c 'import torch, torch.distributed' 2>/dev/null; then
    say "PyTorch: torchrun, all_reduce and all_gather through PyTorch's own NCCL"
    nccltap run --dir "$out/torch" -- torchrun --standalone --nproc-per-node "$ranks" \
        "$here/torch_collectives.py" "$out/torch/expected" >>"$log" 2>&1
    nccltap report --json "$out/torch" >"$out/torch/report.json" 2>>"$log"
fi

if command -v lttng-sessiond >/dev/null 2>&1; then
    say "traced run: every op, 8 B to 1 GiB, NCCLTAP_TIMING=all, blocking LTTng channel"
    NCCLTAP_TIMING=all nccltap run --lttng --blocking --dir "$out/traced" -- \
        $bench --op all --bytes 8:1G --iters 20 --warmup 0 --json "$out/traced/bench.json" >>"$log" 2>&1
    babeltrace2 "$out/traced/lttng" 2>>"$log" | awk '{print $4}' | sort | uniq -c >"$out/traced/event_counts.txt"
    nccltap report --json "$out/traced/lttng" >"$out/traced/report_trace.json" 2>>"$log"
    nccltap report --json "$out/traced" >"$out/traced/report.json" 2>>"$log"
fi

say "analysis"
python3 "$here/analyze.py" "$out" 2>&1 | tee "$out/summary.txt"
