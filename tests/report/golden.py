#!/usr/bin/env python3
"""The report's renderers against golden outputs: `nccltap report` of a
fixed run (tests/report/testdata/RUN, read by its relative name from
testdata/) in one format must print exactly golden/RUN.FORMAT.expect. A
change to the report's output shows here as a diff; when it is meant,
write the new outputs with NCCLTAP_GOLDEN_UPDATE=1 and commit them with
the change, so that the diff is reviewed with it.

Usage: golden.py NCCLTAP RUN FORMAT...   (FORMAT: text, json, csv, html,
findings, findings-json)
"""
import difflib
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "testdata")

ARGS = {"text": ["--format", "text"], "json": ["--format", "json"], "csv": ["--format", "csv"],
        "findings": ["--findings"], "findings-json": ["--findings", "--format", "json"]}


def render(nccltap, run, fmt):
    """The report's output in fmt, and its exit status."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NCCLTAP_")}
    with tempfile.TemporaryDirectory() as tmp:
        if fmt == "html":
            page = os.path.join(tmp, "page.html")
            p = subprocess.run([nccltap, "report", "--format", "html", "-o", page, run], cwd=TESTDATA, env=env,
                               capture_output=True, text=True, timeout=120)
            return (open(page).read() if os.path.exists(page) else ""), p.returncode
        p = subprocess.run([nccltap, "report", *ARGS[fmt], run], cwd=TESTDATA, env=env,
                           capture_output=True, text=True, timeout=120)
        return p.stdout, p.returncode


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    nccltap, run, formats = sys.argv[1], sys.argv[2], sys.argv[3:]
    update = os.environ.get("NCCLTAP_GOLDEN_UPDATE") == "1"
    failed = 0
    for fmt in formats:
        out, rc = render(nccltap, run, fmt)
        expect = os.path.join(HERE, "golden", "%s.%s.expect" % (run, fmt))
        if rc not in (0, 1):
            print("FAIL: %s %s: nccltap report exited %d" % (run, fmt, rc))
            failed += 1
            continue
        if update:
            with open(expect, "w") as f:
                f.write(out)
            print("wrote %s" % expect)
            continue
        want = open(expect).read() if os.path.exists(expect) else ""
        if out != want:
            diff = difflib.unified_diff(want.splitlines(True), out.splitlines(True), expect, "nccltap report")
            sys.stdout.writelines(list(diff)[:200])
            print("FAIL: %s %s differs from %s (if the change is meant: NCCLTAP_GOLDEN_UPDATE=1 ctest -R "
                  "cli.golden, then commit the .expect files)" % (run, fmt, expect))
            failed += 1
        else:
            print("ok: %s %s" % (run, fmt))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
