#!/bin/sh
# Every op of every rank stamped (issue 30), on NGPUS GPUs (4): what the default
# timing records and what it costs. Needs an nccltap install at PREFIX,
# PyTorch with torchrun, and for `nccltests` an all_reduce_perf built with
# MPI (ALL_REDUCE_PERF, default all_reduce_perf on PATH) and mpirun.
# Writes under OUT; stamps_summary.py OUT prints what BENCHMARKS.md quotes.
# Usage: stamps_gpu.sh PREFIX OUT PART...   PART: late hang validate nccltests ddp ddp_straggler
#   late      torch_steps.py late: rank 2 3 ms late at each all-reduce, on time
#             at the all-gather right after, default timing
#   hang      torch_steps.py hang: rank 3 stops issuing, default timing,
#             NCCLTAP_HANG_TIMEOUT_S=5, Prometheus files every second: the
#             waiting ranks' files are copied 20 s in, then the job is stopped
#   validate  NCCLTAP_TIMING=all, per-op log: each timed op's own events
#             polled as a stamp's would be, against its exact times
#             (nccltap-bench 8 B to 64 MiB, and the `late` steps)
#   nccltests all_reduce_perf 8 B, NGPUS processes (mpirun), ITERS iterations (20000), ROUNDS
#             alternating rounds of MODES (none auto all): none, a timing
#             (off, auto, all; autoN: polls every N us), or ev_V: not nccltap
#             but event_floor.c's variant V (EVENT_FLOOR: its built library),
#             what that design of timing costs at the least
#   ddp       torch_steps.py ddp, without nccltap, auto and all, ROUNDS
#             (default 8) alternating rounds
#   ddp_straggler torch_steps.py ddp with rank 2 computing 50 ms more before
#             each backward pass (a compute straggler), default timing
# In nccltests and ddp, a timing mode with `_b` after it (auto_b) runs the
# install at PREFIX_B instead: two builds in the same rounds. MPIRUN_FLAGS:
# more of mpirun's options for nccltests (--bind-to none: mpirun binds 1
# or 2 processes to a core each, which nccltap's threads then share).
set -u
prefix=$(cd "$1" && pwd)
out=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 NCCLTAP_OS=off
nccltap=$prefix/bin/nccltap
ngpus=${NGPUS:-4}
torchrun4="torchrun --standalone --nproc-per-node $ngpus"
rounds=${ROUNDS:-8}
log=$out/stamps.log
say() { echo "== $*" | tee -a "$log"; }

late() {
    say "late: rank 2 3 ms late at each all-reduce, default timing"
    "$nccltap" run --dir "$out/late" -- $torchrun4 "$here/torch_steps.py" late 300 2 3 >"$out/late/app.jsonl" 2>>"$log"
    "$nccltap" report --json "$out/late" >"$out/late/report.json" 2>>"$log"
    "$nccltap" report "$out/late" >"$out/late/report.txt" 2>>"$log"
}

hang() {
    say "hang: rank 3 stops issuing, default timing"
    d=$out/hang
    mkdir -p "$d/prom" "$d/prom_copy"
    NCCLTAP_HANG_TIMEOUT_S=5 NCCLTAP_INTERVAL_MS=1000 NCCLTAP_PROM_DIR="$d/prom" \
        timeout -s INT 25 "$nccltap" run --dir "$d/out" -- $torchrun4 "$here/torch_steps.py" hang 200 3 \
        >"$d/app.jsonl" 2>>"$log" &
    job=$!
    # The stuck op's call comes after torchrun's start-up and 100 steps
    # (about 10 s): 20 s in, its age is past the 5 s timeout.
    sleep 20
    date +%s.%N >"$d/copied_at"
    cp "$d"/prom/*.prom "$d/prom_copy/" 2>>"$log"
    wait $job
    "$nccltap" report --json "$d/out" >"$d/report.json" 2>>"$log"
}

validate() {
    say "validate: timed ops polled as stamps, against their exact times"
    NCCLTAP_TIMING=all NCCLTAP_OPS_JSONL=1 "$nccltap" run --dir "$out/validate/bench" -- \
        "$prefix/bin/nccltap-bench" --ranks 4 --op allreduce --bytes 8:64M --factor 8 --iters 200 --warmup 10 \
        >>"$log" 2>&1
    NCCLTAP_TIMING=all NCCLTAP_OPS_JSONL=1 "$nccltap" run --dir "$out/validate/steps" -- \
        $torchrun4 "$here/torch_steps.py" late 300 2 3 >"$out/validate/steps.jsonl" 2>>"$log"
}

# A mode's timing, poll interval and install: auto500_b is auto, 500 us,
# PREFIX_B's.
lib_of() {
    lib_prefix=$prefix
    m=$1
    if [ "${m%_b}" != "$m" ]; then
        lib_prefix=$(cd "${PREFIX_B:?PREFIX_B: the install a _b mode runs}" && pwd)
        m=${m%_b}
    fi
    timing=${m%%[0-9]*} poll=${m#"$timing"}
}

nccltests() {
    modes=${MODES:-none auto all}
    say "nccltests: all_reduce_perf 8 B, $ngpus processes, $rounds alternating rounds of $modes"
    perf=${ALL_REDUCE_PERF:-all_reduce_perf}
    mpi="mpirun --allow-run-as-root --oversubscribe ${MPIRUN_FLAGS:-} -np $ngpus -x NCCL_NVLS_ENABLE -x NCCLTAP_OS"
    for r in $(seq "$rounds"); do
        for mode in $modes; do
            d=$out/nccltests/$mode-$r
            mkdir -p "$d"
            lib_of "$mode"
            if [ $mode = none ]; then
                $mpi "$perf" -b 8 -e 8 -n ${ITERS:-20000} -w 2000 -g 1 >"$d/out.txt" 2>&1
            elif [ "${mode#ev_}" != "$mode" ]; then
                $mpi -x LD_PRELOAD="$EVENT_FLOOR" -x EVFLOOR="${mode#ev_}" \
                    "$perf" -b 8 -e 8 -n ${ITERS:-20000} -w 2000 -g 1 >"$d/out.txt" 2>&1
            else
                $mpi -x LD_PRELOAD="$lib_prefix/lib/libnccltap.so" -x NCCLTAP_TIMING=$timing -x NCCLTAP_DIR="$d" \
                    ${poll:+-x NCCLTAP_POLL_US=$poll} "$perf" -b 8 -e 8 -n ${ITERS:-20000} -w 2000 -g 1 >"$d/out.txt" 2>&1
            fi
        done
    done
}

ddp() {
    modes=${MODES:-none auto all}
    say "ddp: DDP step, 24 Linear(1024, 1024), bucket_cap_mb=1, $rounds alternating rounds of $modes"
    for r in $(seq "$rounds"); do
        for mode in $modes; do
            d=$out/ddp/$mode-$r
            mkdir -p "$d"
            lib_of "$mode"
            if [ $mode = none ]; then
                $torchrun4 "$here/torch_steps.py" ddp 300 -1 0 >"$d/app.jsonl" 2>>"$log"
            else
                env NCCLTAP_TIMING=$timing ${poll:+NCCLTAP_POLL_US=$poll} "$lib_prefix/bin/nccltap" run --dir "$d" -- \
                    $torchrun4 "$here/torch_steps.py" ddp 300 -1 0 >"$d/app.jsonl" 2>>"$log"
            fi
        done
    done
}

ddp_straggler() {
    say "ddp_straggler: DDP, rank 2 computes 50 ms more before each backward pass, ${TIMING:-auto} timing"
    NCCLTAP_TIMING=${TIMING:-auto} NCCLTAP_OPS_JSONL=1 "$nccltap" run --dir "$out/ddp_straggler" -- \
        $torchrun4 "$here/torch_steps.py" ddp 150 2 50 >"$out/ddp_straggler/app.jsonl" 2>>"$log"
    "$nccltap" report --json "$out/ddp_straggler" >"$out/ddp_straggler/report.json" 2>>"$log"
    "$nccltap" report "$out/ddp_straggler" >"$out/ddp_straggler/report.txt" 2>>"$log"
}

for part in "$@"; do
    case $part in
    late | hang | validate | nccltests | ddp | ddp_straggler) mkdir -p "$out/$part"; $part ;;
    *) echo "stamps_gpu.sh: no part $part" >&2; exit 2 ;;
    esac
done
