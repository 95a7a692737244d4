#!/usr/bin/env python3
"""What joining changes in an op's time (NCCLTAP_TIMING=all against pairs):
per op and size, the ops of each run, how many `all` joined (timed from
the end of the op before on the stream), and the median time of each.

Usage: joined_summary.py PAIRS_DIR ALL_DIR   (each a run's NCCLTAP_DIR with
NCCLTAP_OPS_JSONL=1)"""
import collections
import glob
import json
import os
import statistics
import sys


def ops(d):
    """{(op, bytes): [record, ...]} of the per-op logs in d."""
    by = collections.defaultdict(list)
    for path in glob.glob(os.path.join(d, "*.ops.jsonl")):
        with open(path) as f:
            for line in f:
                o = json.loads(line)
                by[(o["op"], o["bytes"])].append(o)
    return by


def main():
    pairs, joined = ops(sys.argv[1]), ops(sys.argv[2])
    print("%-10s %10s %9s %7s %7s %12s %12s %12s" % ("op", "bytes", "pairs ops", "all ops", "joined",
                                                     "pairs p50 us", "all p50 us", "joined p50"))
    for key in sorted(pairs, key=lambda k: (k[0], k[1])):
        p, a = pairs[key], joined.get(key, [])
        j = [o["duration_ns"] for o in a if o["joined"]]
        print("%-10s %10d %9d %7d %7d %12.2f %12.2f %12s" % (
            key[0], key[1], len(p), len(a), len(j), statistics.median(o["duration_ns"] for o in p) / 1e3,
            statistics.median(o["duration_ns"] for o in a) / 1e3 if a else float("nan"),
            "%.2f" % (statistics.median(j) / 1e3) if j else "-"))


if __name__ == "__main__":
    main()
