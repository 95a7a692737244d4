#!/usr/bin/env python3
"""`auto` times the same calls on every rank whatever each rank measured
(preload/state/sampling.h): 4 simulated ranks, one of them late at every
call (so the others measure longer durations than it does), 12,000 calls
of each op and size (past the learning schedule of the shortest, 8,192
calls, into the aligned sample), a busy loop
pinned to the ranks' CPUs for the whole run (so each rank's own timings
are disturbed differently). From the per-op records of calls timed with
an event pair (every call also has a record from its stamp, "stamped":
true, which is not the sample): per communicator, of the calls timed on
the rank that timed the fewest, the share timed on all ranks.

Usage: sampling_test.py --bin BUILD/bin [--share 0.99]
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
from testlib import fail  # noqa: E402


def start_hog(seconds):
    """One busy loop per CPU this process may use, pinned there (taskset),
    ending by itself after `seconds` even if this test dies."""
    hogs = []
    for cpu in sorted(os.sched_getaffinity(0)):
        hogs.append(subprocess.Popen(
            ["taskset", "-c", str(cpu), sys.executable, "-c",
             "import time\nend = time.time() + %d\nwhile time.time() < end: pass\n" % seconds]))
    return hogs


def timed_seqs(out_dir):
    timed = defaultdict(lambda: defaultdict(set))  # comm -> rank -> seqs
    for path in glob.glob(os.path.join(out_dir, "*.ops.jsonl")):
        with open(path) as f:
            for line in f:
                op = json.loads(line)
                if op["stamped"]:
                    continue
                timed[op["comm"]][op["rank"]].add(op["seq"])
    return timed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--share", type=float, default=0.99)
    ap.add_argument("--slow-us", type=int, default=0,
                    help="rank 1 late by this much at every call (NCCLSIM_SLOW_US); 0: no rank late")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="nccltap-sampling-")
    out_dir = os.path.join(work, "out")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCLTAP_", "NCCLSIM_"))}
    env.update(NCCLTAP_TIMING="auto", NCCLTAP_OPS_JSONL="1")
    if a.slow_us:
        env.update(NCCLSIM_SLOW_RANK="1", NCCLSIM_SLOW_US=str(a.slow_us))
    cmd = [os.path.join(a.bin, "nccltap"), "run", "--sim", "--dir", out_dir, "--",
           os.path.join(a.bin, "nccltap-bench"), "--ranks", "4", "--op", "allreduce,allgather",
           "--bytes", "8:64K", "--factor", "8", "--iters", "12000", "--warmup", "0"]
    hogs = start_hog(240)
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=240)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        fail("%s exited %d" % (" ".join(cmd), p.returncode))

    timed = timed_seqs(out_dir)
    if not timed:
        fail("no per-op records in %s" % out_dir)
    for comm, ranks in sorted(timed.items()):
        if len(ranks) != 4:
            fail("comm %s: timed calls on %d ranks of 4" % (comm, len(ranks)))
        fewest = min(ranks.values(), key=len)
        issued = max(max(seqs) for seqs in ranks.values()) + 1
        if len(fewest) == issued:
            fail("comm %s: every one of its %d calls was timed on every rank: nothing was sampled, so "
                 "alignment is not shown" % (comm, issued))
        on_all = set.intersection(*ranks.values())
        got = len(fewest & on_all) / len(fewest)
        print("comm %s: %d calls, timed per rank %s; %d of the %d timed on the rank with fewest are timed "
              "on all (%.1f%%)" % (comm, issued, [len(ranks[r]) for r in sorted(ranks)],
                                   len(fewest & on_all), len(fewest), 100 * got))
        if got < a.share:
            fail("comm %s: %.1f%% of the calls timed on the rank with fewest are timed on all 4 ranks; "
                 "expected at least %.0f%%" % (comm, 100 * got, 100 * a.share))
    shutil.rmtree(work, ignore_errors=True)
    print("ok")


if __name__ == "__main__":
    main()
