#!/usr/bin/env python3
"""Summarizes auto_stats.sh's runs: the overhead of NCCLTAP_TIMING=auto per
size (median over alternating rounds, rank 0's wall time per call) with how
many calls auto timed, and the sweep's busbw from the report's p50 beside
nccltap-bench's own. Standard library only. Usage: auto_stats.py RUNS"""
import glob
import json
import os
import statistics
import sys
from collections import defaultdict

runs = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from nccl_facts import FACTOR  # noqa: E402  busbw / algbw, nccl-tests conventions


def load(path):
    with open(path) as f:
        return json.load(f)


def bench_files(d):
    return [load(p) for p in sorted(glob.glob(os.path.join(d, "bench.rank*.json")))]


def human(b):
    for unit in ("", "K", "M", "G"):
        if b < 1024 or unit == "G":
            return "%d%s" % (b, unit) if b == int(b) else "%.1f%s" % (b, unit)
        b /= 1024.0


def overhead():
    wall = defaultdict(lambda: defaultdict(list))  # bytes -> mode -> [rank 0 wall us per call]
    timed = defaultdict(lambda: [0, 0])            # bytes -> [timed, calls] over ranks and rounds
    nrounds = 0
    for d in sorted(glob.glob(os.path.join(runs, "overhead", "*"))):
        mode = os.path.basename(d).split("-")[0]
        nrounds += mode == "plain"
        for b in bench_files(d):
            if b["rank"] == 0:
                for row in b["ops"]:
                    wall[row["bytes"]][mode].append(row["wall_us"])
        if mode == "auto" and os.path.exists(os.path.join(d, "report.json")):
            for row in load(os.path.join(d, "report.json"))["ops"]:
                t = timed[row["bytes"]]
                t[0] += row["timed"]
                t[1] += row["calls"]
    print("overhead: AllReduce, rank 0's wall time per call, median of %d alternating rounds "
          "(1000 calls per size after 20 of warm-up); timed/calls: auto's, all ranks and rounds" % nrounds)
    print("%8s %10s %10s %8s %16s %8s" % ("bytes", "plain us", "auto us", "auto", "timed/calls", "target"))
    for size in sorted(wall):
        m = {k: statistics.median(v) for k, v in wall[size].items() if v}
        if "plain" not in m or "auto" not in m:
            continue
        target = 1.02 if size <= 8 else 1.01 if size >= 1 << 20 else None
        ratio = m["auto"] / m["plain"]
        verdict = "" if target is None else ("<= %.2f %s" % (target, "met" if ratio <= target else "NOT MET"))
        t = timed.get(size, [0, 0])
        print("%8s %10.2f %10.2f %7.3fx %16s %s" % (human(size), m["plain"], m["auto"], ratio,
                                                    "%d/%d" % (t[0], t[1]), verdict))


def sweep():
    d = os.path.join(runs, "sweep")
    if not os.path.exists(os.path.join(d, "report.json")):
        print("sweep: no report (see suite.log)")
        return
    report = load(os.path.join(d, "report.json"))
    mine = {}  # (rank, op, bytes) -> report row
    for row in report["ops"]:
        mine[(row["rank"], row["op"], row["bytes"])] = row
    print()
    print("sweep: every op, 1 MiB to 1 GiB, auto, 100 calls per size; busbw in GB/s. bench: nccltap-bench's")
    print("column (bytes over its wall time per call); bench ev: over its own per-call events (mean);")
    print("report p50: the report's p50 time (first timed call kept apart) as busbw; diff: report p50 vs bench")
    print("%4s %-13s %8s %12s %9s %9s %10s %7s" % ("rank", "op", "bytes", "timed/calls", "bench", "bench ev",
                                                   "report p50", "diff"))
    for b in bench_files(d):
        n = b["nranks"]
        for row in b["ops"]:
            op = "Send" if row["op"] == "SendRecv" else row["op"]
            r = mine.get((b["rank"], op, row["bytes"]))
            bench_bw = row["bytes"] * FACTOR[op](n) / (row["wall_us"] * 1e3) if row["wall_us"] else float("nan")
            p50 = r["time_us"]["p50"] if r and r["time_us"]["p50"] else None
            rep_bw = r["bytes"] * FACTOR[op](n) / (p50 * 1e3) if p50 else float("nan")
            print("%4d %-13s %8s %12s %9.2f %9.2f %10.2f %+6.1f%%"
                  % (b["rank"], op, human(row["bytes"]), "%d/%d" % (r["timed"], r["calls"]) if r else "-",
                     bench_bw, row["busbw_gbs"], rep_bw, 100 * (rep_bw / bench_bw - 1) if bench_bw else float("nan")))


def first_calls():
    """Each size's first timed call (kept apart as first_us) against its p50,
    each communicator's init time, and each rank's share of time in NCCL,
    from the first auto round."""
    d = os.path.join(runs, "overhead", "auto-1")
    try:
        report = load(os.path.join(d, "report.json"))
    except (OSError, ValueError):
        return
    print()
    print("first calls (auto round 1, AllReduce): first_us (the slowest rank's) against p50; "
          "the text report shows it where > 10x p50")
    print("%8s %12s %10s %9s" % ("bytes", "first_us", "p50 us", "first/p50"))
    rows = defaultdict(list)
    for row in report["ops"]:
        rows[row["bytes"]].append(row)
    for size in sorted(rows):
        first = [r["first_us"] for r in rows[size] if r["first_us"] is not None]
        p50 = [r["time_us"]["p50"] for r in rows[size] if r["time_us"]["p50"] is not None]
        if first:
            f, p = max(first), statistics.median(p50) if p50 else None
            print("%8s %12.1f %10s %9s" % (human(size), f, "%.2f" % p if p else "-",
                                           "%.0fx" % (f / p) if p else "-"))
    for c in report["comms"]:
        print("communicator %s: init_ms %s (rank %s, the slowest)" % (c["id"], c.get("init_ms"), c.get("init_rank")))
    for r in report["ranks"]:
        t = r.get("in_nccl", {})
        print("rank %d: in NCCL %s of %.2f s wall (busy %s s, untimed estimated %s s)"
              % (r["rank"], "%.1f%%" % (100 * t["share"]) if t.get("share") is not None else "unknown",
                 r.get("wall_s", 0), t.get("busy_s"), t.get("untimed_est_s")))


overhead()
first_calls()
sweep()
