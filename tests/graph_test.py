#!/usr/bin/env python3
"""CUDA graphs (issue 23), end to end on the simulator: graph_app's ranks
capture 4 all-reduces (1 MiB) and an all-gather (256 KiB per rank) into a
graph and launch it 1,000 times under `nccltap run`; each rank's file must
say, per op, the captures and the executions, and, with
NCCLTAP_GRAPH_TIMING=all, a time for every execution and the busbw the
simulator gives (within 1%), also for the 100 launches still running when
the application destroys the executable graph (it synchronizes every 300);
with it off, nccltap adds no node to the graph and no record per launch.
ops_log_2: nccltap's per-op log holds each execution with its replay number.
late_2, late_4: the last rank sleeps before each launch; the report,
from the per-op files (.ops) and again from the per-op logs alone, matches
every execution across ranks as one instance (seq, replay) and names that
rank as the straggler, from the replays alone (no call is timed).
The proc_* cases run graph_proc_app, which reaches the driver as cudart
does (dlopen, dlsym of cuGetProcAddress, every function through it; each
case one way of asking: its MODE and HANDLE): the same counts and times.

churn_update_2, churn_update_timed_2, churn_instantiate_2: an executable
graph updated before each of 5,000 launches, or one instantiated and
destroyed around each (more than the 4,096 executable graphs nccltap
follows at once): every execution counted. untracked_2: 4,100 executable
graphs alive at once: the launches of the 4 past 4,096 are not counted,
and the report says so (graphs_untracked, text and --json).

Usage: graph_test.py --bin BUILD/bin CASE   (CASE: counts_2, counts_4,
timed_2, timed_4, update_2, proc_flags_2, proc_inst12_2, proc_params_2,
proc_ptsz_2, proc_v1_2, proc_self_2, ops_log_2, late_2, late_4,
churn_update_2, churn_update_timed_2, churn_instantiate_2, untracked_2)
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from testlib import fail, check  # noqa: E402

ITERS = 1000
# A slow simulated link, so that the GPU, not the launching host (slow
# under sanitizers), sets the pace and ranks seldom wait for each other.
LAT_US, BUSBW_GBS = 5.0, 10.0
AR_BYTES, AG_SEND_BYTES = 1 << 20, 1 << 18


def model_busbw(op, nbytes, n):
    """The simulator's figure, from its README: S and the bus factor as in
    nccl-tests, time = latency + S * factor / busbw."""
    factor = 2.0 * (n - 1) / n if op == "AllReduce" else (n - 1) / n
    t = LAT_US * 1e-6 + nbytes * factor / (BUSBW_GBS * 1e9)
    return nbytes * factor / t / 1e9


def run(bindir, n, graph_timing, update=False, proc=None, env_more=None, app_args=None, iters=ITERS,
        keep=None):
    work = tempfile.mkdtemp(prefix="nccltap-graph-")
    out, prom = os.path.join(work, "out"), os.path.join(work, "prom")
    os.mkdir(prom)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NCCLTAP_", "NCCLSIM_"))}
    env.update(NCCLTAP_GRAPH_TIMING=graph_timing, NCCLSIM_LAT_US=str(LAT_US),
               NCCLSIM_BUSBW_GBS=str(BUSBW_GBS), NCCLTAP_PROM_DIR=prom, NCCLTAP_PROM_KEEP="1")
    env.update(env_more or {})
    app = [os.path.join(bindir, "graph_app"), str(n), str(iters), "300"] + (["update"] if update else [])
    if app_args:
        app = [os.path.join(bindir, "graph_app"), str(n), str(iters)] + list(app_args)
    if proc:
        app = [os.path.join(bindir, "graph_proc_app"), str(n), str(ITERS), "300"] + list(proc)
    cmd = [os.path.join(bindir, "nccltap"), "run", "--sim", "--dir", out, "--"] + app
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        fail("%s exited %d" % (" ".join(cmd), p.returncode))
    apps = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    files = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(out, "*.json")))]
    rep = subprocess.run([os.path.join(bindir, "nccltap"), "report", "--json", out], env=env,
                         capture_output=True, text=True, timeout=120)
    metrics = prom_samples(prom)
    lines = {}
    for path in glob.glob(os.path.join(out, "*.ops.jsonl")):
        with open(path) as f:
            lines[path] = [json.loads(l) for l in f]
    if keep:
        keep(out, env)
    shutil.rmtree(work, ignore_errors=True)
    check(rep.returncode == 0, "nccltap report exited %d: %s" % (rep.returncode, rep.stderr))
    check(len(apps) == n, "%d ranks reported, not %d" % (len(apps), n))
    check(len(files) == n, "%d rank files, not %d" % (len(files), n))
    return apps, files, json.loads(rep.stdout), metrics, lines


def prom_samples(prom):
    """{(metric, rank, op, size_class): value} from the Prometheus
    textfiles, each first checked by promtool where it is installed (in
    CI it must be: tools/deps.sh)."""
    tool = shutil.which("promtool")
    if not tool and os.environ.get("CI") == "true":
        fail("promtool is missing; CI must have it (tools/deps.sh)")
    samples = {}
    for path in glob.glob(os.path.join(prom, "*.prom")):
        text = open(path).read()
        if tool:
            p = subprocess.run([tool, "check", "metrics"], input=text, capture_output=True, text=True)
            check(p.returncode == 0, "promtool check metrics %s: %s" % (path, p.stdout + p.stderr))
        for m in re.finditer(r'^(nccltap_op_executions_total|nccltap_op_duration_seconds_count)\{([^}]*)\} (\d+)$',
                             text, re.M):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
            samples[(m.group(1), int(labels["rank"]), labels["op"], int(labels["size_class"]))] = int(m.group(3))
    return samples


def check_prom(metrics, want, n, timed):
    """Per rank, the executions counter; with timing, the duration
    histogram's count is every execution."""
    for rank in range(n):
        for (op, nbytes), (_, executions) in want.items():
            got = metrics.get(("nccltap_op_executions_total", rank, op, nbytes))
            check(got == executions, "rank %d %s %d: nccltap_op_executions_total %s, expected %d"
                  % (rank, op, nbytes, got, executions))
            count = metrics.get(("nccltap_op_duration_seconds_count", rank, op, nbytes))
            check(count == (executions if timed else 0), "rank %d %s %d: nccltap_op_duration_seconds_count %s"
                  % (rank, op, nbytes, count))


def check_report(rep, want, n):
    """The report merges the ranks: captures and executions summed."""
    rows = {(r["op"], r["size_class"]): r for r in rep["rows"]}
    for (op, nbytes), (captures, executions) in want.items():
        r = rows.get((op, nbytes))
        check(r is not None, "no report row for %s %d" % (op, nbytes))
        check(r.get("captured") == n * captures and r.get("executions") == n * executions,
              "report row %s %d: captured %s executions %s, expected %d and %d" %
              (op, nbytes, r.get("captured"), r.get("executions"), n * captures, n * executions))


def rows_by_op(f):
    return {(r["op"], r["bytes"]): r for r in f["ops"]}


def check_counts(f, want):
    """want: {(op, bytes): (captures, executions)}"""
    rows = rows_by_op(f)
    check(set(rows) == set(want), "rows %s, expected %s" % (sorted(rows), sorted(want)))
    for key, (captures, executions) in want.items():
        r = rows[key]
        print("  rank %s %s %d B: calls %d captured %s executions %s timed %d busbw %s" %
              (r["rank"], key[0], key[1], r["calls"], r.get("captured"), r.get("executions"), r["timed"],
               r["busbw_gbs"]))
        check(r["calls"] == captures and r.get("captured") == captures,
              "%s: %d calls, %s captured; expected %d captures" % (key, r["calls"], r.get("captured"), captures))
        check(r.get("executions") == executions,
              "%s: %s executions, expected %d" % (key, r.get("executions"), executions))
    check(f["totals"]["captured"] == sum(c for c, _ in want.values()), "totals.captured")


# The timed executions' busbw is the simulator's within this share.
BUSBW_WITHIN = 0.01


def want_rows(n, update):
    if not update:
        return {("AllReduce", AR_BYTES): (4, 4 * ITERS), ("AllGather", AG_SEND_BYTES * n): (1, ITERS)}
    half = ITERS // 2
    return {("AllReduce", AR_BYTES): (4, 4 * half), ("AllReduce", 2 * AR_BYTES): (4, 4 * (ITERS - half)),
            ("AllGather", AG_SEND_BYTES * n): (2, ITERS)}


def counts(bindir, n, proc=None):
    """Timing of graphs off (the default): counted, nothing added."""
    apps, files, rep, metrics, _ = run(bindir, n, "off", proc=proc)
    check_report(rep, want_rows(n, False), n)
    check_prom(metrics, want_rows(n, False), n, False)
    for a in apps:
        check(a["nodes"] == 5, "rank %d: the graph has %d nodes, not the 5 the application captured: "
              "nccltap added some with NCCLTAP_GRAPH_TIMING=off" % (a["rank"], a["nodes"]))
    for f in files:
        check_counts(f, want_rows(n, False))
        for r in f["ops"]:
            check(r["timed"] == 0, "%s timed with graph timing off" % r["op"])
        check(f["totals"].get("executions_timed", 0) == 0 and f["totals"].get("executions_untimed", 0) == 0,
              "records per launch with graph timing off: %s" % f["totals"])


def timed(bindir, n, update=False, proc=None, env_more=None, app_args=None):
    """NCCLTAP_GRAPH_TIMING=all: every execution timed, at the simulated busbw."""
    apps, files, rep, metrics, _ = run(bindir, n, "all", update, proc, env_more=env_more, app_args=app_args)
    check_report(rep, want_rows(n, update), n)
    check_prom(metrics, want_rows(n, update), n, True)
    for a in apps:
        check(a["nodes"] == 15, "rank %d: %d nodes, expected 5 ops and an event pair around each"
              % (a["rank"], a["nodes"]))
    want = want_rows(n, update)
    for f in files:
        check_counts(f, want)
        rows = rows_by_op(f)
        for key, (_, executions) in want.items():
            r = rows[key]
            check(r["timed"] == executions, "%s: %d of %d executions timed" % (key, r["timed"], executions))
            expect = model_busbw(key[0], key[1], n)
            check(abs(r["busbw_gbs"] - expect) <= BUSBW_WITHIN * expect,
                  "%s: busbw %.3f GB/s, the simulator's is %.3f" % (key, r["busbw_gbs"], expect))
        total = sum(e for _, e in want.values())
        check(f["totals"].get("executions_timed") == total and f["totals"].get("executions_untimed") == 0,
              "totals: %s, expected %d executions timed" % (f["totals"], total))


def ops_log(bindir, n):
    """NCCLTAP_OPS_JSONL=1: a line per timed execution, with the captured
    call's seq and its replay number (1.., once each); no line of a
    call (captured calls are not timed); the report's rows are the rank
    files', as without it."""
    _, _, rep, _, lines = run(bindir, n, "all", proc=("flags", "handle"), env_more={"NCCLTAP_OPS_JSONL": "1"})
    check_report(rep, want_rows(n, True), n)
    check(len(lines) == n, "%d per-op logs, not %d" % (len(lines), n))
    for path, recs in lines.items():
        by_call = {}
        for o in recs:
            check(o.get("replay", 0) > 0, "%s: a line that is no execution: %s" % (path, o))
            by_call.setdefault((o["comm"], o["seq"]), []).append(o["replay"])
        # 10 captured calls: 5 before the update, 5 after, ITERS/2 launches
        # each; a call's executions are numbered from 1 (an update starts
        # the count for the calls it brings)
        check(len(by_call) == 10, "%s: executions of %d captured calls, not 10" % (path, len(by_call)))
        for call, replays in by_call.items():
            check(sorted(replays) == list(range(1, ITERS // 2 + 1)),
                  "%s: call %s: replay numbers are not 1..%d once each" % (path, call, ITERS // 2))


def check_timeline(source, events, n, nops, iters):
    """Perfetto: a slice per timed execution on every rank, with its seq
    and replay number (1..iters for each captured call), no enqueue (no
    call was made), and a flow linking each instance across the ranks."""
    slices = [e for e in events if e["ph"] == "X" and e.get("cat") == "op"]
    check(len(slices) == n * nops * iters, "%s: %d op slices, expected %d executions"
          % (source, len(slices), n * nops * iters))
    by_call = {}
    for e in slices:
        by_call.setdefault((e["pid"], e["args"]["seq"]), []).append(e["args"].get("replay"))
    check(len(by_call) == n * nops and all(sorted(v) == list(range(1, iters + 1)) for v in by_call.values()),
          "%s: per rank and captured call, slices of replays 1..%d" % (source, iters))
    enqueues = [e for e in events if e.get("cat") == "enqueue"]
    check(not enqueues, "%s: %d enqueue instants, but no call was made" % (source, len(enqueues)))
    flows = {e["id"] for e in events if e["ph"] == "s" and e.get("cat") != "p2p"}
    check(len(flows) == nops * iters, "%s: %d flows, expected one per instance (%d)"
          % (source, len(flows), nops * iters))


def late(bindir, n):
    """The last rank sleeps LATE_US before each of LATE_ITERS launches
    (each synchronized): the others wait for it at the first all-reduce of
    every launch. Every execution is timed and no call is, so what the
    report matches is replays alone."""
    # 10 ms: a margin over a loaded machine's scheduling (4 ranks on 2 CPUs
    # under ASan: with 2 ms one launch in a hundred had another rank last;
    # with 5 ms, on a VM whose hypervisor took 20% of the CPUs, 2 ranks
    # once had a 4th op among the 3 worst instances).
    late_us, iters, nops, late_rank = 10000, 200, 5, n - 1
    reports = {}

    def report_twice(out, env):
        nccltap = os.path.join(bindir, "nccltap")
        for source in ("ops", "jsonl"):
            if source == "jsonl":  # without the per-op files the report reads the logs
                for path in glob.glob(os.path.join(out, "*.ops")):
                    os.unlink(path)
            js = subprocess.run([nccltap, "report", "--json", out], env=env, capture_output=True, text=True,
                                timeout=120)
            text = subprocess.run([nccltap, "report", out], env=env, capture_output=True, text=True, timeout=120)
            check(js.returncode == 0 and text.returncode == 0, "nccltap report: %s" % (js.stderr + text.stderr))
            reports[source] = (json.loads(js.stdout), text.stdout)
            trace = os.path.join(out, "..", "timeline.json")
            p = subprocess.run([nccltap, "report", "--perfetto", trace, out], env=env, capture_output=True,
                               text=True, timeout=120)
            check(p.returncode == 0, "nccltap report --perfetto: %s" % p.stderr)
            with open(trace) as f:
                check_timeline(source, json.load(f)["traceEvents"], n, nops, iters)

    _, files, _, _, lines = run(bindir, n, "all", env_more={"NCCLTAP_OPS_JSONL": "1"}, iters=iters,
                                app_args=("1", "late", str(late_rank), str(late_us)), keep=report_twice)
    for f in files:
        check(f["totals"]["timed"] == 0 and f["totals"].get("executions_timed") == nops * iters,
              "rank file: %s, expected no call and %d executions timed" % (f["totals"], nops * iters))
    for source, (rep, text) in reports.items():
        x = rep["crossrank"]
        print("  %s: %d instances, %d incomplete; stragglers %s" %
              (source, x["instances"], x["incomplete"], [(s["rank"], s["last"], s["instances"])
                                                         for s in rep["stragglers"]]))
        check(x["instances"] == nops * iters and x["incomplete"] == 0,
              "%s: %d instances (%d incomplete), expected each of %d executions on every rank as one"
              % (source, x["instances"], x["incomplete"], nops * iters))
        s = rep["stragglers"]
        check(len(s) == 1 and s[0]["rank"] == late_rank,
              "%s: stragglers %s, expected rank %d alone" % (source, s, late_rank))
        s = s[0]
        # Last at the first all-reduce of every launch but the first (the
        # communicator's first instance is left out), by about its sleep.
        check(s["last"] >= iters - 2 and s["instances"] == nops * iters - 1,
              "%s: last in %d of %d instances, expected %d of %d" % (source, s["last"], s["instances"],
                                                                    iters - 1, nops * iters - 1))
        check(0.5 * late_us <= s["wait_us_median"] <= 4 * late_us,
              "%s: the others waited %.1f us (median), it slept %d" % (source, s["wait_us_median"], late_us))
        first = min(o["seq"] for recs in lines.values() for o in recs)
        replays = s.get("worst_replays", [])
        check(set(s["worst_seqs"]) == {first} and len(set(replays)) == len(s["worst_seqs"]) and
              all(1 <= r <= iters for r in replays),
              "%s: the worst instances are launches of the first captured call (seq %d), each its own: "
              "seqs %s replays %s" % (source, first, s["worst_seqs"], replays))
        check(re.search(r"rank %d \(.*\): caused \d+%% of the waiting.*\n.*\n\s+last in %d of %d collectives"
                        % (late_rank, s["last"], s["instances"]), text)
              and "replay" in text, "%s: the text report's Stragglers section names rank %d:\n%s"
              % (source, late_rank, text[-3000:]))


# Past the executable graphs nccltap follows at once (TAP_GRAPH_SLOTS).
GRAPHS_FOLLOWED = 4096
CHURN_ITERS = 5000


def churn(bindir, n, how, graph_timing="off"):
    """`how` (update, instantiate) before each of CHURN_ITERS launches:
    every execution counted (timed with NCCLTAP_GRAPH_TIMING=all), none
    untracked. Each update or instantiation once took one of 4,096 places
    for good: 4,095 of 5,000 executions were counted."""
    apps, files, rep, metrics, _ = run(bindir, n, graph_timing, app_args=("300", "churn", how), iters=CHURN_ITERS)
    timed = graph_timing == "all"
    want = {("AllReduce", AR_BYTES): (4, 4 * CHURN_ITERS), ("AllGather", AG_SEND_BYTES * n): (1, CHURN_ITERS)}
    check_report(rep, want, n)
    check_prom(metrics, want, n, timed)
    for f in files:
        check_counts(f, want)
        check(f["totals"].get("graphs_untracked", 0) == 0, "totals: %s, expected no graph untracked" % f["totals"])
        if timed:
            total = sum(e for _, e in want.values())
            check(f["totals"].get("executions_timed") == total,
                  "totals: %s, expected %d executions timed" % (f["totals"], total))
    check(rep["totals"].get("graphs_untracked", 0) == 0, "report totals: %s" % rep["totals"])


def untracked(bindir, n):
    """More executable graphs alive at once than nccltap follows: the
    launches of those past GRAPHS_FOLLOWED are not counted, each rank file
    says how many (graphs_untracked), and so does the report, summed over
    the ranks, in --json's totals and in the text."""
    many = GRAPHS_FOLLOWED + 4
    texts = []

    def text_report(out, env):
        p = subprocess.run([os.path.join(bindir, "nccltap"), "report", out], env=env, capture_output=True,
                           text=True, timeout=120)
        check(p.returncode == 0, "nccltap report: %s" % p.stderr)
        texts.append(p.stdout)

    _, files, rep, _, _ = run(bindir, n, "off", app_args=("0", "many", str(many)), iters=1, keep=text_report)
    want = {("AllReduce", AR_BYTES): (4, 4 * GRAPHS_FOLLOWED), ("AllGather", AG_SEND_BYTES * n): (1, GRAPHS_FOLLOWED)}
    check_report(rep, want, n)
    for f in files:
        check_counts(f, want)
        check(f["totals"].get("graphs_untracked") == many - GRAPHS_FOLLOWED,
              "totals: %s, expected %d graphs untracked" % (f["totals"], many - GRAPHS_FOLLOWED))
    untracked_all = n * (many - GRAPHS_FOLLOWED)
    check(rep["totals"].get("graphs_untracked") == untracked_all,
          "report totals: %s, expected graphs_untracked %d" % (rep["totals"], untracked_all))
    check("graphs_untracked %d" % untracked_all in texts[0],
          "the text report does not say graphs_untracked %d:\n%s" % (untracked_all, texts[0][-3000:]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--busbw-within", type=float, default=0.01,
                    help="a timed execution's busbw within this share of the simulator's")
    ap.add_argument("case")
    a = ap.parse_args()
    global BUSBW_WITHIN
    BUSBW_WITHIN = a.busbw_within
    cases = {
        "counts_2": lambda: counts(a.bin, 2),
        "counts_4": lambda: counts(a.bin, 4),
        "timed_2": lambda: timed(a.bin, 2),
        "timed_4": lambda: timed(a.bin, 4),
        "update_2": lambda: timed(a.bin, 2, update=True),
        # graph_proc_app MODE HANDLE: its usage says what each asks for
        "proc_flags_2": lambda: timed(a.bin, 2, update=True, proc=("flags", "handle")),
        "proc_inst12_2": lambda: timed(a.bin, 2, proc=("inst12", "default")),
        "proc_params_2": lambda: timed(a.bin, 2, proc=("params", "handle")),
        "proc_ptsz_2": lambda: timed(a.bin, 2, proc=("ptsz", "handle")),
        "proc_v1_2": lambda: timed(a.bin, 2, update=True, proc=("v1", "handle")),
        "proc_self_2": lambda: counts(a.bin, 2, proc=("self", "next")),
        "ops_log_2": lambda: ops_log(a.bin, 2),
        # A capture in the global mode held open 200 ms while the reducer
        # calibrates every 10 ms (an event synchronize) and reads events:
        # the reducer relaxes its own mode, so the capture stays valid.
        "global_capture_2": lambda: timed(a.bin, 2, env_more={"NCCLTAP_INTERVAL_MS": "10", "NCCLTAP_TIMING": "all"},
                                          app_args=("300", "hold", "200")),
        # 1,000 launches back to back, no sync until the end: each takes
        # a pair per op faster than the reducer grows the pool (1,635 of
        # 4,000 AllReduces timed once); every execution is.
        "back_to_back_4": lambda: timed(a.bin, 4, app_args=("0",)),
        "churn_update_2": lambda: churn(a.bin, 2, "update"),
        "churn_update_timed_2": lambda: churn(a.bin, 2, "update", "all"),
        "churn_instantiate_2": lambda: churn(a.bin, 2, "instantiate"),
        "untracked_2": lambda: untracked(a.bin, 2),
        "late_2": lambda: late(a.bin, 2),
        "late_4": lambda: late(a.bin, 4),
    }
    if a.case not in cases:
        fail("unknown case " + a.case)
    cases[a.case]()
    print("ok")


if __name__ == "__main__":
    main()
