#!/bin/sh
# The GPU scenario suite (issue 32): each fault under torchrun on NGPUS
# GPUs (4; with 2, the culprits below that are rank 2 or 3 are rank 1),
# PyTorch's NCCL, in the default timing and in `all`; each fault's culprit
# must be the first finding, the healthy run must have none.
#   healthy    DDP (torch_steps.py ddp), nobody slower
#   compute    DDP, rank 2 computes 20 ms more before each backward pass
#   host       DDP, rank 1's host sleeps 50 ms before every 5th step
#   late       rank 2 3 ms late before each all-reduce, all-gather right after
#   hang       rank 3 stops issuing; NCCLTAP_HANG_TIMEOUT_S=5, stopped at 25 s
#   marked     healthy DDP whose steps begin with nccltap_step()
#   pymarked   healthy DDP marked from Python (--step-function train_step)
# A name with a number after it (healthy2) runs the scenario again.
# Usage: scenarios_gpu.sh PREFIX OUT [SCENARIO...]; MODES (default
# "auto all"); KEEP_OPS=1 keeps each run's files (OUT/<scenario>-<mode>/out). Writes OUT/<scenario>-<mode>/{report.txt,report.json} and
# OUT/scenarios.json, the verdicts (scenarios_summary.py).
set -u
prefix=$(cd "$1" && pwd)
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
nccltap=$prefix/bin/nccltap
ngpus=${NGPUS:-4}
torchrun4="torchrun --standalone --nproc-per-node $ngpus"
r2=$((ngpus > 2 ? 2 : ngpus - 1)) r3=$((ngpus - 1))
log=$out/scenarios.log
say() { echo "== $*" | tee -a "$log"; }

one() {  # one NAME MODE CULPRIT ARGS...; CULPRIT: the rank to be named, or -1
    name=$1 mode=$2
    d=$out/$name-$mode
    mkdir -p "$d"
    echo "$3" >"$d/culprit"
    shift 3
    say "$name, $mode timing: torch_steps.py $*"
    if [ "$name" = hang ]; then
        NCCLTAP_TIMING=$mode NCCLTAP_HANG_TIMEOUT_S=5 timeout -s INT 25 \
            "$nccltap" run --dir "$d/out" ${run_flags:-} -- $torchrun4 "$here/torch_steps.py" "$@" >"$d/app.jsonl" 2>>"$log"
    else
        NCCLTAP_TIMING=$mode "$nccltap" run --dir "$d/out" ${run_flags:-} -- $torchrun4 "$here/torch_steps.py" "$@" \
            >"$d/app.jsonl" 2>>"$log"
    fi
    "$nccltap" report --json "$d/out" >"$d/report.json" 2>>"$log"
    "$nccltap" report "$d/out" 2>>"$log" | head -n 60 >"$d/report.txt"
    # The per-op files: tens of MB, wanted back only to study the verdicts.
    [ -n "${KEEP_OPS:-}" ] || rm -rf "$d/out"
}

scenarios=${*:-healthy compute host late hang}
for mode in ${MODES:-auto all}; do
    for s in $scenarios; do
        case $s in
        marked*) TORCH_STEPS_MARK=1; export TORCH_STEPS_MARK
            one "$s" "$mode" -1 ddp 120 -1 0
            unset TORCH_STEPS_MARK ;;
        pymarked*) run_flags="--step-function train_step"
            one "$s" "$mode" -1 ddp 120 -1 0
            run_flags= ;;
        healthy*) one "$s" "$mode" -1 ddp 120 -1 0 ;;
        compute) one compute "$mode" $r2 ddp 120 $r2 20 ;;
        host) one host "$mode" 1 ddp_host 120 1 50 ;;
        late) one late "$mode" $r2 late 300 $r2 3 ;;
        hang) one hang "$mode" $r3 hang 200 $r3 ;;
        *) echo "scenarios_gpu.sh: no scenario $s" >&2; exit 2 ;;
        esac
    done
done
python3 "$here/scenarios_summary.py" "$out" | tee "$out/scenarios.txt"
