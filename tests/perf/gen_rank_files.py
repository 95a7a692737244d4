#!/usr/bin/env python3
"""Writes a synthetic run for `nccltap report`: FILES per-rank files of ROWS
op rows each, in the shim's own layout (preload/output/rank_file.c), one
rank per process, eight processes per host. Rows are spread over three
communicators (world, tp, dp), the collectives and datatypes a training job
uses, and size classes from 8 B up; each row has a duration histogram of
6 to 20 buckets, as a row of a few hundred calls with some jitter has.

Usage: gen_rank_files.py DIR FILES ROWS [SEED]
"""
import hashlib
import math
import os
import random
import sys

OPS = ["AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "Send", "Recv",
       "AlltoAll"]
DTYPES = ["float32", "bfloat16", "float16", "int64", "uint8"]
COMMS = [("world", ""), ("tp", "world"), ("dp", "world")]
RANKS_PER_HOST = 8


def comm_id(name):
    return hashlib.sha256(name.encode()).hexdigest()[:16]


def keys(rows):
    """The first `rows` (comm, op, dtype, size_class) keys, the same on every rank."""
    out = []
    for size in range(3, 64):
        for comm in COMMS:
            for op in OPS:
                for dtype in DTYPES:
                    out.append((comm, op, dtype, 1 << size))
                    if len(out) == rows:
                        return out
    raise SystemExit("at most %d rows" % len(out))


def row_text(rng, rank, comm, op, dtype, size):
    calls = rng.randint(50, 2000)
    base_ns = 5000 + size / 50.0
    first = int(math.log(base_ns, 1.04))
    nbins = rng.randint(6, 20)
    counts = [rng.randint(1, max(1, calls // nbins)) for _ in range(nbins)]
    timed = sum(counts)
    hist = ", ".join("[%d, %d]" % (first + i, c) for i, c in enumerate(counts))
    t_min = int(1.04 ** first)
    t_max = int(1.04 ** (first + nbins))
    t_sum = int(timed * base_ns * 1.1)
    mean_us = t_sum / timed / 1e3
    factor = 2.0 * (len(COMMS) - 1) / len(COMMS)
    bw_bytes = size * timed
    return (
        '    {"rank": %d, "comm": "%s", "comm_name": "%s", "op": "%s", "dtype": "%s", '
        '"size_class": %d, "bytes": %d, "bytes_total": %d,\n'
        '     "calls": %d, "timed": %d, "grouped": 1,\n'
        '     "time_ns": {"sum": %d, "min": %d, "max": %d},\n'
        '     "time_us": {"mean": %.6g, "min": %.6g, "p50": %.6g, "p90": %.6g, "p99": %.6g, '
        '"max": %.6g},\n'
        '     "algbw_gbs": %.6g, "busbw_gbs": %.6g, "bw_bytes": %d, "bw_busbytes": %.17g,\n'
        '     "hist": [%s]}'
        % (rank, comm_id(comm[0]), comm[0], op, dtype, size, size, size * calls, calls, timed,
           t_sum, t_min, t_max, mean_us, t_min / 1e3, mean_us, mean_us * 1.1, t_max / 1e3,
           t_max / 1e3, bw_bytes / t_sum, bw_bytes * factor / t_sum, bw_bytes,
           bw_bytes * factor, hist))


def file_text(rng, rank, nranks, rows):
    host = "node%04d" % (rank // RANKS_PER_HOST)
    pid = 10000 + rank
    comms = []
    for name, parent in COMMS:
        comms.append(
            '    {"id": "%s", "parent": "%s", "name": "%s", "rank": %d, "nranks": %d, '
            '"device": %d, "origin": "%s", "state": "live", "calls": %d}'
            % (comm_id(name), comm_id(parent) if parent else "", name, rank, nranks,
               rank % RANKS_PER_HOST, "split" if parent else "init", 1000))
    ops = ",\n".join(row_text(rng, rank, *k) for k in rows)
    return (
        '{\n  "format": "nccltap-rank/1",\n  "nccltap_version": "0.1.0",\n  "final": true,\n'
        '  "host": "%s",\n  "pid": %d,\n  "job": "synthetic",\n  "nccl_version": 22703,\n'
        '  "nccl_version_str": "2.27.3",\n  "timing": "auto",\n  "timing_note": "",\n'
        '  "event_pair_cost_ns": 2000,\n  "start_unix_ns": 1763750000000000000,\n'
        '  "wall_s": 600.5,\n  "ranks": [%d],\n  "comms": [\n%s\n  ],\n  "ops": [\n%s\n  ],\n'
        '  "totals": {"calls": 100000, "dropped": 0, "timed": 100000, "untimed": 0, '
        '"captured": 0, "pending": 0, "failed": 0, "simulated": 0, "lost": 0}\n}\n'
        % (host, pid, rank, ",\n".join(comms), ops))


def main():
    if len(sys.argv) not in (4, 5):
        raise SystemExit(__doc__)
    out, nfiles, nrows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) == 5 else 1)
    os.makedirs(out, exist_ok=True)
    rows = keys(nrows)
    for rank in range(nfiles):
        path = os.path.join(out, "nccltap-node%04d-%d.json" % (rank // RANKS_PER_HOST, 10000 + rank))
        with open(path, "w") as f:
            f.write(file_text(rng, rank, nfiles, rows))


if __name__ == "__main__":
    main()
