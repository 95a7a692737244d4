#!/usr/bin/env python3
"""Python call sites end to end (issue 25): tests/apps/ctypes_nccl.py calls
NCCL through ctypes from three lines in two threads, and from a thread of C
with no Python frame, under `nccltap run --sim`. The report must name the
three lines (file:line, function) and the C thread's native site, each
with its exact calls, and no call may be left unread; the same from a
copy of the script under a name that is not ASCII; and at
NCCLTAP_CALLSITE_DEPTH=2 the Python frame above each line.

Usage: python_sites_test.py --bin BUILD/bin --src SOURCE --lib libc_thread_nccl.so --work DIR [--preload LIB]
                           [--depth1-only]
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


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("%s exited with %d:\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--preload", help="a library to preload into Python beside the shim (a sanitizer's runtime)")
    ap.add_argument("--depth1-only", action="store_true", help="not NCCLTAP_CALLSITE_DEPTH=2 (no libunwind)")
    a = ap.parse_args()
    if sys.version_info[:2] not in ((3, 11), (3, 12)):
        print("Python %d.%d: nccltap reads the frames of CPython 3.11 and 3.12" % sys.version_info[:2])
        return 1 if os.environ.get("CI") == "true" else 77
    source = os.path.join(a.src, "tests", "apps", "ctypes_nccl.py")
    for script in (source, non_ascii_copy(source, a.work)):
        check_script(a, script)
    if not a.depth1_only:
        check_depth2(a, source)
    check_python_skip(a, source)
    print("FAIL: %d checks" % len(failures) if failures else "ok")
    return 1 if failures else 0


def non_ascii_copy(source, work):
    """The script under a name CPython keeps no UTF-8 of (not ASCII: its
    characters, 2 bytes each, are read and encoded by nccltap)."""
    d = os.path.join(work, "python-sites-\u00e9")
    os.makedirs(d, exist_ok=True)
    copy = os.path.join(d, "nccl_\u884c.py")
    shutil.copy(source, copy)
    return copy


def traced(a, script, out, depth):
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH=str(depth))
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    return run([os.path.join(a.bin, "nccltap"), "run", "--sim", "--dir", out, "--", sys.executable, script, a.lib],
               env)


def check_depth2(a, script):
    """NCCLTAP_CALLSITE_DEPTH=2: each Python site has the line that made the
    call and the line that called its function (the module's main() call;
    threading's Thread.run for the worker), then two native frames."""
    with open(script) as f:
        module_line = [n for n, t in enumerate(f, 1) if t.rstrip() == "main()"][0]
    out = os.path.join(a.work, "python-sites-depth2")
    traced(a, script, out, 2)
    doc = json.loads(run([os.path.join(a.bin, "nccltap"), "report", "--json", out]))
    outer = {}
    for s in doc["callsites"]:
        py = [f for f in s["frames"] if f["python"]]
        native = [f for f in s["frames"] if not f["python"]]
        check(len(native) == 2, "depth 2: two native frames (got %s)" % s["frames"])
        if py:
            check(len(py) == 2, "depth 2: two Python frames (got %s)" % py)
            outer[py[0]["function"]] = (os.path.basename(py[-1]["file"]), py[-1]["line"] if py[-1]["function"]
                                        == "<module>" else py[-1]["function"])
    check(outer == {"main": ("ctypes_nccl.py", module_line), "worker": ("threading.py", "Thread.run")},
          "depth 2: the Python frame above each line (got %s)" % outer)


def check_python_skip(a, script):
    """NCCLTAP_CALLSITE_PYTHON_SKIP naming the script: its frames are left
    out, as a framework's are; the worker's call is then the line of
    threading.py that ran it, the main thread's (no Python frame above the
    script's) its native site."""
    out = os.path.join(a.work, "python-sites-skip")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH="1", NCCLTAP_CALLSITE_PYTHON_SKIP="/nothere/,ctypes_nccl.py")
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    run([os.path.join(a.bin, "nccltap"), "run", "--sim", "--dir", out, "--", sys.executable, script, a.lib], env)
    doc = json.loads(run([os.path.join(a.bin, "nccltap"), "report", "--json", out]))
    tops = sorted({os.path.basename(s["frames"][0]["file"] or "") for s in doc["callsites"]
                   if s["frames"][0]["python"]})
    check(tops == ["threading.py"], "NCCLTAP_CALLSITE_PYTHON_SKIP=ctypes_nccl.py: Python sites in %s, want "
          "threading.py alone" % tops)


def check_script(a, script):
    lines = {}
    with open(script) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"# LINE:(\w+)", text)
            if m:
                lines[m.group(1)] = number
    out = os.path.join(a.work, "python-sites")
    nccltap = os.path.join(a.bin, "nccltap")
    printed = traced(a, script, out, 1)
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
    expect = {"%s:%d in %s" % (os.path.basename(script), lines[k], "worker" if k == "b" else "main"): n
              for k, n in want.items() if k != "native"}
    expect["c_thread_nccl_loop"] = want["native"]
    check(got == expect, "sites and their calls: expected %s, got %s" % (expect, got))

    text = run([nccltap, "report", out])
    name = os.path.basename(script)
    for k in ("a", "b", "c"):
        check(re.search(r"%s:%d\s+(main|worker)$" % (re.escape(name), lines[k]), text, re.M) is not None,
              "the text report's Call sites name %s:%d:\n%s" % (name, lines[k], text))


if __name__ == "__main__":
    sys.exit(main())
