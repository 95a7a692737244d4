#!/usr/bin/env python3
"""NCCL's newer entry points in the report (issue 34), on the simulator,
from tests/apps/entry_points.c under `nccltap run --sim`:
- onesided: 2 ranks of one process, rank 1 waits for rank 0's signal
  30 ms, then puts and signals both ways; `nccltap report --json`'s
  "onesided" says what each rank put to whom and how long each rank's
  waits waited, and the text has the section;
- entry_points: memory, registration, windows, suspend/resume, revoke;
  the report's "entry_points" are the rank files' summed, NCCL's refusals
  as failed, and the text lists them.

Usage: entry_report_test.py --bin BUILD/bin onesided|entry_points"""
import argparse
import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crossrank_test import Run, check  # noqa: E402  the shared runner

COUNT_BYTES = 1024 * 4  # entry_points.c's COUNT floats
WAIT_MS = 30


def app_run(run, a, scenario):
    app = os.path.join(a.bin, "entry_points")
    p = subprocess.run([run.nccltap, "run", "--sim", "--dir", run.dir, "--", app, scenario], capture_output=True,
                       text=True, timeout=120, env=run.env(NCCLTAP_TIMING="all", NCCLTAP_OS="off"))
    check(p.returncode == 0, "entry_points %s exited %d: %s" % (scenario, p.returncode, p.stderr[-2000:]))
    return run.report()


def onesided(run, a):
    rep, text, _ = app_run(run, a, "onesided")
    o = rep["onesided"]
    flows = {(f["from"], f["to"]): f for f in o["flows"]}
    check(set(flows) == {(0, 1), (1, 0)}, "flows %s, want 0->1 and 1->0" % o["flows"])
    check((flows[(0, 1)]["puts"], flows[(0, 1)]["bytes"], flows[(0, 1)]["signals"]) == (2, 2 * COUNT_BYTES, 1),
          "0->1: %s, want 2 puts of %d bytes and 1 signal" % (flows[(0, 1)], COUNT_BYTES))
    check((flows[(1, 0)]["puts"], flows[(1, 0)]["signals"]) == (1, 0), "1->0: %s" % flows[(1, 0)])
    waits = {(w["rank"], w["for"]): w for w in o["waits"]}
    check(set(waits) == {(1, 0), (0, 1)}, "waits %s, want rank 1 for 0 and rank 0 for 1" % o["waits"])
    check(waits[(1, 0)]["waits"] == 3 and waits[(1, 0)]["max_us"] >= (WAIT_MS - 5) * 1e3,
          "rank 1's waits for rank 0: %s, want 3, the longest about %d ms" % (waits[(1, 0)], WAIT_MS))
    check("One-sided: what each rank put to whom" in text, "no One-sided section in the text")
    check("one-sided calls only" in text, "the healthy line does not say why nothing was compared:\n" + text[:2000])


def entry_points(run, a):
    rep, text, _ = app_run(run, a, "events")
    files = [f for f in glob.glob(os.path.join(run.dir, "*.json")) if not f.endswith(".hang.json")]
    want = {}
    for path in files:
        with open(path) as f:
            for name, c in json.load(f).get("entry_points", {}).items():
                w = want.setdefault(name, [0, 0, 0])
                w[0] += c["calls"]
                w[1] += c["failed"]
                w[2] += 1
    got = {e["name"]: [e["calls"], e["failed"], e["processes"]] for e in rep["entry_points"]}
    check(want and got == want, "the report's entry points %s, the rank files' %s" % (got, want))
    check(any(w[1] for w in want.values()), "no refused call to count: the app's scenario changed?")
    check("Entry points: NCCL calls" in text and "ncclCommRegister" in text, "no Entry points section in the text")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("case", choices=["onesided", "entry_points"])
    a = ap.parse_args()
    run = Run(a.bin)
    try:
        {"onesided": onesided, "entry_points": entry_points}[a.case](run, a)
    finally:
        run.clean()
    print("PASS")


if __name__ == "__main__":
    main()
