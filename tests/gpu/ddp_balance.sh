#!/bin/sh
# Is a healthy DDP job's slower rank nccltap's doing? (issue 32) Healthy
# DDP (torch_steps.py ddp 120 -1 0) under torchrun on NGPUS GPUs (4),
# ROUNDS rounds (3) of: no nccltap, NCCLTAP_TIMING=auto, all; each run's
# per-rank host time in the backward call (where DDP issues its
# all-reduces), the step time, and the slowest rank's backward over the
# fastest's (OUT/balance.txt).
# Usage: ddp_balance.sh PREFIX OUT [ROUNDS]
set -u
prefix=$(cd "$1" && pwd)
out=$2
rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
job="torchrun --standalone --nproc-per-node ${NGPUS:-4} $here/torch_steps.py ddp 120 -1 0"
r=1
while [ "$r" -le "$rounds" ]; do
    $job >"$out/none-$r.jsonl" 2>>"$out/log"
    for mode in auto all; do
        NCCLTAP_TIMING=$mode "$prefix/bin/nccltap" run --dir "$out/run-$mode-$r" -- $job \
            >"$out/$mode-$r.jsonl" 2>>"$out/log"
        rm -rf "$out/run-$mode-$r"
    done
    r=$((r + 1))
done
python3 - "$out" "$here" <<'PY' | tee "$out/balance.txt"
import glob, os, sys
sys.path.insert(0, sys.argv[2])
from scenarios_summary import script_lines
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    ranks = sorted(script_lines(open(path).read()), key=lambda a: a["rank"])
    if not ranks:
        print("%-14s no output" % os.path.basename(path))
        continue
    bwd = [a["bwd_ms"] for a in ranks]
    print("%-14s step %.2f ms  backward per rank %s ms  slowest/fastest %.2f" % (
        os.path.basename(path), ranks[0]["step_ms"], " ".join("%.2f" % b for b in bwd), max(bwd) / min(bwd)))
PY
