#!/usr/bin/env python3
"""OS interference from the shim's own records (NCCLTAP_OS=switch,
perf_event_open), end to end on the simulator with real kernel records, no
fixture: 4 ranks of nccltap-bench (launcher mode, one process each) under
`nccltap run`, ranks 0, 1, 3 on CPU 0, rank 2 on CPU 1 and spinning in its
waits (NCCLSIM_SPIN=1, as CUDA's spin-wait synchronization does), then
`nccltap report` from the rank files alone.

usage: os_test.py --bin BUILD/bin CASE
  competitor  a spinning process shares CPU 1 with rank 2: the OS section,
              --json (source "shim") and the Perfetto trace (off-CPU slices)
              show its preemption; inside its calls, it explains no wait, so
              it is no finding
  healthy     no competitor: no OS finding
  nobody      competitor, run as the unprivileged user nobody (setpriv):
              the same verdict (root needed to switch user: 77 without)
  lttng       competitor under `nccltap run --lttng`, the report read from
              the trace alone (the records as nccltap:os_offcpu events)
  nccl_thread a thread named "NCCL Proxy 0" (tests/apps/nccl_thread.c) is
              followed as one of NCCL's, by name
  refused     perf_event_open refused by a seccomp filter (no_perf_event):
              one line per process says so, the report is otherwise whole;
              NCCLTAP_OS=off: nothing tried, nothing said
  refused_kill the filter kills the process that calls perf_event_open
              (no_perf_event --kill, as systemd's SystemCallFilter=): the
              job runs whole, one line per process says why nothing is
              recorded
  straggler   2 ranks, each computing 300 us of CPU time before every op
              (--work-us), rank 1's CPU shared with the spinners, all of
              them at nice -19 (root), above the machine's other work: rank 1 is
              the straggler, and the finding says it was descheduled before
              its calls for most of the others' wait; without the spinners
              no straggler is explained by the OS
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

from machine_load import OthersShare
from testlib import fail, check, SKIP  # noqa: E402

RANKS = 4
ITERS = 5000        # about 0.6 s a run here
LATE_RANK = 2
# Ranks 0, 1 and 3 share CPU 0 by the test's design (4 ranks, 2 CPUs) and
# preempt each other; rank 2 shares CPU 1 with the spinners when started.
# All of that is inside their calls while the (simulated) GPUs work on:
# the others do not wait for it, and an OS finding is made only for the
# waiting a rank's descheduling before its calls explains (findings.h).
ATTEMPTS = 5        # a healthy run spoilt by a neighbour's burst is retried
# A run is disturbed when other processes than the job's took more than
# this share of the machine's CPU time meanwhile (/proc/stat less the job's
# own rusage): the machine's noise, which the shim rightly reports.
DISTURBED = 0.10


# 2 ranks, each on its own CPU, computing before every op as a training
# step's host work does (the spinners, when started, share rank 1's CPU).
WORK_SH = r'''
P=
for r in 0 1; do
  RANK=$r WORLD_SIZE=2 taskset -c $r "$BENCH" --id-file "$WORK/id" --op allreduce --bytes 8 \
    --iters 1000 --warmup 0 --work-us 300 >/dev/null & P="$P $!"
done
rc=0
for p in $P; do wait $p || rc=1; done
exit $rc
'''
# Instances on each side of the worst that the HTML strip shows
# (tools/cli/report/analyze/strip.h).
STRIP_SPAN = 2
# The share of the others' wait a straggler's descheduling must explain:
# 300 us of work at a third of a CPU is 900 us, 600 of them preempted
# (0.64 to 0.68 seen). The machine's other work (another build beside the
# test) preempts rank 0 too, and delays rank 1's return to its CPU after a
# sleep (runnable, not switched out: no preemption to explain it): it put
# rank 0 last as often as rank 1, and left 0.398 of the wait explained
# once. So the job and its spinners run at nice -19 (weight 71755 to a
# nice-0 task's 1024, and to 6100 at nice -8, as a headless browser beside
# it ran): for the few seconds of the job the scenario is the test's own,
# whatever else runs.
STRAGGLER_NICE = -19
LATE_OS_SHARE = 0.4


# Runs the ranks, each pinned.
RANKS_SH = r'''
P=
for r in 0 1 2 3; do
  if [ $r = 2 ]; then cpu=1; spin=1; else cpu=0; spin=0; fi
  NCCLSIM_SPIN=$spin RANK=$r WORLD_SIZE=4 taskset -c $cpu "$BENCH" --id-file "$WORK/id" \
    --op allreduce --bytes 1M --iters "$ITERS" --warmup 0 >/dev/null & P="$P $!"
done
rc=0
for p in $P; do wait $p || rc=1; done
exit $rc
'''


class Run:
    def __init__(self, bindir):
        self.bin = bindir
        self.nccltap = os.path.join(bindir, "nccltap")
        self.work = tempfile.mkdtemp(prefix="nccltap-os-")
        os.chmod(self.work, 0o1777)  # the nobody case writes in it; sticky, as /tmp (the bench refuses one without)
        self.dir = os.path.join(self.work, "out")
        self.path = self.dir  # what the report reads: the rank files, or the trace

    def env(self, **kv):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCLTAP_", "NCCLSIM_"))}
        env.update({"BENCH": os.path.join(self.bin, "nccltap-bench"), "WORK": self.work,
                    "ITERS": str(ITERS), "NCCLTAP_TIMING": "all"})
        env.update({k: str(v) for k, v in kv.items()})
        return env

    def job(self, competitor, prefix=(), lttng=False, script=None, ranks=RANKS, nice=None, **env):
        shutil.rmtree(self.dir, ignore_errors=True)
        for f in glob.glob(os.path.join(self.work, "id*")):
            os.unlink(f)
        cmd = (list(prefix) + [self.nccltap, "run", "--sim"] + (["--lttng"] if lttng else []) +
               ["--dir", self.dir, "--", "sh", "-c", script or RANKS_SH])
        # nice: the job and its competitor above the machine's other work
        # (root only: a user may not raise a priority; then as they are).
        niced = ["nice", "-n", str(nice)] if nice is not None and os.geteuid() == 0 else []
        cmd = niced + cmd
        spinners = start_spinners(niced) if competitor else []
        try:
            with OthersShare() as load:
                p = subprocess.run(cmd, env=self.env(**env), capture_output=True, text=True, timeout=120)
        finally:
            for s in spinners:
                s.kill()
                s.wait()
        self.others = load.share
        check(p.returncode == 0, "the job exited %d:\n%s" % (p.returncode, p.stderr[-3000:]))
        files = glob.glob(os.path.join(self.dir, "*.json"))
        check(len(files) == ranks, "%d rank files, want %d" % (len(files), ranks))
        return p.stderr

    def report(self, *args):
        p = subprocess.run([self.nccltap, "report", *args, self.path], capture_output=True, text=True,
                           timeout=120, env=self.env())
        check(p.returncode == 0, "report %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr[-2000:]))
        return p.stdout

    def clean(self):
        shutil.rmtree(self.work, ignore_errors=True)


def start_spinners(prefix=()):
    """The competitor: two spinning processes on CPU 1 (rank 2's, or in the
    straggler case rank 1's), so that the rank there gets a third of it.
    They are started outside the job (no shim, and under --lttng no wait
    for the session daemon in their constructors), and are running before
    the first rank starts; `prefix` as the job's (nice)."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    spin = list(prefix) + ["taskset", "-c", "1", "sh", "-c", "while :; do :; done"]
    spinners = [subprocess.Popen(spin, env=env) for _ in range(2)]
    for s in spinners:
        while cpu_ticks(s.pid) == 0:
            check(s.poll() is None, "a spinner exited %s" % s.returncode)
            os.sched_yield()
    return spinners


def cpu_ticks(pid):
    """A process's user time in clock ticks (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[11])


def section(text, title):
    lines = text.split("\n")
    at = next((i for i, l in enumerate(lines) if l.startswith(title)), None)
    check(at is not None, "no %r section:\n%s" % (title, text[:3000]))
    out = [lines[at]]
    for l in lines[at + 1:]:
        if not l.startswith("  "):
            break
        out.append(l)
    return out


def os_findings(doc):
    return [f for f in doc["findings"] if f["kind"] == "os"]


def rank_of(f):
    return f["rank"]


def assert_named(run):
    """Rank 2 is the most preempted process in the OS section (text and
    JSON) and Perfetto; it is no finding, as it explains no wait."""
    doc = json.loads(run.report("--json"))
    src = doc["os_sources"]
    check(src["shim_processes"] == RANKS and src["kernel_hosts"] == 0,
          "os_sources %s: want the shim's records of %d processes" % (src, RANKS))
    check(src["lost"] == 0, "context-switch records lost: %s" % src)
    # Rank 2 is preempted while it waits for its GPU, inside its calls: the
    # others do not wait for it (the Ranks table's waits stay small), so the
    # OS explains none of their time and there is no OS finding, only the
    # OS section's evidence.
    found = os_findings(doc)
    print("OS findings: %s" % [(rank_of(f), round(f["evidence"]["nccl_time_share"], 2)) for f in found])
    check(not found, "preemption inside the calls, which costs the others nothing, made OS findings: %s"
          % [f["text"] for f in found])
    procs = sorted(doc["os_processes"], key=lambda p: -p["preempted_us"])
    check(procs and procs[0]["rank"] == LATE_RANK and procs[0]["preempted_us"] > 1000,
          "os_processes do not start with rank %d's, preempted: %s" % (LATE_RANK, procs))
    mine = [w for w in doc["os_interference"] if w["rank"] == LATE_RANK]
    check(mine and all(w["source"] == "shim" for w in mine) and max(w["preempted_us"] for w in mine) > 1000,
          "rank %d's OS rows, preempted, from the shim: %s" % (LATE_RANK, mine[:2]))

    text = run.report()
    block = section(text, "Findings")
    print("\n".join(block))
    check(not any(l.strip().startswith("OS rank") for l in block), "the text has an OS finding: %s" % block)
    os_text = section(text, "OS interference")
    print("\n".join(os_text[:4]))
    check("context switches 4 processes recorded (NCCLTAP_OS)" in os_text[0], "the OS section's source: %s" % os_text[0])
    first = re.match(r"  rank (\d+) \(pid \d+\): over its ops [\d.]+ us off CPU, ([\d.]+) us of it preempted",
                     os_text[1])
    check(first and int(first.group(1)) == LATE_RANK and float(first.group(2)) > 1000,
          "the OS section's first process is not rank %d, preempted > 1 ms: %s" % (LATE_RANK, os_text[1]))

    trace = os.path.join(run.work, "trace.json")
    run.report("--perfetto", trace)
    events = json.load(open(trace))
    events = events["traceEvents"] if isinstance(events, dict) else events
    pre = [e for e in events if e.get("name") == "off-CPU (preempted)"]
    check(len(pre) > 10, "the Perfetto trace has %d preempted off-CPU slices" % len(pre))


def assert_quiet(run):
    """No OS finding; the section still reads the records."""
    doc = json.loads(run.report("--json"))
    check(doc["os_sources"]["shim_processes"] == RANKS, "os_sources: %s" % doc["os_sources"])
    found = os_findings(doc)
    print("OS findings: %s" % [(rank_of(f), round(f["evidence"]["nccl_time_share"], 2)) for f in found])
    return not found


def competitor(run):
    run.job(True)
    assert_named(run)


def healthy(run):
    quiet_runs = 0
    for attempt in range(ATTEMPTS):
        run.job(False)
        print("attempt %d: other processes took %.0f%% of the CPUs" % (attempt + 1, 100 * run.others))
        if run.others > DISTURBED:
            continue
        quiet_runs += 1
        if assert_quiet(run):
            text = run.report()
            check(not any(l.strip().startswith("OS rank") for l in section(text, "Findings")),
                  "the text has an OS finding")
            return
        print("attempt %d: a rank lost more than noise; again" % (attempt + 1))
    if not quiet_runs:
        print("SKIP: the machine was busy with other work in all %d runs" % ATTEMPTS)
        sys.exit(SKIP)
    fail("a rank was named in %d runs without a competitor on a quiet machine" % quiet_runs)


def nobody(run):
    if os.geteuid() != 0:
        print("SKIP: switching to nobody needs root")
        sys.exit(SKIP)
    setpriv = shutil.which("setpriv")
    check(setpriv, "setpriv (util-linux) is not installed")
    run.job(True, prefix=[setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"])
    owners = {os.stat(f).st_uid for f in glob.glob(os.path.join(run.dir, "*.json"))}
    check(owners == {65534}, "the rank files belong to %s, not to nobody" % owners)
    assert_named(run)


def lttng(run):
    if not shutil.which("lttng-sessiond"):
        check(os.environ.get("CI") != "true", "lttng-sessiond is not installed")
        print("SKIP: lttng-sessiond is not installed")
        sys.exit(SKIP)
    run.job(True, lttng=True)
    run.path = os.path.join(run.dir, "lttng")
    assert_named(run)


def nccl_thread(run):
    """NCCL's own threads are found by name: a thread named "NCCL Proxy 0",
    started after the communicator, is followed and its switches kept."""
    p = subprocess.run([run.nccltap, "run", "--sim", "--dir", run.dir, "--", os.path.join(run.bin, "nccl_thread")],
                       env=run.env(), capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "nccl_thread exited %d: %s" % (p.returncode, p.stderr[-2000:]))
    files = glob.glob(os.path.join(run.dir, "*.json"))
    check(len(files) == 1, "one rank file: %s" % files)
    o = json.load(open(files[0]))["os"]
    named = [t for t in o["threads"] if t["comm"] == "NCCL Proxy 0"]
    check(len(named) == 1 and named[0]["nccl"], "the thread named NCCL Proxy 0 is followed as NCCL's: %s"
          % o["threads"])
    mine = [x for x in o["off"] if x[0] == named[0]["tid"]]
    check(len(mine) > 50, "%d of its switches kept, want > 50 (it sleeps every 1.2 ms)" % len(mine))
    text = run.report()
    check("1 calling and 1 NCCL threads followed" in text, "the section counts it: %s"
          % [l for l in text.split("\n") if l.startswith("OS interference")])


def refused(run):
    helper = os.path.join(run.bin, "no_perf_event")
    err = run.job(False, prefix=[helper])
    said = [l for l in err.split("\n") if "perf_event_open refused" in l]
    print("\n".join(said[:1]))
    check(len(said) == RANKS, "%d lines say perf_event_open was refused, want one per process (%d):\n%s"
          % (len(said), RANKS, err[-3000:]))
    check("NCCLTAP_OS" in said[0] and "Permission denied" in said[0], "the line: %s" % said[0])
    doc = json.loads(run.report("--json"))
    check(doc["totals"]["calls"] == RANKS * ITERS, "totals: %s" % doc["totals"])
    check(doc["os_sources"]["refused"] == RANKS and "os_interference" not in doc,
          "os_sources %s" % doc["os_sources"])
    text = run.report()
    section(text, "Findings")
    line = [l for l in text.split("\n") if l.startswith("OS interference")]
    check(line == ["OS interference: not recorded: in 4 processes perf_event_open refused (Permission denied; "
                   "kernel.perf_event_paranoid is %s)" % open("/proc/sys/kernel/perf_event_paranoid").read().strip()],
          "the OS section: %s" % line)

    err = run.job(False, NCCLTAP_OS="off")
    check("perf_event_open" not in err, "NCCLTAP_OS=off still tried: %s" % err[-2000:])
    text = run.report()
    check("OS interference: not recorded (NCCLTAP_OS=off)" in text, "NCCLTAP_OS=off is not said")


def refused_kill(run):
    helper = os.path.join(run.bin, "no_perf_event")
    err = run.job(False, prefix=[helper, "--kill"])
    said = [l for l in err.split("\n") if "is fatal under the process's seccomp filter" in l]
    print("\n".join(said[:1]))
    check(len(said) == RANKS, "%d lines say perf_event_open is fatal, want one per process (%d):\n%s"
          % (len(said), RANKS, err[-3000:]))
    check("killed by signal %d" % signal.SIGSYS in said[0], "the line: %s" % said[0])
    doc = json.loads(run.report("--json"))
    check(doc["totals"]["calls"] == RANKS * ITERS, "totals: %s" % doc["totals"])
    check(doc["os_sources"]["refused"] == RANKS and "os_interference" not in doc,
          "os_sources %s" % doc["os_sources"])


def stragglers(doc):
    return [f for f in doc["findings"] if f["kind"] == "straggler"]


def straggler(run):
    run.job(True, script=WORK_SH, ranks=2, nice=STRAGGLER_NICE)
    doc = json.loads(run.report("--json"))
    late = stragglers(doc)
    print("stragglers: %s" % [(f["rank"], f["evidence"]["descheduled_late_share"]) for f in late])
    check(len(late) == 1 and late[0]["rank"] == 1, "rank 1 is not the one straggler: %s" % late)
    share = late[0]["evidence"]["descheduled_late_share"]
    check(share is not None and share >= LATE_OS_SHARE,
          "rank 1's descheduling explains %s of the wait, want >= %.2f" % (share, LATE_OS_SHARE))
    text = section(run.report(), "Findings")
    at = next((i for i, l in enumerate(text) if l.strip().startswith("STRAGGLER rank 1 ")), None)
    lines = [text[at]] + [l for l in text[at + 1:] if l.startswith("    ")] if at is not None else []
    check(any("it was descheduled before its calls for" in l for l in lines),
          "the text's straggler finding does not say it was descheduled: %s" % text)
    print("\n".join(lines))
    page = os.path.join(run.work, "report.html")
    run.report("--html", page)
    html = open(page).read()
    strip = html[html.index('<section id="strip">'):]
    strip = strip[:strip.index("</section>")]
    # The strip is around the straggler's worst instance. On a loaded
    # machine that may be one of the first, before rank 1's records begin
    # (the reducer follows a thread from its first pass after the thread's
    # first call), or one where the load, not the spinners, held rank 1
    # up: the strip shows the preempted time the records hold there, and
    # must, wherever they hold some.
    around = int(re.search(r"instances around seq (\d+)", strip).group(1))
    held = [r["seq"] for r in doc["os_interference"] if r["rank"] == 1 and r["preempted_us"] > 0 and
            around - STRIP_SPAN < r["seq"] <= around + STRIP_SPAN]
    if held:
        check('<g class="offcpu" data-rank="1"' in strip,
              "the HTML strip around seq %d shows no preempted time under rank 1, whose records hold some at "
              "seqs %s" % (around, held))
    else:
        print("the strip is around seq %d, where rank 1's records hold no preempted time: nothing to show"
              % around)

    for attempt in range(ATTEMPTS):
        run.job(False, script=WORK_SH, ranks=2, nice=STRAGGLER_NICE)
        if run.others > DISTURBED:
            print("attempt %d: other processes took %.0f%% of the CPUs" % (attempt + 1, 100 * run.others))
            continue
        explained = [f for f in stragglers(json.loads(run.report("--json")))
                     if f["evidence"]["descheduled_late_share"] is not None]
        check(not explained, "without the spinners a straggler is explained by the OS: %s" % explained)
        return
    print("the control run was disturbed by other work in all %d runs: not judged" % ATTEMPTS)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("case", choices=["competitor", "healthy", "nobody", "refused", "refused_kill", "lttng",
                                     "nccl_thread", "straggler"])
    a = ap.parse_args()
    if not shutil.which("taskset") or os.cpu_count() < 2:
        check(os.environ.get("CI") != "true", "taskset and 2 CPUs are needed")
        print("SKIP: needs taskset and 2 CPUs")
        sys.exit(SKIP)
    run = Run(a.bin)
    try:
        globals()[a.case](run)
    finally:
        run.clean()
    print("PASS")


if __name__ == "__main__":
    main()
