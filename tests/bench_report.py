#!/usr/bin/env python3
"""End to end: nccltap-bench under `nccltap run`, then `nccltap report --json`.

Checks what a user relies on: for every rank, op and size the report counts
exactly the calls the bench made, nothing is dropped, and (with --busbw)
the bandwidth the report gives is the bandwidth the simulator was set to.
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

from nccl_facts import FACTOR  # noqa: E402  busbw / algbw, nccl-tests conventions
from testlib import fail  # noqa: E402


def within(value, target, rel):
    return abs(value - target) <= rel * target


def check_aligned(out_dir, nranks, share):
    """The calls auto timed precisely are the same calls on every rank
    (sampling.h); the others are stamped ("stamped": true)."""
    timed = defaultdict(lambda: defaultdict(set))  # comm -> rank -> seqs
    for path in glob.glob(os.path.join(out_dir, "*.ops.jsonl")):
        with open(path) as f:
            for line in f:
                op = json.loads(line)
                if not op.get("stamped"):
                    timed[op["comm"]][op["rank"]].add(op["seq"])
    if not timed:
        fail("no per-op records in %s" % out_dir)
    for comm, ranks in sorted(timed.items()):
        if len(ranks) != nranks:
            fail("comm %s: timed calls on %d ranks of %d" % (comm, len(ranks), nranks))
        fewest = min(ranks.values(), key=len)
        issued = max(max(seqs) for seqs in ranks.values()) + 1
        if len(fewest) == issued:
            fail("comm %s: every one of its %d calls was timed on every rank: nothing was sampled, so "
                 "alignment is not shown (more calls, past auto's learning)" % (comm, issued))
        on_all = set.intersection(*ranks.values())
        got = len(fewest & on_all) / len(fewest)
        print("comm %s: timed per rank %s; %d of the %d timed on the rank with fewest are timed on all (%.1f%%)"
              % (comm, [len(ranks[r]) for r in sorted(ranks)], len(fewest & on_all), len(fewest), 100 * got))
        if got < share:
            fail("comm %s: %.1f%% of the calls timed on the rank with fewest are timed on all %d ranks; "
                 "expected at least %.0f%%" % (comm, 100 * got, nranks, 100 * share))


def check_text(nccltap, out_dir, env, report):
    p = subprocess.run([nccltap, "report", out_dir], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        fail("nccltap report exited %d: %s" % (p.returncode, p.stderr))
    wide = [(n, len(l)) for n, l in enumerate(p.stdout.splitlines(), 1) if len(l) > 120]
    if wide:
        fail("text lines wider than 120 columns (line, width): %s" % wide[:5])
    section = p.stdout.split("\nWhere the time goes")[1].split("\n\n")[0].splitlines()
    lines = [l.split() for l in section[2:] if l.startswith("  ") and len(l.split()) == 9]
    top = report["top"]
    if len(lines) != min(10, len(top)) or len(top) != 10:
        fail("Where the time goes: %d lines, --json top %d: expected the default 10" % (len(lines), len(top)))
    times = [t["time_us_total"] for t in top]
    if times != sorted(times, reverse=True):
        fail("--json top is not by time, descending: %s" % times)
    for line, t in zip(lines, top):
        if line[1] != t["op"] or abs(float(line[4]) - t["time_us_total"] / 1e3) > 0.0011:
            fail("Where the time goes %s != --json top %s" % (line, t))
    pct = sum(float(l[5].rstrip("%")) for l in lines)
    if pct > 100.05 or sum(float(l[6].rstrip("%")) for l in lines) > pct:
        fail("Where the time goes: shares add up to %.2f%% of NCCL time" % pct)
    print("text: %d lines, at most 120 columns; where the time goes: %d lines, %.1f%% of NCCL time"
          % (len(p.stdout.splitlines()), len(lines), pct))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True, help="the build's bin/ directory")
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--legacy", action="store_true", help="on the NCCL 2.18 simulator")
    ap.add_argument("--busbw", type=float, help="expected busbw (GB/s) of every timed row")
    ap.add_argument("--timed-all", action="store_true")
    ap.add_argument("--sampled", action="store_true",
                    help="NCCLTAP_TIMING=auto: every row has a timed call, and not every call is timed")
    ap.add_argument("--grouped", type=int, help="expected ops per group in every row")
    ap.add_argument("--first-us", type=float,
                    help="the simulator's NCCLSIM_FIRST_CALL_US: every row's first_us holds it, and (with "
                         "--busbw) p50 and mean are the model's time without it")
    ap.add_argument("--bench-busbw", action="store_true",
                    help="every row's busbw is the bench's own (its events around each call) within 1%%")
    ap.add_argument("--aligned", type=float,
                    help="per communicator, at least this share of the calls timed on the rank with the fewest "
                         "timed calls are timed on every rank (from the per-op records)")
    ap.add_argument("--text", action="store_true",
                    help="the text report fits 120 columns, and 'Where the time goes' is the JSON's top, "
                         "by time descending, its shares adding up to at most 100%%")
    ap.add_argument("bench_args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    bench_args = a.bench_args[1:] if a.bench_args[:1] == ["--"] else a.bench_args

    work = tempfile.mkdtemp(prefix="nccltap-e2e-")
    out_dir = os.path.join(work, "out")
    bench_json = os.path.join(work, "bench.json")
    env = dict(os.environ)
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    nccltap = os.path.join(a.bin, "nccltap")
    cmd = [nccltap, "run", "--legacy-sim" if a.legacy else "--sim", "--dir", out_dir, "--", os.path.join(a.bin, "nccltap-bench"),
           "--json", bench_json] + bench_args
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    sys.stdout.write(p.stdout[-4000:])
    sys.stderr.write(p.stderr[-4000:])
    if p.returncode != 0:
        fail("%s exited %d" % (" ".join(cmd), p.returncode))
    p = subprocess.run([nccltap, "report", "--json", out_dir], env=env, capture_output=True, text=True)
    if p.returncode != 0:
        fail("nccltap report exited %d: %s" % (p.returncode, p.stderr))
    report = json.loads(p.stdout)

    made = {}  # (rank, op, bytes) -> calls
    bench_busbw = {}  # (rank, op, bytes) -> the bench's busbw from its own events
    nranks = 0
    for path in glob.glob(os.path.join(work, "bench*.json")):
        with open(path) as f:
            b = json.load(f)
        nranks = b["nranks"]
        for row in b["ops"]:
            busbw = row["busbw_gbs"]
            if row.get("per_call_us"):
                # Over the median call, as nccltap's: a call whose thread was
                # descheduled between the bench's start event and NCCL's
                # enqueue (a busy machine) must not move the comparison.
                calls = sorted(row["per_call_us"])
                busbw *= row["mean_us"] / calls[len(calls) // 2]
            for op in (("Send", "Recv") if row["op"] == "SendRecv" else (row["op"],)):
                bench_busbw[(b["rank"], op, row["bytes"])] = busbw
            # The bench counts its timed iterations; NCCL also saw the warm-up.
            made[(b["rank"], row["op"], row["bytes"])] = row["calls"] + b["warmup"] * b["threads"]
    if not made:
        fail("the bench wrote no JSON")

    seen = defaultdict(int)
    rows = defaultdict(list)
    for row in report["ops"]:
        key = (row["rank"], row["op"], row["bytes"])
        seen[key] += row["calls"]
        rows[key].append(row)
    for key in sorted(set(made) | set(seen)):
        if seen.get(key, 0) != made.get(key, 0):
            fail("rank %d %s %d B: report counts %d calls, the bench made %d"
                 % (key + (seen.get(key, 0), made.get(key, 0))))
    # Every communicator's init time, per rank in the files, the slowest
    # rank's in the report.
    inits = defaultdict(dict)
    for path in glob.glob(os.path.join(out_dir, "nccltap-*.json")):
        with open(path) as f:
            for c in json.load(f)["comms"]:
                inits[c["id"]][c["rank"]] = c["init_ms"]
    for c in report["comms"]:
        known = inits[c["id"]]
        if not known or not all(v is not None and v > 0 for v in known.values()):
            fail("comm %s: init_ms per rank %s: expected every rank's init time" % (c["id"], known))
        slowest = max(known, key=known.get)
        if c["init_ms"] != known[slowest] or c["init_rank"] != slowest:
            fail("comm %s: report init_ms %s (rank %s), the slowest rank's is %s (rank %d)"
                 % (c["id"], c["init_ms"], c["init_rank"], known[slowest], slowest))
    # The time in NCCL: a union of intervals, never above the wall time.
    for r in report["ranks"]:
        t = r["in_nccl"]
        if t["share"] is None:
            if any(row["timed"] for row in report["ops"] if row["rank"] == r["rank"]):
                fail("rank %d: calls timed, but in_nccl unknown" % r["rank"])
            continue
        if not 0 < t["share"] <= 1 or t["busy_s"] > r["wall_s"] * (1 + 1e-9):
            fail("rank %d: in NCCL %s of %.3f s: expected a share in (0, 1], busy_s within the wall time"
                 % (r["rank"], t, r["wall_s"]))
    totals = report["totals"]
    if totals["dropped"] != 0:
        fail("dropped = %d" % totals["dropped"])
    if totals["calls"] != sum(made.values()):
        fail("totals.calls %d != calls made %d" % (totals["calls"], sum(made.values())))

    if a.sampled:
        timed = sum(r["timed"] for rs in rows.values() for r in rs)
        if not 0 < timed < totals["calls"]:
            fail("auto timed %d of %d calls: expected a sample" % (timed, totals["calls"]))
        for key, rs in rows.items():
            if sum(r["timed"] for r in rs) == 0:
                fail("%s: no call timed; auto times at least one per interval" % (key,))
    for key, rs in rows.items():
        for row in rs:
            if a.timed_all and row["timed"] != row["calls"]:
                fail("%s: timed %d of %d" % (key, row["timed"], row["calls"]))
            if a.grouped is not None and abs(row["grouped"] - a.grouped) > 1e-9:
                fail("%s: grouped %g, expected %d" % (key, row["grouped"], a.grouped))
            if a.bench_busbw and row["timed"] > 1 and not within(row["busbw_gbs"], bench_busbw[key], 0.01):
                fail("%s: busbw %.3f GB/s, the bench's own %.3f GB/s within 1%%"
                     % (key, row["busbw_gbs"], bench_busbw[key]))
            if a.first_us is not None and row["timed"] and not a.first_us <= row["first_us"] <= 1.5 * a.first_us:
                fail("%s: first_us %s, expected the slow first call (%.0f us)" % (key, row["first_us"], a.first_us))
            if a.busbw is None or row["timed"] == 0:
                continue
            if a.first_us is not None:
                # The model's time of one call (NCCLSIM_LAT_US=0), the first apart.
                model_us = row["bytes"] * FACTOR[row["op"]](nranks) / (a.busbw * 1e3)
                for stat in ("p50", "mean"):
                    if not within(row["time_us"][stat], model_us, 0.01):
                        fail("%s: %s %.3f us, the model's %.3f us within 1%%"
                             % (key, stat, row["time_us"][stat], model_us))
            # busbw_gbs, the mean over calls, is what the simulator was set to.
            # The total (bytes over summed time) is not held to it: it also
            # carries every stall of a rank the others waited for, and 4
            # ranks on a 2-CPU machine are descheduled now and then.
            if not within(row["busbw_gbs"], a.busbw, 0.01):
                fail("%s: busbw %.3f GB/s, expected %.1f within 1%%" % (key, row["busbw_gbs"], a.busbw))
            factor = FACTOR[row["op"]](nranks)
            for kind in ("", "_total"):
                algbw, busbw = row["algbw%s_gbs" % kind], row["busbw%s_gbs" % kind]
                if not within(algbw * factor, busbw, 1e-6):
                    fail("%s: algbw%s %.4f x factor %.4f != busbw %.4f" % (key, kind, algbw, factor, busbw))
    if a.aligned is not None:
        check_aligned(out_dir, nranks, a.aligned)
    if a.text:
        check_text(nccltap, out_dir, env, report)
    shutil.rmtree(work, ignore_errors=True)
    print("ok: %d (rank, op, size) rows, %d calls" % (len(made), sum(made.values())))


if __name__ == "__main__":
    main()
