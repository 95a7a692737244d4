#!/usr/bin/env python3
"""What stamps_gpu.sh OUT measured (issue 30), as BENCHMARKS.md quotes it.
Usage: stamps_summary.py OUT"""
import glob
import json
import os
import re
import statistics
import sys
from collections import defaultdict


def objects(path):
    """The JSON objects printed in a file, also where ranks' lines ran
    into each other."""
    dec, out = json.JSONDecoder(), []
    try:
        text = open(path).read()
    except OSError:
        return out
    i = text.find("{")
    while i >= 0:
        try:
            o, end = dec.raw_decode(text, i)
            out.append(o)
            i = text.find("{", end)
        except ValueError:
            i = text.find("{", i + 1)
    return out


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def late(out, part="late"):
    rep = load(os.path.join(out, part, "report.json"))
    if not rep:
        return
    x = rep["crossrank"]
    print("%s: %d collectives compared, %d incomplete; totals %s" % (part, x["instances"], x["incomplete"],
          {k: rep["totals"][k] for k in ("calls", "stamped", "timed", "untimed")}))
    print("  waits per rank (mean us): %s" % {w["rank"]: round(w["wait_us_mean"], 1) for w in x["waits"]})
    for s in rep["stragglers"]:
        print("  straggler rank %d: last in %d of %d decided (%d compared), others waited %.1f us mean"
              % (s["rank"], s["last"], s.get("decided", s["instances"]), s["instances"], s["wait_us_mean"]))
    print("  findings: %s" % [(f["kind"], f.get("rank")) for f in rep["findings"]])


def prom_values(text, name):
    vals = []
    for line in text.splitlines():
        m = re.match(r"%s\{([^}]*)\} (\S+)" % re.escape(name), line)
        if m:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
            vals.append((labels, float(m.group(2))))
    return vals


def hang(out):
    d = os.path.join(out, "hang")
    try:
        copied = float(open(os.path.join(d, "copied_at")).read())
    except (OSError, ValueError):
        return
    for path in sorted(glob.glob(os.path.join(d, "prom_copy", "*.prom"))):
        text = open(path).read()
        pend = prom_values(text, "nccltap_pending_ops")
        old = prom_values(text, "nccltap_comm_oldest_pending_timestamp_seconds")
        ages = [(l.get("rank"), l.get("op"), l.get("seq"), round(copied - v, 2)) for l, v in old]
        print("hang: %s: pending %s; oldest pending (rank, op, seq, age s at the copy) %s"
              % (os.path.basename(path), [v for _, v in pend], ages))


def validate(out):
    err = defaultdict(lambda: ([], []))
    for path in glob.glob(os.path.join(out, "validate", "*", "*.ops.jsonl")):
        kind = os.path.basename(os.path.dirname(path))
        for line in open(path):
            o = json.loads(line)
            if not o.get("polled_start_ns") or not o.get("start_ns"):
                continue
            e = err[(kind, o["op"], o["bytes"])]
            e[0].append((o["polled_start_ns"] - o["start_ns"]) / 1e3)
            e[1].append((o["polled_end_ns"] - o["end_ns"]) / 1e3)
    for key in sorted(err):
        s, e = err[key]
        a = sorted(abs(v) for v in s)
        b = sorted(abs(v) for v in e)
        print("validate %s %s %d B: %d ops; |start error| us p50 %.1f p90 %.1f max %.1f; "
              "|end error| us p50 %.1f p90 %.1f max %.1f; start bias %.1f us"
              % (key[0], key[1], key[2], len(s), a[len(a) // 2], a[len(a) * 9 // 10], a[-1],
                 b[len(b) // 2], b[len(b) * 9 // 10], b[-1], statistics.mean(s)))


def ratios(runs):
    """{round: {mode: value}} -> per-mode list of value / none's, per round."""
    r = defaultdict(list)
    for rnd, modes in sorted(runs.items()):
        if "none" not in modes:
            continue
        for mode, v in modes.items():
            if mode != "none" and v:
                r[mode].append(v / modes["none"])
    return r


def nccltests(out):
    runs = defaultdict(dict)
    for path in glob.glob(os.path.join(out, "nccltests", "*", "out.txt")):
        mode, rnd = os.path.basename(os.path.dirname(path)).rsplit("-", 1)
        for line in open(path):
            f = line.split()
            if len(f) > 6 and f[0] == "8" and f[1].isdigit():
                runs[int(rnd)][mode] = float(f[5])  # out-of-place time, us
    if not runs:
        return
    # a rank file each, in any timing's first round
    procs = max([len(glob.glob(os.path.join(d, "nccltap-*.json")))
                 for d in glob.glob(os.path.join(out, "nccltests", "*-1"))] or [0])
    print("nccl-tests all_reduce_perf 8 B, %d processes: time us per round %s"
          % (procs, {r: m for r, m in sorted(runs.items())}))
    for mode, v in sorted(ratios(runs).items()):
        print("  %s / none: median %.3f (min %.3f, max %.3f, %d rounds)" % (mode, statistics.median(v), min(v),
                                                                          max(v), len(v)))
    # A run's time can sit in one of two clusters whatever the mode (2
    # H200s: 6.6-7.3 us or 9.7-11.5 us, BENCHMARKS.md): the sorted times
    # show whether the ratios above compare runs of one cluster.
    for mode in sorted({m for r in runs.values() for m in r}):
        t = sorted(r[mode] for r in runs.values() if mode in r)
        print("  %s: each run, least first (us): %s" % (mode, " ".join("%.2f" % x for x in t)))


def ddp(out):
    runs = defaultdict(dict)
    for path in glob.glob(os.path.join(out, "ddp", "*", "app.jsonl")):
        mode, rnd = os.path.basename(os.path.dirname(path)).rsplit("-", 1)
        ms = [o["step_ms"] for o in objects(path) if isinstance(o, dict) and "step_ms" in o]
        if ms:
            runs[int(rnd)][mode] = statistics.median(ms)
    if not runs:
        return
    print("DDP step ms per round %s" % {r: {k: round(v, 3) for k, v in m.items()} for r, m in sorted(runs.items())})
    for mode, v in sorted(ratios(runs).items()):
        print("  %s / none: median %.3f (min %.3f, max %.3f, %d rounds)" % (mode, statistics.median(v), min(v),
                                                                          max(v), len(v)))


def main():
    out = sys.argv[1]
    for part in (late, hang, validate, nccltests, ddp):
        part(out)
    late(out, "ddp_straggler")
    try:
        text = open(os.path.join(out, "ddp_straggler", "report.txt")).read().splitlines()
        print("ddp_straggler report, first lines:\n  " + "\n  ".join(text[:24]))
    except OSError:
        pass


if __name__ == "__main__":
    main()
