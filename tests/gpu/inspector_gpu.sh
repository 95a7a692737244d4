#!/bin/sh
# NCCLTAP_OPS_JSONL=inspector on real GPUs (issue 11): nccltap-bench, every
# op, 8 B to 1 GiB, every call timed, under `nccltap run`; the Inspector
# records replayed by tests/inspector_reader.py against nccltap's report
# (time and busbw within 1% where the mean time is at least 100 us: the
# records' times are whole microseconds).
#
# With NCCLTAP_INSPECTOR_PLUGIN=/path/to/libnccl-profiler-inspector.so (NCCL
# 2.28 or later, the plugin built from NVIDIA's nccl repository,
# plugins/profiler/inspector), the same run again with NCCL Inspector loaded
# beside nccltap: Inspector's own records and nccltap's, per rank, op and
# size, side by side (busbw within 10% where the time is at least 100 us:
# Inspector times the kernels, nccltap the call on the stream).
#
# Needs an nccltap install (PREFIX) and 2 GPUs. Usage: inspector_gpu.sh PREFIX OUT
# Results: OUT/inspector/summary.txt, the runs' directories and reports.
# NCCLTAP_RUN_FLAGS=--sim tries the script without GPUs.
set -u
prefix=$(cd "$1" && pwd)
out=$2/inspector
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out/alone" "$out/both"  # a second run would add its files beside the first's
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PATH="$prefix/bin:$PATH"
log=$out/log.txt
: >"$log"
bench="nccltap-bench --ranks ${NCCLTAP_GPU_RANKS:-2} --op all --bytes 8:1G --iters 20 --warmup 2"

echo "== nccltap alone: NCCLTAP_OPS_JSONL=inspector NCCLTAP_TIMING=all $bench" | tee -a "$log"
NCCLTAP_OPS_JSONL=inspector NCCLTAP_TIMING=all nccltap run ${NCCLTAP_RUN_FLAGS:-} --dir "$out/alone" -- \
    $bench >>"$log" 2>&1
nccltap report --json "$out/alone" >"$out/alone/report.json" 2>>"$log"
python3 "$here/../inspector_reader.py" "$out/alone" "$out/alone/report.json" 100 >"$out/alone/replay.txt" 2>&1
replay=$?

both=skipped
plugin=${NCCLTAP_INSPECTOR_PLUGIN:-}
if [ -n "$plugin" ]; then
    echo "== with NCCL Inspector ($plugin) beside nccltap" | tee -a "$log"
    mkdir -p "$out/both/inspector-own"
    NCCL_PROFILER_PLUGIN=$plugin NCCL_INSPECTOR_ENABLE=1 NCCL_INSPECTOR_DUMP_DIR="$out/both/inspector-own" \
        NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS=100000 NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES=0 \
        NCCL_INSPECTOR_DUMP_COLL_RING_SIZE=65536 NCCL_INSPECTOR_DUMP_P2P_RING_SIZE=65536 \
        NCCLTAP_OPS_JSONL=inspector NCCLTAP_TIMING=all \
        nccltap run ${NCCLTAP_RUN_FLAGS:-} --dir "$out/both/nccltap" -- $bench >>"$log" 2>&1
    python3 - "$here/.." "$out/both" >"$out/both/compare.txt" 2>&1 <<'PY'
import sys
from collections import defaultdict
sys.path.insert(0, sys.argv[1])
import inspector_reader as r
both = sys.argv[2]
theirs = r.summarize(r.read_dir(both + "/inspector-own", "*.log", strict=False)
                     + r.read_dir(both + "/inspector-own", "*.jsonl", strict=False))
ours = r.summarize(r.read_dir(both + "/nccltap"))
# Communicator ids differ (Inspector's is NCCL's hash, nccltap's its own):
# one communicator here, so (rank, op, traffic) names a row in both.
def by_row(summary):
    return {key[1:]: row for key, row in summary.items()}
theirs, ours = by_row(theirs), by_row(ours)
bad = 0
print("rank op             traffic_B   inspector_us  nccltap_us  inspector_busbw  nccltap_busbw  ratio")
for key in sorted(set(theirs) & set(ours)):
    t, o = theirs[key], ours[key]
    if "time_us" not in t or "time_us" not in o:
        continue
    ratio = o["busbw_written"] / t["busbw_written"] if t["busbw_written"] else float("nan")
    judged = min(t["time_us"], o["time_us"]) >= 100
    ok = not judged or abs(ratio - 1) <= 0.10
    bad += not ok
    print("%4d %-14s %12d %12.1f %11.1f %16.3f %14.3f %6.3f%s" % (key + (t["time_us"], o["time_us"],
          t["busbw_written"], o["busbw_written"], ratio, "" if ok else "  <- over 10%")))
print("rows only in Inspector's records: %d, only in nccltap's: %d"
      % (len(set(theirs) - set(ours)), len(set(ours) - set(theirs))))
print("%d rows judged apart by more than 10%%" % bad)
sys.exit(1 if bad or not set(theirs) & set(ours) else 0)
PY
    both=$?
fi

{
    echo "replay of nccltap's Inspector records against its report (OUT/inspector/alone/replay.txt):"
    tail -1 "$out/alone/replay.txt"
    [ $replay -eq 0 ] && echo "PASS replay" || echo "FAIL replay"
    if [ "$both" = skipped ]; then
        echo "side by side with NCCL Inspector: skipped (set NCCLTAP_INSPECTOR_PLUGIN)"
    else
        echo "side by side with NCCL Inspector (OUT/inspector/both/compare.txt):"
        tail -2 "$out/both/compare.txt"
        [ "$both" -eq 0 ] && echo "PASS side by side" || echo "FAIL side by side"
    fi
} | tee "$out/summary.txt"
[ $replay -eq 0 ] && { [ "$both" = skipped ] || [ "$both" -eq 0 ]; }
