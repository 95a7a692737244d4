#!/usr/bin/env python3
"""Tests of `nccltap run --lttng` and of `nccltap report TRACE`, with a real
session daemon that `nccltap run --lttng` starts for itself, and the bench
on the simulator.

usage: lttng_test.py CASE NCCLTAP WORKDIR
  NCCLTAP   the nccltap under test (the shim, its provider, the bench and the
            simulator are found next to it)
  WORKDIR   a scratch directory for this case (emptied first)

Exits 77 (skipped) when lttng-sessiond is not installed.
"""
import collections
import glob
import json
import math
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import Checks, every_op_timing, on_a_quiet_machine  # noqa: E402

check = Checks(sys.stderr)
SKIP = 77

# The bench of the task: 4 ranks, every op, each call timed.
BENCH = ["--ranks", "4", "--op", "all", "--bytes", "1K:64K", "--iters", "20", "--warmup", "0"]

# nccl-tests' bus bandwidth factors for n = 4 ranks (tests/sim/README.md).
FACTOR = {"AllReduce": 2 * 3 / 4, "AllGather": 3 / 4, "ReduceScatter": 3 / 4, "AlltoAll": 3 / 4,
          "Gather": 3 / 4, "Scatter": 3 / 4, "Broadcast": 1, "Reduce": 1, "Send": 1, "Recv": 1}


class Env:
    def __init__(self, nccltap, work, app=None):
        self.nccltap = nccltap
        self.work = work
        self.app = app  # tests/apps/api_exercise, where given
        bindir = os.path.dirname(os.path.abspath(nccltap))
        self.bench = os.path.join(bindir, "nccltap-bench")

    def run(self, args, env=None, timeout=60):
        e = dict(os.environ)
        e.update(env or {})
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=e)
        return p.returncode, p.stdout, p.stderr

    def traced(self, name, *run_opts, bench=BENCH, env=None, extra=(), app=None):
        """`nccltap run --lttng --sim` of the bench (or of `app`, a command
        line); returns (dir, stderr)."""
        d = os.path.join(self.work, name)
        env = dict(env or {})
        env.setdefault("NCCLTAP_TIMING", every_op_timing(env))
        rc, out, err = self.run([self.nccltap, "run", "--lttng", "--sim", *run_opts, "--dir", d,
                                 "--", *(app or [self.bench, *bench, *extra])], env=env)
        if not check(rc == 0, f"{name}: nccltap run exits 0 (got {rc})\n{err}"):
            raise SystemExit(1)
        check(f"nccltap: trace in {d}/lttng" in err, f"{name}: says where the trace is")
        check(f"nccltap: output in {d}" in err, f"{name}: says where the per-rank files are")
        return d, err

    def report(self, path):
        rc, out, err = self.run([self.nccltap, "report", "--json", path])
        if not check(rc == 0, f"report --json {path} exits 0 (got {rc}): {err}"):
            raise SystemExit(1)
        return json.loads(out), err


def events(trace):
    """The nccltap events as babeltrace2 prints them: (name, context, fields)."""
    p = subprocess.run(["babeltrace2", trace], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"babeltrace2 {trace} exits 0: {p.stderr}")
    line_re = re.compile(r"nccltap:(\w+): \{ cpu_id = \d+ \}, \{ (.*?) \}, \{ (.*) \}$")
    field_re = re.compile(r'(\w+) = (\( "(\w+)" : container = -?\d+ \)|"[^"]*"|[^,]+)')
    out = []
    for line in p.stdout.splitlines():
        m = line_re.search(line)
        if not m:
            continue
        def fields(s):
            return {k: (label or v.strip('"')) for k, v, label in field_re.findall(s)}
        out.append((m.group(1), fields(m.group(2)), fields(m.group(3))))
    return out


def bench_calls(d):
    """Calls the bench says it made, summed over its per-rank JSON files."""
    return sum(op["calls"] for f in glob.glob(os.path.join(d, "bench.rank*.json"))
               for op in json.load(open(f))["ops"])


def case_counts(t):
    """(a) babeltrace2 reads the trace; one op_enqueue and one op_complete
    per call the bench made, each with the process and thread contexts.
    Then entry_points' memory, registration, window, device communicator,
    suspend/resume and revoke calls: one entry_point event per call that
    the rank file's entry_points counts, named as there, NCCL's result in
    each (the refused ones' codes as the simulator returned them)."""
    d, _ = t.traced("counts", extra=("--json", os.path.join(t.work, "counts", "bench.json")))
    calls = bench_calls(d)
    check(calls == 4 * 10 * 7 * 20, f"the bench made 5600 calls (got {calls})")
    evs = events(os.path.join(d, "lttng"))
    n = collections.Counter(name for name, _, _ in evs)
    check(n["op_enqueue"] == calls, f"op_enqueue events {n['op_enqueue']} == calls {calls}")
    check(n["op_complete"] == calls, f"op_complete events {n['op_complete']} == calls {calls}")
    check(n["comm_init"] == 4, f"4 comm_init events (got {n['comm_init']})")
    ends = [(c["vpid"], f) for name, c, f in evs if name == "process_end"]
    check(len({v for v, _ in ends}) == len(ends) == 4 and sum(int(f["calls"]) for _, f in ends) == calls and
          all(f["in_flight"] == "0" for _, f in ends), f"one process_end a rank, its calls, none in flight: {ends}")
    marked = collections.Counter((name, f.get("marked")) for name, _, f in evs
                                 if name == "group_end" or name == "op_enqueue" and f["group_id"] == "0")
    check(set(marked) == {("op_enqueue", "1"), ("group_end", "1")},
          f"every timed call outside a group, and every timed group, says it is marked: {marked}")
    ctx = [c for _, c, _ in evs]
    check(all("vpid" in c and "vtid" in c and c.get("procname") == "nccltap-bench" for c in ctx),
          "every event has vpid, vtid and procname")
    check(len({c["vpid"] for c in ctx}) == 4, "events from 4 processes (the forked ranks)")

    app = os.path.join(os.path.dirname(t.bench), "entry_points")
    d, _ = t.traced("entry_points", app=[app, "events"])
    results = collections.defaultdict(collections.Counter)
    for name, _, f in events(os.path.join(d, "lttng")):
        if name == "entry_point":
            results[f["name"]][int(f["result"])] += 1
    got = {name: {"calls": sum(r.values()), "failed": sum(n for code, n in r.items() if code not in (0, 7))}
           for name, r in results.items()}
    rank_files = glob.glob(os.path.join(d, "nccltap-*.json"))
    want = json.load(open(rank_files[0])).get("entry_points") if len(rank_files) == 1 else None
    check(want and got == want, f"entry_point events {got}, the rank file's entry_points {want}")
    check(results["ncclCommSuspend"][5] == 1 and results["ncclDevCommCreate"][4] == 1,
          f"refusals traced with NCCL's codes (invalid usage 5, invalid argument 4): {dict(results)}")


def quiet_trace(t, name, **traced):
    """t.traced(name, ...) on a quiet machine: times held to the
    simulator's model within 1 to 5% hold only there (on a VM's 2 CPUs
    with stolen time, AlltoAll's median 1.19 times the model, a straggler's
    mean wait 719 us for 500); retried, skipped if every run was disturbed."""
    def job():
        shutil.rmtree(os.path.join(t.work, name), ignore_errors=True)
        return t.traced(name, **traced)
    return on_a_quiet_machine(job, what=name)


def case_durations(t):
    """(b) each op_complete's duration is the simulator's: with no latency
    and 100 GB/s, bytes x factor / 100 ns for an op on a busy stream (the
    median of each op and size; a grouped op carries its group's time).
    Sizes from 4 MiB, so that each op outlasts the host's work per call and
    the stream stays busy; smaller ops start on an idle stream, and their
    time also holds the launch and the other ranks' arrival."""
    env = {"NCCLSIM_LAT_US": "0", "NCCLSIM_BUSBW_GBS": "100"}
    bench = [("4M:64M" if a == "1K:64K" else a) for a in BENCH]
    d, _ = quiet_trace(t, "durations", env=env, bench=bench)
    evs = events(os.path.join(d, "lttng"))
    ops, groups = {}, collections.defaultdict(list)
    for name, c, f in evs:
        if name == "op_enqueue":
            ops[(c["vpid"], f["comm_id"], f["rank"], f["seq"])] = f
            if f["group_id"] != "0":
                groups[(c["vpid"], f["group_id"])].append(f)
    ratios = collections.defaultdict(list)
    for name, c, f in evs:
        if name != "op_complete":
            continue
        op = ops[(c["vpid"], f["comm_id"], f["rank"], f["seq"])]
        members = groups[(c["vpid"], op["group_id"])] if op["group_id"] != "0" else [op]
        want = sum(int(m["bytes"]) * FACTOR[m["op"]] for m in members) / 100
        ratios[(op["op"], int(op["bytes"]))].append(int(f["duration_ns"]) / want)
    check(len(ratios) == 10 * 5, f"50 (op, size) pairs (got {len(ratios)})")
    for (op, size), r in sorted(ratios.items()):
        med = statistics.median(r)
        check(abs(med - 1) <= 0.01, f"{op} {size}: median duration / formula = {med:.4f}")


def key(row):
    return (row["comm"], row["op"], row["dtype"], row["size_class"], row["rank"])


def case_report(t):
    """(c) the report of the trace equals the report of the per-rank files."""
    d, _ = t.traced("report")
    files, _ = t.report(d)
    trace, err = t.report(os.path.join(d, "lttng"))
    check("discarded" not in err, f"no discarded events: {err}")
    check(trace["totals"]["calls"] == files["totals"]["calls"] == 5600,
          f"totals.calls {trace['totals']['calls']} == {files['totals']['calls']} == 5600")
    for k in ("timed", "dropped", "failed", "simulated", "discarded"):
        check(trace["totals"][k] == files["totals"][k], f"totals.{k}")
    same = ("rank", "host", "pid", "nccl_version")
    check([{k: r[k] for k in same} for r in trace["ranks"]] == [{k: r[k] for k in same} for r in files["ranks"]],
          "the same ranks, hosts and pids")
    # The time in NCCL from the trace's op_complete events is the shim's; the
    # wall time differs (a trace sees a process from its first event on).
    for g, w in zip(trace["ranks"], files["ranks"]):
        for k in ("busy_s", "timed_s"):
            check(math.isclose(g["in_nccl"][k], w["in_nccl"][k], rel_tol=1e-6),
                  f"rank {w['rank']}: in_nccl.{k} {g['in_nccl'][k]} ~ {w['in_nccl'][k]}")
        check(0 < g["in_nccl"]["share"] <= 1 and 0 < w["in_nccl"]["share"] <= 1, "in NCCL within 0..100%")
    check(trace["comms"] == files["comms"], "the same communicators, with the same init_ms")
    check(all(c["init_ms"] and c["init_ms"] > 0 for c in files["comms"]), "every init_ms known")
    want = {key(r): r for r in files["ops"]}
    got = {key(r): r for r in trace["ops"]}
    check(len(want) == 4 * 10 * 7, f"280 rows from the files (got {len(want)})")
    check(set(got) == set(want), "the same rows")
    # Both are reduced by the shim's statistics code (stats/stat_row.h), call
    # by call: every field of every row is the same, the histograms'
    # percentiles too. Numbers that are not whole may differ in their tenth
    # digit: the rank file writes 10 (so do what the report derives from
    # them), and an event carries a call's bandwidth, not its bytes
    # (bandwidth x time gives them back, to a rounding).
    def same(g, w):
        if isinstance(w, float) or isinstance(g, float):
            return math.isclose(g, w, rel_tol=1e-9, abs_tol=1e-12)
        if isinstance(w, dict):
            return isinstance(g, dict) and g.keys() == w.keys() and all(same(g[f], w[f]) for f in w)
        if isinstance(w, list):
            return isinstance(g, list) and len(g) == len(w) and all(map(same, g, w))
        return g == w

    for k in sorted(set(got) & set(want)):
        check(same(got[k], want[k]), f"{k}: the same row\n  trace {got[k]}\n  files {want[k]}")
    # Merged across ranks: the same, but for the share of the wall time (a
    # trace sees a process from its first event on).
    check(same([{f: v for f, v in g.items() if f != "pct_wall"} for g in trace["rows"]],
               [{f: v for f, v in w.items() if f != "pct_wall"} for w in files["rows"]]),
          f"the same merged rows\n  trace {trace['rows']}\n  files {files['rows']}")
    check(same(trace["callsites"], files["callsites"]), "the same call sites, with the same rows")
    rc, out, err = t.run([t.nccltap, "report", os.path.join(d, "lttng")])
    check(rc == 0 and "LTTng trace" in out and "Communicator " in out,
          f"the text report of the trace: {err}")


def case_blocking(t):
    """(d) --blocking: a blocking channel, so LTTng discards nothing."""
    d, err = t.traced("blocking", "--blocking")
    trace, rerr = t.report(os.path.join(d, "lttng"))
    check(trace["totals"]["discarded"] == 0, f"discarded {trace['totals']['discarded']} == 0")
    check("discarded" not in rerr, f"no warning about discarded events: {rerr}")
    check(trace["totals"]["calls"] == 5600, "every call in the trace")
    # What the command is given.
    rc, out, err = t.run([t.nccltap, "run", "--lttng", "--blocking", "--dir",
                          os.path.join(t.work, "env"), "--", "sh", "-c",
                          'echo "$LTTNG_UST_ALLOW_BLOCKING $NCCLTAP_LTTNG"'])
    check(rc == 0 and out.strip() == "1 1", f"LTTNG_UST_ALLOW_BLOCKING=1 NCCLTAP_LTTNG=1: {out!r}")


def case_kernel(t):
    """--kernel: kernel events when lttng-modules are there; otherwise one
    message, and the user-space trace all the same."""
    d, err = t.traced("kernel", "--kernel", bench=["--ranks", "2", "--op", "allreduce",
                                                   "--bytes", "1K", "--iters", "5"])
    said = [l for l in err.splitlines() if "kernel tracing is not available here" in l]
    has_kernel = os.path.isdir(os.path.join(d, "lttng", "kernel"))
    check(len(said) == 1 or has_kernel, f"one message, or a kernel trace: {err}")
    if said:
        check(said[0].endswith("; tracing user space only"), f"the message: {said[0]}")
    trace, _ = t.report(os.path.join(d, "lttng"))
    files, _ = t.report(d)
    check(trace["totals"]["calls"] == files["totals"]["calls"] == 2 * 10,
          f"20 calls (5 iterations, 5 warm-up, 2 ranks) in the trace and the files: "
          f"{trace['totals']['calls']}, {files['totals']['calls']}")


def case_env(t):
    """The command's environment: the shim first in LD_PRELOAD, then
    liblttng-ust-fd.so (a launcher closing descriptors it did not open
    leaves lttng-ust's alone) and liblttng-ust-fork.so (processes forked
    without exec stay traced), then what was there; NCCLTAP_LTTNG=1;
    LTTNG_HOME of the private daemon."""
    d = os.path.join(t.work, "env")
    show = 'printf "%s\\n%s\\n%s\\n" "$LD_PRELOAD" "$NCCLTAP_LTTNG" "$LTTNG_HOME"'
    rc, out, err = t.run([t.nccltap, "run", "--lttng", "--dir", d, "--", "sh", "-c", show],
                         env={"LD_PRELOAD": ""})
    check(rc == 0, f"exit 0 ({rc}): {err}")
    preload, lttng, home = (out.splitlines() + ["", "", ""])[:3]
    parts = preload.split(":")
    check(parts[0].endswith("/libnccltap.so"), f"the shim first: {preload}")
    check(len(parts) == 3 and "liblttng-ust-fd.so" in parts[1], f"then the fd wrapper: {preload}")
    check(len(parts) == 3 and "liblttng-ust-fork.so" in parts[2], f"then the fork wrapper: {preload}")
    check(lttng == "1", f"NCCLTAP_LTTNG=1 ({lttng!r})")
    check(home == os.path.join(d, "lttng-home"), f"LTTNG_HOME {home!r}")
    check(not os.path.exists(home), "the daemon's LTTNG_HOME is removed at the end")
    check(os.path.isdir(os.path.join(d, "lttng")), "the trace directory")
    # Exit status and signal status are the command's, as without --lttng.
    rc, _, err = t.run([t.nccltap, "run", "--lttng", "--dir", os.path.join(t.work, "st"), "--",
                        "sh", "-c", "exit 3"])
    check(rc == 3, f"exit status 3 passed on ({rc})")
    rc, _, err = t.run([t.nccltap, "run", "--lttng", "--dir", os.path.join(t.work, "sig"), "--",
                        "sh", "-c", "kill -TERM $$"])
    check(rc == 143, f"killed by SIGTERM: 143 ({rc})")
    check("nccltap: trace in" in err, "the session is closed after a killed command")


def case_setup_failure(t):
    """When the session cannot be set up the command is not run: exit 125."""
    marker = os.path.join(t.work, "ran")
    cmd = ["--", "sh", "-c", 'touch "$0"', marker]
    # A trace already in DIR/lttng.
    d = os.path.join(t.work, "busy")
    os.makedirs(os.path.join(d, "lttng", "old"))
    rc, _, err = t.run([t.nccltap, "run", "--lttng", "--dir", d, *cmd])
    check(rc == 125, f"DIR/lttng not empty: exit 125 ({rc})")
    check("already holds a trace" in err, f"says why: {err}")
    # No lttng-sessiond in PATH.
    rc, _, err = t.run([os.path.abspath(t.nccltap), "run", "--lttng", "--dir",
                        os.path.join(t.work, "nopath"), "--", "/bin/sh", "-c", 'touch "$0"', marker],
                       env={"PATH": "/nonexistent"})
    check(rc == 125, f"no lttng-sessiond: exit 125 ({rc})")
    check("lttng-sessiond" in err and "apt-get install lttng-tools" in err, f"says why: {err}")
    check(not os.path.exists(marker), "the command was not run")
    # Options that need --lttng.
    for opt in (["--kernel"], ["--blocking"], ["--system"], ["--url", "net://h"]):
        rc, _, err = t.run([t.nccltap, "run", *opt, "--", "true"])
        check(rc == 2 and f"{opt[0]} needs --lttng" in err, f"{opt[0]} without --lttng: {rc} {err}")


def case_no_trace(t):
    """report on a directory without per-rank files or trace; and on a
    trace without nccltap events."""
    empty = os.path.join(t.work, "empty")
    os.makedirs(empty)
    rc, _, err = t.run([t.nccltap, "report", empty])
    check(rc == 1 and "no per-rank file" in err, f"empty directory: {rc} {err}")
    d = os.path.join(t.work, "quiet")
    rc, _, err = t.run([t.nccltap, "run", "--lttng", "--dir", d, "--", "true"])
    check(rc == 0, f"a command without NCCL: {rc} {err}")
    rc, out, err = t.run([t.nccltap, "report", os.path.join(d, "lttng")])
    # LTTng writes no trace at all when no application registered.
    check(rc == 1 and out == "" and ("no nccltap event" in err or "no CTF trace" in err),
          f"a trace without nccltap events: {rc} {err}")


def case_two_runs(t):
    """Issue 20: a directory holding two runs' traces (3 ranks, then 2) is
    read as the newest run, with a line naming the other; they were merged
    as one job of 5 ranks."""
    bench = ["--op", "allreduce", "--bytes", "1K", "--iters", "5", "--warmup", "0"]
    old, _ = t.traced("old", bench=["--ranks", "3", *bench])
    new, _ = t.traced("new", bench=["--ranks", "2", *bench])
    both = os.path.join(t.work, "both")
    os.makedirs(both)
    shutil.copytree(os.path.join(old, "lttng"), os.path.join(both, "a"))
    shutil.copytree(os.path.join(new, "lttng"), os.path.join(both, "b"))
    # The older run's trace written first: its metadata an hour older.
    stamp = time.time() - 3600
    for top, _, names in os.walk(os.path.join(both, "a")):
        if "metadata" in names:
            os.utime(os.path.join(top, "metadata"), (stamp, stamp))
    rep, err = t.report(both)
    check(len(rep["ranks"]) == 2 and rep["totals"]["calls"] == 2 * 5,
          f"the newest run read alone: {len(rep['ranks'])} ranks, {rep['totals']['calls']} calls")
    check(f"holds 1 other traced run ({both}/a); reading the newest, {both}/b" in err,
          f"names the other run: {err}")


def case_fd_launcher(t):
    """A launcher that closes every descriptor above 2 in its children
    before running a rank (as Open MPI's mpirun and orted do) made lttng-ust
    abort on its fd-tracker assertion: 20 runs of 8 ranks, no abort."""
    closer = os.path.join(os.path.dirname(t.bench), "fd_closer")
    aborted = []
    for i in range(20):
        rc, _, err = t.run([t.nccltap, "run", "--lttng", "--dir", os.path.join(t.work, f"fd{i}"),
                            "--", closer, "8", "true"])
        if rc != 0 or "Assertion" in err:
            aborted.append(f"run {i}: exit {rc}: {err.strip()}")
    check(not aborted, f"{len(aborted)} of 20 runs failed:\n" + "\n".join(aborted[:3]))


def case_mpirun(t):
    """Real Open MPI: `nccltap run --lttng -- mpirun -np 8 nccltap-bench`,
    five times; each run exits 0, and its trace holds every rank's calls."""
    mpirun = shutil.which("mpirun")
    if not check(mpirun, "mpirun is installed (Debian: openmpi-bin, tools/deps.sh)"):
        return
    root = ["--allow-run-as-root"] if os.getuid() == 0 else []
    bench = ["--op", "allreduce", "--bytes", "1K", "--iters", "5", "--warmup", "0"]
    for i in range(5):
        d = os.path.join(t.work, f"mpi{i}")
        rc, _, err = t.run([t.nccltap, "run", "--lttng", "--sim", "--dir", d, "--", mpirun, *root,
                            "--oversubscribe", "-np", "8", t.bench, *bench],
                           env={"NCCLTAP_TIMING": "all"})
        if not check(rc == 0 and "Assertion" not in err, f"run {i}: exit {rc}: {err}"):
            continue
        trace, _ = t.report(os.path.join(d, "lttng"))
        check(len(trace["ranks"]) == 8 and trace["totals"]["calls"] == 8 * 5,
              f"run {i}: 8 ranks of 5 calls in the trace: {len(trace['ranks'])} ranks, "
              f"{trace['totals']['calls']} calls")


def as_user(uid):
    """setpriv's prefix that runs a command as `uid` (none when not root)."""
    if os.getuid() != 0:
        return []
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def case_system_rc(t):
    """--system (the machine's, here the user's own, session daemon) leaves
    the user's ~/.lttngrc as it was, so that the user's own session stays
    the current one: `lttng stop` after nccltap stops it. As root the test
    runs as nobody, with a session daemon of nobody's."""
    uid = 65534 if os.getuid() == 0 else os.getuid()
    if os.getuid() == 0 and not shutil.which("setpriv"):
        print("setpriv (util-linux) is missing: skipped")
        raise SystemExit(SKIP)
    home = os.path.join(t.work, "home")
    os.makedirs(home)
    for p in (t.work, home):
        os.chown(p, uid, -1)
    env = {"HOME": home, "PATH": os.environ["PATH"]}
    if "ASAN_OPTIONS" in os.environ:  # the ASan build's shim is preloaded
        env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"]
    user = as_user(uid)

    def lttng(*args):
        p = subprocess.run(user + ["lttng", *args], capture_output=True, text=True, env=env,
                           timeout=30)
        return p.returncode, p.stdout + p.stderr

    pidfile = os.path.join(home, "sessiond.pid")
    p = subprocess.run(user + ["lttng-sessiond", "--daemonize", "--no-kernel",
                               f"--pidfile={pidfile}"], env=env, capture_output=True, text=True)
    if not check(p.returncode == 0, f"the user's session daemon starts: {p.stderr}"):
        return
    try:
        rc, out = lttng("create", "mine", f"--output={home}/mine")
        check(rc == 0, f"the user's session: {out}")
        lttng("enable-event", "-u", "-a")
        rc, out = lttng("start")
        check(rc == 0, f"the user's session starts: {out}")
        rcfile = os.path.join(home, ".lttngrc")
        with open(rcfile) as f:
            before = f.read()
        inode = os.stat(rcfile).st_ino

        d = os.path.join(t.work, "out")
        p = subprocess.run(user + [t.nccltap, "run", "--lttng", "--system", "--dir", d, "--",
                                   "true"], capture_output=True, text=True, env=env, timeout=60)
        check(p.returncode == 0, f"nccltap run --lttng --system: exit {p.returncode}: {p.stderr}")
        check(f"nccltap: trace in {d}/lttng" in p.stderr or "no trace in" in p.stderr,
              f"the session was set up and closed: {p.stderr}")
        check(os.path.exists(rcfile), "~/.lttngrc is still there")
        if os.path.exists(rcfile):
            with open(rcfile) as f:
                check(f.read() == before, "~/.lttngrc holds what it held")
            check(os.stat(rcfile).st_ino == inode, "~/.lttngrc is the same file")
        tmp = env.get("TMPDIR") or "/tmp"
        left = [n for n in os.listdir(tmp) if n.startswith("nccltap-lttng-client-") and
                os.stat(os.path.join(tmp, n)).st_uid == uid]
        check(not left, f"nccltap's client home is removed: {left}")
        rc, out = lttng("stop")
        check(rc == 0, f"the user's `lttng stop` stops the user's session: {out}")
        lttng("destroy", "mine")
    finally:
        with open(pidfile) as f:
            pid = int(f.read())
        os.kill(pid, 15)


CASES = {
    "two_runs": case_two_runs,"counts": case_counts, "durations": case_durations, "report": case_report,
         "blocking": case_blocking, "kernel": case_kernel, "env": case_env,
         "setup_failure": case_setup_failure, "no_trace": case_no_trace,
         "fd_launcher": case_fd_launcher, "mpirun": case_mpirun, "system_rc": case_system_rc,
         "hang": lambda t: case_hang(t), "hang_untimed": lambda t: case_hang_untimed(t),
         "hang_auto": lambda t: case_hang_auto(t), "killed": lambda t: case_killed(t),
         "killed_first": lambda t: case_killed_first(t), "no_process_end": lambda t: case_no_process_end(t), "hang_two_comms": lambda t: case_hang_two_comms(t),
         "damaged_metadata": lambda t: case_damaged_metadata(t),
         "callsites": lambda t: case_callsites(t), "straggler": lambda t: case_straggler(t),
         "planted_links": lambda t: case_planted_links(t), "graph": lambda t: case_graph(t),
         "steps": lambda t: case_steps(t)}


def case_graph(t):
    """CUDA graphs (issue 23): with NCCLTAP_GRAPH_TIMING=all, one op_complete
    per execution of a captured op, numbered by launch (replay 1..N), from
    graph_proc_app, which launches as cudart does (cuGetProcAddress); the
    report of the trace counts the calls as the per-rank files do, and
    matches every execution across ranks as the per-op files do."""
    iters, nops = 200, 5
    d = os.path.join(t.work, "graph")
    app = os.path.join(os.path.dirname(os.path.abspath(t.nccltap)), "graph_proc_app")
    rc, out, err = t.run([t.nccltap, "run", "--lttng", "--sim", "--dir", d, "--", app, "2", str(iters), "50",
                          "inst12", "handle"], env={"NCCLTAP_GRAPH_TIMING": "all", "NCCLTAP_TIMING": "all"})
    if not check(rc == 0, f"graph: nccltap run exits 0 (got {rc})\n{err}"):
        raise SystemExit(1)
    replays = collections.defaultdict(list)
    calls = 0
    for name, ctx, f in events(os.path.join(d, "lttng")):
        if name != "op_complete":
            continue
        if f.get("replay", "0") == "0":
            calls += 1
        else:
            replays[(ctx["vpid"], f["comm_id"], f["seq"])].append(int(f["replay"]))
    check(calls == 0, f"no op_complete of a call: every call was captured (got {calls})")
    check(len(replays) == 2 * nops, f"executions of {2 * nops} captured calls (got {len(replays)})")
    for k, v in replays.items():
        check(sorted(v) == list(range(1, iters + 1)), f"{k}: replays 1..{iters} once each (got {len(v)})")
    files, _ = t.report(d)
    trace, _ = t.report(os.path.join(d, "lttng"))
    check(trace["totals"]["calls"] == files["totals"]["calls"] == 2 * nops,
          f"totals.calls {trace['totals']['calls']} == {files['totals']['calls']} == {2 * nops}")
    check(sum(r.get("executions", 0) for r in files["rows"]) == 2 * nops * iters,
          "the per-rank files count every execution")
    # Each execution of a captured call, on both ranks, is one collective
    # instance (seq, replay), from the trace's op_complete as from the
    # per-op files.
    for source, rep in (("trace", trace), ("per-op files", files)):
        x = rep["crossrank"]
        check(x["instances"] == nops * iters and x["incomplete"] == 0,
              f"{source}: {x['instances']} instances ({x['incomplete']} incomplete), expected {nops * iters}")
    # Perfetto from the trace: a slice per execution with its replay
    # number, from the run's first op on (the trace has no launch time:
    # no enqueue instant, and none at time 0 of the clock).
    out = os.path.join(t.work, "graph.json")
    rc, _, err = t.run([t.nccltap, "report", "--perfetto", out, os.path.join(d, "lttng")])
    check(rc == 0, f"graph: report --perfetto of the trace exits 0 (got {rc}): {err}")
    if rc == 0:
        with open(out) as f:
            evs = json.load(f)["traceEvents"]
        ops = [e for e in evs if e.get("cat") == "op"]
        check(len(ops) == 2 * nops * iters and all(1 <= e["args"].get("replay", 0) <= iters for e in ops),
              f"graph: {len(ops)} op slices with replay numbers, expected {2 * nops * iters}")
        check(not [e for e in evs if e.get("cat") == "enqueue"], "graph: no enqueue instant (no call was timed)")
        span = max(e["ts"] for e in ops) if ops else 0
        check(min(e["ts"] for e in ops) >= 0 and span < 60e6 if ops else False,
              f"graph: slices within the run (0 to {span} us)")


def stop_after_two_reports(p, d, ranks):
    """Waits until each of `ranks` reported the hang (its hang file in `d`
    beside its event), then for a second report of each (every timeout,
    1 s), and stops `nccltap run` p: (its stdout, its stderr). A fixed wait
    left a rank that started late under ASan without one, or the whole
    trace unwritten on a loaded machine."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60 and len(glob.glob(os.path.join(d, "*.hang.json"))) < ranks:
        time.sleep(0.1)
    time.sleep(1.5)
    p.terminate()
    return p.communicate(timeout=60)


def case_hang(t):
    """The hang watchdog's `hang` events: rank 1 never reaches collective 5;
    the report of the trace alone names rank 1 missing and rank 0 stuck."""
    d = os.path.join(t.work, "hang")
    env = dict(os.environ, NCCLTAP_TIMING="pairs", NCCLTAP_HANG_TIMEOUT_S="1",
               NCCLSIM_HANG_RANK="1", NCCLSIM_HANG_SEQ="5")
    p = subprocess.Popen([t.nccltap, "run", "--lttng", "--sim", "--dir", d, "--", t.bench,
                          "--ranks", "2", "--bytes", "1K", "--iters", "10", "--warmup", "0"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    _, err = stop_after_two_reports(p, d, 2)
    check(err.count("nccltap: hang: ") >= 2, "a hang line on stderr from each rank:\n" + err[-2000:])
    evs = events(os.path.join(d, "lttng"))
    hangs = [(c["vpid"], f) for name, c, f in evs if name == "hang"]
    check({f["rank"] for _, f in hangs} == {"0", "1"}, f"hang events from ranks 0 and 1: {hangs}")
    for rank in ("0", "1"):
        waits = [int(f["pending_ns"]) for _, f in hangs if f["rank"] == rank]
        check(len(waits) >= 2 and waits == sorted(waits) and waits[-1] - waits[0] >= 0.9e9,
              f"rank {rank}: the event again every timeout (1 s) while the hang lasts: {waits}")
    # Each names where the stuck op was called: a site of its process.
    sites = {(c["vpid"], f["site"]) for name, c, f in evs if name == "callsite"}
    check(all(f["site"] != "0" and (vpid, f["site"]) in sites for vpid, f in hangs),
          f"each hang event's site is one of its process's callsite events: {hangs} {sites}")
    rep, _ = t.report(os.path.join(d, "lttng"))
    h = rep["hang"]
    check(len(h) == 1 and h[0]["seq"] == 5 and h[0]["op"] == "AllReduce", f"hang {h}")
    check(h and h[0]["missing_ranks"] == [1] and h[0]["stuck_ranks"] == [0],
          f"rank 1 missing, rank 0 stuck: {h}")
    check(h and [s["ranks"] for s in h[0]["callsites"]] == [[0, 1]] and
          h[0]["callsites"][0]["frames"][0]["function"] == "op_issue",
          f"from the trace too, where both ranks issued it: the bench's op_issue: {h}")


def traced_hang(t, name, timing, ranks, nbytes, iters, seq, threads=1):
    """Rank `ranks - 1` never reaches collective `seq` under `timing`, on
    each of its `threads` communicators: (the trace's hang events, the
    report of the trace, of the rank files)."""
    d = os.path.join(t.work, name)
    env = dict(os.environ, NCCLTAP_TIMING=timing, NCCLTAP_HANG_TIMEOUT_S="1",
               NCCLSIM_HANG_RANK=str(ranks - 1), NCCLSIM_HANG_SEQ=str(seq))
    p = subprocess.Popen([t.nccltap, "run", "--lttng", "--sim", "--dir", d, "--", t.bench,
                          "--ranks", str(ranks), "--threads", str(threads), "--bytes", nbytes, "--iters", str(iters),
                          "--warmup", "0"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    stop_after_two_reports(p, d, ranks)
    hangs = [f for name, _, f in events(os.path.join(d, "lttng")) if name == "hang"]
    return hangs, t.report(os.path.join(d, "lttng"))[0], t.report(d)[0]


def same_hang(trace, files, nhangs=1):
    """The report of the trace alone gives what the rank files give: the
    hang (one a communicator), the findings, and the calls counted alike
    (those the hang held in flight, in no row)."""
    key = lambda rep: sorted((h["comm"], h["op"], h["seq"], h["missing_ranks"], h["stuck_ranks"]) for h in rep["hang"])
    check(key(trace) == key(files) and len(key(files)) == nhangs, f"the trace's hang {trace['hang']}, "
          f"the files' {files['hang']}")
    # Not every kind has a seq (a descheduled rank's, on a busy host, has none).
    kinds = lambda rep: [(f["kind"], f.get("rank"), f.get("seq")) for f in rep["findings"]]
    check(kinds(trace) == kinds(files), f"findings: trace {kinds(trace)}, files {kinds(files)}")
    for k in ("calls", "timed", "in_flight"):
        check(trace["totals"][k] == files["totals"][k], f"totals.{k}: trace {trace['totals'][k]}, "
              f"files {files['totals'][k]}")
    rows = lambda d: sorted((o["rank"], o["op"], o["size_class"], o["calls"], o["timed"]) for o in d["ops"])
    check(rows(trace) == rows(files), f"the rows' calls: trace {rows(trace)}, files {rows(files)}")


def killed(t, name, seq):
    """Ranks killed (SIGKILL) while their last calls, from collective
    `seq` on, wait for rank 1's GPU, which never gets there, long before
    the hang timeout: no hang event, no process_end. Returns the reports
    of the trace and of the rank files' last write."""
    d = os.path.join(t.work, name)
    env = dict(os.environ, NCCLTAP_TIMING="auto", NCCLTAP_HANG_TIMEOUT_S="600", NCCLTAP_INTERVAL_MS="100",
               NCCLSIM_HANG_RANK="1", NCCLSIM_HANG_SEQ=str(seq))
    p = subprocess.Popen([t.nccltap, "run", "--lttng", "--sim", "--dir", d, "--", t.bench,
                          "--ranks", "2", "--bytes", "1K", "--iters", "10", "--warmup", "0"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def rank_files():
        out = {}
        for f in glob.glob(os.path.join(d, "nccltap-*.json")):
            try:
                doc = json.load(open(f))
            except (OSError, ValueError):
                continue  # being replaced
            out[doc["pid"]] = doc["totals"]
        return out
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60:
        files = rank_files()
        if sorted((v["calls"], v["in_flight"]) for v in files.values()) == [(10, 10 - seq)] * 2:
            break
        time.sleep(0.1)
    check(len(files) == 2, f"the ranks' files: {files}")
    for pid in files:
        os.kill(pid, 9)
    _, err = p.communicate(timeout=60)
    evs = events(os.path.join(d, "lttng"))
    names = collections.Counter(name for name, _, _ in evs)
    check(not names["hang"] and not names["process_end"], f"killed before any hang event or exit: {names}")
    trace, files = t.report(os.path.join(d, "lttng"))[0], t.report(d)[0]
    check(trace["totals"]["in_flight"] == 2 * (10 - seq) and trace["totals"]["calls"] == 20,
          f"each rank's {10 - seq} calls from collective {seq} in flight: {trace['totals']}")
    for k in ("calls", "timed", "stamped", "in_flight"):
        check(trace["totals"][k] == files["totals"][k], f"totals.{k}: trace {trace['totals'][k]}, "
              f"files {files['totals'][k]}")
    return trace, files


def op_rows(rep):
    return sorted((o["rank"], o["op"], o["size_class"], o["calls"]) for o in rep["ops"])


def case_killed(t):
    """killed() at collective 5: the report of the trace counts each
    rank's last 5 calls in flight, in no row, as the rank files' last
    write does (they were counted in the rows, 10 calls for the 5 that
    ran). counts checks that a run that ends has its process_end."""
    trace, files = killed(t, "killed", 5)
    check(op_rows(trace) == op_rows(files) == [(0, "AllReduce", 1024, 5), (1, "AllReduce", 1024, 5)],
          f"the rows' calls: trace {op_rows(trace)}, files {op_rows(files)}")


def case_killed_first(t):
    """killed() at collective 0, a job stuck in its first collective: no
    op_complete at all in the trace, which still records them (declares
    the event), so every call is in flight and none in a row, as in the
    rank files (the trace's report had every call in its rows, taking a
    process without completions for a session that left op_complete out)."""
    trace, files = killed(t, "killed_first", 0)
    check(op_rows(trace) == op_rows(files) == [], f"no rows: trace {op_rows(trace)}, files {op_rows(files)}")


# A session of the test's own (root: in a private mount namespace, as
# `nccltap run --lttng` makes one) that records the events in $EVENTS
# only, around `nccltap run --sim` of the command given.
OWN_SESSION = r"""
set -e
mount -t tmpfs none /run/lttng 2>/dev/null || { mkdir -p /run/lttng; mount -t tmpfs none /run/lttng; }
export LTTNG_HOME=$WORK/home; mkdir -p $LTTNG_HOME
lttng-sessiond --daemonize --no-kernel
lttng create own --output=$WORK/lttng >/dev/null
lttng enable-channel -u c >/dev/null
lttng enable-event -u -c c "$EVENTS" >/dev/null
lttng add-context -u -c c -t vpid -t vtid -t procname >/dev/null
lttng start >/dev/null
set +e
NCCLTAP_LTTNG=1 "$NCCLTAP" run --sim --dir $WORK/files -- "$@"
rc=$?
lttng stop >/dev/null; lttng destroy >/dev/null
kill $(cat /run/lttng/lttng-sessiond.pid)
exit $rc
"""


def case_no_process_end(t):
    """A session of the user's own that records nccltap's calls and
    completions but not process_end (an event list, or a provider older
    than the shim), around a program that exits with its communicator
    alive after 200 AllReduces under the default timing (api_exercise
    exit-alive): the last calls of its burst have no op_complete, and the
    trace's report keeps them in rows, as the rank file does, rather than
    count them in flight as a killed process's (54 of 200 were)."""
    if os.getuid() != 0 or not shutil.which("unshare") or not t.app:
        print("needs root, unshare and api_exercise: skipped")
        raise SystemExit(SKIP)
    work = os.path.join(t.work, "no_process_end")
    events_ = "nccltap:comm_init,nccltap:comm_destroy,nccltap:op_enqueue,nccltap:op_complete,nccltap:group_end"
    env = dict(os.environ, WORK=work, EVENTS=events_, NCCLTAP=t.nccltap, NCCLTAP_TIMING="auto")
    rc, out, err = t.run(["unshare", "-m", "sh", "-c", OWN_SESSION, "sh", t.app, "exit-alive", "200"], env=env)
    if not check(rc == 0, f"the run in a session of its own exits 0 (got {rc}): {err}"):
        return
    names = collections.Counter(name for name, _, _ in events(os.path.join(work, "lttng")))
    check(names["op_enqueue"] == 200 and not names["process_end"], f"the session's events: {names}")
    trace, files = t.report(os.path.join(work, "lttng"))[0], t.report(os.path.join(work, "files"))[0]
    check(files["totals"]["in_flight"] == 0 and op_rows(files) == [(0, "AllReduce", 4096, 200)],
          f"the rank file: {files['totals']}, {op_rows(files)}")
    for k in ("calls", "in_flight"):
        check(trace["totals"][k] == files["totals"][k], f"totals.{k}: trace {trace['totals'][k]}, "
              f"files {files['totals'][k]}")
    check(op_rows(trace) == op_rows(files), f"the rows' calls: trace {op_rows(trace)}, files {op_rows(files)}")


def case_hang_untimed(t):
    """A hang whose stuck op no timing timed (NCCLTAP_TIMING=off): each
    rank's `hang` event says so (`untimed` 1, `started` 0: not known), and
    the trace's report is the files' (the HANG at the last op, seq 9,
    every rank waiting in it, none named missing; every call in a row, as
    off counts them). No event was emitted for such a hang before, and the
    trace's report then said nothing of it."""
    hangs, trace, files = traced_hang(t, "hang_untimed", "off", 2, "1K", 10, 5)
    check({f["rank"] for f in hangs} == {"0", "1"} and all(f.get("untimed") == "1" and f["started"] == "0"
                                                            for f in hangs),
          f"untimed hang events from ranks 0 and 1: {hangs}")
    check([(f["kind"], f["seq"]) for f in files["findings"]][:1] == [("hang", 9)] and
          files["totals"]["in_flight"] == 0, f"the files: {files['findings']}, {files['totals']}")
    same_hang(trace, files)


def case_hang_two_comms(t):
    """Two communicators a process (the bench's --threads 2), the last rank
    stuck before collective 5 on both: each process's watchdog emits a
    `hang` event for each communicator with an op pending, as its hang
    file lists them, so the report of the trace alone gives the files' two
    hangs, findings, and calls in flight (the event named the process's
    stuck communicator only, and the other's calls stayed in its rows)."""
    hangs, trace, files = traced_hang(t, "hang_two_comms", "pairs", 2, "1K", 10, 5, threads=2)
    named = {(f["comm_id"], f["rank"]) for f in hangs}
    check(len(named) == 4, f"hang events of 2 communicators x 2 ranks: {sorted(named)}")
    same_hang(trace, files, nhangs=2)


def case_hang_auto(t):
    """A hang under the default timing, 16 MB (auto times a size's first
    17 calls, then samples): the calls issued past what the ranks knew
    complete were counted in the trace's rows (26 a rank where the files
    had 16: the untimed ones before the stuck op, and all of them when no
    hang event came) and are in flight in both now."""
    hangs, trace, files = traced_hang(t, "hang_auto", "auto", 4, "16M", 100, 20)
    check(len(hangs) >= 4, f"hang events from the 4 ranks: {hangs}")
    check(files["totals"]["in_flight"] >= 4 * 70, f"the calls queued behind the hang in flight: {files['totals']}")
    same_hang(trace, files)


def case_planted_links(t):
    """The trace's directories under --dir follow the shim's rules: D/lttng
    (the trace) and D/lttng-home (the session daemon's sockets) planted as
    symlinks to another directory are refused, nothing is written there."""
    victim = os.path.join(t.work, "victim")
    os.makedirs(victim, mode=0o700)
    for name, said in (("lttng", "for the trace: a symlink or not a directory"),
                       ("lttng-home", "lttng-home: a symlink or not a directory")):
        d = os.path.join(t.work, "planted-" + name)
        os.makedirs(d, mode=0o700)
        os.symlink(victim, os.path.join(d, name))
        rc, _, err = t.run([t.nccltap, "run", "--lttng", "--sim", "--dir", d, "--", t.bench, *BENCH])
        check(rc == 125 and said in err, f"{name} a planted symlink: refused (125), said ({rc}): {err}")
        check(os.listdir(victim) == [], f"{name}: written through the link: {os.listdir(victim)}")


def case_straggler(t):
    """Cross-rank matching from a trace alone (op_enqueue and op_complete):
    4 ranks, rank 2 late by 500 us at each of 100 AllReduces of 1 MiB, as
    crossrank.straggler_pairs does from the per-op files."""
    d, _ = quiet_trace(t, "straggler", env={"NCCLSIM_SLOW_RANK": "2", "NCCLSIM_SLOW_US": "500"},
                       bench=["--ranks", "4", "--op", "allreduce", "--bytes", "1M", "--iters", "100",
                              "--warmup", "0"])
    rep, _ = t.report(os.path.join(d, "lttng"))
    check(rep["crossrank"]["instances"] - rep["crossrank"]["incomplete"] >= 100,
          f"100 instances on every rank: {rep['crossrank']}")
    st = rep["stragglers"]
    if check(len(st) == 1, f"one straggler: {st}"):
        s = st[0]
        check(s["rank"] == 2 and s["last_fraction"] >= 0.95 and abs(s["wait_us_mean"] - 500) <= 25,
              f"rank 2, last in >= 95%, 500 us +-5%: {s}")
    check(rep["slow_transfers"] == [], f"a late rank is not a slow transfer: {rep['slow_transfers']}")


def case_steps(t):
    """Steps a program marks (step_app: 40 steps of 2 micro-batches, each
    rank calling nccltap_step()): one `step` event a mark, its count and
    time; the report from the trace alone finds 40 steps of 4 collectives
    at the marks, as it does from the rank files."""
    app = os.path.join(os.path.dirname(t.bench), "step_app")
    d, _ = t.traced("steps", app=[app, "4", "40", "accumulate", "2", "mark"], env={"NCCLTAP_TIMING": "auto"})
    steps = [f for name, _, f in events(os.path.join(d, "lttng")) if name == "step"]
    check(len(steps) == 4 * 40 and sorted({int(f["step"]) for f in steps}) == list(range(1, 41)),
          f"160 step events, numbered 1 to 40 on each rank: {len(steps)}")
    for path in (os.path.join(d, "lttng"), d):
        rep, _ = t.report(path)
        c = rep["steps"][0] if len(rep["steps"]) == 1 else {}
        check(c.get("by_marks") and c["nsteps"] == 40 and c["period"] == 4,
              f"{path}: 40 steps of 4 at the marks: {[(s['nsteps'], s['period'], s['by_marks']) for s in rep['steps']]}")


def case_callsites(t):
    """Call sites in the trace: one `callsite` event per site and process,
    before or after the first op_enqueue naming it, each op_enqueue's
    `site` among them, a `module` event for the object of every frame; the
    same frames as the process's rank file."""
    d, _ = t.traced("callsites", env={"NCCLTAP_CALLSITE_DEPTH": "2"},
                    bench=["--ranks", "2", "--op", "allreduce,allgather", "--bytes", "1K", "--iters", "3",
                           "--warmup", "0"])
    p = subprocess.run(["babeltrace2", os.path.join(d, "lttng")], capture_output=True, text=True, timeout=60)
    vpid_re, site_re = re.compile(r"vpid = (\d+)"), re.compile(r"site = (\d+)")
    sites, used, modules = collections.defaultdict(list), collections.defaultdict(set), collections.defaultdict(list)
    for line in p.stdout.splitlines():
        m = vpid_re.search(line)
        if not m:
            continue
        vpid = int(m.group(1))
        if "nccltap:callsite:" in line:
            frames = [int(x, 16) for x in re.findall(r"\[\d+\] = (0x[0-9A-Fa-f]+)", line)]
            sites[vpid].append((int(site_re.search(line).group(1)), frames))
        elif "nccltap:op_enqueue:" in line:
            used[vpid].add(int(site_re.search(line).group(1)))
        elif "nccltap:module:" in line:
            start, end = (int(re.search(k + r" = (0x[0-9A-Fa-f]+)", line).group(1), 16) for k in ("start", "end"))
            modules[vpid].append((start, end))
    check(len(sites) == 2, f"callsite events from the 2 ranks' processes: {dict(sites)}")
    files = {int(re.search(r"-(\d+)\.json$", f).group(1)): json.load(open(f))
             for f in glob.glob(os.path.join(d, "nccltap-*.json"))}
    for vpid, evs in sites.items():
        ids = [i for i, _ in evs]
        check(len(ids) == len(set(ids)) == 2, f"process {vpid}: one callsite event per site, 2 sites: {ids}")
        check(used[vpid] <= set(ids) and 0 not in used[vpid],
              f"process {vpid}: op_enqueue sites {used[vpid]} all have their callsite event {ids}")
        for i, frames in evs:
            check(len(frames) == 2 and all(any(s <= a < e for s, e in modules[vpid]) for a in frames),
                  f"process {vpid} site {i}: 2 frames, each in a module event's range: {frames} {modules[vpid]}")
        want = {s["id"]: [int(a, 16) for a in s["frames"]] for s in files.get(vpid, {}).get("callsites", [])}
        check(want == dict(evs), f"process {vpid}: the rank file's sites {want}, the trace's {dict(evs)}")
    # The report of the trace alone has the call sites of the report of
    # the per-rank files: the same frames, symbolized, ops and calls.
    def sites(doc):
        return sorted((s["op"], s["calls"], s["timed"], json.dumps(s["frames"], sort_keys=True))
                      for s in doc["callsites"])
    from_trace, _ = t.report(os.path.join(d, "lttng"))
    from_files, _ = t.report(d)
    check(from_trace["callsite_depth"] == 2 and sites(from_trace) == sites(from_files),
          f"the trace's call sites {sites(from_trace)}, the files' {sites(from_files)}")


def metadata_packets(data):
    """(offset, content end) of each packet of LTTng's packetized CTF
    metadata (CTF 1.8, section 7.1: content_size and packet_size in bits
    at bytes 24 and 28 of a 37-byte header; LTTng writes little-endian here)."""
    out, at = [], 0
    while at < len(data):
        content, packet = struct.unpack_from("<II", data, at + 24)
        out.append((at, at + content // 8))
        at += packet // 8
    return out


def case_damaged_metadata(t):
    """A trace whose metadata is cut inside a packet's content made
    babeltrace2 (and the report) loop at 100% CPU: the report says the
    trace is damaged and exits, wherever the cut is; a cut in the last
    packet's padding is read as before."""
    d, _ = t.traced("damaged", bench=["--ranks", "2", "--op", "allreduce", "--bytes", "1K",
                                      "--iters", "10", "--warmup", "0"])
    trace = os.path.join(d, "lttng")
    path, = glob.glob(os.path.join(trace, "ust", "**", "metadata"), recursive=True)
    with open(path, "rb") as f:
        whole = f.read()
    packets = metadata_packets(whole)
    check(len(packets) >= 2, f"the metadata holds packets: {packets}")
    last_start, last_end = packets[-1]
    cuts = [20, 100, packets[1][0] + 500, last_end - 1]
    for cut in cuts:
        with open(path, "wb") as f:
            f.write(whole[:cut])
        try:
            rc, _, err = t.run([t.nccltap, "report", trace], timeout=20)
        except subprocess.TimeoutExpired:
            check(False, f"metadata cut at byte {cut} of {len(whole)}: the report still runs after 20 s")
            continue
        check(rc == 1 and f"the trace in {os.path.dirname(path)} is damaged" in err,
              f"metadata cut at byte {cut}: exit 1 saying the trace is damaged ({rc}): {err[-500:]}")
    if last_end < len(whole):
        with open(path, "wb") as f:
            f.write(whole[:last_end])
        rep, _ = t.report(trace)
        check(rep["totals"]["calls"] == 2 * 10, f"the last packet's padding cut: read ({rep['totals']})")


def main():
    case, nccltap, work = sys.argv[1:4]
    app = sys.argv[4] if len(sys.argv) > 4 else None
    if not shutil.which("lttng-sessiond"):
        print("lttng-sessiond is not installed: skipped")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CASES[case](Env(nccltap, work, app))
    return check.result()


if __name__ == "__main__":
    sys.exit(main())
