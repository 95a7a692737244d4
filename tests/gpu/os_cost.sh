#!/bin/sh
# What NCCLTAP_OS=switch costs on a GPU node (issue 22, BENCHMARKS.md):
# nccltap-bench on NCCLTAP_GPU_RANKS GPUs (default 1), AllReduce 8 B, 1 MiB
# and 64 MiB, NCCLTAP_OS=switch and off alternating under `nccltap run`,
# ROUNDS rounds; each run's mean us per call (the bench's own host time),
# the switch records rank 0 kept and the threads it followed (by name: which
# of NCCL's were found), and the OS section of the last switch run's report.
# With OS_SWITCH_COST (the path of the build's os_switch_cost), also the
# cost per switch record on this node's kernel.
# NCCLTAP_RUN_FLAGS=--sim tries it on the simulator.
# Usage: os_cost.sh PREFIX OUT [ROUNDS [OS_SWITCH_COST]]
set -u
prefix=$(cd "$1" && pwd)
out=$2
rounds=${3:-4}
cost=${4:-}
mkdir -p "$out/runs"
export NCCL_NVLS_ENABLE=0 PATH="$prefix/bin:$PATH"
ranks=${NCCLTAP_GPU_RANKS:-1}
sum=$out/summary.txt
: >"$sum"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; uname -r
  echo "perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"; } >>"$sum" 2>&1
echo "os size us_per_call off_records lost threads" >>"$sum"
for round in $(seq 1 "$rounds"); do
    for os in switch off; do
        d=$out/runs/$os-$round
        rm -rf "$d"
        NCCLTAP_OS=$os nccltap run ${NCCLTAP_RUN_FLAGS:-} --dir "$d" -- nccltap-bench --ranks "$ranks" --op allreduce \
            --bytes 8,1M,64M --iters 2000 --warmup 50 >"$d.bench.txt" 2>"$d.err.txt"
        recs=$(python3 -c 'import glob, json, sys
d = json.load(open(sorted(glob.glob(sys.argv[1] + "/*.json"))[0])).get("os", {})
print(len(d.get("off", [])), d.get("lost", "-"), "|".join(t["comm"] + ("(nccl)" if t.get("nccl") else "")
                                                    for t in d.get("threads", [])).replace(" ", "_") or "-")' "$d")
        awk -v os=$os -v recs="$recs" '$1 ~ /^[0-9]+$/ && $14 == "AllReduce" { print os, $1, $6, recs }' \
            "$d.bench.txt" >>"$sum"
    done
done
nccltap report "$out/runs/switch-$rounds" 2>/dev/null | sed -n '/^OS interference/,/^[A-Z]/p' >"$out/os_section.txt"
if [ -n "$cost" ]; then
    echo "per switch record: $cost 100000 8" >>"$sum"
    "$cost" 100000 8 >>"$sum" 2>&1
fi
cat "$sum"
