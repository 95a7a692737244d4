#!/usr/bin/env python3
"""Runs tests/apps/comm_registry_app.c under the shim and checks, from the
rank files, that every communicator the application named is there once per
rank, under one id, with exactly the calls it made; that no communicator is
"unregistered"; that every call is in a row or a named counter; and, with
--overflow-ok, that the calls of the communicators missing are all in the
"(overflow)" communicator and nowhere else. With --nccltap, the same of
`nccltap report`: it reads every file whole (nothing left out as out of
range), every call of its totals is in one of its rows or a named counter,
and its totals say what the application expects (comms_past_limit: the
communicators past the shim's bound). Exit 0 when all hold."""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(a, cmd):
    out_dir = tempfile.mkdtemp(prefix="nccltap-comms-")
    env = dict(os.environ)
    preload = [a.shim] + ([a.preload] if a.preload else []) + ([env["LD_PRELOAD"]] if env.get("LD_PRELOAD") else [])
    env["LD_PRELOAD"] = ":".join(preload)
    env["LD_LIBRARY_PATH"] = a.sim + ":" + env.get("LD_LIBRARY_PATH", "")
    env["NCCLTAP_DIR"] = out_dir
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    sys.stderr.write(p.stderr)
    if p.returncode != 0:
        fail("exit code %d" % p.returncode)
    return p, out_dir


def check_file(path, doc, seen, totals):
    """One rank file: its communicators' calls agree with its rows, and
    every call is in a row or a counter."""
    if not doc["final"]:
        fail("%s is not final" % path)
    rows_of = defaultdict(int)
    for row in doc["ops"]:
        rows_of[(row["comm"], row["rank"])] += row["calls"]
    comm_calls = defaultdict(int)
    for c in doc["comms"]:
        if c["origin"] == "unregistered":
            fail("%s: communicator %s (rank %d of %d) unregistered: its identity was lost"
                 % (path, c["id"], c["rank"], c["nranks"]))
        comm_calls[(c["id"], c["rank"])] += c["calls"]
        seen[c["name"]].append(c)
    for key in set(rows_of) | set(comm_calls):
        if rows_of[key] != comm_calls[key]:
            fail("%s: communicator %s rank %d made %d calls, its rows hold %d"
                 % (path, key[0], key[1], comm_calls[key], rows_of[key]))
    t = doc["totals"]
    rows = sum(rows_of.values())
    if rows + t["dropped"] + t["failed"] + t["simulated"] != t["calls"]:
        fail("%s: rows %d + dropped %d + failed %d + simulated %d != calls %d"
             % (path, rows, t["dropped"], t["failed"], t["simulated"], t["calls"]))
    for k, v in t.items():
        totals[k] += v


def check_report(nccltap, out_dir, expects, file_totals):
    """`nccltap report` on the rank files: nothing rejected, every call in
    a row or a counter, the expected totals (those the report has) and,
    in the text, a word on each counter the shim could not follow."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    p = subprocess.run([nccltap, "report", "--json", out_dir], env=env, capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        fail("nccltap report --json exited %d: %s" % (p.returncode, p.stderr[-2000:]))
    if "left out" in p.stderr:
        fail("nccltap report left records out: %s" % p.stderr[-2000:])
    doc = json.loads(p.stdout)
    t = doc["totals"]
    if t["calls"] != file_totals["calls"]:
        fail("report: %d calls, the rank files %d" % (t["calls"], file_totals["calls"]))
    rows = sum(r["calls"] for r in doc["rows"])
    settled = rows + t["dropped"] + t["failed"] + t["simulated"] + t["in_flight"] + t["after_exit"]
    if settled != t["calls"]:
        fail("report: rows %d + dropped + failed + simulated + in_flight + after_exit = %d, calls %d"
             % (rows, settled, t["calls"]))
    text = subprocess.run([nccltap, "report", out_dir], env=env, capture_output=True, text=True, timeout=600)
    if text.returncode != 0:
        fail("nccltap report exited %d: %s" % (text.returncode, text.stderr[-2000:]))
    for o in expects:
        if o["expect"] != "total" or o["key"] not in ("comms_past_limit",):
            continue
        if t.get(o["key"], 0) != o["n"]:
            fail("report: totals.%s = %s, expected %d" % (o["key"], t.get(o["key"]), o["n"]))
        if o["n"] and "%s %d" % (o["key"], o["n"]) not in text.stdout:
            fail("the text report does not say %s %d:\n%s" % (o["key"], o["n"], text.stdout[-3000:]))
    print("report: %d calls, %d in rows" % (t["calls"], rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--sim", required=True, help="directory holding the simulated libnccl/libcuda")
    ap.add_argument("--preload", help="another library to preload (tests/apps/alloc_fail.c)")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the application")
    ap.add_argument("--overflow-ok", action="store_true",
                    help="communicators may be missing, their calls in the (overflow) communicator")
    ap.add_argument("--stderr-count", action="append", default=[], help="TEXT=N: occurrences in stderr")
    ap.add_argument("--nccltap", help="the nccltap command: check its report too")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    p, out_dir = run(a, cmd)
    for spec in a.stderr_count:
        text, _, n = spec.rpartition("=")
        if p.stderr.count(text) != int(n):
            fail("stderr has %r %d times, expected %s" % (text, p.stderr.count(text), n))

    seen = defaultdict(list)
    totals = defaultdict(int)
    files = sorted(glob.glob(os.path.join(out_dir, "nccltap-*.json")))
    if not files:
        fail("no rank file")
    for path in files:
        with open(path) as f:
            check_file(path, json.load(f), seen, totals)

    missing = 0
    expected = 0
    expects = [json.loads(line) for line in p.stdout.splitlines()]
    for o in expects:
        if o["expect"] == "comm":
            expected += 1
            comms = seen[o["name"]]
            if not comms and a.overflow_ok:
                missing += o["ranks"] * o["calls"]
                continue
            ids = {c["id"] for c in comms}
            ranks = sorted(c["rank"] for c in comms)
            if len(ids) != 1 or ranks != list(range(o["ranks"])):
                fail("communicator %r: ids %s, ranks %s; expected one id, ranks 0 to %d"
                     % (o["name"], sorted(ids), ranks, o["ranks"] - 1))
            for c in comms:
                if c["calls"] != o["calls"]:
                    fail("communicator %r rank %d: %d calls, the application made %d"
                         % (o["name"], c["rank"], c["calls"], o["calls"]))
        elif o["expect"] == "total" and totals[o["key"]] != o["n"]:
            fail("totals.%s = %d, expected %d" % (o["key"], totals[o["key"]], o["n"]))
        elif o["expect"] == "at_least" and totals[o["key"]] < o["n"]:
            fail("totals.%s = %d, expected at least %d" % (o["key"], totals[o["key"]], o["n"]))
    overflow = [c for c in seen["(overflow)"] if c["origin"] == "overflow"]
    in_overflow = sum(c["calls"] for c in overflow)
    if in_overflow != missing:
        fail("%d calls in the (overflow) communicator, %d made on communicators not listed"
             % (in_overflow, missing))
    if a.nccltap:
        check_report(a.nccltap, out_dir, expects, totals)
    shutil.rmtree(out_dir, ignore_errors=True)
    print("ok: %d communicators checked, %d calls in (overflow)" % (expected, in_overflow))


if __name__ == "__main__":
    main()
