#!/usr/bin/env python3
"""Python call sites end to end (issue 25): tests/apps/ctypes_nccl.py calls
NCCL through ctypes from three lines in two threads, and from a thread of C
with no Python frame, under `nccltap run --sim`. The report must name the
three lines (file:line, function) and the C thread's native site, each
with its exact calls, and no call may be left unread.

Usage: python_sites_test.py --bin BUILD/bin --src SOURCE --lib libc_thread_nccl.so --work DIR
Needs CPython 3.11 or 3.12 (those whose frames nccltap reads): exit 77
with another, a failure where CI=true."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("%s exited with %d:\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if sys.version_info[:2] not in ((3, 11), (3, 12)):
        print("Python %d.%d: nccltap reads the frames of CPython 3.11 and 3.12" % sys.version_info[:2])
        return 1 if os.environ.get("CI") == "true" else 77
    script = os.path.join(a.src, "tests", "apps", "ctypes_nccl.py")
    lines = {}
    with open(script) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"# LINE:(\w+)", text)
            if m:
                lines[m.group(1)] = number
    out = os.path.join(a.work, "python-sites")
    shutil.rmtree(out, ignore_errors=True)
    nccltap = os.path.join(a.bin, "nccltap")
    printed = run([nccltap, "run", "--sim", "--dir", out, "--", sys.executable, script, a.lib])
    want = dict(json.loads([l for l in printed.splitlines() if l.startswith('{"sites"')][0])["sites"])

    rank = [os.path.join(out, p) for p in os.listdir(out) if p.endswith(".json")]
    with open(rank[0]) as f:
        check(json.load(f)["callsite_python_unread"] == 0, "every Python frame was read")
    doc = json.loads(run([nccltap, "report", "--json", out]))
    got = {}
    for s in doc["callsites"]:
        top = s["frames"][0]
        if top["python"]:
            where = "%s:%d in %s" % (os.path.basename(top["file"]), top["line"], top["function"])
            check(os.path.realpath(top["file"]) == os.path.realpath(script), "a Python site's file is the script (got %s)" % top["file"])
        else:
            where = top["function"]
        got[where] = got.get(where, 0) + s["calls"]
    expect = {"ctypes_nccl.py:%d in %s" % (lines[k], "worker" if k == "b" else "main"): n
              for k, n in want.items() if k != "native"}
    expect["c_thread_nccl_loop"] = want["native"]
    check(got == expect, "sites and their calls: expected %s, got %s" % (expect, got))

    text = run([nccltap, "report", out])
    for k in ("a", "b", "c"):
        check(re.search(r"ctypes_nccl\.py:%d\s+(main|worker)$" % lines[k], text, re.M) is not None,
              "the text report's Call sites name ctypes_nccl.py:%d:\n%s" % (lines[k], text))
    print("FAIL: %d checks" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
