#!/usr/bin/env python3
"""Runs one application under the shim and checks what the shim wrote.

The application prints what it did, one JSON object a line (see
tests/apps/api_exercise.c): {"expect": "calls", ...}, {"expect": "totals",
...} and {"result": NAME, "code": N}. This script runs it with LD_PRELOAD
set to the shim and NCCLTAP_DIR set to a fresh directory, then compares
every per-rank file with those expectations. Exit 0 when all hold.
"""
import argparse
import codecs
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from testlib import fail  # noqa: E402


def run_and_kill(cmd, env, out_dir, sig):
    """Runs `cmd`, sends `sig` once its rank file has been rewritten."""
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    first = None
    while time.monotonic() < deadline:
        files = glob.glob(os.path.join(out_dir, "nccltap-*.json"))
        if files:
            mtime = os.stat(files[0]).st_mtime_ns
            if first is None:
                first = mtime
            elif mtime != first:
                break
        time.sleep(0.01)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def check_ops_field(out_dir, key, value, n):
    """Exactly `n` lines of the per-op logs have `key` equal to `value`."""
    got = 0
    for path in glob.glob(os.path.join(out_dir, "nccltap-*.ops.jsonl")):
        with open(path) as f:
            got += sum(1 for line in f if json.loads(line).get(key) == value)
    if got != n:
        fail("%d per-op lines with %s=%r, expected %d" % (got, key, value, n))


def check_ops_duration(out_dir, op, min_ns, n):
    """Exactly `n` lines of the per-op logs are of `op` and lasted at least
    `min_ns` (a one-sided wait: the time until its signal came)."""
    got = 0
    for path in glob.glob(os.path.join(out_dir, "nccltap-*.ops.jsonl")):
        with open(path) as f:
            got += sum(1 for line in f if (o := json.loads(line))["op"] == op and o["duration_ns"] >= min_ns)
    if got != n:
        fail("%d per-op lines of %s lasting %d ns or more, expected %d" % (got, op, min_ns, n))


def check_ops_lines(out_dir, n):
    """The per-op logs hold exactly `n` lines, each whole and once."""
    seen = set()
    lines = 0
    for path in glob.glob(os.path.join(out_dir, "nccltap-*.ops.jsonl")):
        with open(path) as f:
            for line in f:
                lines += 1
                try:
                    o = json.loads(line)
                except ValueError:
                    fail("%s: a torn line: %r" % (path, line[:80]))
                key = (o["comm"], o["seq"])
                if key in seen:
                    fail("%s: op %s written twice" % (path, key))
                seen.add(key)
    if lines != n:
        fail("%d per-op lines, expected %d" % (lines, n))


def check_ops_capacity(out_dir, mb, nfiles):
    """Every per-op file's ring holds `mb` MiB of records
    (preload/writers/ops_file_format.h: record_bytes at 20, capacity at
    24, native byte order); one per rank file."""
    paths = glob.glob(os.path.join(out_dir, "nccltap-*.ops"))
    if len(paths) != nfiles or not paths:
        fail("%d per-op files for %d rank files" % (len(paths), nfiles))
    for path in paths:
        with open(path, "rb") as f:
            head = f.read(32)
        record_bytes, = struct.unpack_from("=I", head, 20)
        capacity, = struct.unpack_from("=Q", head, 24)
        if capacity != (mb << 20) // record_bytes:
            fail("%s: a ring of %d records of %d bytes (%.1f MiB), expected %d MiB"
                 % (path, capacity, record_bytes, capacity * record_bytes / 2**20, mb))


# Runs a command in a UTS namespace of its own, under the hostname in
# argv[1] (bytes, any), with LD_PRELOAD from NCCLTAP_CASE_PRELOAD: unshare
# and this helper run without the shim or a sanitizer's runtime.
HOSTNAME_HELPER = """import os, socket, sys
socket.sethostname(os.fsencode(sys.argv[1]))
os.environ["LD_PRELOAD"] = os.environ.pop("NCCLTAP_CASE_PRELOAD")
os.execvp(sys.argv[2], sys.argv[2:])
"""


def with_hostname(cmd, env, raw):
    """`cmd` under the hostname `raw` (bytes), or exit 77 where a UTS
    namespace cannot be made (not root, no unshare)."""
    plain = {k: v for k, v in env.items() if k != "LD_PRELOAD"}
    try:
        probe = subprocess.run(["unshare", "-u", "true"], env=plain, capture_output=True, timeout=30)
    except OSError as e:
        probe = subprocess.CompletedProcess([], 1, b"", str(e).encode())
    if probe.returncode != 0:
        print("SKIP: cannot make a UTS namespace (unshare -u needs root): %s" % probe.stderr.decode().strip())
        sys.exit(77)
    plain["NCCLTAP_CASE_PRELOAD"] = env.get("LD_PRELOAD", "")
    return (["unshare", "-u", sys.executable, "-c", HOSTNAME_HELPER, os.fsdecode(raw)] + cmd, plain)


def check_callsites(path, doc, depth, calls):
    """--callsite-depth: see its help."""
    if doc.get("callsite_depth") != depth:
        fail("%s: callsite_depth %s, expected %d" % (path, doc.get("callsite_depth"), depth))
    lengths = [len(s["frames"]) for s in doc["callsites"]]
    if not lengths or not all(1 <= n <= depth for n in lengths) or (depth > 1 and max(lengths) < 2):
        fail("%s: call sites of %s frames, expected 1 to %d" % (path, lengths, depth))
    at_sites = sum(r["calls"] for s in doc["callsites"] for r in s["rows"])
    if at_sites != calls:
        fail("%s: %d calls at call sites, %d in rows" % (path, at_sites, calls))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shim", required=True)
    ap.add_argument("--sim", help="directory holding the simulated libnccl/libcuda")
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE for the application")
    ap.add_argument("--result", action="append", default=[], help="NAME=CODE the app must print")
    ap.add_argument("--expect-dropped", action="store_true",
                    help="records must have been dropped; rows then hold only the rest")
    ap.add_argument("--timed-all", action="store_true", help="every row: timed == calls")
    ap.add_argument("--stderr-has", action="append", default=[], help="text stderr must contain")
    ap.add_argument("--stderr-count", action="append", default=[], help="TEXT=N: occurrences in stderr")
    ap.add_argument("--stderr-empty", action="store_true")
    ap.add_argument("--no-files", action="store_true", help="the shim must write nothing")
    ap.add_argument("--exit-code", type=int, default=0)
    ap.add_argument("--calls-unknown", action="store_true", help="the application cannot know its calls "
                    "(they go on during exit): the files must agree with themselves")
    ap.add_argument("--final-in-flight-ok", action="store_true", help="a final file may count calls "
                    "in_flight (not reduced within NCCLTAP_EXIT_WAIT_MS); they must still add up")
    ap.add_argument("--exit-within-ms", type=int, help="the process ends within this many ms of the "
                    "exit() whose time it prints ({\"exit_called_ns\": CLOCK_MONOTONIC ns})")
    ap.add_argument("--kill-after-file", metavar="SIGNAL", type=int,
                    help="send SIGNAL once the rank file has been written twice; "
                    "the files left must still add up (not final, calls in flight)")
    ap.add_argument("--ops-log", choices=["yes", "no"], help="each rank file has a per-op log, or none has")
    ap.add_argument("--out-mode", help="octal mode given to the output directory before the run")
    ap.add_argument("--subdir-mode", help="NCCLTAP_DIR is a new subdirectory: the shim must create "
                    "it with this octal mode, and its files 0600")
    ap.add_argument("--callsite-depth", type=int, help="each rank file's call sites have this depth, "
                    "sites that many frames or (past the stack's end) fewer, more than one where it is "
                    "above 1, and every call in a row is at a site")
    ap.add_argument("--hostname", help="run in a UTS namespace under this hostname (\\xNN escapes for "
                    "any byte; exit 77 where none can be made): each rank file's host must be it, "
                    "decoded as UTF-8 with U+FFFD for what is not, the file valid UTF-8 JSON")
    ap.add_argument("--nccl-library-shim-copy", choices=["path", "name"],
                    help="NCCLTAP_NCCL_LIBRARY names a copy of the shim (another file, another "
                    "address): by its path, or by its file name in a directory on LD_LIBRARY_PATH")
    ap.add_argument("--os-callers", type=int, help="each rank file's context-switch records follow this many "
                    "calling threads, with no note (nothing refused)")
    ap.add_argument("--plain-names", action="store_true", help="no file is named as a later exec() image's "
                    "(+execN): the image that wrote is the first that wrote")
    ap.add_argument("--ops-capacity-mb", type=int, help="each per-op file (.ops) is a ring of this many MiB "
                    "(its header's capacity in records)")
    ap.add_argument("--preload-after", help="a library preloaded right after the shim (a watcher of its calls)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd

    out_dir = tempfile.mkdtemp(prefix="nccltap-test-")
    env = dict(os.environ)
    preload = env.get("LD_PRELOAD", "")
    env["LD_PRELOAD"] = ":".join(p for p in (a.shim, a.preload_after, preload) if p)
    if a.sim:
        env["LD_LIBRARY_PATH"] = a.sim + ":" + env.get("LD_LIBRARY_PATH", "")
    env["NCCLTAP_DIR"] = out_dir
    if a.out_mode:
        os.chmod(out_dir, int(a.out_mode, 8))
    if a.subdir_mode:
        env["NCCLTAP_DIR"] = os.path.join(out_dir, "made-by-the-shim")
    copy_dir = None
    if a.nccl_library_shim_copy:
        copy_dir = tempfile.mkdtemp(prefix="nccltap-copy-")
        copy = os.path.join(copy_dir, "libnccltap-copy.so")
        shutil.copy(a.shim, copy)
        if a.nccl_library_shim_copy == "path":
            env["NCCLTAP_NCCL_LIBRARY"] = copy
        else:
            env["NCCLTAP_NCCL_LIBRARY"] = os.path.basename(copy)
            env["LD_LIBRARY_PATH"] = env.get("LD_LIBRARY_PATH", "") + ":" + copy_dir
    for kv in a.env:
        k, _, v = kv.partition("=")
        env[k] = v
    want_host = None
    if a.hostname:
        raw = codecs.escape_decode(a.hostname.encode())[0]
        want_host = raw.decode("utf-8", "replace")
        cmd, env = with_hostname(cmd, env, raw)
    if a.kill_after_file:
        p = run_and_kill(cmd, env, env["NCCLTAP_DIR"], a.kill_after_file)
    else:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    ended_ns = time.monotonic_ns()
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if copy_dir:
        shutil.rmtree(copy_dir, ignore_errors=True)
    if p.returncode != a.exit_code:
        fail("exit code %d, expected %d" % (p.returncode, a.exit_code))

    for text in a.stderr_has:
        if text not in p.stderr:
            fail("stderr lacks %r" % text)
    for spec in a.stderr_count:
        text, _, n = spec.rpartition("=")
        if p.stderr.count(text) != int(n):
            fail("stderr has %r %d times, expected %s" % (text, p.stderr.count(text), n))
    if a.stderr_empty and p.stderr:
        fail("stderr is not empty")

    if a.subdir_mode:
        made = env["NCCLTAP_DIR"]
        mode = os.stat(made).st_mode & 0o7777
        if mode != int(a.subdir_mode, 8):
            fail("%s has mode %o, expected %s" % (made, mode, a.subdir_mode))
        for name in os.listdir(made):
            fmode = os.stat(os.path.join(made, name)).st_mode & 0o7777
            if fmode != 0o600:
                fail("%s has mode %o, expected 600" % (name, fmode))
        out_dir = made
    # Rank files; a hang file (*.hang.json) is another format.
    files = sorted(p for p in glob.glob(os.path.join(out_dir, "nccltap-*.json")) if not p.endswith(".hang.json"))
    if a.plain_names and any("+exec" in n for n in os.listdir(out_dir)):
        fail("files named as a later image: %s" % os.listdir(out_dir))
    if a.no_files:
        if os.path.exists(out_dir) and os.listdir(out_dir):
            fail("the shim wrote %s" % os.listdir(out_dir))
        shutil.rmtree(out_dir, ignore_errors=True)
        print("ok: nothing written")
        return

    expect_calls = defaultdict(int)
    expect_totals = {}
    expect_names = {}
    ops_lines = None
    ops_fields = []
    ops_durations = []
    entry_points = {}
    results = {}
    for line in p.stdout.splitlines():
        if not line.startswith("{"):
            continue
        o = json.loads(line)
        if o.get("expect") == "calls":
            expect_calls[(o["origin"], o["rank"], o["op"])] += o["n"]
        elif o.get("expect") == "comm_name":
            expect_names[o["name"]] = o["calls"]
        elif o.get("expect") == "totals":
            expect_totals[o["key"]] = o["n"]
        elif o.get("expect") == "ops_lines":
            ops_lines = o["n"]
        elif o.get("expect") == "entry_point":
            entry_points[o["name"]] = {"calls": o["calls"], "failed": o["failed"]}
        elif o.get("expect") == "ops_field":
            ops_fields.append((o["key"], o["value"], o["n"]))
        elif o.get("expect") == "ops_duration":
            ops_durations.append((o["op"], o["min_ns"], o["n"]))
        elif "result" in o:
            results[o["result"]] = o["code"]
        elif "exit_called_ns" in o and a.exit_within_ms is not None:
            took_ms = (ended_ns - o["exit_called_ns"]) / 1e6
            if took_ms > a.exit_within_ms:
                fail("the process ended %.0f ms after exit(), more than %d" % (took_ms, a.exit_within_ms))

    seen = defaultdict(int)
    totals = defaultdict(int)
    named = defaultdict(int)
    for path in files:
        with open(path, encoding="utf-8", errors="strict") as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                fail("%s is not valid UTF-8 JSON: %s" % (path, e))
        if want_host is not None and doc.get("host") != want_host:
            fail("%s: host %r, expected %r" % (path, doc.get("host"), want_host))
        if not doc["final"] and not a.kill_after_file:
            fail("%s is not final" % path)
        origin = {c["id"]: c["origin"] for c in doc["comms"]}
        for c in doc["comms"]:
            named[c["name"]] += c["calls"]
        rows = 0
        for row in doc["ops"]:
            seen[(origin[row["comm"]], row["rank"], row["op"])] += row["calls"]
            rows += row["calls"]
            if a.timed_all and row["timed"] != row["calls"]:
                fail("%s: %s %s timed %d of %d calls" % (path, row["op"], row["bytes"], row["timed"], row["calls"]))
        t = doc["totals"]
        for k, v in t.items():
            totals[k] += v
        # Every call is in a row, or counted as dropped, failed, simulated or
        # made after exit began, or (in a file written before the end) still
        # in flight.
        after_exit = t.get("after_exit", 0)
        if rows + t["dropped"] + t["failed"] + t["simulated"] + after_exit + t.get("in_flight", 0) != t["calls"]:
            fail("%s: rows %d + dropped %d + failed %d + simulated %d + after exit %d + in flight %d != calls %d"
                 % (path, rows, t["dropped"], t["failed"], t["simulated"], after_exit, t.get("in_flight", 0),
                    t["calls"]))
        if doc["final"] and t.get("in_flight", 0) and not a.final_in_flight_ok:
            fail("%s: final, with %d calls in flight" % (path, t["in_flight"]))
        if a.callsite_depth is not None:
            check_callsites(path, doc, a.callsite_depth, rows)
        if a.os_callers is not None:
            os_ = doc.get("os") or {}
            callers = sum(1 for t in os_.get("threads", []) if not t["nccl"])
            if os_.get("note") or callers != a.os_callers:
                fail("%s: context switches of %d calling threads (note %r), expected %d and no note"
                     % (path, callers, os_.get("note"), a.os_callers))
    if want_host is not None and not files:
        fail("no rank file to check the host in")
    totals["files"] = len(files)
    if ops_lines is not None:
        check_ops_lines(out_dir, ops_lines)
    if entry_points:
        got = {}
        for path in files:
            with open(path) as f:
                for name, c in json.load(f).get("entry_points", {}).items():
                    got.setdefault(name, {"calls": 0, "failed": 0})
                    got[name]["calls"] += c["calls"]
                    got[name]["failed"] += c["failed"]
        if got != entry_points:
            fail("entry points %r, expected %r" % (got, entry_points))
    for key, value, n in ops_fields:
        check_ops_field(out_dir, key, value, n)
    for op, min_ns, n in ops_durations:
        check_ops_duration(out_dir, op, min_ns, n)
    if a.ops_log:
        logs = glob.glob(os.path.join(out_dir, "nccltap-*.jsonl"))  # either format
        want = len(files) if a.ops_log == "yes" else 0
        if len(logs) != want or not files:
            fail("%d per-op logs for %d rank files, expected %d" % (len(logs), len(files), want))

    if a.ops_capacity_mb is not None:
        check_ops_capacity(out_dir, a.ops_capacity_mb, len(files))
    if a.kill_after_file or a.calls_unknown:
        # Killed, or calling on during exit: what the application did is not
        # known, the files must agree.
        if not files or totals["calls"] == 0:
            fail("no rank file with calls")
        seen.clear()
    if a.expect_dropped:
        if totals["dropped"] == 0:
            fail("nothing was dropped")
        expect_calls.clear()
        seen.clear()
    for key in sorted(set(seen) | set(expect_calls)):
        if seen[key] != expect_calls[key]:
            fail("calls for %s: shim saw %d, the application made %d" % (key, seen[key], expect_calls[key]))
    for name, calls in expect_names.items():
        if named[name] != calls:
            fail("communicator named %r: %d calls, expected %d" % (name, named[name], calls))
    for k, v in expect_totals.items():
        if totals[k] != v:
            fail("totals.%s = %d, expected %d" % (k, totals[k], v))
    for spec in a.result:
        name, _, code = spec.partition("=")
        if results.get(name) != int(code):
            fail("result %s = %s, expected %s" % (name, results.get(name), code))
    shutil.rmtree(out_dir, ignore_errors=True)
    print("ok: %d files, %d calls checked" % (len(files), sum(seen.values())))


if __name__ == "__main__":
    main()
