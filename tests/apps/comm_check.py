#!/usr/bin/env python3
"""Runs tests/apps/comm_registry_app.c under the shim and checks, from the
rank files, that every communicator the application named is there once per
rank, under one id, with exactly the calls it made; that no communicator is
"unregistered"; that every call is in a row or a named counter; and, with
--overflow-ok, that the calls of the communicators missing are all in the
"(overflow)" communicator and nowhere else. Exit 0 when all hold."""
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--sim", required=True, help="directory holding the simulated libnccl/libcuda")
    ap.add_argument("--preload", help="another library to preload (tests/apps/alloc_fail.c)")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the application")
    ap.add_argument("--overflow-ok", action="store_true",
                    help="communicators may be missing, their calls in the (overflow) communicator")
    ap.add_argument("--stderr-count", action="append", default=[], help="TEXT=N: occurrences in stderr")
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
    for line in p.stdout.splitlines():
        o = json.loads(line)
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
    shutil.rmtree(out_dir, ignore_errors=True)
    print("ok: %d communicators checked, %d calls in (overflow)" % (expected, in_overflow))


if __name__ == "__main__":
    main()
