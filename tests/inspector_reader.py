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

Used as a module by tests/inspector_test.py and tests/gpu/inspector_gpu.sh;
run alone it prints the per-(collective, size) summary of a directory, and
with the JSON of `nccltap report --json` of the same run, compares the two
(exit status 1 when a time or busbw is more than 1% off):
    inspector_reader.py DIR [REPORT.json [MIN_US]]
MIN_US: rows whose mean time is shorter are printed, not judged (times are
whole microseconds, so short ones cannot be held to 1%).
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
from nccl_facts import FACTOR, TRAFFIC  # noqa: E402


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


# What computing needs, when reading Inspector's own files (whose metadata
# has varied between versions): the rest of the keys are checked only on
# nccltap's (strict).
NEEDED_HEADER = {"id": str, "rank": int, "n_ranks": int}
NEEDED_PERF = {"%s": str, "%s_sn": int, "%s_msg_size_bytes": int, "%s_exec_time_us": (int, float),
               "%s_busbw_gbs": (int, float)}


class Context:
    """Inspector v4.3 writes a `dump_stats` marker carrying header and
    metadata once per communicator and dump, then that dump's records
    without them (its README, "Output Example"); older versions write both
    in every record. One per file."""

    def __init__(self):
        self.header = self.metadata = None


def parse_record(rec, ctx, strict=True):
    """One record: (kind 'coll' or 'p2p', header, metadata, perf), or None
    for a record that is not an operation (dump_stats, proxy_trace).
    Raises SchemaError."""
    if not isinstance(rec, dict):
        raise SchemaError("not an object")
    if "dump_stats" in rec:
        v43 = rec.get("metadata", {}).get("inspector_output_format_version") == "v4.3"
        ctx.header, ctx.metadata = (rec.get("header"), rec.get("metadata")) if v43 else (None, None)
        return None
    kinds = [k for k in ("coll", "p2p") if k + "_perf" in rec]
    if not kinds and "proxy_trace" in rec:
        return None
    if len(kinds) != 1:
        raise SchemaError("expected one of coll_perf and p2p_perf, found %d" % len(kinds))
    kind = kinds[0]
    if "header" not in rec and ctx.header is not None:
        rec = dict(rec, header=ctx.header, metadata=ctx.metadata)
    perf = rec[kind + "_perf"]
    fields = {k % kind: v for k, v in (PERF if strict else NEEDED_PERF).items()}
    if kind == "p2p" and strict:
        fields.update(P2P_EXTRA)
    check_fields(rec.get("header"), HEADER if strict else NEEDED_HEADER, "header")
    check_fields(perf, fields, kind + "_perf")
    int(rec["header"]["id"], 16)  # a hexadecimal communicator hash
    if strict:
        check_fields(rec.get("metadata"), METADATA, "metadata")
        # Inspector's exporter merges the three objects into one row
        # (header, then comm_type, then the perf object, then metadata): a
        # key in two of them would make that fail.
        names = list(rec["header"]) + ["comm_type"] + list(perf) + list(rec["metadata"])
        if len(names) != len(set(names)):
            raise SchemaError("a key in more than one object: %s"
                              % sorted(n for n in names if names.count(n) > 1))
    return kind, rec["header"], rec.get("metadata"), perf


def parse_line(line, ctx=None):
    """parse_record of one line of nccltap's, strictly (every key, no
    marker: nccltap writes whole records). Raises SchemaError, or
    ValueError for text that is not JSON."""
    got = parse_record(json.loads(line), ctx or Context())
    if got is None:
        raise SchemaError("not an operation")
    return got


def read_dir(path, pattern="*.jsonl", strict=True):
    """Every operation of the files matching pattern under path, in file
    order: a list of (file, kind, header, metadata, perf)."""
    records = []
    for name in sorted(glob.glob(os.path.join(path, "**", pattern), recursive=True)):
        ctx = Context()
        with open(name) as f:
            for no, line in enumerate(f, 1):
                try:
                    got = parse_line(line, ctx) if strict else parse_record(json.loads(line), ctx, False)
                except (ValueError, SchemaError) as e:
                    raise SchemaError("%s:%d: %s" % (name, no, e))
                if got:
                    records.append((name,) + got)
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
        if op not in FACTOR:  # one of Inspector's own (AllGatherV...): no bandwidth rule here
            continue
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


def compare(summary, report, rel=0.01, min_us=0.0):
    """The summary against nccltap's report (the JSON of `nccltap report
    --json`): the same (comm, rank, op, bytes) rows, as many records as
    timed calls, and each row's mean time, recomputed busbw and written
    busbw within `rel` of the report's. Returns (lines to print, problems)."""
    rows = {(int(r["comm"], 16), r["rank"], r["op"], r["bytes"]): r for r in report["ops"] if r["timed"]}
    problems, lines = [], []
    only_here, only_there = sorted(set(summary) - set(rows)), sorted(set(rows) - set(summary))
    if only_here or only_there:
        problems.append("(comm, rank, op, bytes) only in the Inspector records %s..., only in the report %s..."
                        % (only_here[:4], only_there[:4]))
    for key in sorted(set(summary) & set(rows)):
        got, row = summary[key], rows[key]
        if got["calls"] != row["timed"]:
            problems.append("%s: %d records, the report timed %d" % (key, got["calls"], row["timed"]))
        if "time_us" not in got:
            continue
        judged = row["time_us"]["mean"] >= min_us
        lines.append("%016x rank %d %-14s %12d B  time %10.2f us (report %10.2f)  busbw %9.3f / written %9.3f "
                     "(report %9.3f) GB/s%s" % (key + (got["time_us"], row["time_us"]["mean"],
                                                      got["busbw_recomputed"], got["busbw_written"],
                                                      row["busbw_gbs"], "" if judged else "  (too short to judge)")))
        if not judged:
            continue
        for mine, theirs, value in (("time_us", "mean", row["time_us"]["mean"]),
                                    ("busbw_recomputed", "busbw_gbs", row["busbw_gbs"]),
                                    ("busbw_written", "busbw_gbs", row["busbw_gbs"])):
            if abs(got[mine] - value) > rel * abs(value):
                problems.append("%s: %s %.4f from the Inspector records, the report's %s %.4f (within %g%%)"
                                % (key, mine, got[mine], theirs, value, 100 * rel))
    return lines, problems


def main():
    if len(sys.argv) not in (2, 3, 4):
        sys.exit(__doc__)
    summary = summarize(read_dir(sys.argv[1]))
    if len(sys.argv) == 2:
        for key, row in sorted(summary.items()):
            print("%016x rank %d %-14s %12d B  %s" % (key + (row,)))
        return
    with open(sys.argv[2]) as f:
        report = json.load(f)
    lines, problems = compare(summary, report, 0.01, float(sys.argv[3]) if len(sys.argv) == 4 else 0.0)
    print("\n".join(lines + ["PROBLEM: " + p for p in problems]))
    print("%d rows compared, %d problems" % (len(lines), len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
