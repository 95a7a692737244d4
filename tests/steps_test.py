#!/usr/bin/env python3
"""Steps (issue 35), on the simulator: `nccltap report --json`'s "steps"
found from the collectives alone, in the default timing, for
tests/apps/step_app.c jobs whose step count the app knows.

Usage: steps_test.py --bin BUILD/bin CASE"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crossrank_test import Run, check, step_app  # noqa: E402  the shared runner
from testlib import on_a_quiet_machine  # noqa: E402

STEPS = 200


def only_comm(rep):
    """The one communicator's steps."""
    steps = rep["steps"]
    check(len(steps) == 1, "want one communicator with steps, got %d" % len(steps))
    return steps[0]


def found(run):
    """A healthy job of 200 steps of AllReduce 1M then AllGather right
    after: 200 steps of 2 collectives, from seq 0, the step's start found
    after the host's gap; no change (no SLOWER). That verdict is judged on
    a quiet machine only (4 ranks on 2 CPUs: another process's burst late
    in the run slows the last steps for real); a disturbed run is retried,
    and the test skipped (77) if every run was."""
    def job():
        shutil.rmtree(run.dir, ignore_errors=True)
        return step_app(run, [4, STEPS])
    rep, text, _ = on_a_quiet_machine(job)
    return found_checks(rep, text)


def found_checks(rep, text):
    c = only_comm(rep)
    check(c["nsteps"] == STEPS and c["period"] == 2 and c["first_seq"] == 0,
          "found %d steps of %d from seq %d, want %d of 2 from 0" % (c["nsteps"], c["period"], c["first_seq"], STEPS))
    check([p["op"] for p in c["positions"]] == ["AllReduce", "AllGather"], "positions %s" % c["positions"])
    check(c["by_gap"], "the steps were not found by the host's gap")
    check(c["slower"] is None and c["more_waiting"] is None, "a change in a steady job: %s %s"
          % (c["slower"], c["more_waiting"]))
    check("Steps: " in text and "%d steps of 2 collectives" % STEPS in text, "no Steps section:\n" + text[-3000:])
    check(not [f for f in rep["findings"] if f["kind"] == "slower"], "a SLOWER finding in a steady job: %s"
          % [f["text"] for f in rep["findings"]])


def buckets(run):
    """DDP's buckets: 6 all-reduces a step of halving sizes, 100 us of
    compute between them: 100 steps of 6, whose first is the 1M one."""
    rep, _, _ = step_app(run, [4, 100, "buckets", 6])
    c = only_comm(rep)
    check(c["nsteps"] == 100 and c["period"] == 6, "found %d steps of %d, want 100 of 6" % (c["nsteps"], c["period"]))
    check(c["positions"][0]["bytes"] == 1 << 20, "a step starts at %s, want the 1M bucket" % c["positions"][0])


def within_step(run):
    """A step's figures are the time its collectives cover, never more
    than the step: DDP's buckets queued on the stream (6 all-reduces of
    0.5 ms at 2 GB/s, 100 us of compute between), stamped in the default
    timing with polls every 2 ms, so that each stamped interval spans
    others (on 2 H200s the sums read 25 ms in collectives of a 7 ms step).
    In every step but the last (which has no next start): time in
    collectives, waiting and transfer each at most the step, the waiting
    at most the time in collectives; and the medians likewise."""
    rep, text, _ = step_app(run, [4, 60, "buckets", 6], NCCLSIM_BUSBW_GBS=2, NCCLTAP_POLL_US=2000)
    c = only_comm(rep)
    check(not c["by_marks"] and c["nsteps"] >= 58, "found %d steps" % c["nsteps"])
    over = [(k, s["step_us"], s["comm_us"], s["wait_us"], s["transfer_us"]) for k, s in enumerate(c["steps"][:-1])
            if not s["missing"] and (max(s["comm_us"], s["transfer_us"]) > s["step_us"] or s["wait_us"] > s["comm_us"])]
    check(not over, "%d steps whose figures exceed the step (step, step_us, comm_us, wait_us, transfer_us): %s"
          % (len(over), over[:3]))
    check(max(c["comm_us_median"], c["transfer_us_median"]) <= c["step_us_median"] and
          c["wait_us_median"] <= c["comm_us_median"], "medians: step %.0f us, in collectives %.0f, waiting %.0f, "
          "transfer %.0f" % (c["step_us_median"], c["comm_us_median"], c["wait_us_median"], c["transfer_us_median"]))


def slower(run):
    """Bandwidth lost part-way: from each communicator's collective 200
    (step 100) on, transfers take 4 times as long (NCCLSIM_SLOWER_*); ops
    long enough (2 GB/s) that the stamps resolve them. The report's steps
    say slower from step 100, most at the AllReduce; one SLOWER finding
    of the transfers says so (a rank descheduled on a busy machine may be
    a straggler, or a change in the waits, beside it); the page's steps
    chart marks it. Judged on a quiet machine: from stamps, a transfer is
    known to the reducer's polls, which stolen CPU time stretches (once
    1.7 ms for the model's 0.79, and no change found)."""
    def job():
        shutil.rmtree(run.dir, ignore_errors=True)
        return step_app(run, [4, STEPS], NCCLSIM_BUSBW_GBS=2, NCCLSIM_SLOWER_FROM_SEQ=200,
                        NCCLSIM_SLOWER_FACTOR=4)
    rep, text, _ = on_a_quiet_machine(job)
    c = only_comm(rep)
    s = c["slower"]
    check(s is not None, "no change point found: %s" % {k: c[k] for k in c if k != "steps"})
    check(abs(s["from_step"] - 100) <= 2, "slower from step %d, want 100" % s["from_step"])
    check(c["positions"][s["pos"]]["op"] == "AllReduce", "the op that slowed: %s" % c["positions"][s["pos"]])
    check(s["after_us"] >= 1.3 * s["before_us"], "transfer %.0f -> %.0f us a step" % (s["before_us"], s["after_us"]))
    check("SLOWER from step" in text, "the text does not say SLOWER:\n" + text[-3000:])
    # The transfers' change is the one the simulator made. A rank
    # descheduled on a busy machine (4 ranks under ASan on 2 CPUs) can make
    # the others' waits change too, a finding of its own (basis
    # "waiting"), as true of that run as a straggler beside it would be.
    slower = [f for f in rep["findings"] if f["kind"] == "slower" and f["evidence"]["basis"] != "waiting"]
    f = slower[0] if slower else {}
    check(len(slower) == 1 and f["op"] == "AllReduce" and f["bytes"] == 1 << 20 and
          f["evidence"]["basis"] == "transfer" and abs(f["evidence"]["from_step"] - 100) <= 2,
          "no one SLOWER finding from step 100 at AllReduce 1M: %s" % [g["text"] for g in rep["findings"]])
    html = os.path.join(run.work, "steps.html")
    p = subprocess.run([run.nccltap, "report", "--html", html, run.dir], capture_output=True, text=True, timeout=120,
                       env=run.env())
    check(p.returncode == 0, "--html exited %d: %s" % (p.returncode, p.stderr))
    with open(html) as page:
        page = page.read()
    check('<section id="steps">' in page and page.count('class="step"') == STEPS and "slower from step" in page,
          "the page has no steps chart with the change point")


def late(run):
    """Rank 2 computes 2 ms longer before each step's AllReduce: the late
    rank at position 0 (the AllReduce) in nearly every step, and its
    STRAGGLER finding says so (collective 1 of 2 a step)."""
    rep, _, _ = step_app(run, [4, STEPS, "late", 2, 2000])
    c = only_comm(rep)
    l = c["late"]
    check(l is not None and l["rank"] == 2 and l["pos"] == 0, "late: %s" % l)
    check(l["steps"] >= 0.9 * STEPS, "rank 2 late in %d of %d steps" % (l["steps"], STEPS))
    check(l["wait_us_median"] >= 1500, "the others waited %.0f us, want about 2000" % l["wait_us_median"])
    f = rep["findings"][0] if rep["findings"] else {}
    check(f.get("kind") == "straggler" and f["rank"] == 2 and f["evidence"]["step_pos"] == 0 and
          f["evidence"]["step_period"] == 2, "the straggler finding does not place rank 2 at collective 1 of 2: %s"
          % [g["text"] for g in rep["findings"]])
    check("collective 1 of 2 a step" in f["text"], "the finding does not say where in the step: " + f["text"])


def late_small(run):
    """Rank 2 computes 150 us longer in steps of 5 ms of every rank's own
    work: the late rank of the steps still (the Steps section says who),
    but the others lose 3 to 8% of their step to it (the simulator's
    sleeps overshoot): no STRAGGLER (healthy DDP ranks' hosts differ by
    that much on a shared machine), judged on a quiet machine (another
    process's burst makes a rank late for real); at 2 ms (28% of a 7.2 ms
    step) it is one."""
    def job():  # judged on a quiet machine only, as found() is
        shutil.rmtree(run.dir, ignore_errors=True)
        return step_app(run, [4, STEPS, "work", 5000, "late", 2, 150], NCCLTAP_TIMING="all")[0]
    rep = on_a_quiet_machine(job)
    c = only_comm(rep)
    check(c["late"] is not None and c["late"]["rank"] == 2, "late: %s" % c["late"])
    check(not [f for f in rep["findings"] if f["kind"] == "straggler"], "a STRAGGLER for under 10%% of the step: %s"
          % [f["text"] for f in rep["findings"]])
    shutil.rmtree(run.dir, ignore_errors=True)
    rep, _, _ = step_app(run, [4, 100, "work", 5000, "late", 2, 2000], NCCLTAP_TIMING="all")
    check([(f["kind"], f["rank"]) for f in rep["findings"]][:1] == [("straggler", 2)],
          "no STRAGGLER rank 2 for 28%% of the step: %s" % [f["text"] for f in rep["findings"]])


def slow_backward(run):
    """A backward pass slower on one rank (step_app buckets 8
    slow_backward 2 300: rank 2 computes 300 us more before each of its 8
    buckets), so that it falls further behind at each all-reduce, 2.4 ms
    by the last: at each collective the others wait only about the
    increment (their own streams queue behind the collective before), so
    no one collective stands out (12% of the 4.9 ms step at the worst),
    and only the waits summed over the step show what it lost. Rank 2 is
    the STRAGGLER (a measure of the one worst collective of each step was
    tried against 2 and 4 H200s and missed it: BENCHMARKS.md)."""
    rep, _, _ = step_app(run, [4, 150, "buckets", 8, "slow_backward", 2, 300])
    kinds = [(f["kind"], f["rank"]) for f in rep["findings"]]
    check(kinds[:1] == [("straggler", 2)], "findings %s, want STRAGGLER rank 2 first" % kinds)


# Python 3.12's sys.monitoring as the marker uses it (its documented
# API: tool ids, register_callback, set_events, PY_START, DISABLE), for
# the marker's 3.12 path on an older Python; ctypes' nccltap_step counted.
FAKE_MONITORING = """
import sys, types
calls = []
class Events: PY_START = 1
tools, callbacks = {}, {}
mon = types.SimpleNamespace(
    PROFILER_ID=2, DISABLE=object(), events=Events,
    get_tool=lambda t: tools.get(t), use_tool_id=lambda t, name: tools.__setitem__(t, name),
    register_callback=lambda t, e, f: callbacks.__setitem__((t, e), f),
    set_events=lambda t, e: calls.append(("events", t, e)))
sys.monitoring = mon
tools[3] = "somebody else's"
marks = []
class Lib:
    def __getattr__(self, name):
        if name != "nccltap_step":
            raise AttributeError(name)
        def mark(): marks.append(1)
        return mark
fake = types.ModuleType("ctypes"); fake.CDLL = lambda path: Lib()
sys.modules["ctypes"] = fake
import runpy
runpy.run_path(sys.argv[1])
def train_step(): pass
def other(): pass
start = callbacks[(4, Events.PY_START)]
assert tools[4] == "nccltap" and ("events", 4, Events.PY_START) in calls, (tools, calls)
assert start(other.__code__, 0) is mon.DISABLE
assert start(train_step.__code__, 0) is None and start(train_step.__code__, 0) is None
assert len(marks) == 2, marks
print("ok")
"""


def odd_step(run):
    """One step unlike the others in the middle of the run (step_app, 40
    steps of AllReduce 1M and AllGather 256K; the per-op log of every rank
    edited so that the AllGather of step 20 moved twice the bytes): the
    steps are still the 40 from seq 0, nothing outside them, and a step's
    collectives are the usual ones; leading steps are skipped only where
    they differ from the usual step, not from the middle one."""
    rep, _, _ = step_app(run, [4, 40], NCCLTAP_OPS_JSONL=1, NCCLTAP_TIMING="all")
    for path in glob.glob(os.path.join(run.dir, "*.ops")):
        os.remove(path)  # the report reads the per-op log then
    for path in glob.glob(os.path.join(run.dir, "*.ops.jsonl")):
        with open(path) as f:
            lines = [json.loads(l) for l in f]
        for l in lines:
            if l["seq"] == 41:
                l["bytes"] *= 2
                l["count"] *= 2
        with open(path, "w") as f:
            f.write("".join(json.dumps(l) + "\n" for l in lines))
    rep, _, _ = run.report()
    c = only_comm(rep)
    got = [(p["op"], p["bytes"]) for p in c["positions"]]
    check(c["nsteps"] == 40 and c["first_seq"] == 0 and c["before"] == 0,
          "found %d steps from seq %d, %d before; want 40 from seq 0, none before" % (c["nsteps"], c["first_seq"],
                                                                                   c["before"]))
    check(got == [("AllReduce", 1 << 20), ("AllGather", 1 << 18)], "a step's collectives: %s" % got)


def python_function(run):
    """nccltap's Python step marker: a loop in Python calling NCCL through
    ctypes (tests/apps/py_steps.py, 2 ranks forked: one AllReduce of
    set-up, 40 calls of train_step(), a last AllReduce) under `nccltap run
    --step-function train_step`: each rank file says 40 steps marked, and
    the report's steps are at the marks, 40 of 2 collectives, 1 outside
    before and 1 after; a sitecustomize the program had on PYTHONPATH still
    runs (nccltap's imports it); a name no function has marks none; a name
    that is no function's is refused (exit 2); without nccltap in the
    process, the marker says so and the program runs on."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "apps", "py_steps.py")
    theirs = os.path.join(run.work, "theirs")
    os.makedirs(theirs, exist_ok=True)
    ran = os.path.join(run.work, "theirs-ran")
    with open(os.path.join(theirs, "sitecustomize.py"), "w") as f:
        f.write("open(%r, 'w').write('ran')\n" % ran)

    def marked(spec):
        shutil.rmtree(run.dir, ignore_errors=True)
        p = subprocess.run([run.nccltap, "run", "--sim", "--step-function", spec, "--dir", run.dir, "--", "python3",
                            script, "2", "40"], env=run.env(NCCLTAP_OS="off", PYTHONPATH=theirs),
                           capture_output=True, text=True, timeout=180)
        check(p.returncode == 0, "py_steps.py under --step-function %s exited %d:\n%s"
              % (spec, p.returncode, p.stderr[-2000:]))
        counts = []
        for path in glob.glob(os.path.join(run.dir, "*.json")):
            if not path.endswith(".hang.json"):
                with open(path) as f:
                    counts.append((json.load(f).get("steps") or {}).get("marked", 0))
        return sorted(counts)

    got = marked("train_step")
    check(got == [40, 40], "steps marked per rank file: %s, want 40 each" % got)
    rep, _, _ = run.report()
    c = only_comm(rep)
    check(c["by_marks"] and c["nsteps"] == 40 and c["period"] == 2 and c["before"] == 1 and c["after"] == 1,
          "steps %d of %d (by marks: %s), %d before, %d after; want 40 of 2 at the marks, 1 and 1"
          % (c["nsteps"], c["period"], c["by_marks"], c["before"], c["after"]))
    check(os.path.exists(ran), "the program's own sitecustomize did not run")
    check(marked("py_steps.py:train_step") == [40, 40], "FILE:NAME marked other than 40 steps a rank")
    check(marked("py_steps.py:nothere") == [0, 0], "a function no one calls marked steps")
    p = subprocess.run([run.nccltap, "run", "--sim", "--step-function", "1train", "--", "python3", "-c", "pass"],
                       env=run.env(), capture_output=True, text=True, timeout=60)
    check(p.returncode == 2 and "--step-function" in p.stderr and "NAME" in p.stderr,
          "--step-function 1train: exit %d, %r; want 2 and what it takes" % (p.returncode, p.stderr[-500:]))
    python_dir = os.path.join(os.path.dirname(run.nccltap), "..", "lib", "nccltap", "python")
    p = subprocess.run(["python3", "-c", "print('ran')"], capture_output=True, text=True, timeout=60,
                       env=dict(run.env(), PYTHONPATH=python_dir, NCCLTAP_STEP_FUNCTION="train_step"))
    check(p.returncode == 0 and p.stdout == "ran\n" and "nccltap is not loaded" in p.stderr,
          "without the shim: exit %d, stdout %r, stderr %r" % (p.returncode, p.stdout, p.stderr))
    # Python 3.12's path, on whatever Python runs the tests: sys.monitoring
    # as documented, the tool id another tool holds left alone, each other
    # function's event disabled, the named one marking at each call.
    p = subprocess.run(["python3", "-c", FAKE_MONITORING, os.path.join(python_dir, "sitecustomize.py")],
                       capture_output=True, text=True, timeout=60,
                       env=dict(run.env(), NCCLTAP_STEP_FUNCTION="train_step"))
    check(p.returncode == 0 and p.stdout == "ok\n", "the sys.monitoring path: exit %d, %r %r"
          % (p.returncode, p.stdout, p.stderr[-1500:]))


def more_waiting(run):
    """Rank 2 computes 2 ms longer from step 50 of 100 (step_app late 2
    2000 from 50), in steps of 2 ms of every rank's own work: the steps'
    waiting rises from step 50, and the steps take longer with it, so it
    is SLOWER from step 50 naming rank 2 at the step's first collective
    (where the waiting rises but the steps do not lengthen, as in DDP,
    whose collectives overlap the backward pass, it is not: on 2 H200s a
    healthy run's waiting rose 2.4 -> 4.1 ms a step, its steps 7.96 ->
    8.49 ms); rank 2 is the STRAGGLER too. The step is judged on a quiet
    machine (another process's burst, or a VM's stolen time, makes a rank
    late for real for a step or two, and moves a change of 2 ms by as
    many steps)."""
    return rank_2_late_from_50(run, [])


def burst_before(run):
    """As more_waiting, with rank 0 descheduled just before the change:
    3 ms late at steps 46 and 48 (step_app stall 0 2 3000 from 46 to 50),
    as a VM once made it. The waiting's running median rises from step
    48; the change is told from step 50, where rank 2 became the late
    one, and SLOWER names rank 2."""
    return rank_2_late_from_50(run, ["stall", 0, 2, 3000, "from", 46, "to", 50])


def rank_2_late_from_50(run, more_args):
    def job():
        shutil.rmtree(run.dir, ignore_errors=True)
        return step_app(run, [4, 100, "work", 2000, "late", 2, 2000, "from", 50] + more_args, NCCLTAP_TIMING="all")
    rep, text, _ = on_a_quiet_machine(job)
    c = only_comm(rep)
    w = c["more_waiting"]
    check(w is not None and 49 <= w["from_step"] <= 51, "more waiting: %s, want from step 50" % w)
    check(c["late"]["rank"] == 2 and c["late"]["from_step"] == w["from_step"],
          "the late rank since the change: %s, want rank 2" % c["late"])
    kinds = [(f["kind"], f["rank"]) for f in rep["findings"]]
    check(("slower", 2) in kinds and ("straggler", 2) in kinds, "findings %s, want SLOWER and STRAGGLER rank 2" % kinds)
    check("SLOWER from step %d" % w["from_step"] in text, "the text does not say SLOWER from the step")


def no_steps(run):
    """nccl-tests' loop: one AllReduce size, back to back with no host
    gap between them: no steps, and the section says so; nor in a sweep of
    sizes."""
    run.bench_run(["--ranks", "4", "--op", "allreduce", "--bytes", "1M", "--iters", "200"], NCCLTAP_OS="off")
    rep, text, _ = run.report()
    check(rep["steps"] == [], "steps found in a loop of one collective: %s" % rep["steps"])
    check("Steps: " in text and "None found" in text, "the Steps section does not say none:\n" + text[-3000:])
    # nccl-tests' sweep: each size back to back, a pause between sizes: the
    # sizes are phases, not steps (the calls do not repeat from one to the next).
    shutil.rmtree(run.dir, ignore_errors=True)
    run.bench_run(["--ranks", "4", "--op", "allreduce", "--bytes", "8:64K", "--iters", "200", "--warmup", "0"],
                  NCCLTAP_OS="off")
    rep, _, _ = run.report()
    check(rep["steps"] == [], "steps found in a sweep of sizes: %s" % [(c["nsteps"], c["period"]) for c in rep["steps"]])


def marked(run):
    """Gradient accumulation: each step two micro-batches of the same
    calls, which the calls alone cannot tell from two steps; the program
    marks its steps with nccltap_step() (step_app mark, looked up with
    dlsym): 100 steps of 4 collectives, at the marks; each rank file says
    100 marked."""
    rep, text, _ = step_app(run, [4, 100, "accumulate", 2, "mark"])
    c = only_comm(rep)
    check(c["by_marks"] and c["nsteps"] == 100 and c["period"] == 4,
          "found %d steps of %d (by marks: %s), want 100 of 4 at the marks" % (c["nsteps"], c["period"], c["by_marks"]))
    check("nccltap_step() marks" in text, "the text does not say the steps are the program's")
    check(c.get("marked") == 100 and "the program marked 100 steps" in text,
          "the program's steps: %s, want 100 in --json and the text" % c.get("marked"))
    for path in glob.glob(os.path.join(run.dir, "*.json")):
        if path.endswith(".hang.json"):
            continue
        with open(path) as f:
            steps = json.load(f).get("steps")
        check(steps and steps["marked"] == 100 and len(steps["marks_ns"]) == 100, "%s: steps %s" % (path, steps))


def slower_small(run):
    """Transfers 1.5 times as long from step 100 (+0.45 ms a step), in
    steps of 5 ms of the host's own work, every op timed (the rise stands
    out: t in the thousands): a change under a tenth of the step is not
    SLOWER (on a shared host the waiting drifts as much)."""
    rep, _, _ = step_app(run, [4, 200, "work", 5000], NCCLSIM_BUSBW_GBS=2, NCCLSIM_SLOWER_FROM_SEQ=200,
                         NCCLSIM_SLOWER_FACTOR=1.5, NCCLTAP_TIMING="all")
    c = only_comm(rep)
    check(c["slower"] is None, "a change of %.0f us in a %.0f us step told: %s" % (
        (c["slower"] or {}).get("after_us", 0) - (c["slower"] or {}).get("before_us", 0), c["step_us_median"],
        c["slower"]))
    check(not [f for f in rep["findings"] if f["kind"] == "slower"], "a SLOWER finding: %s" % rep["findings"])


def marked_setup(run):
    """Marked steps whose first has 3 broadcasts of its own (DDP's first
    iteration does): the steps start where the regular ones do, at an
    AllReduce, not 3 collectives early in every step after the first."""
    rep, text, _ = step_app(run, [4, 100, "accumulate", 2, "mark", "setup", 3])
    c = only_comm(rep)
    ops = [p["op"] for p in c["positions"]]
    check(c["by_marks"] and c["period"] == 4 and c["first_seq"] == 3 and c["nsteps"] >= 99,
          "found %d steps of %d from seq %d (by marks: %s), want 99 or more of 4 from seq 3" %
          (c["nsteps"], c["period"], c["first_seq"], c["by_marks"]))
    check(ops == ["AllReduce", "AllGather", "AllReduce", "AllGather"], "a step's collectives: %s" % ops)
    # Every collective is in a step or said to be outside them: the 3
    # set-up broadcasts before, a step cut short after.
    check(c["before"] == 3 and c["before"] + c["nsteps"] * 4 + c["after"] == 403,
          "outside the steps: %d before, %d after, with %d steps of 4; want 3 before, 403 collectives in all"
          % (c["before"], c["after"], c["nsteps"]))
    check("outside the steps: 3 collectives before the first" in text, "the text does not say what is outside the steps")
    # The program's own count, the first step with the set-up in it and
    # the last one too: what a user counting the loop's iterations sees.
    check(c.get("marked") == 100, "the program's marked steps: %s, want 100" % c.get("marked"))


def tagged(run):
    """NCCL 2.31's per-call configurations with a profiler tag (step_app
    tags: the step's AllReduce tagged 1 and AllGather 2, through
    ncclAllReduceConfig and ncclAllGatherConfig; 2 set-up broadcasts
    through ncclBroadcastConfig with a configuration of an older NCCL,
    whose size ends before the tag, and 99 past it): the steps start past
    the broadcasts, which are outside them, and name each collective's tag,
    in --json and the text; every op of the per-op files and the JSON
    lines carries its call's tag (none for the broadcasts: 99 was not the
    program's), and so does the Perfetto trace; read from the LTTng trace
    instead (op_enqueue's user_tag), the steps name the same tags (where
    lttng-sessiond is installed: CI has it)."""
    rep, text, _ = step_app(run, [4, 60, "tags", "setup", 2], NCCLTAP_OPS_JSONL=1)
    c = only_comm(rep)
    check(c["period"] == 2 and c["first_seq"] == 2 and c["before"] == 2 and c["nsteps"] == 60,
          "found %d steps of %d from seq %d, %d before; want 60 of 2 from seq 2, 2 before"
          % (c["nsteps"], c["period"], c["first_seq"], c["before"]))
    got = [(p["op"], p["tag"]) for p in c["positions"]]
    check(got == [("AllReduce", 1), ("AllGather", 2)], "the step's collectives and tags: %s" % got)
    check(any(l.split()[-1:] == ["1"] and "AllReduce" in l for l in text.split("\n")) and "  tag" in text,
          "the text's step does not show the tags")
    want = {"AllReduce": 1, "AllGather": 2, "Broadcast": 0}
    lines = []
    for path in glob.glob(os.path.join(run.dir, "*.ops.jsonl")):
        with open(path) as f:
            lines += [json.loads(l) for l in f]
    bad = [(l["op"], l["seq"], l["tag"]) for l in lines if int(l["tag"], 16) != want[l["op"]]]
    check(len(lines) == 4 * 122 and not bad, "%d JSON lines, wrong tags %s" % (len(lines), bad[:5]))
    trace = os.path.join(run.dir, "trace.json")
    p = subprocess.run([run.nccltap, "report", "--perfetto", trace, run.dir], capture_output=True, text=True,
                       timeout=120, env=run.env())
    check(p.returncode == 0, "report --perfetto exited %d: %s" % (p.returncode, p.stderr[-2000:]))
    with open(trace) as f:
        doc = json.load(f)
    ops = [e for e in (doc["traceEvents"] if isinstance(doc, dict) else doc)
           if e.get("cat") == "op" and e.get("ph") == "X"]
    bad = [(e["name"], e["args"]["seq"], e["args"].get("tag")) for e in ops
           if e["args"].get("tag", 0) != want.get(e["name"], -1)]
    check(len(ops) == 4 * 122 and not bad, "%d ops in the trace, wrong tags %s" % (len(ops), bad[:5]))
    if not shutil.which("lttng-sessiond"):
        check(os.environ.get("CI") != "true", "CI: lttng-sessiond is not installed")
        print("lttng-sessiond is not installed: the trace's tags not checked")
        return
    shutil.rmtree(run.dir, ignore_errors=True)
    app = os.path.join(os.path.dirname(run.bench), "step_app")
    p = subprocess.run([run.nccltap, "run", "--sim", "--lttng", "--dir", run.dir, "--", app, "4", "60", "tags", "setup",
                        "2"], env=run.env(NCCLTAP_OS="off"), capture_output=True, text=True, timeout=180)
    check(p.returncode == 0, "the traced step_app exited %d:\n%s" % (p.returncode, p.stderr[-2000:]))
    rep, _, _ = run.report(path=os.path.join(run.dir, "lttng"))
    got = [(p["op"], p["tag"]) for p in only_comm(rep)["positions"]]
    check(got == [("AllReduce", 1), ("AllGather", 2)], "the traced step's collectives and tags: %s" % got)


def compare(run):
    """`nccltap report --compare A B`: B's transfers 4 times as long as
    A's (NCCLSIM_SLOWER_FACTOR from the first collective): the op that
    changed most is first, AllReduce 1M, slower in B; a run compared with
    itself changes nothing; one run alone is a usage error (2). A's
    AllReduce takes 6 ms, so that a rank late by the host's noise (a
    millisecond or two under a sanitizer on a loaded machine) does not
    hide a 4-fold transfer in the calls' mean time."""
    env = dict(NCCLSIM_BUSBW_GBS=0.25)
    step_app(run, [4, 50], **env)
    a = run.dir + ".a"
    shutil.move(run.dir, a)
    step_app(run, [4, 50], NCCLSIM_SLOWER_FROM_SEQ=0, NCCLSIM_SLOWER_FACTOR=4, **env)

    def compared(*paths, rc=0):
        p = subprocess.run([run.nccltap, "report", "--compare", "--json", *paths], capture_output=True, text=True,
                           timeout=120, env=run.env())
        check(p.returncode == rc, "--compare exited %d, want %d: %s" % (p.returncode, rc, p.stderr))
        return json.loads(p.stdout) if rc == 0 else p.stderr

    doc = compared(a, run.dir)
    first = doc["ops"][0]
    check((first["op"], first["bytes"]) == ("AllReduce", 1 << 20), "the op that changed most: %s" % first)
    check(first["b"]["us_mean"] >= 2 * first["a"]["us_mean"] and first["delta_us"] > 0,
          "AllReduce 1M %.1f -> %.1f us a call" % (first["a"]["us_mean"], first["b"]["us_mean"]))
    same = compared(a, a)
    check(all(o["delta_us"] == 0 for o in same["ops"]), "a run compared with itself changed: %s" % same["ops"])
    check("two runs" in compared(a, rc=2), "one run alone is not refused")
    shutil.rmtree(a, ignore_errors=True)


def prom_steps(prom_dir):
    """Each rank's online steps from its Prometheus file: {rank: {metric:
    value}} of the nccltap_comm_step* series (one communicator)."""
    out = {}
    for path in glob.glob(os.path.join(prom_dir, "*.prom")):
        for line in open(path):
            if line.startswith("nccltap_comm_step"):
                name, labels, value = line.partition("{")[0], line.partition("{")[2], line.rsplit(" ", 1)[1]
                rank = int(labels.split('rank="')[1].split('"')[0])
                out.setdefault(rank, {})[name] = float(value)
    return out


def online(run):
    """Steps found while the job runs (stats/steps_online.h), in each
    rank's Prometheus file: DDP's buckets (step_app buckets 6: 6
    all-reduces a step, 100 us of compute between them, 200 us of the
    rank's own work before each step), 200 steps: every rank counts the 199
    whole ones (the 200th has no next step to end it), 6 calls a step, the
    last one's host time and NCCL time (the union of its calls' intervals:
    at most the step, give or take the host's and the GPU's clocks'
    offset within a step). A loop of one AllReduce, and a sweep of sizes,
    have none. Found as the report finds them (the same algorithm):
    judged on a quiet machine, as steps.found is."""
    prom = os.path.join(run.work, "prom")

    def job():
        shutil.rmtree(run.dir, ignore_errors=True)
        shutil.rmtree(prom, ignore_errors=True)
        return step_app(run, [4, STEPS, "buckets", 6], NCCLTAP_PROM_DIR=prom, NCCLTAP_PROM_KEEP=1)
    rep, _, _ = on_a_quiet_machine(job)
    c = only_comm(rep)
    check(c["nsteps"] == STEPS and c["period"] == 6, "the report found %d steps of %d" % (c["nsteps"], c["period"]))
    got = prom_steps(prom)
    check(sorted(got) == [0, 1, 2, 3], "online steps on ranks %s, want 0-3" % sorted(got))
    for rank, m in sorted(got.items()):
        check(m.get("nccltap_comm_steps_total") == STEPS - 1 and m.get("nccltap_comm_step_calls") == 6,
              "rank %d: %s, want %d steps of 6 calls" % (rank, m, STEPS - 1))
        last, nccl = m.get("nccltap_comm_step_last_seconds", 0), m.get("nccltap_comm_step_last_nccl_seconds", 0)
        # At least its own work and the 5 pauses between buckets (700 us),
        # less than a loaded machine's second.
        check(700e-6 <= last < 1 and 0 < nccl <= 1.5 * last, "rank %d's last step %.6f s, NCCL %.6f s"
              % (rank, last, nccl))
    for args in (["--bytes", "1M", "--iters", "200"], ["--bytes", "8:64K", "--iters", "200", "--warmup", "0"]):
        shutil.rmtree(run.dir, ignore_errors=True)
        shutil.rmtree(prom, ignore_errors=True)
        run.bench_run(["--ranks", "4", "--op", "allreduce"] + args, NCCLTAP_OS="off", NCCLTAP_PROM_DIR=prom,
                      NCCLTAP_PROM_KEEP=1)
        check(glob.glob(os.path.join(prom, "*.prom")) and prom_steps(prom) == {},
              "online steps in nccltap-bench %s: %s" % (" ".join(args), prom_steps(prom)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("case")
    a = ap.parse_args()
    run = Run(a.bin)
    cases = {"found": found, "buckets": buckets, "slower": slower, "late": late, "no_steps": no_steps,
             "compare": compare, "within_step": within_step, "marked": marked, "marked_setup": marked_setup, "tagged": tagged,
             "more_waiting": more_waiting, "burst_before": burst_before, "slow_backward": slow_backward, "python_function": python_function,
             "odd_step": odd_step,
             "slower_small": slower_small, "late_small": late_small, "online": online}
    try:
        cases[a.case](run)
    finally:
        run.clean()
    print("PASS")


if __name__ == "__main__":
    main()
