#!/usr/bin/env python3
"""Checks `nccltap report` against per-rank files, recomputing what the
report merges from the input files with the standard library only.

usage: check_report.py json|text|invalid|empty NCCLTAP DIR
"""
import glob
import csv
import io
import json
import math
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import Checks  # noqa: E402

check = Checks(sys.stderr)


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


def per_rank_text(values):
    """'20', or '18-20' when ranks differ: the text's calls/rank."""
    lo, hi = min(values), max(values)
    return str(hi) if lo == hi else "%d-%d" % (lo, hi)


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
            "calls_per_rank": per_rank_text([r["calls"] for r in rows]),
            "timed_per_rank": per_rank_text([r["timed"] for r in rows]),
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
    check(doc["totals"] == {"calls": 4580, "dropped": 7, "timed": 380, "stamped": 0, "untimed": 4200,
                            "captured": 0, "pending": 0, "failed": 0, "lost": 0,
                            "simulated": 0, "in_flight": 0, "no_memory": 0, "discarded": 0, "ops_lines_dropped": 0,
                            "after_exit": 0},
          "totals summed (stamped, lost, simulated, in_flight, no_memory, ops_lines_dropped and after_exit are "
          "optional in the files)")

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
    # "rows": the text's merged lines, each with the spread over its ranks.
    m = merged(docs)
    check(len(doc["rows"]) == len(m) == 7, f"7 merged rows (got {len(doc['rows'])})")
    for row in doc["rows"]:
        x = m[key(row)]
        where = f"rows {key(row)}"
        check(row["calls"] == x["calls"] and row["timed"] == x["timed"], f"{where}: calls and timed")
        check("%d" % row["calls_per_rank"]["max"] == x["calls_per_rank"].split("-")[-1], f"{where}: calls per rank")
        if not x["timed"]:
            check(row["time_us"]["mean"] is None and row["busbw_gbs"] is None and row["pct_nccl"] == 0,
                  f"{where}: untimed, null times")
            continue
        check(close(row["time_us"]["mean"], x["t_sum"] / x["timed"] / 1e3), f"{where}: mean")
        check(close(row["busbw_gbs"], x["bw_busbytes"] / x["t_sum"]), f"{where}: busbw")
        check(row["busbw_spread"]["min_rank"] == x["lo"][1] and close(row["busbw_spread"]["min_gbs"], x["lo"][0]),
              f"{where}: slowest rank")
    # "top": rows by time, descending, shares of the run's NCCL time.
    times = [t["time_us_total"] for t in doc["top"]]
    check(len(times) == 6 and times == sorted(times, reverse=True), f"top: 6 timed rows, descending: {times}")
    check(sum(t["pct_nccl"] for t in doc["top"]) <= 100 + 1e-6, "top: shares add up to at most 100")
    check(all(t["pct_wall"] is None for t in doc["top"]), "top: share of wall unknown in these files")
    # Per rank, its calls (and its time in NCCL, unknown here).
    check([(r["rank"], r["calls"], r["nccl_time_us"]) for r in doc["ranks"]] ==
          [(0, 1155, None), (1, 1155, None), (2, 1135, None), (3, 1135, None)], "ranks: calls, nccl_time_us")

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
                 "binary suffixes (1K = 1024",
                 'Communicator 3f2a9c0d11e4b701 "world", 4 ranks',
                 'Communicator 8c41d0e2a97b5f36 "tp", 2 ranks, from 3f2a9c0d11e4b701 "world"',
                 "  * issued in groups",
                 "  calls 4580  dropped 7  timed 380  stamped 0  untimed 4200  captured 0",
                 "  pending 0  failed 0  lost 0  simulated 0  in_flight 0  no_memory 0",
                 "WARNING: dropped 7: records lost",
                 "WARNING: untimed 4200: "):
        check(want in out, f"text has {want!r}")
    check("raise NCCLTAP_RING_SIZE" in out, "the dropped warning says what to do")
    check("raise NCCLTAP_MAX_INFLIGHT" in out, "the untimed warning says what to do")
    for counter in ("calls", "dropped", "timed", "untimed", "captured", "pending", "failed", "lost", "simulated"):
        check(line_with(out, counter) is not None, f"the totals' legend explains {counter}")
    check(all(len(line) <= 120 for line in out.splitlines()), "every line fits 120 columns")
    for r in range(4):
        check(line_with(out, str(r)) is not None, f"rank {r} in the ranks table")
    # Ranks 2 and 3 made 20 calls fewer (the tp communicator is ranks 0-1's).
    for r, calls, fewer in ((0, 1155, False), (1, 1155, False), (2, 1135, True), (3, 1135, True)):
        fields = line_with(out, str(r))
        check(fields and fields[-1 - fewer] == str(calls) and (fields[-1] == "fewer") == fewer,
              f"rank {r}: {calls} calls{', named as fewer' if fewer else ''}: {fields}")

    m = merged(inputs(d))
    rows = [("AllReduce", "float32", "64M", 64 << 20, "3f2a9c0d11e4b701"),
            ("AllReduce", "float32", "1K", 1024, "3f2a9c0d11e4b701"),
            ("AllReduce", "float32", "8", 8, "3f2a9c0d11e4b701"),
            ("AllGather", "bfloat16", "4M", 4 << 20, "3f2a9c0d11e4b701"),
            ("Send*", "float32", "1M", 1 << 20, "8c41d0e2a97b5f36")]
    rc, wide, _ = run(nccltap, "report", "--wide", d)
    check(rc == 0, f"report --wide exits 0 (got {rc})")
    for op, dtype, size, sc, comm in rows:
        x = m[(comm, op.rstrip("*"), dtype, sc)]
        every = [op, dtype, size, x["calls_per_rank"], x["timed_per_rank"],
                 "%.2f" % (x["t_sum"] / x["timed"] / 1e3),
                 "%.2f" % (x["p50"] / 1e3), "%.2f" % (x["p99"] / 1e3),
                 "%.2f" % (x["t_max"] / 1e3),
                 "%.2f" % (x["bw_bytes"] / x["t_sum"]), "%.2f" % (x["bw_busbytes"] / x["t_sum"]),
                 "%.2f" % x["lo"][0], "(%d)" % x["lo"][1], "%.2f" % x["hi"][0], "(%d)" % x["hi"][1]]
        fields = line_with(wide, op, dtype, size)
        check(fields == every, f"--wide {op} {dtype} {size}: {fields} != {every}")
        # The default leaves out max, algbw and the fastest rank to fit 120 columns.
        want = every[:8] + every[10:13]
        fields = line_with(out, op, dtype, size)
        check(fields == want, f"{op} {dtype} {size}: {fields} != {want}")
    # By hand: rank 2 is the slow one, rank 3 the fast one; 5 calls per rank.
    check(line_with(wide, "AllReduce", "float32", "64M")[3] == "5", "64M all-reduce: 5 calls per rank")
    check(line_with(wide, "AllReduce", "float32", "64M")[11:] ==
          ["175.98", "(2)", "233.45", "(3)"], "64M all-reduce spread names ranks 2 and 3")
    check(line_with(out, "Broadcast", "int8", "8") ==
          ["Broadcast", "int8", "8", "100", "0"] + ["-"] * 5, "untimed row shows no times")

    # Where the time goes: lines by their time over all ranks (calls x mean,
    # a group's time shared by its ops), descending, their shares of the sum
    # over every line.
    total = sum(r["calls"] * r["time_us"]["mean"] / r["grouped"] for x in inputs(d) for r in x["ops"] if r["timed"])
    top = [l.split() for l in out.split("Where the time goes")[1].split("\n\n")[0].splitlines()[2:8]]
    check(len(top) == 6 and all(len(t) == 9 for t in top), f"6 lines where the time goes: {top}")
    times = [float(t[4]) for t in top]
    check(times == sorted(times, reverse=True), f"by time, descending: {times}")
    check(top[0][1:4] == ["AllReduce", "float32", "8"], f"the 8 B all-reduce first (1000 calls): {top[0]}")
    want_ms = sum(r["calls"] * r["time_us"]["mean"] for x in inputs(d) for r in x["ops"]
                  if r["timed"] and r["op"] == "AllReduce" and r["size_class"] == 8) / 1e3
    check(abs(times[0] - want_ms) < 0.001, f"its time {times[0]} ms = calls x mean summed over ranks {want_ms}")
    check(abs(float(top[0][5].rstrip("%")) - 100 * want_ms * 1e3 / total) < 0.05, "its share of NCCL time")
    check(sum(float(t[5].rstrip("%")) for t in top) <= 100.05, "the shares add up to at most 100%")

def check_options(nccltap, d):
    """Options after the directory; --comm and --op filter; --csv; --top."""
    rc, out, _ = run(nccltap, "report", d, "--json", "--op", "allreduce", "--comm", "world", "--top", "2")
    check(rc == 0, f"options after the directory (got {rc})")
    doc = json.loads(out)
    check({(r["op"], r["comm_name"]) for r in doc["rows"]} == {("AllReduce", "world")}
          and len(doc["rows"]) == 3, f"--op allreduce --comm world: the 3 all-reduce rows: {doc['rows']}")
    check(all(r["op"] == "AllReduce" for r in doc["ops"]) and len(doc["ops"]) == 12, "per-rank ops filtered too")
    check(len(doc["top"]) == 2, "--top 2")
    rc, out, _ = run(nccltap, "report", "--comm", "8c41d0e2a97b5f36", d)
    check(rc == 0 and "Communicator 8c41d0e2a97b5f36" in out and "Communicator 3f2a9c0d11e4b701" not in out,
          "--comm by id shows that communicator alone")
    rc, out, _ = run(nccltap, "report", "--csv", d)
    check(rc == 0, f"--csv exits 0 (got {rc})")
    rows = list(csv.DictReader(io.StringIO(out)))
    rc, js, _ = run(nccltap, "report", "--json", d)
    want = json.loads(js)["rows"]
    check(len(rows) == len(want) == 7, f"--csv: one line per merged row ({len(rows)})")
    for c, j in zip(rows, want):
        check((c["comm"], c["comm_name"], c["op"], c["dtype"], int(c["size_class"]), int(c["calls"])) ==
              (j["comm"], j["comm_name"], j["op"], j["dtype"], j["size_class"], j["calls"]), f"csv row {c}")
        check((c["busbw_gbs"] == "") == (j["busbw_gbs"] is None), f"csv: empty where JSON has null: {c}")
        if j["busbw_gbs"] is not None:
            check(close(float(c["busbw_gbs"]), j["busbw_gbs"]) and close(float(c["p50_us"]), j["time_us"]["p50"]),
                  f"csv: the JSON's numbers: {c}")
    # Sizes past 10 GB stay exact (a "%.10g" would round 16 GiB), in the
    # per-rank rows, the merged rows and the CSV.
    with tempfile.TemporaryDirectory() as big:
        for name in os.listdir(d):
            with open(os.path.join(d, name)) as f:
                text = f.read()
            with open(os.path.join(big, name), "w") as f:
                f.write(text.replace('"bytes": 67108864', '"bytes": 17179869185')
                        .replace('"bytes_total": 335544320', '"bytes_total": 85899345925'))
        rc, js, _ = run(nccltap, "report", "--json", "--op", "AllReduce", big)
        doc = json.loads(js)
        check(rc == 0 and 17179869185 in [r["bytes"] for r in doc["ops"]]
              and 17179869185 in [r["bytes"] for r in doc["rows"]], "16 GiB + 1 exact in --json")
        rc, out, _ = run(nccltap, "report", "--csv", big)
        check(rc == 0 and ",17179869185," in out, "16 GiB + 1 exact in --csv")
    for bad in (("--top", "x"), ("--json", "--csv")):
        rc, _, err = run(nccltap, "report", *bad, d)
        check(rc == 2 and "--help" in err, f"{bad}: a usage error")


def check_format(nccltap, d):
    """--format and -o write what the older flags write, to the file named,
    whole; html and perfetto need -o; neither is taken beside the old flags."""
    with tempfile.TemporaryDirectory() as out:
        for fmt, old in (("text", []), ("json", ["--json"]), ("csv", ["--csv"])):
            path = os.path.join(out, "r." + fmt)
            rc, printed, err = run(nccltap, "report", "--format", fmt, "-o", path, d)
            check(rc == 0 and printed == "", f"--format {fmt} -o: exit 0, nothing on stdout ({rc}, {err})")
            rc2, want, _ = run(nccltap, "report", *old, d)
            check(rc2 == 0 and os.path.exists(path) and open(path).read() == want,
                  f"--format {fmt} -o FILE holds what {old or 'the default'} prints")
            rc, printed, _ = run(nccltap, "report", "--format", fmt, d)
            check(rc == 0 and printed == want, f"--format {fmt} without -o prints it")
        page = os.path.join(out, "page.html")
        rc, _, err = run(nccltap, "report", "--format", "html", "--output", page, d)
        check(rc == 0 and open(page).read().startswith("<!DOCTYPE html>"), f"--format html --output: a page ({err})")
        trace = os.path.join(out, "t.json")
        rc, _, err = run(nccltap, "report", "--format", "perfetto", "-o", trace, d)
        check(rc == 0 and "traceEvents" in json.load(open(trace)), f"--format perfetto -o: a trace ({err})")
        findings = os.path.join(out, "f.json")
        rc, _, _ = run(nccltap, "report", "--findings", "--format", "json", "-o", findings, d)
        rc2, want, _ = run(nccltap, "report", "--findings", "--json", d)
        check(rc == rc2 and open(findings).read() == want, "--findings -o: the same file and exit status")
        for bad, why in ((("--format", "html"), "-o FILE"), (("--format", "perfetto"), "-o FILE"),
                         (("--format", "yaml"), "text, json, csv, html or perfetto"),
                         (("--format", "json", "--csv"), "not with --json"),
                         (("-o", os.path.join(out, "x"), "--html", page), "name their own file"),
                         (("--format", "csv", "-o", "/nonexistent/x.csv"), "/nonexistent")):
            rc, _, err = run(nccltap, "report", *bad, d)
            check(rc == 2 and why in err, f"{bad}: a usage error saying {why!r}: {rc} {err}")
        check(sorted(os.listdir(out)) == ["f.json", "page.html", "r.csv", "r.json", "r.text", "t.json"],
              f"no file left beside those written: {sorted(os.listdir(out))}")
        # -o a pipe (or /dev/null) is written to, not replaced by a file:
        # as root, `-o /dev/null` made /dev/null a regular file.
        fifo = os.path.join(out, "fifo")
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE, text=True)
        rc, _, err = run(nccltap, "report", "--format", "csv", "-o", fifo, d)
        try:
            got = reader.communicate(timeout=20)[0]
        except subprocess.TimeoutExpired:  # nothing opened the pipe: it was replaced
            reader.kill()
            got = reader.communicate()[0]
        rc2, want, _ = run(nccltap, "report", "--csv", d)
        check(rc == 0 and got == want and stat.S_ISFIFO(os.lstat(fifo).st_mode),
              f"-o a pipe: the report through it, the pipe left a pipe ({rc}, {err})")


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
    {"json": check_json, "text": check_text, "options": check_options, "format": check_format,
     "invalid": check_invalid,
     "empty": check_empty}[mode](nccltap, d)
    return check.result()


if __name__ == "__main__":
    sys.exit(main())
