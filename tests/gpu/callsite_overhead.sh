#!/bin/sh
# What call sites cost on real GPUs: nccltap-bench, 2 ranks, 8 B AllReduce,
# 1,000 calls after 50 of warm-up, in rounds alternating: without nccltap,
# NCCLTAP_TIMING=auto at NCCLTAP_CALLSITE_DEPTH 0, 1 (the default) and 8.
# Prints rank 0's median time per call of each mode over the rounds and its
# ratio to the run without nccltap (target for depth 8: at most 1.02x) and
# depth 8's to depth 0's (what call sites themselves add), and
# the report's Call sites section of one depth-8 run (every site should be
# in nccltap-bench's own source). Fails when the depth-8 runs did not get
# depth 8 (libunwind missing: see the log).
# Usage: callsite_overhead.sh PREFIX OUT [ROUNDS]   (ROUNDS default 8)
set -u
prefix=$(cd "$1" && pwd)
out=$2
rounds=${3:-8}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PATH="$prefix/bin:$PATH"
log=$out/callsite.log
bench="nccltap-bench --ranks 2 --op allreduce --bytes 8 --iters 1000 --warmup 50"

round=1
while [ "$round" -le "$rounds" ]; do
    for mode in plain d0 d1 d8; do
        d=$out/callsite/$mode-$round
        mkdir -p "$d"
        echo "== round $round $mode" >>"$log"
        if [ $mode = plain ]; then
            $bench --json "$d/bench.json" >>"$log" 2>&1
        else
            NCCLTAP_TIMING=auto NCCLTAP_CALLSITE_DEPTH=${mode#d} nccltap run --dir "$d" -- \
                $bench --json "$d/bench.json" >>"$log" 2>&1
        fi
    done
    round=$((round + 1))
done
nccltap report "$out/callsite/d8-1" >"$out/callsite/d8-1/report.txt" 2>>"$log"

python3 - "$out/callsite" <<'PY' | tee "$out/callsite_summary.txt"
import glob, json, os, statistics, sys
root = sys.argv[1]
per = {}
ok = True
for d in sorted(glob.glob(os.path.join(root, "*-*"))):
    mode = os.path.basename(d).split("-")[0]
    for p in glob.glob(os.path.join(d, "bench.rank0.json")):
        for row in json.load(open(p))["ops"]:
            per.setdefault(mode, []).append(row["wall_us"])
    if mode.startswith("d"):
        for p in glob.glob(os.path.join(d, "nccltap-*.json")):
            got = json.load(open(p)).get("callsite_depth")
            if got != int(mode[1:]):
                print("%s: callsite_depth is %s, not %s (see callsite.log)" % (p, got, mode[1:]))
                ok = False
plain = statistics.median(per["plain"])
print("8 B AllReduce, rank 0, median us per call over %d rounds" % len(per["plain"]))
for mode in ("plain", "d0", "d1", "d8"):
    if mode in per:
        m = statistics.median(per[mode])
        print("  %-6s %8.2f us  %.3fx  (rounds: %s)" % (mode, m, m / plain,
              " ".join("%.2f" % x for x in per[mode])))
if "d8" in per:
    r = statistics.median(per["d8"]) / plain
    print("depth 8 in auto: %.3fx (target: at most 1.02x) %s" % (r, "MET" if r <= 1.02 else "NOT MET"))
    if "d0" in per:
        print("depth 8 against depth 0 (call sites off), both in auto: %.3fx"
              % (statistics.median(per["d8"]) / statistics.median(per["d0"])))
sys.exit(0 if ok else 1)
PY
status=$?
echo "== Call sites of one depth-8 run (full report: $out/callsite/d8-1/report.txt)"
sed -n '/^Call sites/,/^$/p' "$out/callsite/d8-1/report.txt"
exit $status
