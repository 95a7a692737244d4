#!/usr/bin/env python3
"""Writes a synthetic run for the cross-rank analysis of `nccltap report`:
RANKS processes of one rank each, 8 per host, each with a rank file and a
per-op file (preload/output/ops_file_format.h) of OPS timed AllReduces of
1 MiB on one communicator, as the shim writes them. What the report must
find is built in:
  - hosts whose CLOCK_MONOTONIC differ by whole seconds (host h at h x
    1.5 s), and each process's GPU calibration off by up to +-20 us;
  - ends of an instance within +-0.5 us of each other (the collective's
    last step), transfers of 40 us;
  - rank STRAGGLER late by 500 us (--late-us) at every collective (the
    others start when the previous one ended, within +-2 us), except the
    first, where the next rank is last, 50 ms after the others, as a
    process that finished starting up later is: not a straggler at work;
  - with --end-jitter-us J, ends spread +-J us instead of +-0.5 us (a
    noisier clock alignment: a larger error for the report to state);
  - with --late-every N, the straggler is late only at one collective in
    N on average, chosen at random (the others all arrive within +-2 us of
    each other), as a rank descheduled now and then is;
  - with --timeline-wall, each rank file's wall time is the timeline's
    (not 10 s) and its NCCL time its calls' intervals summed but the
    first's (start-up), so that the report can weigh a straggler's cost;
  - with --broadcast-ends-us S, the first instance is a Broadcast of 64
    MiB from rank 0 whose ranks end S us apart down its pipeline (rank r
    at r x S after the root), as DDP's parameter broadcast does;
  - with --outliers F, a share F of every rank's ends but rank 0's (the
    report's reference: the first rank of the first instance) recorded
    --outlier-us later (300 by default), as an end event read late or a
    calibration that jumped: outliers for the clock estimate to reject;
  - with --stamped-span-us S, stamped records (version 3, as `auto`
    wrote them before the reduction and the tag were added):
    every instance stamped, its start and end each known to within S us
    (the span's middle recorded), but every --timed-every Nth (8), timed
    on every rank, as auto's sample is;
  - with --blip RANK:K:US, rank RANK late by US at instances K, K+1 and
    K+2 instead (the others, the straggler too, on time there), as a rank
    whose host or GPU was held up once is.

Usage: gen_ops_files.py DIR RANKS OPS [STRAGGLER [SEED]] [--late-us US]
       [--end-jitter-us US] [--outliers FRACTION [--outlier-us US]] [--broadcast-ends-us US]
       [--late-every N] [--timeline-wall] [--stamped-span-us S [--timed-every N]]
       [--blip RANK:K:US]
"""
import argparse
import json
import os
import random
import struct
import sys

OPS = ["AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AlltoAll", "Gather",
       "Scatter", "Send", "Recv"]
DTYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
          "bfloat16", "fp8e4m3", "fp8e5m2"]
RECORD = struct.Struct("<QQQQQQQQQiiIHBB")  # struct tap_ops_record, 88 bytes (version 1)
RECORD_V3 = struct.Struct("<QQQQQQQQQiiIHBBQIIIi")  # version 3: replay, flags, spans, redop; 112 bytes
STAMPED = 0x1  # TAP_OPS_STAMPED
HEADER_BYTES = 4096
RANKS_PER_HOST = 8
COMM = 0x5ca1ab1e00c0ffee
BYTES = 1 << 20
TRANSFER_NS = 40000
LATE_NS = 500000
START_UP_SKEW_NS = 50_000_000


def header(n, version=1, record=RECORD):
    names = b"".join(s.encode() + b"\0" for s in OPS + DTYPES)
    h = struct.pack("<12sIIIQQQII", b"NCCLTAP-OPS\0", 0x01020304, version, record.size, n, n, 0,
                    len(OPS), len(DTYPES)) + names
    return h + b"\0" * (HEADER_BYTES - len(h))


def rank_file(host, pid, rank, nranks, nops):
    return {
        "format": "nccltap-rank/1", "nccltap_version": "0.1.0", "final": True, "host": host,
        "pid": pid, "job": "scale", "nccl_version": 23000, "nccl_version_str": "2.30.0",
        "timing": "all", "timing_note": "", "wall_s": 10.0, "ranks": [rank],
        "comms": [{"id": "%016x" % COMM, "parent": "", "name": "world", "rank": rank,
                   "nranks": nranks, "device": rank % RANKS_PER_HOST, "origin": "init",
                   "state": "destroyed", "calls": nops}],
        "ops": [],
        "totals": {"calls": nops, "dropped": 0, "timed": nops, "untimed": 0, "captured": 0,
                   "pending": 0, "failed": 0, "lost": 0, "simulated": 0},
    }


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("Usage: ")[1])
    ap.add_argument("dir")
    ap.add_argument("ranks", type=int)
    ap.add_argument("ops", type=int)
    ap.add_argument("straggler", type=int, nargs="?", default=1)
    ap.add_argument("seed", type=int, nargs="?", default=1)
    ap.add_argument("--late-us", type=float, default=LATE_NS / 1e3)
    ap.add_argument("--end-jitter-us", type=float, default=0.5)
    ap.add_argument("--outliers", type=float, default=0.0)
    ap.add_argument("--outlier-us", type=float, default=300.0)
    ap.add_argument("--broadcast-ends-us", type=float, default=0.0)
    ap.add_argument("--late-every", type=int, default=1)
    ap.add_argument("--timeline-wall", action="store_true")
    ap.add_argument("--stamped-span-us", type=float, default=0.0)
    ap.add_argument("--timed-every", type=int, default=8)
    ap.add_argument("--blip", default="")
    a = ap.parse_args()
    blip_rank, blip_at, blip_ns = -1, -1, 0
    if a.blip:
        r_, k_, us_ = a.blip.split(":")
        blip_rank, blip_at, blip_ns = int(r_), int(k_), int(float(us_) * 1e3)
    blips = set(range(blip_at, blip_at + 3)) if blip_rank >= 0 else set()
    span_ns = int(a.stamped_span_us * 1e3)
    record = RECORD_V3 if span_ns else RECORD
    d, nranks, nops, straggler = a.dir, a.ranks, a.ops, a.straggler
    rng = random.Random(a.seed)
    # Outliers from a generator of their own: the same seed gives the same
    # files with and without them, but for the outlying ends.
    outlier_rng = random.Random(a.seed + 1)
    late_ns = int(a.late_us * 1e3)
    jitter_ns = int(a.end_jitter_us * 1e3)
    outlier_ns = int(a.outlier_us * 1e3)
    os.makedirs(d, exist_ok=True)
    # One timeline in true time: instance k starts when its last rank
    # arrives and ends TRANSFER_NS later; the next is issued at once.
    t0 = 10 ** 12
    ends = []
    late_at = {k for k in range(1, nops)
               if a.late_every == 1 or random.Random(a.seed * 100003 + k).random() < 1 / a.late_every}
    t = t0
    for k in range(nops):
        t += max(late_ns, LATE_NS) + TRANSFER_NS + jitter_ns + (blip_ns if k in blips else 0)
        ends.append(t)
    op_index = OPS.index("AllReduce")
    dtype_index = DTYPES.index("float32")
    for rank in range(nranks):
        host = "host%03d" % (rank // RANKS_PER_HOST)
        pid = 1000 + rank
        clock = (rank // RANKS_PER_HOST) * 1_500_000_000 + rng.randint(-20000, 20000)
        buf = bytearray(record.size * nops)
        busy_ns = 0
        for k in range(nops):
            end = ends[k]
            last_arrival = end - TRANSFER_NS
            if k == 0:
                last, early_ns = (straggler + 1) % nranks, START_UP_SKEW_NS
            elif k in blips:
                last, early_ns = blip_rank, blip_ns
            elif k in late_at:
                last, early_ns = straggler, late_ns
            else:
                last, early_ns = -1, 0  # all on time
            start = last_arrival if rank == last else last_arrival - early_ns + rng.randint(-2000, 2000)
            e = end + rng.randint(-jitter_ns, jitter_ns)
            if rank and a.outliers and outlier_rng.random() < a.outliers:
                e += outlier_ns
            op, nbytes, peer = op_index, BYTES, -1
            if k == 0 and a.broadcast_ends_us:
                op, nbytes, peer = OPS.index("Broadcast"), 64 * BYTES, 0
                e = last_arrival + TRANSFER_NS + int(rank * a.broadcast_ends_us * 1e3)
            busy_ns += e - start if k else 0
            fields = (COMM, k, nbytes // 4, nbytes, 0, 0x7f0000001000, start + clock - 3000, start + clock,
                      e + clock, rank, peer, pid, 1, op, dtype_index)
            if span_ns:
                stamped = k % a.timed_every != 0
                fields += (0, STAMPED if stamped else 0, span_ns if stamped else 0, span_ns if stamped else 0, 0)
            record.pack_into(buf, k * record.size, *fields)
        base = os.path.join(d, "nccltap-scale@%s-%d" % (host, pid))
        with open(base + ".ops", "wb") as f:
            f.write(header(nops, 3 if span_ns else 1, record))
            f.write(buf)
        doc = rank_file(host, pid, rank, nranks, nops)
        if a.timeline_wall:
            doc.update(wall_s=(ends[-1] - t0) / 1e9 + 0.001, nccl_busy_s=busy_ns / 1e9, nccl_timed_s=busy_ns / 1e9)
        with open(base + ".json", "w") as f:
            json.dump(doc, f)


if __name__ == "__main__":
    main()
