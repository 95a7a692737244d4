#!/usr/bin/env python3
"""Checks `nccltap report` against per-rank files, recomputing what the
report merges from the input files with the standard library only.

usage: check_report.py json|text|invalid|empty NCCLTAP DIR
"""
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

FAILED = []


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAIL:", what, file=sys.stderr)


def close(a, b, rel=1e-6):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-9)


def run(nccltap, *args):
    p = subprocess.run([nccltap, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def inputs(d):
    """The per-rank files that parse, as the report should have read them."""
    docs = []
    for path in sorted(glob.glob(os.path.join(d, "nccltap-*.json"))):
        try:
            with open(path) as f:
                docs.append(json.load(f))
        except ValueError:
            pass
    return docs


def key(row):
    return (row["comm"], row["op"], row["dtype"], row["size_class"])


def merged(docs):
    """Rows merged per (comm, op, dtype, size class), as the text shows them."""
    groups = {}
    for d in docs:
        for r in d["ops"]:
            groups.setdefault(key(r), []).append(r)
    out = {}
    for k, rows in groups.items():
        m = {
            "calls": sum(r["calls"] for r in rows),
            "timed": sum(r["timed"] for r in rows),
            "t_sum": sum(r["time_ns"]["sum"] for r in rows),
            "t_max": max(r["time_ns"]["max"] for r in rows),
            "t_min": min((r["time_ns"]["min"] for r in rows if r["timed"]), default=0),
            "bw_bytes": sum(r["bw_bytes"] for r in rows),
            "bw_busbytes": sum(r["bw_busbytes"] for r in rows),
        }
        per_rank = [(r["bw_busbytes"] / r["time_ns"]["sum"], r["rank"])
                    for r in rows if r["timed"] and r["time_ns"]["sum"]]
        if per_rank:
            m["lo"] = min(per_rank, key=lambda x: (x[0], x[1]))
            m["hi"] = max(per_rank, key=lambda x: (x[0], -x[1]))
        bins = sorted((b, c) for r in rows for b, c in r.get("hist", []))
        total = sum(c for _, c in bins)
        for name, q in (("p50", 0.50), ("p99", 0.99)):
            target = max(1, math.ceil(q * total))
            seen = 0
            for b, c in bins:
                seen += c
                if seen >= target:
                    v = 1.04 ** (b + 0.5)
                    m[name] = min(max(v, m["t_min"]), m["t_max"])
                    break
        out[k] = m
    return out


def check_json(nccltap, d):
    rc, out, err = run(nccltap, "report", "--json", d)
    check(rc == 0, f"report --json exits 0 (got {rc})")
    check("nccltap-nodeB-2003.json" in err, "the corrupt file is named on stderr")
    doc = json.loads(out)
    docs = inputs(d)

    check(doc["files"] == 4, "4 files read, the corrupt one skipped")
    check(doc["job"] == "4242", "job")
    check(close(doc["wall_s"], 12.7), "wall_s is the longest file's")
    check([(r["rank"], r["host"], r["pid"], r["nccl_version"]) for r in doc["ranks"]] ==
          [(0, "nodeA", 1001, "2.30.0"), (1, "nodeA", 1002, "2.30.0"),
           (2, "nodeB", 2001, "2.30.0"), (3, "nodeB", 2002, "2.30.0")], "ranks, sorted")
    check(doc["comms"] == [
        {"id": "3f2a9c0d11e4b701", "name": "world", "nranks": 4, "parent": "", "ranks_seen": 4,
         "init_ms": None, "init_rank": None},
        {"id": "8c41d0e2a97b5f36", "name": "tp", "nranks": 2,
         "parent": "3f2a9c0d11e4b701", "ranks_seen": 2, "init_ms": None, "init_rank": None}],
          "comms with ranks_seen; init_ms unknown (not in these files)")
    check(all(r["in_nccl"]["share"] is None for r in doc["ranks"]),
          "in NCCL unknown: these files predate nccl_busy_s")
    check(doc["totals"] == {"calls": 4580, "dropped": 7, "timed": 380, "untimed": 4200,
                            "captured": 0, "pending": 0, "failed": 0, "lost": 0,
                            "simulated": 0, "discarded": 0, "ops_lines_dropped": 0},
          "totals summed (lost, simulated and ops_lines_dropped are optional in the files)")

    # Every input row, once, in order, with its fields and the aggregate bandwidths.
    want = sorted((r for x in docs for r in x["ops"]),
                  key=lambda r: (r["comm"], r["op"], r["dtype"], r["size_class"], r["rank"]))
    got = doc["ops"]
    check(len(got) == len(want) == 24, f"24 op rows: 5 per rank, 2 more on ranks 0-1 (got {len(got)})")
    for g, w in zip(got, want):
        where = f"row {w['comm']} {w['op']} {w['dtype']} {w['size_class']} rank {w['rank']}"
        check("hist" not in g and "time_ns" not in g, where + ": no hist/time_ns")
        for f in ("rank", "comm", "comm_name", "op", "dtype", "size_class", "bytes", "calls",
                  "bytes_total", "timed"):
            check(g[f] == w[f], f"{where}: {f}")
        check(close(g["grouped"], w["grouped"]), f"{where}: grouped")
        # These files predate first_us: every timed call is in the times.
        # A row with none has null times (no time is not a time of 0).
        check(g["first_us"] is None, f"{where}: first_us null (not in the file)")
        if not w["timed"]:
            check(g["algbw_gbs"] is None and g["busbw_gbs"] is None and g["busbw_total_gbs"] is None
                  and g["algbw_total_gbs"] is None and all(v is None for v in g["time_us"].values()),
                  f"{where}: untimed, null times and bandwidths")
            continue
        for f in ("algbw_gbs", "busbw_gbs"):
            check(close(g[f], w[f]), f"{where}: {f}")
        for f in ("mean", "min", "p50", "p90", "p99", "max"):
            check(close(g["time_us"][f], w["time_us"][f]), f"{where}: time_us.{f}")
        t = w["time_ns"]["sum"]
        check(close(g["busbw_total_gbs"], w["bw_busbytes"] / t), f"{where}: busbw_total_gbs")
        check(close(g["algbw_total_gbs"], w["bw_bytes"] / t), f"{where}: algbw_total_gbs")

    # Numbers worked out by hand from the test files.
    big = [r for r in got if r["size_class"] == 64 << 20]
    check(sum(r["calls"] for r in big) == 20, "64M all-reduce: 20 calls over 4 ranks")
    check(close(big[2]["busbw_total_gbs"], 67108864 * 5 * 1.5 / 2860000),
          "64M all-reduce: rank 2 busbw_total")
    untimed = [r for r in got if r["op"] == "Broadcast"]
    check(untimed and all(r["timed"] == 0 and r["busbw_total_gbs"] is None and r["time_us"]["mean"] is None
                          for r in untimed), "untimed rows have null times and bandwidths")
    check(all(r["grouped"] == 2.0 for r in got if r["comm_name"] == "tp"), "grouped rows")


def line_with(text, *tokens):
    """The first line whose leading whitespace-separated fields are `tokens`."""
    for line in text.splitlines():
        fields = line.split()
        if fields[:len(tokens)] == list(tokens):
            return fields
    return None


def check_text(nccltap, d):
    rc, out, err = run(nccltap, "report", d)
    check(rc == 0, f"report exits 0 (got {rc})")
    check("nccltap-nodeB-2003.json" in err, "the corrupt file is named on stderr")
    for want in ("  job        4242",
                 "  ranks      4 in 4 processes on 2 hosts (nodeA, nodeB)",
                 "  NCCL       2.30.0",
                 "  wall time  12.70 s",
                 "  skipped    1 file",
                 "NCCL's host-side launch work. They are not kernel run times.",
                 'Communicator 3f2a9c0d11e4b701 "world", 4 ranks',
                 'Communicator 8c41d0e2a97b5f36 "tp", 2 ranks, from 3f2a9c0d11e4b701 "world"',
                 "  * issued in groups",
                 "  calls 4580  dropped 7  timed 380  untimed 4200  captured 0  pending 0  failed 0  lost 0",
                 "WARNING: 7 records were lost"):
        check(want in out, f"text has {want!r}")
    check("raise NCCLTAP_RING_SIZE" in out, "the dropped warning says what to do")
    for r in range(4):
        check(line_with(out, str(r)) is not None, f"rank {r} in the ranks table")

    m = merged(inputs(d))
    rows = [("AllReduce", "float32", "64M", 64 << 20, "3f2a9c0d11e4b701"),
            ("AllReduce", "float32", "1K", 1024, "3f2a9c0d11e4b701"),
            ("AllReduce", "float32", "8", 8, "3f2a9c0d11e4b701"),
            ("AllGather", "bfloat16", "4M", 4 << 20, "3f2a9c0d11e4b701"),
            ("Send*", "float32", "1M", 1 << 20, "8c41d0e2a97b5f36")]
    for op, dtype, size, sc, comm in rows:
        x = m[(comm, op.rstrip("*"), dtype, sc)]
        fields = line_with(out, op, dtype, size)
        check(fields is not None, f"line for {op} {dtype} {size}")
        if not fields:
            continue
        want = [op, dtype, size, str(x["calls"]), str(x["timed"]),
                "%.2f" % (x["t_sum"] / x["timed"] / 1e3),
                "%.2f" % (x["p50"] / 1e3), "%.2f" % (x["p99"] / 1e3),
                "%.2f" % (x["t_max"] / 1e3),
                "%.2f" % (x["bw_bytes"] / x["t_sum"]), "%.2f" % (x["bw_busbytes"] / x["t_sum"]),
                "%.2f" % x["lo"][0], "(%d)" % x["lo"][1], "%.2f" % x["hi"][0], "(%d)" % x["hi"][1]]
        check(fields == want, f"{op} {dtype} {size}: {fields} != {want}")
    # By hand: rank 2 is the slow one, rank 3 the fast one.
    check(line_with(out, "AllReduce", "float32", "64M")[11:] ==
          ["175.98", "(2)", "233.45", "(3)"], "64M all-reduce spread names ranks 2 and 3")
    check(line_with(out, "Broadcast", "int8", "8") ==
          ["Broadcast", "int8", "8", "400", "0"] + ["-"] * 8, "untimed row shows no times")


def check_invalid(nccltap, d):
    rc, out, err = run(nccltap, "report", d)
    check(rc == 1, f"a directory without a readable file exits 1 (got {rc})")
    check(out == "", "nothing on stdout")
    for name, why in (("nccltap-bad-1.json", "nccltap-rank/2"),
                      ("nccltap-bad-2.json", "ops"),
                      ("nccltap-bad-3.json", '"ops"[0]: "calls" is not'),
                      ("nccltap-bad-4.json", "line")):
        lines = [l for l in err.splitlines() if name in l]
        check(len(lines) == 1 and why in lines[0], f"{name} named with {why!r}: {lines}")
    check("no readable per-rank file" in err, "says no file could be read")


def check_empty(nccltap, _):
    with tempfile.TemporaryDirectory() as d:
        rc, out, err = run(nccltap, "report", d)
        check(rc == 1 and "no per-rank file" in err and d in err, "empty directory: exit 1")
        rc, out, err = run(nccltap, "report", os.path.join(d, "missing"))
        check(rc == 1 and "No such file or directory" in err, "missing directory: exit 1")
    rc, out, err = run(nccltap, "report")
    check(rc == 2 and "--help" in err, "report without a directory: usage, exit 2")


def main():
    mode, nccltap, d = sys.argv[1:4]
    {"json": check_json, "text": check_text, "invalid": check_invalid,
     "empty": check_empty}[mode](nccltap, d)
    if FAILED:
        print(f"{len(FAILED)} check(s) failed", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
