#!/usr/bin/env python3
"""`nccltap report --perfetto`: the structure of the Chrome trace-event JSON
it writes for the bench on the simulator (4 ranks, every op, 1K to 1M),
checked against the Trace Event Format's documentation ("Trace Event
Format", Google; the JSON Object Format), since neither Perfetto's UI nor
its trace processor can be fetched here.

usage: perfetto_test.py CASE NCCLTAP WORKDIR
  CASE  bench    the structure, against the run's per-op records (dtype in
                 the op args; each enqueue on its calling thread's track, also
                 with two threads per rank)
        filters  --ranks and --from/--to keep what they say
        callsites  ops name their call site where their row has one site
        kernel   a trace with kernel events (kernel_trace_fixture.py): CPU
                 and IRQ tracks, the rank threads' off-CPU slices, the
                 straggler's late arrow (skipped without python3-bt2, failed
                 without it in CI: CI=true)
"""
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import Checks  # noqa: E402

check = Checks(sys.stderr)
FAILED = check.failed
COLLECTIVES = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AlltoAll",
               "Gather", "Scatter"}


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=e)
    if not check(p.returncode == 0, f"{' '.join(args)} exits 0 ({p.returncode}): {p.stderr}"):
        sys.exit(1)
    return p


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_format(doc):
    """Every event typed as the Trace Event Format says; metadata first,
    then events in time order. Returns the events."""
    if not check(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list),
                 "a JSON object with a traceEvents array"):
        sys.exit(1)
    check(doc.get("displayTimeUnit") in (None, "ms", "ns"), "displayTimeUnit is ms or ns")
    events = doc["traceEvents"]
    seen_timed, last_ts, bad = False, None, []
    for ev in events:
        ph = ev.get("ph")
        ok = (isinstance(ev, dict) and isinstance(ph, str) and isinstance(ev.get("name"), str)
              and isinstance(ev.get("pid"), int) and isinstance(ev.get("tid"), int)
              and isinstance(ev.get("cat", ""), str) and isinstance(ev.get("args", {}), dict))
        if ph == "M":
            args = ev.get("args", {})
            ok = ok and ev["name"] in ("process_name", "thread_name", "process_sort_index",
                                       "thread_sort_index") and (
                isinstance(args.get("name"), str) if ev["name"].endswith("_name")
                else isinstance(args.get("sort_index"), int))
            check(not seen_timed, "metadata events come before the others")
        else:
            seen_timed = True
            ok = ok and ph in ("X", "i", "s", "t", "f") and is_num(ev.get("ts")) and ev["ts"] >= 0
            if ph == "X":
                ok = ok and is_num(ev.get("dur")) and ev["dur"] >= 0
            if ph == "i":
                ok = ok and ev.get("s", "t") in ("g", "p", "t")
            if ph in "stf":
                ok = ok and isinstance(ev.get("id"), (int, str)) and ev.get("bp", "e") == "e"
            if ok and last_ts is not None and ev["ts"] < last_ts:
                check(False, f"events sorted by ts: {ev['ts']} after {last_ts}")
            last_ts = ev["ts"] if ok else last_ts
        if not ok:
            bad.append(ev)
    check(not bad, f"{len(bad)} events typed against the format, e.g. {bad[:2]}")
    # Complete events on one thread nest: each ends before the one that
    # holds it ends (ts and dur are in us with 3 decimals: ns exact).
    stacks, crossed = collections.defaultdict(list), []
    for ev in events:
        if ev.get("ph") != "X" or not is_num(ev.get("ts")) or not is_num(ev.get("dur")):
            continue
        st, end = stacks[(ev["pid"], ev["tid"])], round((ev["ts"] + ev["dur"]) * 1000)
        while st and st[-1] <= round(ev["ts"] * 1000):
            st.pop()
        if st and end > st[-1]:
            crossed.append(ev)
        st.append(end)
    check(not crossed, f"{len(crossed)} slices cross another on their track, e.g. {crossed[:2]}")
    return events


def records(d):
    """The per-op records of the run (NCCLTAP_OPS_JSONL), per process."""
    out = {}
    for path in glob.glob(os.path.join(d, "nccltap-*.ops.jsonl")):
        pid = int(re.search(r"-(\d+)\.ops\.jsonl$", path).group(1))
        out[pid] = [json.loads(line) for line in open(path) if line.strip()]
    return out


def processes(events):
    """pid in the file -> (host, pid, ranks) from process_name."""
    out = {}
    for ev in events:
        if ev["ph"] == "M" and ev["name"] == "process_name":
            m = re.fullmatch(r"(\S+):(\d+) rank ([\d,]+)", ev["args"]["name"])
            if m:
                out[ev["pid"]] = (m.group(1), int(m.group(2)), m.group(3))
    return out


def enclosing(slices, ev):
    """The op slice on ev's track that holds its ts (a slice is [ts, ts + dur))."""
    held = [s for s in slices.get((ev["pid"], ev["tid"]), [])
            if s["ts"] <= ev["ts"] < s["ts"] + s["dur"] or s["ts"] == ev["ts"]]
    return held[0] if len(held) == 1 and held[0]["name"] == ev["name"] else None


def bench_run(nccltap, work, name="run", warmup=1, env=None, args=("--op", "all", "--bytes", "1K:1M")):
    bench = os.path.join(os.path.dirname(os.path.abspath(nccltap)), "nccltap-bench")
    d = os.path.join(work, name)
    run([nccltap, "run", "--sim", "--dir", d, "--", bench, "--ranks", "4", *args,
         "--iters", "5", "--warmup", str(warmup)],
        env=dict({"NCCLTAP_TIMING": "all", "NCCLTAP_OPS_JSONL": "1"}, **(env or {})))
    return d


def perfetto(nccltap, path, out, *opts):
    p = run([nccltap, "report", "--perfetto", out, *opts, path])
    check(f"Perfetto trace in {out}" in p.stderr, f"says where the file is: {p.stderr}")
    return json.load(open(out))


def case_bench(nccltap, work):
    d = bench_run(nccltap, work)
    doc = perfetto(nccltap, d, os.path.join(work, "run.json"))
    events = check_format(doc)
    recs = records(d)
    procs = processes(events)
    check(len(recs) == 4, f"4 processes wrote per-op records ({len(recs)})")
    check(len(procs) == 4 and sorted(p[2] for p in procs.values()) == ["0", "1", "2", "3"],
          f"one process per rank, named host:pid rank r: {procs}")
    by_pid = {p[1]: fpid for fpid, p in procs.items()}

    # One complete slice per timed op, in its process, on its stream's track.
    slices = [e for e in events if e["ph"] == "X" and e.get("cat") == "op"]
    timed = sum(len(v) for v in recs.values())
    check(len(slices) == timed, f"one op slice per timed op: {len(slices)} slices, {timed} ops")
    per_proc = collections.Counter(e["pid"] for e in slices)
    for pid, rs in recs.items():
        check(per_proc[by_pid.get(pid)] == len(rs), f"process {pid}: {per_proc[by_pid.get(pid)]} "
              f"slices for {len(rs)} ops")
    want = collections.Counter((r["comm"], r["seq"], r["rank"], r["op"], r["bytes"], r["dtype"])
                               for rs in recs.values() for r in rs)
    got = collections.Counter((e["args"]["comm"], e["args"]["seq"], e["args"]["rank"], e["name"],
                               e["args"]["bytes"], e["args"].get("dtype")) for e in slices)
    check(want == got, f"the slices are the ops: {list((want - got).items())[:3]}, "
          f"{list((got - want).items())[:3]}")
    check(all(isinstance(e["args"].get("busbw_gbs"), float) for e in slices
              if "group" not in e["args"] and e["dur"] > 0), "ungrouped ops carry busbw_gbs")
    groups = [e for e in events if e["ph"] == "X" and e.get("cat") == "group"]
    grouped = [e for e in slices if "group" in e["args"]]
    check(bool(grouped) and all(
        any(g["pid"] == e["pid"] and g["tid"] == e["tid"] and g["ts"] <= e["ts"] and
            e["ts"] + e["dur"] <= g["ts"] + g["dur"] for g in groups) for e in grouped),
        f"each grouped op inside a group slice ({len(grouped)} grouped ops)")
    enq = [e for e in events if e["ph"] == "i" and e.get("cat") == "enqueue"]
    check(len(enq) == timed, f"one enqueue instant per op ({len(enq)})")
    threads = {(e["pid"], e["tid"]) for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    check(all((e["pid"], e["tid"]) in threads for e in enq + slices), "every track is named")
    check_enqueue_threads(events, recs, os_comms(d))
    # Threads of their own (a communicator each) and another datatype: the
    # enqueues on each calling thread's track, not the process's.
    d = bench_run(nccltap, work, "threads", args=("--op", "allreduce,allgather", "--bytes", "1K:4K",
                                                  "--threads", "2", "--dtype", "bfloat16"))
    events = check_format(perfetto(nccltap, d, os.path.join(work, "threads.json")))
    recs = records(d)
    procs = processes(events)
    callers = {(pid, r["tid"]) for pid, rs in recs.items() for r in rs}
    check(len(callers) == 8 and len({pid for pid, _ in callers}) == 4 and
          sum(tid != pid for pid, tid in callers) == 4,
          f"2 calling threads per process, one of them not its main thread: {sorted(callers)}")
    slices = [e for e in events if e["ph"] == "X" and e.get("cat") == "op"]
    check(slices and all(e["args"].get("dtype") == "bfloat16" for e in slices),
          f"op slices say dtype bfloat16: {collections.Counter(e['args'].get('dtype') for e in slices)}")
    check_enqueue_threads(events, recs, os_comms(d))
    # One flow per collective instance, through its 4 ranks in time order.
    op_slices = collections.defaultdict(list)
    for e in slices:
        op_slices[(e["pid"], e["tid"])].append(e)
    flows = collections.defaultdict(list)
    for e in events:
        if e["ph"] in "stf" and e.get("cat") == "collective":
            flows[e["id"]].append(e)
    instances = {(r["comm"], r["seq"]) for rs in recs.values() for r in rs if r["op"] in COLLECTIVES}
    check(len(flows) == len(instances), f"{len(flows)} flows for {len(instances)} collective instances")
    linked = set()
    for fid, pts in flows.items():
        ok = len(pts) == 4 and len({p["pid"] for p in pts}) == 4
        ok = ok and [p["ph"] for p in pts] == ["s", "t", "t", "f"]
        held = [enclosing(op_slices, p) for p in pts]
        ok = ok and all(held) and len({(h["args"]["comm"], h["args"]["seq"]) for h in held}) == 1
        if not check(ok, f"flow {fid} links one instance's 4 ranks, s..t..f: {pts}"):
            break
        linked.add((held[0]["args"]["comm"], held[0]["args"]["seq"]))
    check(linked == instances, "every collective instance has its flow")


def os_comms(d):
    """{(pid, tid): comm} of the threads whose context switches the rank
    files hold (NCCLTAP_OS): the report names their tracks by comm."""
    out = {}
    for path in glob.glob(os.path.join(d, "*.json")):
        doc = json.load(open(path))
        for t in doc.get("os", {}).get("threads", []):
            out[(doc["pid"], t["tid"])] = t["comm"]
    return out


def check_enqueue_threads(events, recs, comms):
    """Each op's enqueue instant is on the track of the thread that called
    it, as its per-op record says (tid), in its process's pid, the track
    named "COMM TID" where the rank file names the thread (NCCLTAP_OS),
    else "thread TID"."""
    procs = processes(events)
    by_pid = {p[1]: fpid for fpid, p in procs.items()}
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    tid_of = {(r["comm"], r["seq"], r["rank"]): (by_pid.get(pid), r["tid"], r["dtype"], pid)
              for pid, rs in recs.items() for r in rs}
    wrong = []
    for e in events:
        if e["ph"] != "i" or e.get("cat") != "enqueue":
            continue
        want = tid_of.get((e["args"]["comm"], e["args"]["seq"], e["args"]["rank"]))
        if (not want or (e["pid"], e["tid"]) != want[:2] or e["args"].get("dtype") != want[2]
                or names.get((e["pid"], e["tid"])) != "%s %d" % (comms.get((want[3], want[1]), "thread"), want[1])):
            wrong.append((e, want))
    check(not wrong and tid_of, f"enqueue instants on the calling thread's track (the record's tid), "
          f"with its dtype: {len(wrong)} not, e.g. {wrong[:2]}")


def case_filters(nccltap, work):
    d = bench_run(nccltap, work)
    whole = check_format(perfetto(nccltap, d, os.path.join(work, "all.json")))
    some = check_format(perfetto(nccltap, d, os.path.join(work, "ranks.json"), "--ranks", "1,3"))
    procs = processes(some)
    check(sorted(p[2] for p in procs.values()) == ["1", "3"], f"--ranks 1,3: {procs}")
    check(all(e["pid"] in procs for e in some if e.get("cat") in ("op", "enqueue", "group")),
          "only their ops")

    flows = collections.defaultdict(set)
    for e in some:
        if e["ph"] in "stf" and e.get("cat") == "collective":
            flows[e["id"]].add(e["pid"])
    check(flows and all(len(v) == 2 for v in flows.values()), "flows link the two kept ranks")

    ts = [e["ts"] for e in whole if e["ph"] == "X" and e.get("cat") == "op"]
    lo, hi = max(ts) * 0.25, max(ts) * 0.5
    win = check_format(perfetto(nccltap, d, os.path.join(work, "window.json"),
                                "--from", "%.9f" % (lo / 1e6), "--to", "%.9f" % (hi / 1e6)))
    inside = [e for e in whole if e["ph"] == "X" and e.get("cat") == "op"
              and e["ts"] + e["dur"] >= lo and e["ts"] <= hi]
    kept = [e for e in win if e["ph"] == "X" and e.get("cat") == "op"]
    check(0 < len(kept) == len(inside), f"--from/--to: {len(kept)} op slices, {len(inside)} in it")
    check(all(lo - 0.002 <= e["ts"] and e["ts"] + e["dur"] <= hi + 0.002 for e in win
              if e["ph"] == "X"), "slices clipped to the window")


def case_callsites(nccltap, work):
    """An op slice names its call site where all the calls of its row
    (communicator, op, datatype, size) in its process came from one site,
    and no site where they came from several: at depth 3 the bench's
    warm-up and measured calls are two sites (measure_step's two loops)."""
    one = bench_run(nccltap, work, "one", warmup=0, env={"NCCLTAP_CALLSITE_DEPTH": "3"})
    ops = [e for e in check_format(perfetto(nccltap, one, os.path.join(work, "one.json")))
           if e["ph"] == "X" and e.get("cat") == "op"]
    doc = json.loads(run([nccltap, "report", "--json", one]).stdout)
    want = {}
    for s in doc["callsites"]:
        f = s["frames"]
        where = ["%s in %s:%d [%s]" % (x["function"], os.path.basename(x["file"]), x["line"], x["library"])
                 for x in f]
        want.setdefault(s["op"], set()).add((where[0], tuple(where[1:])))
    got = [(e["name"], e["args"].get("callsite"), tuple(e["args"].get("callsite_callers", ()))) for e in ops]
    check(ops and all(c and (c, callers) in want.get(op, ()) for op, c, callers in got),
          f"every op slice names its site, one of the report's for its op: "
          f"{[g for g in got if not g[1] or (g[1], g[2]) not in want.get(g[0], ())][:3]}, {want}")
    two = bench_run(nccltap, work, "two", warmup=1, env={"NCCLTAP_CALLSITE_DEPTH": "3"})
    ops = [e for e in check_format(perfetto(nccltap, two, os.path.join(work, "two.json")))
           if e["ph"] == "X" and e.get("cat") == "op"]
    check(ops and not any("callsite" in e["args"] for e in ops),
          f"rows called from two sites name none: {[e['args'] for e in ops if 'callsite' in e['args']][:2]}")


def case_kernel(nccltap, work):
    py = next((p for p in (sys.executable, "/usr/bin/python3") if os.path.exists(p) and
               subprocess.run([p, "-c", "import bt2"], capture_output=True).returncode == 0), None)
    if not py:
        if os.environ.get("CI") == "true":
            check(False, "a Python with babeltrace2's bindings (python3-bt2): CI must have it (tools/deps.sh)")
            sys.exit(1)
        print("no Python with babeltrace2's bindings (python3-bt2): skipped")
        sys.exit(77)
    trace = os.path.join(work, "trace")
    run([py, os.path.join(HERE, "kernel_trace_fixture.py"), "straggler", trace])
    events = check_format(perfetto(nccltap, trace, os.path.join(work, "k.json")))
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    cpu = [e for e in events if e.get("cat") == "sched"]
    check(any(e["name"] == "stress-ng-cpu" and abs(e["dur"] - 400) < 0.01 and
              names.get((e["pid"], e["tid"])) == "CPU 4" for e in cpu),
          "CPU 4's track shows stress-ng-cpu for 400 us")
    off = [e for e in events if e.get("cat") == "offcpu"
           and e["args"].get("preempted_by") == "stress-ng-cpu"]
    check(len(off) == 1 and abs(off[0]["dur"] - 400) < 0.01 and
          names.get((off[0]["pid"], off[0]["tid"])) == "python3 4103",
          f"rank 2's thread off the CPU 400 us, preempted by stress-ng-cpu: {off}")
    # The straggler is the late arrow: seq 2's flow ends on rank 2.
    procs = processes(events)
    slices = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "X" and e.get("cat") == "op":
            slices[(e["pid"], e["tid"])].append(e)
    ends = [e for e in events if e["ph"] == "f" and e.get("cat") == "collective"]
    held = [(enclosing(slices, e), e) for e in ends]
    last = [procs[e["pid"]][2] for h, e in held if h and h["args"]["seq"] == 2]
    check(len(ends) == 6 and all(h for h, _ in held) and last == ["2"],
          f"6 flows; seq 2's ends at rank 2, the straggler: {last}")
    irq = [e for e in events if e.get("cat") == "irq"]
    check(irq and all(names.get((e["pid"], e["tid"]), "").endswith(" IRQ") for e in irq),
          "IRQ slices on the CPUs' IRQ tracks")


def main():
    case, nccltap, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    {"bench": case_bench, "filters": case_filters, "kernel": case_kernel,
     "callsites": case_callsites}[case](nccltap, work)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
