#!/usr/bin/env python3
"""One-sided operations in the report (issue 34), on the simulator:
tests/apps/entry_points.c `onesided` (2 ranks of one process: rank 1
waits for rank 0's signal 30 ms, then puts and signals both ways) under
`nccltap run --sim`; `nccltap report --json`'s "onesided" says what each
rank put to whom and how long each rank's waits waited, and the text has
the section.

Usage: onesided_test.py --bin BUILD/bin"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crossrank_test import Run, check  # noqa: E402  the shared runner

COUNT_BYTES = 1024 * 4  # entry_points.c's COUNT floats
WAIT_MS = 30


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    run = Run(a.bin)
    try:
        app = os.path.join(a.bin, "entry_points")
        p = subprocess.run([run.nccltap, "run", "--sim", "--dir", run.dir, "--", app, "onesided"], capture_output=True,
                           text=True, timeout=120, env=run.env(NCCLTAP_TIMING="all", NCCLTAP_OS="off"))
        check(p.returncode == 0, "entry_points onesided exited %d: %s" % (p.returncode, p.stderr[-2000:]))
        rep, text, _ = run.report()
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
        check("one-sided calls only" in text, "the healthy line does not say why nothing was compared:\n"
              + text[:2000])
    finally:
        run.clean()
    print("PASS")


if __name__ == "__main__":
    main()
