#!/usr/bin/env python3
"""A reader of NCCL Inspector's JSON lines, written from Inspector's
documented schema (plugins/profiler/inspector/README.md and
exporter/example/README.md in NVIDIA's nccl repository, format v4.0), not
from nccltap's code: what a tool built for Inspector sees in a file.

Each line is one object with `header` (id, comm_name, rank, n_ranks,
nnodes), `metadata` (inspector_output_format_version, git_rev,
rec_mechanism, dump_timestamp_us, hostname, pid) and either `coll_perf`
(coll, coll_sn, coll_msg_size_bytes, coll_exec_time_us, coll_timing_source,
coll_algobw_gbs, coll_busbw_gbs) or `p2p_perf` (the same with the p2p_
prefix, and p2p_peer). Sizes are bytes, times whole microseconds,
bandwidths GB/s (1e9 bytes/s). Inspector's bandwidths: algbw = traffic /
time, busbw = algbw x factor, where the traffic is the message size, times
n_ranks for AllGather and ReduceScatter (whose message size is one rank's
part), and the factor 2(n-1)/n for AllReduce, (n-1)/n for AllGather and
ReduceScatter, 1 for Broadcast, Reduce, Send and Recv. Inspector gives no
bandwidth for AlltoAll, Gather and Scatter; nccltap does, as nccl-tests
counts them (the traffic n x the message, factor (n-1)/n), and so does this
reader.

Used as a module by tests/inspector_test.py; run alone it prints the
per-(collective, size) summary of a directory:
    inspector_reader.py DIR
"""
import glob
import json
import os
import sys
from collections import defaultdict

HEADER = {"id": str, "comm_name": str, "rank": int, "n_ranks": int, "nnodes": int}
METADATA = {"inspector_output_format_version": str, "git_rev": str, "rec_mechanism": str,
            "dump_timestamp_us": int, "hostname": str, "pid": int}
PERF = {"%s": str, "%s_sn": int, "%s_msg_size_bytes": int, "%s_exec_time_us": int,
        "%s_timing_source": str, "%s_algobw_gbs": (int, float), "%s_busbw_gbs": (int, float)}
P2P_EXTRA = {"p2p_peer": int}

# Traffic (bytes moved, in units of the message size) and bus factor, per
# operation, for n ranks.
TRAFFIC = {"AllReduce": lambda n: 1, "Broadcast": lambda n: 1, "Reduce": lambda n: 1,
           "AllGather": lambda n: n, "ReduceScatter": lambda n: n,
           "AlltoAll": lambda n: n, "Gather": lambda n: n, "Scatter": lambda n: n,
           "Send": lambda n: 1, "Recv": lambda n: 1}
FACTOR = {"AllReduce": lambda n: 2 * (n - 1) / n, "Broadcast": lambda n: 1, "Reduce": lambda n: 1,
          "AllGather": lambda n: (n - 1) / n, "ReduceScatter": lambda n: (n - 1) / n,
          "AlltoAll": lambda n: (n - 1) / n, "Gather": lambda n: (n - 1) / n,
          "Scatter": lambda n: (n - 1) / n, "Send": lambda n: 1, "Recv": lambda n: 1}


class SchemaError(Exception):
    pass


def check_fields(obj, fields, where):
    if not isinstance(obj, dict):
        raise SchemaError("%s is not an object" % where)
    for key, kind in fields.items():
        if key not in obj:
            raise SchemaError("%s has no %s" % (where, key))
        value = obj[key]
        # JSON true/false are not numbers, though Python's bool is an int.
        if isinstance(value, bool) or not isinstance(value, kind):
            raise SchemaError("%s.%s is %r, expected %s" % (where, key, value, kind))


def parse_line(line):
    """One record: (kind 'coll' or 'p2p', header, metadata, perf).
    Raises SchemaError (or ValueError for text that is not JSON)."""
    rec = json.loads(line)
    if not isinstance(rec, dict):
        raise SchemaError("not an object")
    kinds = [k for k in ("coll", "p2p") if k + "_perf" in rec]
    if len(kinds) != 1:
        raise SchemaError("expected one of coll_perf and p2p_perf, found %d" % len(kinds))
    kind = kinds[0]
    check_fields(rec.get("header"), HEADER, "header")
    check_fields(rec.get("metadata"), METADATA, "metadata")
    perf = rec[kind + "_perf"]
    fields = {k % kind: v for k, v in PERF.items()}
    if kind == "p2p":
        fields.update(P2P_EXTRA)
    check_fields(perf, fields, kind + "_perf")
    int(rec["header"]["id"], 16)  # a hexadecimal communicator hash
    # Inspector's exporter merges the three objects into one row
    # (header, then comm_type, then the perf object, then metadata): a key
    # in two of them would make that fail.
    names = list(rec["header"]) + ["comm_type"] + list(perf) + list(rec["metadata"])
    if len(names) != len(set(names)):
        raise SchemaError("a key in more than one object: %s" % sorted(n for n in names if names.count(n) > 1))
    return kind, rec["header"], rec["metadata"], perf


def read_dir(path):
    """Every record of the *.jsonl files under path, in file order:
    a list of (file, kind, header, metadata, perf)."""
    records = []
    for name in sorted(glob.glob(os.path.join(path, "**", "*.jsonl"), recursive=True)):
        with open(name) as f:
            for no, line in enumerate(f, 1):
                try:
                    records.append((name,) + parse_line(line))
                except (ValueError, SchemaError) as e:
                    raise SchemaError("%s:%d: %s" % (name, no, e))
    return records


def summarize(records):
    """Per (comm id, rank, operation, traffic bytes): the calls, and over
    all of them but the first (by sequence number; nccltap keeps a row's
    first call apart, since it may set up connections) the mean time in
    us, the mean busbw recomputed from size, ranks and time, and the mean
    busbw as written."""
    groups = defaultdict(list)
    for _, kind, header, _, perf in records:
        op = perf[kind]
        n = header["n_ranks"]
        traffic = perf[kind + "_msg_size_bytes"] * TRAFFIC[op](n)
        key = (int(header["id"], 16), header["rank"], op, traffic)
        groups[key].append((perf[kind + "_sn"], perf[kind + "_exec_time_us"], perf[kind + "_busbw_gbs"],
                            FACTOR[op](n)))
    out = {}
    for key, calls in groups.items():
        calls.sort()
        steady = calls[1:]
        row = {"calls": len(calls)}
        if steady:
            traffic = key[3]
            row["time_us"] = sum(c[1] for c in steady) / len(steady)
            row["busbw_recomputed"] = sum(traffic / 1e3 / c[1] * c[3] if c[1] else 0 for c in steady) / len(steady)
            row["busbw_written"] = sum(c[2] for c in steady) / len(steady)
        out[key] = row
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for key, row in sorted(summarize(read_dir(sys.argv[1])).items()):
        print("%016x rank %d %-14s %12d B  %s" % (key + (row,)))


if __name__ == "__main__":
    main()
