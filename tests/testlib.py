"""What the suite's Python tests share: how a test fails, skips, collects
failed checks, and judges a verdict about noise on a quiet machine only.

A test in tests/ imports it directly; one in a folder below puts tests/ on
sys.path first (tests/report/*.py do)."""
import os
import shutil
import sys

from machine_load import OthersShare

# CTest's SKIP_RETURN_CODE for the suite's tests: the test could not be
# judged here (a tool missing, a machine too busy), which is not a pass.
SKIP = 77

# A run is quiet when other processes took at most this share of the CPUs.
QUIET_SHARE = 0.10


# The simulator's late, noisy and stuck ranks (NCCLSIM_SLOW_RANK,
# NCCLSIM_JITTER_US, NCCLSIM_HANG_RANK) put their delay on the stream
# between two calls with no host time between the calls, which an
# application cannot (tests/sim/README.md). NCCLTAP_TIMING=all times an op
# called right after the one before from that one's end, so the delay would
# count in the op after it; `pairs` records a start event at every call and
# tells it. A scenario of those faults that wants every op timed exactly
# runs `pairs`.


def every_op_timing(env):
    """The NCCLTAP_TIMING that times every op exactly under env's
    simulator faults: `pairs` with a fault on the stream, else `all`."""
    ranks = [str(env.get(k, "")) for k in ("NCCLSIM_SLOW_RANK", "NCCLSIM_HANG_RANK")]
    faulty = any(r not in ("", "-1") for r in ranks) or float(env.get("NCCLSIM_JITTER_US") or 0) > 0
    return "pairs" if faulty else "all"


def fail(msg):
    """Ends the test as failed, saying why."""
    print("FAIL: " + msg)
    sys.exit(1)


def check(cond, msg):
    """Ends the test as failed unless cond holds."""
    if not cond:
        fail(msg)


def fresh(d):
    """Directory d, empty (made or emptied)."""
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def skip(msg):
    """Ends the test as skipped (SKIP), saying why."""
    print("SKIP: " + msg)
    sys.exit(SKIP)


class Checks:
    """Checks that go on after one fails, for a test that reports every
    failed check at its end: check = Checks(); ...; return check.result()."""

    def __init__(self, stream=sys.stdout):
        self.failed = []
        self.stream = stream

    def __call__(self, cond, what):
        if not cond:
            self.failed.append(what)
            print("FAIL:", what, file=self.stream)
        return cond

    def result(self):
        """The test's exit status: 1 if a check failed, else 0 ("ok")."""
        if self.failed:
            print("%d check(s) failed" % len(self.failed), file=self.stream)
            return 1
        print("ok")
        return 0


def on_a_quiet_machine(job, attempts=5, what="the test"):
    """job() run until other processes took at most QUIET_SHARE of the
    CPUs while it ran, and its result then: a verdict that nothing is
    wrong holds only there (4 simulated ranks on 2 CPUs: another process's
    burst makes a rank late for real, and the report rightly says so).
    job() starts from a clean slate each time. Skips (SKIP) if every run
    was disturbed."""
    for attempt in range(attempts):
        with OthersShare() as load:
            result = job()
        if load.share <= QUIET_SHARE:
            return result
        print("attempt %d: other processes took %.0f%% of the CPUs" % (attempt + 1, 100 * load.share))
    skip("%s: the machine was busy with other work in all %d runs" % (what, attempts))
