#!/bin/sh
# A real straggler on 2 GPUs (issue 9): nccltap-bench --delay-rank 1
# --delay-us 2000 makes rank 1 sleep 2 ms before each AllReduce, so rank 0
# waits about 2 ms in each. The report must name rank 1, and only it, with a
# wait of 2000 us +-10%; a run without the delay must name no one.
# Needs an nccltap install (PREFIX) and 2 GPUs. Usage: straggler_gpu.sh PREFIX OUT
# Results: OUT/straggler/summary.json and the reports, one directory per run.
set -u
prefix=$(cd "$1" && pwd)
out=$2/straggler
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PATH="$prefix/bin:$PATH"
log=$out/log.txt
: >"$log"

run() {  # name timing bench-args...
    name=$1 timing=$2
    shift 2
    echo "== $name: NCCLTAP_TIMING=$timing nccltap-bench $*" | tee -a "$log"
    # NCCLTAP_RUN_FLAGS=--sim tries the script without GPUs.
    NCCLTAP_TIMING=$timing nccltap run ${NCCLTAP_RUN_FLAGS:-} --dir "$out/$name" -- \
        nccltap-bench --ranks 2 --op allreduce --bytes 1M --iters 500 --warmup 5 "$@" >>"$log" 2>&1
    nccltap report --json "$out/$name" >"$out/$name/report.json" 2>>"$log"
    nccltap report "$out/$name" >"$out/$name/report.txt" 2>>"$log"
}

run delayed_all all --delay-rank 1 --delay-us 2000
run delayed_auto auto --delay-rank 1 --delay-us 2000
run control_all all

python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, os, sys
out = sys.argv[1]
summary, ok = {}, True
for name in ("delayed_all", "delayed_auto", "control_all"):
    try:
        with open(os.path.join(out, name, "report.json")) as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL {name}: no report ({e})")
        ok = False
        continue
    st = rep.get("stragglers", [])
    summary[name] = {"stragglers": st, "crossrank": rep.get("crossrank")}
    if name.startswith("delayed"):
        good = (len(st) == 1 and st[0]["rank"] == 1 and abs(st[0]["wait_us_mean"] - 2000) <= 200
                and st[0]["last_fraction"] >= 0.9)
        got = ", ".join(f"rank {s['rank']} wait {s['wait_us_mean']:.1f} us last {s['last_fraction']:.2f}"
                        for s in st) or "none"
        print(f"{'PASS' if good else 'FAIL'} {name}: want rank 1 alone, wait 2000 us +-10%; got {got}")
    else:
        good = not st
        print(f"{'PASS' if good else 'FAIL'} {name}: want no straggler; got {len(st)}")
    ok = ok and good
with open(os.path.join(out, "summary.json"), "w") as f:
    json.dump(summary, f, indent=2)
sys.exit(0 if ok else 1)
PY
