#!/usr/bin/env python3
"""Summarizes a GPU suite run (run_gpu_suite.sh OUT): completeness, accuracy
against the bench's own per-call event timing, overhead, PyTorch. Standard
library only. Usage: analyze.py OUT"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

out = sys.argv[1]


def load(path):
    with open(path) as f:
        return json.load(f)


def bench_files(d):
    return [load(p) for p in sorted(glob.glob(os.path.join(d, "bench.rank*.json")))]


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def completeness(d, label, timed_all):
    report = load(os.path.join(d, "report.json"))
    made = {}
    for b in bench_files(d):
        for row in b["ops"]:
            made[(b["rank"], row["op"], row["bytes"])] = row["calls"]
    seen, timed = defaultdict(int), defaultdict(int)
    for row in report["ops"]:
        key = (row["rank"], row["op"], row["bytes"])
        seen[key] += row["calls"]
        timed[key] += row["timed"]
    missing = {k: (made.get(k, 0), seen.get(k, 0)) for k in set(made) | set(seen) if made.get(k, 0) != seen.get(k, 0)}
    untimed = sum(seen[k] - timed[k] for k in seen)
    t = report["totals"]
    print("%s: %d (rank, op, size) rows, calls made %d, counted %d, timed %d; dropped %d, untimed %d, pending %d; "
          "mismatched rows: %d" % (label, len(made), sum(made.values()), sum(seen.values()), sum(timed.values()),
                                   t["dropped"], t["untimed"], t["pending"], len(missing)))
    for k, v in sorted(missing.items())[:10]:
        print("   mismatch %s: made %d, counted %d" % (k, v[0], v[1]))
    if timed_all and untimed:
        print("   NOT every call timed: %d untimed" % untimed)
    return report


def accuracy(d):
    shim = defaultdict(list)  # (rank, op, bytes) -> durations in call order
    for path in glob.glob(os.path.join(d, "*.ops.jsonl")):
        lines = [json.loads(l) for l in open(path)]
        lines.sort(key=lambda l: (l["comm"], l["seq"]))
        for l in lines:
            shim[(l["rank"], l["op"], l["bytes"])].append(l["duration_ns"] / 1000.0)
    diffs = defaultdict(list)  # size band -> (shim - bench) us
    rel = defaultdict(list)
    for b in bench_files(d):
        for row in b["ops"]:
            mine = row.get("per_call_us", [])
            theirs = shim.get((b["rank"], row["op"], row["bytes"]), [])
            if len(mine) != len(theirs):
                print("   accuracy: %s rank %d %d B: bench %d calls, shim %d" % (row["op"], b["rank"], row["bytes"], len(mine), len(theirs)))
                continue
            band = "8B-64KiB" if row["bytes"] <= 65536 else "128KiB-16MiB" if row["bytes"] <= 16 << 20 else "32MiB-1GiB"
            for m, t in zip(mine, theirs):
                diffs[band].append(t - m)
                rel[band].append((t - m) / m if m else 0)
    print("accuracy, nccltap's per-call duration minus the bench's own event timing of the same call:")
    for band in ("8B-64KiB", "128KiB-16MiB", "32MiB-1GiB"):
        xs = diffs[band]
        if not xs:
            continue
        ab = [abs(x) for x in xs]
        ar = [abs(x) for x in rel[band]]
        print("   %-13s n=%5d  median %+.3f us (|.| %.3f us, %.2f%%)  p99 |.| %.3f us (%.2f%%)"
              % (band, len(xs), statistics.median(xs), statistics.median(ab), 100 * statistics.median(ar),
                 quantile(ab, 0.99), 100 * quantile(ar, 0.99)))


def overhead():
    per = defaultdict(lambda: defaultdict(list))  # bytes -> mode -> [wall_us]
    pair_cost = []
    for d in sorted(glob.glob(os.path.join(out, "overhead", "*"))):
        mode = os.path.basename(d).split("-")[0]
        for b in bench_files(d):
            if b["rank"] != 0:
                continue
            for row in b["ops"]:
                per[row["bytes"]][mode].append(row["wall_us"])
        for p in glob.glob(os.path.join(d, "nccltap-*.json")):
            c = load(p).get("event_pair_cost_ns")
            if c:
                pair_cost.append(c / 1000.0)
    if not per:
        return
    cost = statistics.median(pair_cost) if pair_cost else float("nan")
    print("overhead, AllReduce rank 0, wall time per call (median of 3 alternating runs); "
          "measured event-pair cost %.2f us:" % cost)
    print("   %12s %10s %10s %10s %8s %8s %9s" % ("bytes", "plain us", "auto us", "all us", "auto", "all", "all-plain"))
    for size in sorted(per):
        m = {k: statistics.median(v) for k, v in per[size].items() if v}
        if "plain" not in m:
            continue
        print("   %12d %10.2f %10.2f %10.2f %7.3fx %7.3fx %+8.2f"
              % (size, m["plain"], m.get("auto", float("nan")), m.get("all", float("nan")),
                 m.get("auto", float("nan")) / m["plain"], m.get("all", float("nan")) / m["plain"],
                 m.get("all", float("nan")) - m["plain"]))


def torch_check():
    d = os.path.join(out, "torch")
    try:
        report = load(os.path.join(d, "report.json"))
    except (OSError, ValueError):
        print("torch: no report (see suite.log)")
        return
    seen = defaultdict(int)
    for row in report["ops"]:
        seen[(row["rank"], "%s %d" % (row["op"], row["bytes"]))] += row["calls"]
    for path in sorted(glob.glob(os.path.join(d, "expected.rank*"))):
        rank = int(path.rsplit("rank", 1)[1])
        for key, n in load(path).items():
            print("torch rank %d %-20s expected %3d, nccltap counted %3d" % (rank, key, n, seen[(rank, key)]))
    print("torch totals: %s" % report["totals"])


def traced():
    d = os.path.join(out, "traced")
    try:
        files, trace = load(os.path.join(d, "report.json")), load(os.path.join(d, "report_trace.json"))
    except (OSError, ValueError):
        return
    made = sum(row["calls"] for b in bench_files(d) for row in b["ops"])
    counts = {}
    for line in open(os.path.join(d, "event_counts.txt")):
        n, name = line.split()
        counts[name.rstrip(":")] = int(n)
    key = lambda r: (r["rank"], r["comm"], r["op"], r["dtype"], r["size_class"])
    frows, trows = {key(r): r for r in files["ops"]}, {key(r): r for r in trace["ops"]}
    differ = [k for k in set(frows) | set(trows)
              if k not in frows or k not in trows or frows[k]["calls"] != trows[k]["calls"]
              or frows[k]["bytes_total"] != trows[k]["bytes_total"]
              or abs(frows[k]["busbw_gbs"] - trows[k]["busbw_gbs"]) > 1e-6 * max(1, frows[k]["busbw_gbs"])]
    print("traced: calls made %d; op_enqueue events %d, op_complete events %d; trace report calls %d, "
          "files report calls %d; rows differing in calls, bytes or busbw: %d of %d; discarded %s"
          % (made, counts.get("nccltap:op_enqueue", 0), counts.get("nccltap:op_complete", 0),
             trace["totals"]["calls"], files["totals"]["calls"], len(differ), len(frows),
             trace["totals"].get("discarded")))


for label, timed_all in (("all", True), ("auto", False)):
    if os.path.exists(os.path.join(out, label, "report.json")):
        completeness(os.path.join(out, label), label, timed_all)
if os.path.exists(os.path.join(out, "all")):
    accuracy(os.path.join(out, "all"))
overhead()
torch_check()
traced()
