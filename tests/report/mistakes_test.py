#!/usr/bin/env python3
"""Mistakes on nccltap's command line are caught: exit status 2 and a
message that names the option, the value and what is accepted, never an
empty table, "0 events" or a run that starts with the setting lost.

usage: mistakes_test.py report|perfetto|run NCCLTAP TESTDATA WORKDIR
  report    --op, --comm, --expect-busbw, --perfetto's directory, --ranks
            and --from against the hand-written run4 (rank files only)
  perfetto  --ranks and --from against a simulated run of 4 ranks
  run       nccltap run's options for the shim's variables, and a
            misspelled NCCLTAP_* said once for the job
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import Checks  # noqa: E402

check = Checks(sys.stderr)
FAILED = check.failed


def nccltap(exe, *args, env=None):
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


def refused(exe, args, *names, env=None):
    """`nccltap ARGS` exits 2 and its message names each of `names`."""
    rc, out, err = nccltap(exe, *args, env=env)
    check(rc == 2, "nccltap %s: exit status %d, want 2 (stderr: %s)" % (" ".join(args), rc, err.strip()))
    for n in names:
        check(n in err, "nccltap %s: the message does not name %r: %s" % (" ".join(args), n, err.strip()))
    return err


def report(exe, testdata, work):
    d = os.path.join(testdata, "run4")
    refused(exe, ["report", d, "--op", "allreduse"], "--op", "allreduse", "AllGather, AllReduce, Broadcast")
    refused(exe, ["report", "--json", d, "--op", "allreduse"], "AllReduce")
    refused(exe, ["report", d, "--comm", "deadbeef"], "--comm", "deadbeef", "8c41d0e2a97b5f36", "world")
    refused(exe, ["report", d, "--expect-busbw", "fast"], "--expect-busbw", "fast", "[OP:]GBS[@MINBYTES]")
    err = refused(exe, ["report", d, "--perfetto", "/nonexistent/x.json"], "--perfetto", "directory /nonexistent")
    check("XXXXXX" not in err and ".json." not in err, "--perfetto names a temporary file: " + err)
    out = os.path.join(work, "t.json")
    refused(exe, ["report", d, "--perfetto", out, "--ranks", "9"], "--ranks", "rank 9", "its ranks are 0-3")
    refused(exe, ["report", d, "--perfetto", out, "--from", "50"], "--from 50", "per-op records")
    check(not os.path.exists(out), "a timeline written although its options were refused")
    # What the run has is still taken, in any case.
    rc, _, err = nccltap(exe, "report", d, "--op", "allreduce", "--comm", "world")
    check(rc == 0, "--op allreduce --comm world: exit status %d: %s" % (rc, err))


def sim_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCLTAP_", "NCCLSIM_"))}
    return env


def perfetto(exe, testdata, work):
    d = os.path.join(work, "out")
    bench = os.path.join(os.path.dirname(exe), "nccltap-bench")
    rc, _, err = nccltap(exe, "run", "--sim", "--dir", d, "--", bench, "--ranks", "4", "--op", "allreduce",
                         "--bytes", "1K", "--iters", "5", "--warmup", "0", env=sim_env())
    if rc != 0:
        sys.exit("the simulated run failed (%d): %s" % (rc, err))
    out = os.path.join(work, "t.json")
    refused(exe, ["report", d, "--perfetto", out, "--ranks", "9"], "rank 9", "its ranks are 0-3")
    refused(exe, ["report", d, "--perfetto", out, "--ranks", "0,9"], "rank 9", "0-3")
    refused(exe, ["report", d, "--perfetto", out, "--from", "1000"], "--from 1000", "past the run's end",
            "span 0 to ")
    check(not os.path.exists(out), "a timeline written although its options were refused")
    rc, _, err = nccltap(exe, "report", d, "--perfetto", out, "--ranks", "1,3", "--from", "0")
    check(rc == 0 and os.path.exists(out), "--ranks 1,3 --from 0: exit status %d: %s" % (rc, err))


def run(exe, testdata, work):
    for opt, value, accepted in [("--timing", "fast", "auto, all, pairs or off"),
                                 ("--hang-timeout", "-1", "0 (off) to 604800"),
                                 ("--hang-timeout", "1h", "0 (off) to 604800"),
                                 ("--interval-ms", "5", "10 to 3600000"),
                                 ("--ops-jsonl", "yes", "0, 1 or inspector"),
                                 ("--prom-dir", "", "a directory")]:
        refused(exe, ["run", opt, value, "--", "true"], opt, '"%s"' % value, accepted)
    # The options set the variables; a misspelled one is said once, by
    # nccltap run, and not again by the ranks (4 processes of the bench).
    d = os.path.join(work, "out")
    bench = os.path.join(os.path.dirname(exe), "nccltap-bench")
    env = sim_env()
    env["NCCLTAP_TIMNG"] = "all"
    rc, _, err = nccltap(exe, "run", "--sim", "--dir", d, "--timing", "all", "--ops-jsonl", "1",
                         "--interval-ms", "100", "--hang-timeout", "60", "--", bench, "--ranks", "4",
                         "--op", "allreduce", "--bytes", "1K", "--iters", "5", "--warmup", "0", env=env)
    check(rc == 0, "nccltap run with the options: exit status %d: %s" % (rc, err))
    said = err.count("NCCLTAP_TIMNG is not a variable nccltap reads: did you mean NCCLTAP_TIMING?")
    check(said == 1, "the misspelled NCCLTAP_TIMNG said %d times, want once:\n%s" % (said, err))
    check(any(n.endswith(".ops.jsonl") for n in os.listdir(d)), "--ops-jsonl 1 wrote no .ops.jsonl")
    files = [os.path.join(d, n) for n in os.listdir(d) if n.endswith(".json") and ".hang." not in n]
    timings = set()
    for path in files:
        with open(path) as f:
            timings.add(json.load(f).get("timing"))
    check(files and timings == {"all"}, "--timing all: the rank files say timing %s" % timings)


def main():
    case, exe, testdata, work = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"report": report, "perfetto": perfetto, "run": run}[case](exe, testdata, work)
    if FAILED:
        sys.exit("%d failed" % len(FAILED))
    print("ok")


if __name__ == "__main__":
    main()
