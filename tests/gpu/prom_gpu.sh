#!/bin/sh
# Prometheus textfiles on 2 GPUs (issue 11): nccltap-bench, 2 ranks,
# AllReduce 8 B and 256 MiB, every call timed, NCCLTAP_PROM_DIR with
# NCCLTAP_PROM_KEEP=1. Checks what the simulator cannot: the files are
# named by the UUIDs nvidia-smi gives (cuDeviceGetUuid, formatted as
# nvidia-smi prints it), one per GPU; every call is in the histogram; and
# it records nccltap's busbw gauge beside the bench's own busbw (the same
# calls, timed by the bench's events around nccltap's). promtool checks the
# files where it is installed.
# Needs an nccltap install (PREFIX) and 2 GPUs. Usage: prom_gpu.sh PREFIX OUT
# Results: OUT/prom/summary.txt, summary.json, the .prom files, the log.
set -u
prefix=$(cd "$1" && pwd)
out=$2/prom
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PATH="$prefix/bin:$PATH"
log=$out/log.txt
: >"$log"

nvidia-smi --query-gpu=index,uuid --format=csv,noheader >"$out/nvidia-smi.txt" 2>>"$log" || true
echo "== NCCLTAP_TIMING=all NCCLTAP_PROM_DIR=$out/files nccltap-bench" | tee -a "$log"
# NCCLTAP_RUN_FLAGS=--sim tries the script without GPUs.
NCCLTAP_TIMING=all NCCLTAP_PROM_DIR="$out/files" NCCLTAP_PROM_KEEP=1 NCCLTAP_JOB_ID=prom-gpu \
    nccltap run ${NCCLTAP_RUN_FLAGS:-} --dir "$out/run" -- \
    nccltap-bench --ranks 2 --op allreduce --bytes 8,256M --iters 200 --warmup 5 \
    --json "$out/bench.json" >>"$log" 2>&1
for f in "$out"/files/*.prom; do
    if command -v promtool >/dev/null 2>&1; then
        echo "== promtool check metrics $f" >>"$log"
        promtool check metrics <"$f" >>"$log" 2>&1
        echo "promtool exit $?" >>"$log"
    fi
done

python3 - "$out" <<'PY' | tee "$out/summary.txt"
import glob, json, os, re, sys
out = sys.argv[1]
ok, summary = True, {}

def check(good, what):
    global ok
    print("%s %s" % ("PASS" if good else "FAIL", what))
    ok = ok and good

smi = {}
try:
    for line in open(os.path.join(out, "nvidia-smi.txt")):
        idx, uuid = [x.strip() for x in line.split(",")]
        smi[int(idx)] = uuid
except (OSError, ValueError):
    pass
files = sorted(glob.glob(os.path.join(out, "files", "nccltap_*.prom")))
uuids = [os.path.basename(f)[len("nccltap_"):-len(".prom")] for f in files]
summary["files"] = [os.path.basename(f) for f in files]
summary["nvidia_smi"] = smi
check(len(files) == 2, "one file per GPU: %s" % summary["files"])
if smi:
    check(all(u in smi.values() for u in uuids), "file names are nvidia-smi's UUIDs %s" % sorted(smi.values()))
else:
    print("NOTE no nvidia-smi: the UUIDs are not compared")

sample = re.compile(r'^([a-z_]+)\{(.*)\} (\S+)$')
for f in files:
    rows = []
    for line in open(f):
        m = sample.match(line.strip())
        if m:
            labels = dict(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(2)))
            rows.append((m.group(1), labels, float(m.group(3))))
    def get(name, **want):
        return [v for n, l, v in rows if n == name and all(l.get(k) == x for k, x in want.items())]
    big = {"op": "AllReduce", "size_class": str(256 << 20)}
    name = os.path.basename(f)
    count = get("nccltap_op_duration_seconds_count", **big)
    calls = get("nccltap_ops_total", **big)
    check(count and calls and count[0] == calls[0] == 205, "%s: 256 MiB AllReduce: %s calls, %s in the histogram (want 205)"
          % (name, calls, count))
    busbw = get("nccltap_busbw_gbs", **big)
    insp = get("nccl_bus_bandwidth_gbs", collective="AllReduce", message_size="256-257MB")
    summary[name] = {"nccltap_busbw_gbs": busbw, "nccl_bus_bandwidth_gbs": insp,
                     "p50_bucket_counts": [v for n, l, v in rows if n == "nccltap_op_duration_seconds_bucket"
                                           and l.get("size_class") == big["size_class"]]}
    print("     %s: nccltap_busbw_gbs %s, nccl_bus_bandwidth_gbs %s" % (name, busbw, insp))
bench = []
for path in glob.glob(os.path.join(out, "bench*.json")):
    try:
        bench.append(json.load(open(path)))
    except (OSError, ValueError):
        pass
summary["bench"] = bench
with open(os.path.join(out, "summary.json"), "w") as fh:
    json.dump(summary, fh, indent=2)
sys.exit(0 if ok else 1)
PY
