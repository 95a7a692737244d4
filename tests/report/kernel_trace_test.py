#!/usr/bin/env python3
"""`nccltap report TRACE` on traces with kernel events, made by
kernel_trace_fixture.py (lttng-modules cannot run here): the OS
interference it finds in each case.

usage: kernel_trace_test.py CASE NCCLTAP WORKDIR
  CASE  straggler, irq_storm, in_op, clean, or no_kernel (the straggler's trace
        without its kernel/ directory), or damaged_packet (the straggler's
        trace with 8 bytes of one packet's context set to 0xff, on which
        libbabeltrace2 2.0 aborts: in the kernel trace, the report names
        it and reads the rest; in the only user-space trace, it names it
        and ends with status 1, not a signal)

Exits 77 (skipped) when no Python here has babeltrace2's bindings (Debian:
python3-bt2), except in CI (CI=true), where that is a failure.
"""
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import Checks  # noqa: E402

check = Checks(sys.stderr)
FAILED = check.failed


def python_with_bt2():
    """This interpreter, or Debian's, whichever has the bt2 module."""
    for py in (sys.executable, "/usr/bin/python3"):
        if os.path.exists(py) and subprocess.run([py, "-c", "import bt2"],
                                                 capture_output=True).returncode == 0:
            return py
    return None


def within(got, want, pct=1.0):
    return abs(got - want) <= want * pct / 100


def report(nccltap, trace, *opts):
    p = subprocess.run([nccltap, "report", *opts, trace], capture_output=True, text=True,
                       timeout=60)
    if not check(p.returncode == 0, f"report {' '.join(opts)} exits 0: {p.stderr}"):
        sys.exit(1)
    return p.stdout


def damage(stream, at):
    """The first packet's timestamp_begin, at byte `at`, set to all ones:
    libbabeltrace2 2.0 asserts it is not (SIGABRT)."""
    with open(stream, "r+b") as f:
        f.seek(at)
        f.write(b"\xff" * 8)


def check_damaged_packet(nccltap, trace):
    kernel = os.path.join(trace, "kernel")
    # After lttng-modules' packet header (magic, uuid, stream_id, stream_instance_id).
    damage(os.path.join(kernel, "channel0_0"), 32)
    p = subprocess.run([nccltap, "report", trace], capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, f"a damaged kernel trace: the report ends well (exit {p.returncode}): {p.stderr}")
    check(f"reading the trace in {kernel}: the trace is damaged and is left out" in p.stderr,
          f"the damaged trace is named: {p.stderr}")
    check("4 in 4 processes" in p.stdout and "the trace has no kernel events" in p.stdout,
          f"the user-space trace is reported all the same: {p.stdout[:600]}")

    shutil.rmtree(kernel)
    ust = os.path.join(trace, "ust", "uid", "0", "64-bit")
    # After sink.ctf.fs's header and the packet context's sizes before it.
    damage(os.path.join(ust, "nccltap_0"), 52)
    p = subprocess.run([nccltap, "report", trace], capture_output=True, text=True, timeout=60)
    check(p.returncode == 1, f"the only trace damaged: exit status 1, not a signal ({p.returncode}): {p.stderr}")
    check(f"reading the trace in {ust}: the trace is damaged and is left out" in p.stderr and
          "no trace in" in p.stderr, f"it is named, and that nothing could be read: {p.stderr}")
    return 1 if FAILED else 0


def main():
    case, nccltap, work = sys.argv[1:4]
    py = python_with_bt2()
    if not py:
        if os.environ.get("CI") == "true":
            print("FAIL: no Python with babeltrace2's bindings (python3-bt2); CI must have it (tools/deps.sh)")
            return 1
        print("no Python with babeltrace2's bindings (python3-bt2): skipped")
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    trace = os.path.join(work, "trace")
    fixture = {"no_kernel": "straggler", "shim_only": "both", "damaged_packet": "straggler"}.get(case, case)
    subprocess.run([py, os.path.join(HERE, "kernel_trace_fixture.py"), fixture, trace],
                   check=True, capture_output=True)
    if case in ("no_kernel", "shim_only"):
        shutil.rmtree(os.path.join(trace, "kernel"))
    else:
        # The kernel trace as lttng-modules writes it: comm fields are
        # char[16] text arrays (ctf_array_text), not CTF strings.
        with open(os.path.join(trace, "kernel", "metadata")) as f:
            meta = f.read()
        array = "integer { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _%s[16];"
        check(all(array % n in meta for n in ("prev_comm", "next_comm", "comm", "child_comm")) and
              "string _prev_comm" not in meta, "the fixture's comm fields are lttng-modules' char[16] arrays")

    if case == "damaged_packet":
        return check_damaged_packet(nccltap, trace)

    doc = json.loads(report(nccltap, trace, "--json"))
    text = report(nccltap, trace)
    # The user-space side is read as before, kernel streams beside it or not.
    check(doc["totals"]["calls"] == 24 and len(doc["ranks"]) == 4,
          f"4 ranks, 24 calls: {doc['totals']}, {doc['ranks']}")

    if case == "no_kernel":
        check("os_interference" not in doc, "no os_interference without kernel events")
        check("the trace has no kernel events" in text, "the text says there are none")
        return 1 if FAILED else 0

    if case == "shim_only":
        # Rank 2's own records alone: the same row, without who ran instead.
        src = doc["os_sources"]
        check(src["kernel_hosts"] == 0 and src["shim_processes"] == 1, f"the shim's records of 1 process: {src}")
        rows = doc.get("os_interference") or [{}]
        w = rows[0]
        check(len(rows) == 1 and (w.get("rank"), w.get("seq"), w.get("source")) == (2, 2, "shim"),
              f"one row, rank 2's seq 2, from the shim: {rows}")
        check(within(w.get("preempted_us", 0), 400) and w.get("preempted_by") is None and w.get("straggler"),
              f"400 us preempted, by a task not known, the straggler: {w}")
        check("the context switches 1 process recorded (NCCLTAP_OS)" in text, "the text names the source")
        return 1 if FAILED else 0

    rows = doc.get("os_interference")
    if not check(isinstance(rows, list), f"os_interference is a list: {doc.keys()}"):
        return 1
    section = text[text.find("OS interference"):]
    check(text.find("OS interference") >= 0, "the text report has the OS section")
    if case == "clean":
        check(rows == [], f"no row for a clean run: {rows}")
        check("none: no op's threads lost" in section, f"the section says none:\n{section}")
    elif case in ("straggler", "both"):
        if case == "both":
            # Rank 2's own records of the same switch are left for the
            # kernel's: counted once, and the report says which it used.
            src = doc["os_sources"]
            check(src["kernel_hosts"] == 1 and src["shim_processes"] == 0 and src["shim_unused"] == 1,
                  f"the kernel trace used, the shim's records of 1 process not: {src}")
            check(all(w["source"] == "kernel" for w in rows), f"rows from the kernel: {rows}")
            check("Kernel events are used for 1 process that also recorded its own context" in text,
                  "the text says which source it used")
        if check(len(rows) == 1, f"one row: {rows}"):
            w = rows[0]
            check((w["rank"], w["seq"], w["op"]) == (2, 2, "AllReduce"),
                  f"rank 2's AllReduce seq 2: {w}")
            check(w["comm"] == "5eed0000c0ffee01", f"the communicator: {w['comm']}")
            check(w["preempted_by"] == "stress-ng-cpu", f"preempted by stress-ng-cpu: {w}")
            check(within(w["offcpu_us"], 400) and within(w["preempted_us"], 400),
                  f"400 us off the CPU, preempted: {w}")
            check(w["irq_us"] == 0 and w["thread"] == "python3" and w["tid"] == 4103,
                  f"the calling thread, no IRQ: {w}")
            # The preemption is before its own call: it is found in the wait
            # it caused (crossrank's straggler), 402 us after rank 0's start.
            check(w["straggler"] is True and within(w["wait_us"], 402),
                  f"the straggler of seq 2, 402 us late: {w}")
            check("stress-ng-cpu" in section and "400.0" in section,
                  f"the text names the task and the time:\n{section}")
    elif case == "irq_storm":
        if check(len(rows) == 1, f"one row: {rows}"):
            w = rows[0]
            check((w["rank"], w["seq"]) == (1, 3), f"rank 1's seq 3: {w}")
            check(within(w["irq_us"], 50 * 10), f"500 us of interrupts: {w}")
            check(w["irq_name"] == "mlx5_comp5" and w["irq"] == 77, f"IRQ 77 mlx5_comp5: {w}")
            check(w["thread"] == "NCCL Progress 0" and w["tid"] == 4202,
                  f"on the proxy thread's CPU: {w}")
            check(w["offcpu_us"] == 0 and w["preempted_by"] is None, f"not preempted: {w}")
            check(w["straggler"] is False, f"not a straggler: {w}")
            check("mlx5_comp5" in section, f"the text names the IRQ:\n{section}")
    elif case == "in_op":
        if check(len(rows) == 1, f"one row: {rows}"):
            w = rows[0]
            check((w["rank"], w["seq"], w["op"]) == (3, 4, "AllReduce"), f"rank 3's AllReduce seq 4: {w}")
            check(w["preempted_by"] == "kworker/7:1", f"preempted by kworker/7:1: {w}")
            check(within(w["offcpu_us"], 300) and within(w["preempted_us"], 300),
                  f"300 us off the CPU, preempted: {w}")
            check(w["thread"] == "NCCL Progress 0" and w["tid"] == 4204 and w["irq_us"] == 0,
                  f"rank 3's proxy thread, no IRQ: {w}")
            check(w["straggler"] is False, f"not a straggler (it arrived on time): {w}")
            check("kworker/7:1" in section, f"the text names the task:\n{section}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
