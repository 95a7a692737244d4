#!/bin/sh
# A collective mismatch on real GPUs (issue 33): torch_mismatch.py under
# torchrun on NGPUS GPUs (2 by default) with nccltap preloaded, rank 1
# calling all_gather where the others call all_reduce at step 5 of 12, once
# with the same bytes (`same`) and once with world times the bytes
# (`double`); each job stopped after TIMEOUT_S (60) if it hangs. NCCLTAP_
# TIMING=all and a 5 s hang timeout, so that a hang leaves hang files.
# Needs an nccltap install (PREFIX), PyTorch and the GPUs.
# Usage: mismatch_gpu.sh PREFIX OUT; results in OUT/mismatch/<how>/ (the
# run directories, torchrun's output) and OUT/mismatch.tgz of them all.
set -u
prefix=$(cd "$1" && pwd)
out=$2/mismatch
ngpus=${NGPUS:-2}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
for how in same double; do
    dir=$out/$how
    mkdir -p "$dir"
    echo "== $how: torchrun --nproc-per-node $ngpus torch_mismatch.py 12 5 $how (timeout ${TIMEOUT_S:-60} s)"
    start=$(date +%s)
    LD_PRELOAD=$prefix/lib/libnccltap.so NCCLTAP_DIR=$dir/run NCCLTAP_TIMING=all NCCLTAP_HANG_TIMEOUT_S=5 \
        PG_TIMEOUT_S=40 timeout -s INT "${TIMEOUT_S:-60}" \
        torchrun --standalone --nproc-per-node "$ngpus" "$here/torch_mismatch.py" 12 5 "$how" \
        >"$dir/torchrun.txt" 2>&1
    echo "exit $? after $(( $(date +%s) - start )) s" | tee -a "$dir/torchrun.txt"
    grep -c 'done' "$dir/torchrun.txt" | sed 's/^/steps done (all ranks): /'
    ls "$dir/run" 2>/dev/null | sed 's/^/  /'
done
tar -czf "$2/mismatch.tgz" -C "$2" mismatch
