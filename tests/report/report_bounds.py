#!/usr/bin/env python3
"""`nccltap report` on inputs whose fields are out of range or whose size
is out of proportion: each is left out and said, never trusted.

ops:      per-op records (binary .ops, and .ops.jsonl) of a run of 2 ranks,
          with one record of rank -5, 2^31-1 or 2 (past the communicator's
          2 ranks) among them: the report ends well, counts 1 record
          rejected in its totals (text and --json), names the file on
          stderr, and the straggler analysis still sees the good records.
sparse:   a sparse 100 GB .ops file: skipped with a message naming it and
          its size; the rank file is still reported.
modules:  a rank file whose load map points at a FIFO, /dev/zero and
          /tmp/../dev/zero: the report ends (no blocking open) and
          symbolizes nothing from them.
tid:      per-op records of thread 0xffffffff (-1, the side of a context
          switch a process's own records do not know), one of rank 0 and
          one of rank -5, in a run whose rank files hold their context
          switches (NCCLTAP_OS): the record is left out and said; the text,
          --json, --findings, --html and --perfetto all end well, the OS
          section still names the thread that was preempted, and no
          temporary file (FILE.XXXXXX) is left.
threads:  160,000 per-op records, each of its own thread, beside
          context-switch records; and a rank file whose "os" lists 200,000
          threads, each preempted once: the text, --html and --perfetto
          each end within 30 s (once quadratic in the threads: minutes),
          and the OS section says the threads past its bound were not
          followed.
fsize:    --html and --perfetto past the file size limit (RLIMIT_FSIZE, so
          SIGXFSZ ends the report while it writes): neither the file nor
          its temporary file is left.

Usage: report_bounds.py ops|sparse|modules|tid|threads|fsize NCCLTAP TESTDATA WORKDIR
"""
import json
import glob
import os
import resource
import shutil
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import Checks, fresh  # noqa: E402

check = Checks(sys.stderr)
RECORD = struct.Struct("<QQQQQQQQQiiIHBB")  # struct tap_ops_record
HEADER_BYTES = 4096
COMM = 0x5CA1AB1E00C0FFEE
NOPS = 12


def report(nccltap, *args):
    try:
        return subprocess.run([nccltap, "report", *args], capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        check(False, f"the report of {args} ended within 30 s")
        return None


def header(capacity, written):
    names = b"AllReduce\0float32\0"
    h = struct.pack("<12sIIIQQQII", b"NCCLTAP-OPS\0", 0x01020304, 1, RECORD.size, capacity,
                    written, 0, 1, 1) + names
    return h + b"\0" * (HEADER_BYTES - len(h))


def rank_doc(pid, rank):
    return {
        "format": "nccltap-rank/1", "final": True, "host": "node", "pid": pid, "job": "bounds",
        "timing": "all", "timing_note": "", "wall_s": 1.0, "ranks": [rank],
        "comms": [{"id": "%016x" % COMM, "parent": "", "name": "world", "rank": rank,
                   "nranks": 2, "origin": "init", "state": "destroyed", "calls": NOPS}],
        "ops": [],
        "totals": {"calls": NOPS, "dropped": 0, "timed": NOPS, "untimed": 0, "captured": 0,
                   "pending": 0, "failed": 0},
    }


def records(rank):
    """NOPS AllReduces; rank 1 starts 100 us late at each: a straggler."""
    out = []
    for seq in range(NOPS):
        start = 1_000_000 + seq * 1_000_000 + (100_000 if rank == 1 else 0)
        out.append(dict(comm=COMM, seq=seq, bytes=1 << 20, enqueue_ns=start - 1000,
                        start_ns=start, end_ns=1_000_000 + seq * 1_000_000 + 140_000,
                        rank=rank, peer=-1))
    return out


# Each alone, so that each defect is seen on its own: a negative rank wrote
# out of the straggler analysis's arrays, 2^31-1 made it allocate 2^31
# entries, 2 is one past a communicator of 2 ranks.
HOSTILE_RANKS = (-5, 2**31 - 1, 2)


def hostile(seq, rank):
    return [dict(comm=COMM, seq=seq, bytes=1 << 20, enqueue_ns=1000, start_ns=2000,
                 end_ns=3000, rank=rank, peer=-1)]


def write_ops(path, recs):
    with open(path, "wb") as f:
        f.write(header(len(recs), len(recs)))
        for r in recs:
            f.write(RECORD.pack(r["comm"], r["seq"], 1 << 18, r["bytes"], 0, 0, r["enqueue_ns"],
                                r["start_ns"], r["end_ns"], r["rank"], r["peer"], r.get("tid", 7), 1, 0, 0))


def write_jsonl(path, recs):
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(dict(r, comm="%016x" % r["comm"], op="AllReduce", dtype="float32",
                                    tid=r.get("tid", 7), group_ops=1)) + "\n")


def run_dir(d, writer, suffix, bad_rank):
    for pid, rank in ((101, 0), (102, 1)):
        base = os.path.join(d, f"nccltap-node-{pid}")
        with open(base + ".json", "w") as f:
            json.dump(rank_doc(pid, rank), f)
        recs = records(rank)
        if rank == 1:  # the hostile record sits among the good ones
            recs = recs[:6] + hostile(5, bad_rank) + recs[6:]
        writer(base + suffix, recs)


def check_ops(nccltap, _testdata, work):
    for kind, writer, suffix in (("binary", write_ops, ".ops"), ("jsonl", write_jsonl, ".ops.jsonl")):
        for bad_rank in HOSTILE_RANKS:
            what = f"{kind}, rank {bad_rank}"
            d = fresh(os.path.join(work, f"{kind}{bad_rank}"))
            run_dir(d, writer, suffix, bad_rank)
            p = report(nccltap, d)
            if p is None:
                continue
            err = p.stderr.decode()
            check(p.returncode == 0, f"{what}: the report ends well (exit {p.returncode}): {err[-2000:]}")
            check(f"nccltap-node-102{suffix}: 1 per-op record out of range left out (the first: "
                  "a rank outside its communicator)" in err,
                  f"{what}: the file with the bad record is named, with the reason: {err[-2000:]}")
            check(b"rejected   1 record out of range" in p.stdout,
                  f"{what}: the text totals count the rejected record")
            check(b"straggler" in p.stdout.lower(), f"{what}: the good records are still analysed")
            p = report(nccltap, "--json", d)
            if p is None or p.returncode != 0:
                check(False, f"{what}: --json ends well")
                continue
            j = json.loads(p.stdout)
            check(j.get("records_rejected") == 1,
                  f"{what}: --json records_rejected is 1: {j.get('records_rejected')}")


def check_sparse(nccltap, _testdata, work):
    d = fresh(os.path.join(work, "sparse"))
    base = os.path.join(d, "nccltap-node-101")
    with open(base + ".json", "w") as f:
        json.dump(rank_doc(101, 0), f)
    size = 100 << 30
    with open(base + ".ops", "wb") as f:
        f.write(header((size - HEADER_BYTES) // RECORD.size, (size - HEADER_BYTES) // RECORD.size))
        f.truncate(size)  # sparse: no disk used
    p = report(nccltap, d)
    os.unlink(base + ".ops")
    if p is None:
        return
    err = p.stderr.decode()
    check(p.returncode == 0, f"the rank file is still reported (exit {p.returncode}): {err[-2000:]}")
    check("nccltap-node-101.ops: 100.0 GiB, over the limit" in err,
          f"the oversized per-op file is named with its size: {err[-2000:]}")
    check(b"1 in 1 process" in p.stdout, "the rank file is in the report")


# Thread 7 ("main") of each process, preempted 80 us in op 0 (1.0 ms to
# 1.14 ms), then sleeping 10 us after op 1 (2.0 ms to 2.14 ms): its
# records name no other task, so a report that took their unknown side
# (tid -1) for a thread saw one preempted from 1.09 ms to 2.3 ms, the
# worst in op 1, with no name.
def os_section():
    return {"mode": "switch", "note": "", "threads": [{"tid": 7, "comm": "main"}],
            "off": [[7, 0, 1_010_000, 1_090_000, 1], [7, 0, 2_300_000, 2_310_000, 0]]}


def leftovers(d):
    return [os.path.basename(p) for p in glob.glob(os.path.join(d, "*.??????"))]


def check_tid(nccltap, _testdata, work):
    for kind, writer, suffix in (("binary", write_ops, ".ops"), ("jsonl", write_jsonl, ".ops.jsonl")):
        for bad_rank in (0, -5):
            what = f"{kind}, tid 0xffffffff of rank {bad_rank}"
            d = fresh(os.path.join(work, f"{kind}{bad_rank}"))
            for pid, rank in ((101, 0), (102, 1)):
                base = os.path.join(d, f"nccltap-node-{pid}")
                doc = rank_doc(pid, rank)
                doc["os"] = os_section()
                with open(base + ".json", "w") as f:
                    json.dump(doc, f)
                recs = records(rank)
                if rank == 0:
                    bad = hostile(5, bad_rank)
                    bad[0]["tid"] = 0xFFFFFFFF
                    recs = recs[:6] + bad + recs[6:]
                writer(base + suffix, recs)
            reason = "a thread id past Linux's 2^22" if bad_rank == 0 else "a rank outside its communicator"
            runs = (("text", []), ("--json", ["--json"]), ("--findings", ["--findings"]),
                    ("--html", ["--html", os.path.join(d, "page.html")]),
                    ("--perfetto", ["--perfetto", os.path.join(d, "trace.json")]))
            for name, opts in runs:
                p = report(nccltap, *opts, d)
                if p is None:
                    continue
                err = p.stderr.decode()
                # --findings: 1 when it found something (the OS finding).
                check(p.returncode in ((0, 1) if name == "--findings" else (0,)),
                      f"{what}: {name} ends well (exit {p.returncode}): {err[-2000:]}")
                check(f"nccltap-node-101{suffix}: 1 per-op record out of range left out (the first: "
                      f"{reason})" in err, f"{what}: {name} names the file and the reason: {err[-2000:]}")
                if name == "text":
                    out = p.stdout.decode()
                    check("rejected   1 record out of range" in out, f"{what}: the text counts it")
                    check(" main (7)\n" in out, f"{what}: the OS section names the preempted thread: "
                          f"{out[out.find('OS interference'):][:1500]}")
            check(os.path.exists(os.path.join(d, "page.html")), f"{what}: --html wrote its page")
            check(os.path.exists(os.path.join(d, "trace.json")), f"{what}: --perfetto wrote its trace")
            check(not leftovers(d), f"{what}: no temporary file left: {leftovers(d)}")


def many_threads_dir(d, nops, nthreads):
    """One process: nops AllReduces 2 us apart, the Nth called by thread N+1
    when nthreads is 0; else thread 7's, and an "os" of nthreads threads,
    thread t preempted 5 us from 1 ms + 10 t ns."""
    doc = rank_doc(101, 0)
    doc["comms"][0]["nranks"] = 1
    doc["os"] = {"mode": "switch", "note": "", "threads": [{"tid": 7, "comm": "main"}],
                 "off": [[7, 0, 1_010_000, 1_090_000, 1]]}
    if nthreads:
        doc["os"]["threads"] = [{"tid": t, "comm": "t%d" % t} for t in range(1, nthreads + 1)]
        doc["os"]["off"] = [[t, t % 64, 1_000_000 + 10 * t, 1_005_000 + 10 * t, 1]
                            for t in range(1, nthreads + 1)]
    with open(os.path.join(d, "nccltap-node-101.json"), "w") as f:
        json.dump(doc, f)
    recs = [dict(comm=COMM, seq=seq, bytes=1 << 20, enqueue_ns=1_000_000 + 2_000 * seq,
                 start_ns=1_000_100 + 2_000 * seq, end_ns=1_001_500 + 2_000 * seq, rank=0, peer=-1,
                 tid=7 if nthreads else seq + 1) for seq in range(nops)]
    write_ops(os.path.join(d, "nccltap-node-101.ops"), recs)


def check_threads(nccltap, _testdata, work):
    for what, nops, nthreads in (("160,000 records of as many threads", 160_000, 0),
                                 ("an \"os\" of 200,000 threads", 2_000, 200_000)):
        d = fresh(os.path.join(work, str(nthreads)))
        many_threads_dir(d, nops, nthreads)
        for opts in ([], ["--html", os.path.join(d, "page.html")],
                     ["--perfetto", os.path.join(d, "trace.json")]):
            p = report(nccltap, *opts, d)
            if p is None:
                break  # said; the others would take as long
            check(p.returncode == 0, f"{what}: report {opts} ends well (exit {p.returncode}): "
                  f"{p.stderr.decode()[-2000:]}")
            if not opts and nthreads:
                out = p.stdout.decode()
                check(f"{nthreads - 1024} threads not followed" in out,
                      f"{what}: the threads past 1,024 are said not followed: "
                      f"{out[out.find('OS interference'):][:1000]}")


def check_fsize(nccltap, _testdata, work):
    d = fresh(os.path.join(work, "fsize"))
    run_dir(d, write_ops, ".ops", 0)

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    for opt, name in (("--html", "page.html"), ("--perfetto", "trace.json")):
        out = os.path.join(d, name)
        try:
            p = subprocess.run([nccltap, "report", opt, out, d], capture_output=True, timeout=30,
                               preexec_fn=small_files)
        except subprocess.TimeoutExpired:
            check(False, f"{opt}: the report ended within 30 s")
            continue
        check(p.returncode != 0, f"{opt}: a file past RLIMIT_FSIZE is not written (exit {p.returncode})")
        check(not os.path.exists(out), f"{opt}: no part of {name} is left")
        check(not leftovers(d), f"{opt}: no temporary file left: {leftovers(d)}")


def main_address(elf):
    """The address of `main` in elf (nm), or None."""
    try:
        out = subprocess.run(["nm", elf], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] == "T" and f[2] == "main":
            return int(f[0], 16)
    return None


def module_report(nccltap, testdata, d, path, build_id, addr):
    """The report of a rank file whose one call site is at `addr` in the
    object at `path`: its text, or None when it did not end."""
    with open(os.path.join(testdata, "callsites", "nccltap-node-1.json")) as f:
        doc = json.load(f)
    base = 0x100000000
    doc["modules"] = [{"path": path, "build_id": build_id, "base": hex(base), "start": hex(base),
                       "end": hex(base + (64 << 20))}]
    doc["callsites"] = doc["callsites"][:1]
    doc["callsites"][0]["frames"] = [hex(base + addr + 4)]
    fresh(d)
    with open(os.path.join(d, "nccltap-node-1.json"), "w") as f:
        json.dump(doc, f)
    p = report(nccltap, d)
    if p is None:
        return None
    check(p.returncode == 0, f"{path}: the report ends well (exit {p.returncode})")
    return p.stdout.decode()


def check_modules(nccltap, testdata, work):
    fifo = os.path.join(work, "lib.so")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    for build_id in ("", "ab" * 20):
        out = module_report(nccltap, testdata, os.path.join(work, "fifo"), fifo, build_id, 0x1000)
        check(out is not None and "lib.so+0x" in out,
              f"a FIFO in the load map (build id {build_id!r}) is not opened: the frame is lib.so+offset")
    addr = main_address(nccltap)
    if addr is None:
        print("no symbol table (nm): the /dev checks are skipped", file=sys.stderr)
        return
    # The control: a copy of this ELF file is symbolized, so the check
    # below can tell a file read from one refused.
    elf = os.path.join(work, "elf-copy")
    shutil.copy(nccltap, elf)
    out = module_report(nccltap, testdata, os.path.join(work, "control"), elf, "", addr)
    if out is None or " main" not in out:
        print("call sites are not symbolized here (no elfutils): the /dev checks are skipped",
              file=sys.stderr)
        return
    if not os.access("/dev/shm", os.W_OK):
        print("/dev/shm is not writable: the /dev check is skipped", file=sys.stderr)
        return
    in_dev = f"/dev/shm/nccltap-bounds-{os.getpid()}"
    shutil.copy(nccltap, in_dev)
    try:
        # Spelled through .. so that only a resolved path shows it is in /dev.
        sneaky = work + "/" + "../" * work.count("/") + in_dev.lstrip("/")
        for path in (in_dev, sneaky):
            out = module_report(nccltap, testdata, os.path.join(work, "dev"), path, "", addr)
            check(out is not None and " main" not in out and f"nccltap-bounds-{os.getpid()}+0x" in out,
                  f"an object under /dev ({path}) is not read")
    finally:
        os.unlink(in_dev)


def main():
    mode, nccltap, testdata, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    {"ops": check_ops, "sparse": check_sparse, "modules": check_modules, "tid": check_tid,
     "threads": check_threads, "fsize": check_fsize}[mode](nccltap, testdata, work)
    return check.result()


if __name__ == "__main__":
    sys.exit(main())
