#!/usr/bin/env python3
"""CTest cases for nccltap-bench on the simulated NCCL (tests/sim).

usage: bench_test.py BENCH CASE LIBDIR [COUNTER | VERSION]

COUNTER is tests/nccl_count.c built as a preload library (nccl_calls,
inplace_calls); VERSION the project's version (version).

CTest sets LD_LIBRARY_PATH to the simulator and NCCLSIM_LAT_US=0,
NCCLSIM_BUSBW_GBS=100, so an op of S bytes with bus factor f takes exactly
S*f/100e3 microseconds. Expected values are computed here from the
nccl-tests formulas, not read back from the bench.
"""
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests"))
from nccl_facts import FACTOR  # noqa: E402  busbw / algbw, nccl-tests conventions

BENCH, CASE, LIBDIR = sys.argv[1], sys.argv[2], sys.argv[3]
COUNTER = sys.argv[4] if len(sys.argv) > 4 else None
BUSBW = 100.0  # NCCLSIM_BUSBW_GBS
# The table's columns: nccl-tests' (size count type redop root, then time
# algbw busbw #wrong out of place and in place), then the bench's own.
COLUMNS = ["size", "count", "type", "redop", "root",
           "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong",
           "op", "oop-events", "ip-events"]
ROOTED = {"Broadcast", "Reduce", "Gather", "Scatter"}
REDUCING = {"AllReduce", "ReduceScatter", "Reduce"}

# --op name -> (JSON row names, count is per rank, bus factor(n))
OPS = {
    "allreduce": (["AllReduce"], False, FACTOR["AllReduce"]),
    "allgather": (["AllGather"], True, FACTOR["AllGather"]),
    "reducescatter": (["ReduceScatter"], True, FACTOR["ReduceScatter"]),
    "broadcast": (["Broadcast"], False, FACTOR["Broadcast"]),
    "reduce": (["Reduce"], False, FACTOR["Reduce"]),
    "alltoall": (["AlltoAll"], True, FACTOR["AlltoAll"]),
    "gather": (["Gather"], True, FACTOR["Gather"]),
    "scatter": (["Scatter"], True, FACTOR["Scatter"]),
    "sendrecv": (["Send", "Recv"], False, FACTOR["Send"]),
}
LAUNCHER_VARS = ["RANK", "WORLD_SIZE", "LOCAL_RANK", "OMPI_COMM_WORLD_RANK",
                 "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
                 "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID",
                 "SLURM_STEP_ID", "MASTER_PORT"]


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def near(got, want, rel=0.01):
    return abs(got - want) <= rel * abs(want)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in LAUNCHER_VARS}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def run(args, env=None, timeout=90):
    p = subprocess.run([BENCH] + args, capture_output=True, text=True,
                       env=env or clean_env(), timeout=timeout)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    return p


def run_ok(args, env=None):
    p = run(args, env)
    check(p.returncode == 0, f"{' '.join(args)}: exit {p.returncode}")
    return p


def load(path):
    with open(path) as f:
        return json.load(f)


def table_lines(stdout):
    """Data lines of the table, split in their 16 fields (strings)."""
    lines = []
    for line in stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        check(len(f) == len(COLUMNS), f"table line has {len(f)} fields: {line!r}")
        lines.append(f)
    return lines


def table_rows(stdout):
    """Out of place: (bytes, count, type, op, time, algbw, busbw, events)."""
    return [(int(f[0]), int(f[1]), f[2], f[13], float(f[5]), float(f[6]), float(f[7]), float(f[14]))
            for f in table_lines(stdout)]


def footer(stdout):
    """nccl-tests' closing lines: (results with wrong elements, "OK"/"FAILED", avg busbw)."""
    bad = [l for l in stdout.splitlines() if l.startswith("# Out of bounds values : ")]
    avg = [l for l in stdout.splitlines() if l.startswith("# Avg bus bandwidth    : ")]
    check(len(bad) == 1 and len(avg) == 1, f"footer lines {bad} {avg}")
    n, verdict = bad[0].split(":")[1].split()
    return int(n), verdict, float(avg[0].split(":")[1])


def expected_rows(ops, sizes, n, ts=4):
    """{(row op, bytes): count} for every op and size that is not skipped."""
    want = {}
    for op in ops:
        names, per_rank, _ = OPS[op]
        for s in sizes:
            count = s // (ts * n) if per_rank else s // ts
            if count == 0:
                continue
            nbytes = count * ts * n if per_rank else count * ts
            for name in names:
                want[(name, nbytes)] = count
    return want


def case_calls(tmp):
    """--warmup 0: exactly --iters calls per op and size, on every rank."""
    n, iters = 4, 7
    sizes = [8, 1024, 64 << 10, 1 << 20]
    p = run_ok(["--ranks", str(n), "--op", "all", "--bytes", "8,1K,64K,1M",
                "--warmup", "0", "--iters", str(iters), "--json", f"{tmp}/c.json"])
    want = expected_rows(list(OPS), sizes, n)
    for r in range(n):
        d = load(f"{tmp}/c.rank{r}.json")
        check(d["rank"] == r and d["nranks"] == n, f"rank {r}: header {d}")
        check(d["device"] == r, f"rank {r}: device {d['device']}")
        check(isinstance(d["nccl_version"], int) and d["nccl_version"] > 0, "nccl_version")
        got = {}
        for o in d["ops"]:
            key = (o["op"], o["bytes"])
            check(key not in got, f"rank {r}: row {key} twice")
            got[key] = o
            check(o["calls"] == iters, f"rank {r}: {key} calls {o['calls']} != {iters}")
            check(o["dtype"] == "float", f"rank {r}: {key} dtype {o['dtype']}")
            check(o["mean_us"] > 0 and o["wall_us"] > 0, f"rank {r}: {key} times {o}")
            check("per_call_us" not in o, f"rank {r}: per_call_us without --per-call")
        check(set(got) == set(want), f"rank {r}: rows {sorted(set(got) ^ set(want))} differ")
        for key, count in want.items():
            check(got[key]["count"] == count, f"rank {r}: {key} count {got[key]['count']} != {count}")
    # Rank 0's table: one line per op and size, a note per skipped size.
    lines = table_rows(p.stdout)
    check(len(lines) == len(want) - len(sizes), f"{len(lines)} table lines")
    skipped = len(OPS) * len(sizes) - (len(want) - len(sizes))
    notes = [l for l in p.stdout.splitlines() if l.startswith("#") and "skipped" in l]
    check(len(notes) == skipped, f"{len(notes)} skip notes, want {skipped}")
    check(" 4 ranks" in p.stdout and "NCCL 2.30.0" in p.stdout, "header")


def case_nccl_calls(tmp):
    """Counted by a preloaded library, not by the bench: with --warmup 0 the
    bench makes exactly --iters calls per op, size and thread, groups them
    as asked, and calls no other NCCL operation than init and destroy."""
    check(COUNTER, "no counter library given")
    n, t, iters, nsizes = 2, 2, 5, 2
    colls = ["ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclBroadcast",
             "ncclReduce", "ncclAlltoAll", "ncclGather", "ncclScatter"]
    for group in (1, 2):
        d = f"{tmp}/g{group}"
        os.mkdir(d)
        run_ok(["--ranks", str(n), "--threads", str(t), "--op", "all", "--bytes", "1K,1M",
                "--iters", str(iters), "--warmup", "0", "--group", str(group)],
               env=clean_env(LD_PRELOAD=COUNTER, NCCL_COUNT_DIR=d))
        per = nsizes * t      # (size, thread) pairs per op
        want = {fn: per * iters for fn in colls + ["ncclSend", "ncclRecv"]}
        # Send and Recv always meet in a group; other ops only with --group > 1.
        groups = -(-iters // group)
        want["ncclGroupStart"] = want["ncclGroupEnd"] = per * groups * (
            len(colls) + 1 if group > 1 else 1)
        want["ncclCommInitRank"] = want["ncclCommDestroy"] = t
        files = os.listdir(d)
        check(len(files) == n, f"--group {group}: {len(files)} processes called NCCL, want {n}")
        for name in files:
            with open(f"{d}/{name}") as f:
                got = {k: int(v) for k, v in (line.split() for line in f)}
            check(got == want, f"--group {group}: counted {got}, want {want}")


def case_busbw(tmp):
    """At 256 MiB each call's own events give the simulated 100 GB/s within
    1% (median over calls), and the busbw reported from the mean is within
    5%: the first call after a barrier also holds the ranks' arrival skew,
    as on GPUs, and 4 ranks on a 2-CPU machine can be descheduled for a
    time slice (a few ms): 60 calls of about 2.7 ms each, so that one such
    slice is 2% of a mean (20 calls: a rank's Broadcast read 93.2 GB/s on
    a fresh clone)."""
    n = 4
    ops = ["allreduce", "allgather", "reducescatter", "broadcast", "reduce",
           "alltoall", "gather", "scatter"]
    p = run_ok(["--ranks", str(n), "--op", ",".join(ops), "--bytes", "256M",
                "--iters", "60", "--warmup", "2", "--per-call", "--json", f"{tmp}/b.json"])
    for r in range(n):
        for o in load(f"{tmp}/b.rank{r}.json")["ops"]:
            check(o["bytes"] == 256 << 20, f"{o['op']} bytes {o['bytes']}")
            calls = sorted(o["per_call_us"])
            median_busbw = o["busbw_gbs"] * o["mean_us"] / calls[len(calls) // 2]
            check(near(median_busbw, BUSBW), f"rank {r}: {o['op']} median-call busbw {median_busbw}")
            check(near(o["busbw_gbs"], BUSBW, 0.05), f"rank {r}: {o['op']} busbw {o['busbw_gbs']}")
            check(near(o["algbw_gbs"], o["bytes"] / (o["mean_us"] * 1e3), 1e-3),
                  f"rank {r}: {o['op']} algbw is not S/mean")
            # Host time of back-to-back calls cannot beat the GPU time.
            check(o["wall_us"] >= o["mean_us"] * 0.99, f"rank {r}: {o['op']} wall < events")
    lines = table_rows(p.stdout)
    check([l[3] for l in lines] == [OPS[o][0][0] for o in ops], "table ops")
    factor = {OPS[o][0][0]: OPS[o][2](n) for o in ops}
    for nbytes, _, _, op, _, _, busbw, events in lines:
        check(busbw <= BUSBW * 1.01, f"table: {op} busbw {busbw} above the simulated bandwidth")
        check(near(events, nbytes * factor[op] / (BUSBW * 1e3), 0.05), f"table: {op} events mean {events}")


def case_sendrecv(tmp):
    """sendrecv: a Send row and a Recv row, each with --iters calls."""
    n, iters = 3, 5
    p = run_ok(["--ranks", str(n), "--op", "sendrecv", "--bytes", "1K,1M", "--iters", str(iters),
                "--warmup", "0", "--per-call", "--json", f"{tmp}/s.json"])
    for r in range(n):
        rows = load(f"{tmp}/s.rank{r}.json")["ops"]
        check([(o["op"], o["bytes"]) for o in rows] ==
              [("Send", 1024), ("Recv", 1024), ("Send", 1 << 20), ("Recv", 1 << 20)],
              f"rank {r}: rows {[(o['op'], o['bytes']) for o in rows]}")
        for o in rows:
            check(o["calls"] == iters and o["count"] == o["bytes"] // 4, f"rank {r}: {o}")
            check(len(o["per_call_us"]) == iters, f"rank {r}: per_call_us length")
            check(o["mean_us"] >= o["bytes"] / (BUSBW * 1e3) * 0.99, f"rank {r}: {o['op']} too fast")
        check(rows[0]["per_call_us"] == rows[1]["per_call_us"], "Send and Recv of one group differ")
    lines = table_rows(p.stdout)
    check([(l[0], l[3]) for l in lines] == [(1024, "SendRecv"), (1 << 20, "SendRecv")], "table")


def case_group(tmp):
    """--group K: K ops per group; each member gets the group's duration."""
    # Ops long enough that the host stays ahead of the simulated GPU, so
    # groups after the first start when the previous one ends.
    n, iters, k, s = 2, 10, 4, 16 << 20
    run_ok(["--ranks", str(n), "--op", "allreduce,sendrecv", "--group", str(k),
            "--iters", str(iters), "--warmup", "0", "--per-call", "--bytes", "16M",
            "--json", f"{tmp}/g.json"])
    one_op = s * OPS["allreduce"][2](n) / (BUSBW * 1e3)
    for r in range(n):
        rows = load(f"{tmp}/g.rank{r}.json")["ops"]
        check([o["op"] for o in rows] == ["AllReduce", "Send", "Recv"], f"rank {r}: rows")
        for o in rows:
            pc = o["per_call_us"]
            check(o["calls"] == iters and len(pc) == iters, f"rank {r}: {o['op']} calls")
            for lo, hi in ((0, 4), (4, 8), (8, 10)):
                check(len(set(pc[lo:hi])) == 1, f"rank {r}: {o['op']} group {lo}..{hi} {pc[lo:hi]}")
            # Groups after the first run back to back: exactly their members' time.
            check(near(pc[4], 2 * pc[8]), f"rank {r}: {o['op']} group of 4 {pc[4]} vs of 2 {pc[8]}")
        check(near(rows[0]["per_call_us"][4], k * one_op), f"rank {r}: AllReduce group of 4")
    # A group larger than --iters is one group.
    run_ok(["--ranks", "2", "--group", "16", "--iters", "5", "--warmup", "3", "--per-call",
            "--bytes", "64K", "--json", f"{tmp}/g2.json"])
    pc = load(f"{tmp}/g2.rank1.json")["ops"][0]["per_call_us"]
    check(len(pc) == 5 and len(set(pc)) == 1, f"one group: {pc}")


def case_threads(tmp):
    """--threads T: T communicators per rank; JSON sums their calls."""
    n, t, iters, s = 2, 3, 6, 64 << 20
    p = run_ok(["--ranks", str(n), "--threads", str(t), "--op", "allreduce,sendrecv",
                "--bytes", "64K,64M", "--iters", str(iters), "--warmup", "0", "--per-call",
                "--json", f"{tmp}/noext"])
    one_op = s * OPS["allreduce"][2](n) / (BUSBW * 1e3)
    for r in range(n):
        d = load(f"{tmp}/noext.rank{r}")
        check(d.get("threads") == t, "threads field")
        check(len(d["ops"]) == 6, f"rank {r}: {len(d['ops'])} rows")
        for o in d["ops"]:
            check(o["calls"] == iters * t, f"rank {r}: {o['op']} calls {o['calls']}")
            check(len(o["per_call_us"]) == iters * t, f"rank {r}: per_call_us length")
        big = [o for o in d["ops"] if o["op"] == "AllReduce" and o["bytes"] == s][0]
        # Every thread's calls after its first run back to back on its own
        # stream (at 64 MiB the host stays far ahead of the simulated GPU):
        # their median is the model's time. (A single call may also hold a
        # wait for the other rank's thread, descheduled on a loaded host.)
        for th in range(t):
            calls = sorted(big["per_call_us"][th * iters + 1:(th + 1) * iters])
            v = calls[len(calls) // 2]
            check(near(v, one_op), f"rank {r} thread {th}: AllReduce median call {v} us, want {one_op}")
    check(len(table_rows(p.stdout)) == 4, "one table line per op and size")


def launch_ranks(n, names, extra_env, args):
    procs = []
    for r in range(n):
        env = clean_env(**extra_env)
        env.update({names[0]: str(r), names[1]: str(n), names[2]: str(r)})
        procs.append(subprocess.Popen([BENCH] + args, env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    outs = []
    for r, p in enumerate(procs):
        out, err = p.communicate(timeout=90)
        sys.stdout.write(out)
        sys.stderr.write(err)
        check(p.returncode == 0, f"{names[0]}={r}: exit {p.returncode}")
        outs.append(out)
    return outs


def case_launcher(tmp):
    """Launcher mode: ranks from the environment, ids through a file."""
    n, iters = 3, 4
    launchers = [("RANK", "WORLD_SIZE", "LOCAL_RANK"),
                 ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
                 ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID")]
    for i, names in enumerate(launchers):
        d = f"{tmp}/l{i}"
        os.mkdir(d)
        outs = launch_ranks(n, names, {}, ["--id-file", f"{d}/id", "--op", "allreduce,sendrecv",
                                           "--bytes", "1K", "--iters", str(iters), "--warmup", "0",
                                           "--json", f"{d}/l.json"])
        check(" 3 ranks" in outs[0] and len(table_rows(outs[0])) == 2, f"{names[0]}: rank 0 table")
        check(all(o == "" for o in outs[1:]), "ranks other than 0 print nothing")
        for r in range(n):
            j = load(f"{d}/l.rank{r}.json")
            check(j["rank"] == r and j["nranks"] == n and j["device"] == r, f"{names[0]}: {j}")
            check([o["calls"] for o in j["ops"]] == [iters] * 3, f"{names[0]}: calls")
        left = sorted(os.listdir(d))
        check(left == [f"l.rank{r}.json" for r in range(n)], f"{names[0]}: left behind {left}")
    # The default id file: $TMPDIR/nccltap-bench-<key>, removed at the end.
    d = f"{tmp}/default"
    os.mkdir(d)
    launch_ranks(2, launchers[0], {"TMPDIR": d, "MASTER_PORT": "29512"},
                 ["--bytes", "1K", "--iters", "2"])
    check(os.listdir(d) == [], f"default id file left behind: {os.listdir(d)}")


def launch_one(rank, n, d, args):
    """Rank `rank` of `n` (torchrun's variables), ids through d/id."""
    env = clean_env(RANK=rank, WORLD_SIZE=n, LOCAL_RANK=rank)
    return subprocess.Popen([BENCH, "--id-file", f"{d}/id"] + args, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def finish(p, what, timeout=60):
    """(exit status, stdout, stderr) of p; a failure if it is still running after `timeout`."""
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        sys.stderr.write(err)
        fail(f"{what}: still running after {timeout} s (hung)")
    sys.stdout.write(out)
    sys.stderr.write(err)
    return p.returncode, out, err


def id_file_bytes(boot_id, pid, written_unix_s, nids=1):
    """An id file as rank 0 writes it (tools/bench/id_file.h): the header,
    then nids ncclUniqueIds of 128 bytes."""
    return struct.pack("<8siiiiQq40s40s", b"NCCLTAB2", 2, nids, pid, 0, 0, written_unix_s,
                       boot_id.encode(), b"pid:[1]") + os.urandom(128 * nids)


def rank1_first(d, args):
    """Rank 1 started a second before rank 0, so that it finds whatever id
    file is there first; returns both (status, stdout, stderr)."""
    p1 = launch_one(1, 2, d, args)
    time.sleep(1.0)
    p0 = launch_one(0, 2, d, args)
    return finish(p0, "rank 0"), finish(p1, "rank 1")


def case_launcher_stale(tmp):
    """An id file left under the run's name by an earlier run is no run's:
    a rank that finds it waits for this run's rank 0 to write its own and
    says so, whether the earlier run was on this host (its rank 0 was
    killed) or on another (written longer than --timeout ago). Before,
    rank 1 took the old ids and both ranks waited in ncclCommInitRank for
    ever. And --timeout bounds that wait too: a rank 0 whose rank 1 never
    comes gives up after it, saying where it waited."""
    args = ["--bytes", "1K", "--iters", "2", "--warmup", "0", "--timeout", "30"]
    # A run killed after its rank 0 wrote the ids (its rank 1 never came).
    d = f"{tmp}/killed"
    os.mkdir(d)
    p = launch_one(0, 2, d, args)
    for _ in range(400):
        if os.path.exists(f"{d}/id"):
            break
        time.sleep(0.05)
    p.kill()
    p.communicate()
    check(os.path.exists(f"{d}/id"), "the killed run left no id file: nothing tested")
    (rc0, out0, _), (rc1, _, err1) = rank1_first(d, args)
    check(rc0 == 0 and rc1 == 0, f"after a killed run: exit {rc0} and {rc1}")
    check(len(table_rows(out0)) == 1, "after a killed run: rank 0's table")
    check(f"{d}/id is not this run's (its rank 0, pid {p.pid}, is gone)" in err1,
          f"rank 1 does not say it left the killed run's id file alone: {err1!r}")
    check(os.listdir(d) == [], f"after a killed run: left behind {os.listdir(d)}")
    # Written on another host ten minutes ago: no process to look at, older than --timeout.
    d = f"{tmp}/other_host"
    os.mkdir(d)
    with open(os.open(f"{d}/id", os.O_WRONLY | os.O_CREAT, 0o600), "wb") as f:
        f.write(id_file_bytes("another-host", 4242, int(time.time()) - 600))
    (rc0, _, _), (rc1, _, err1) = rank1_first(d, args)
    check(rc0 == 0 and rc1 == 0, f"after another host's run: exit {rc0} and {rc1}")
    check("written on another host" in err1 and "more than --timeout 30 s" in err1,
          f"rank 1 does not say why it left the other host's id file alone: {err1!r}")
    # Rank 0 alone: NCCL waits for rank 1 in ncclCommInitRank; --timeout 2 ends it.
    d = f"{tmp}/alone"
    os.mkdir(d)
    t0 = time.monotonic()
    rc, _, err = finish(launch_one(0, 2, d, ["--bytes", "1K", "--iters", "1", "--timeout", "2"]), "rank 0 alone")
    took = time.monotonic() - t0
    check(rc == 1 and "rank 0: timed out after 2 s in ncclCommInitRank" in err and took < 15,
          f"rank 0 alone: exit {rc} after {took:.1f} s, {err!r}; expected 1 after --timeout 2")


def case_launcher_unsafe(tmp):
    """The id file's directory is refused when others can write in it
    without the sticky bit (they could replace the files), and so is a
    file there that another user owns (planted, say in /tmp): a clear
    message, exit 1, no NCCL call. A sticky directory that all can write
    in, as /tmp, is fine."""
    args = ["--bytes", "1K", "--iters", "1", "--warmup", "0", "--timeout", "20"]
    d = f"{tmp}/open"
    os.mkdir(d)
    os.chmod(d, 0o777)
    for rank in (0, 1):
        rc, _, err = finish(launch_one(rank, 2, d, args), f"rank {rank} in {d}")
        check(rc == 1 and f"the directory {d} of the id file is writable by others without the sticky bit" in err,
              f"rank {rank} in a directory all can write in: exit {rc}, {err!r}")
    check(os.listdir(d) == [], f"files written in a refused directory: {os.listdir(d)}")
    d = f"{tmp}/sticky"
    os.mkdir(d)
    os.chmod(d, 0o1777)
    (rc0, _, _), (rc1, _, _) = rank1_first(d, args)
    check(rc0 == 0 and rc1 == 0, f"in a sticky directory: exit {rc0} and {rc1}")
    check(os.listdir(d) == [], f"in a sticky directory: left behind {os.listdir(d)}")
    if os.geteuid() != 0:
        print("planted id file: skipped (giving a file to another user needs root)")
        return
    d = f"{tmp}/theirs"
    os.mkdir(d)
    os.chown(d, 65534, 65534)
    rc, _, err = finish(launch_one(0, 2, d, args), "rank 0 in another user's directory")
    check(rc == 1 and f"the directory {d} of the id file is owned by uid 65534, neither you nor root" in err,
          f"rank 0 in another user's directory: exit {rc}, {err!r}")
    d = f"{tmp}/planted"
    os.mkdir(d)
    os.chmod(d, 0o1777)
    with open(os.open(f"{d}/id", os.O_WRONLY | os.O_CREAT, 0o644), "wb") as f:
        f.write(id_file_bytes("another-host", 4242, int(time.time())))
    os.chown(f"{d}/id", 65534, 65534)
    for rank in (1, 0):
        rc, _, err = finish(launch_one(rank, 2, d, args), f"rank {rank} with a planted id file")
        check(rc == 1 and f"{d}/id is owned by uid 65534, not by you: refusing it" in err,
              f"rank {rank} with another user's id file: exit {rc}, {err!r}")


def case_bad_option(tmp):
    """A bad option or value: one clear line on stderr, exit 2, nothing run."""
    bad = [(["--bogus"], "unknown option '--bogus'"),
           (["-x"], "unknown option '-x'"),
           (["--iters"], "needs a value"),
           (["--iters", "0"], "--iters"),
           (["--ranks", "0"], "--ranks"),
           (["--threads", "0"], "--threads"),
           (["--bytes", "1X"], "'1X'"),
           (["--bytes", "2:1"], "MIN > MAX"),
           (["--op", "allreduce,foo"], "unknown op 'foo'"),
           (["--dtype", "float7"], "--dtype 'float7'"),
           (["--ranks", "2", "--root", "2"], "--root 2"),
           (["stray"], "unexpected argument 'stray'")]
    for args, text in bad:
        p = run(args)
        check(p.returncode == 2, f"{args}: exit {p.returncode}, want 2")
        check(text in p.stderr and p.stderr.startswith("nccltap-bench: "), f"{args}: {p.stderr!r}")
        check(p.stdout == "", f"{args}: printed {p.stdout!r}")
    p = run(["--bytes", "1K"], env=clean_env(RANK=3, WORLD_SIZE=2))
    check(p.returncode == 2 and "RANK=3" in p.stderr, f"RANK=3 WORLD_SIZE=2: {p.stderr!r}")


def case_help(tmp):
    p = run_ok(["--help"])
    for opt in ("--ranks", "--id-file", "--op", "--bytes", "--iters", "--warmup", "--dtype",
                "--root", "--group", "--threads", "--json", "--per-call"):
        check(opt in p.stdout, f"--help does not mention {opt}")


def case_legacy(tmp):
    """NCCL 2.18 (no AlltoAll/Gather/Scatter): `all` skips them, naming one fails."""
    env = clean_env(LD_LIBRARY_PATH=f"{LIBDIR}/nccltap/sim-legacy:{LIBDIR}/nccltap/sim")
    p = run(["--ranks", "2", "--op", "all", "--bytes", "1K", "--iters", "2",
             "--json", f"{tmp}/leg.json"], env=env)
    check(p.returncode == 0, f"legacy all: exit {p.returncode}")
    check("NCCL 2.18.3" in p.stdout and "AlltoAll: skipped" in p.stdout, "legacy header")
    ops = [o["op"] for o in load(f"{tmp}/leg.rank0.json")["ops"]]
    check(ops == ["AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "Send", "Recv"],
          f"legacy rows {ops}")
    p = run(["--ranks", "2", "--op", "alltoall"], env=env)
    check(p.returncode == 1 and "has no ncclAlltoAll" in p.stderr, f"legacy alltoall: {p.stderr!r}")


def children_of(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except OSError:
        return True


def case_signal(tmp):
    """SIGTERM to the parent of --ranks reaches every rank; none is left behind."""
    env = clean_env(NCCLSIM_HANG_RANK=1, NCCLSIM_HANG_SEQ=0)
    p = subprocess.Popen([BENCH, "--ranks", "3", "--bytes", "1K", "--iters", "2", "--warmup", "0"],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    kids = []
    while len(kids) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
        kids = children_of(p.pid)
    check(len(kids) == 3, f"children {kids}")
    time.sleep(1.0)  # let them reach the hung collective
    check(p.poll() is None, "the bench ended although rank 1 hangs")
    p.send_signal(signal.SIGTERM)
    try:
        _, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("the parent did not end after SIGTERM")
    sys.stderr.write(err)
    check(p.returncode == 128 + signal.SIGTERM, f"exit {p.returncode}, want {128 + signal.SIGTERM}")
    deadline = time.monotonic() + 10
    while not all(gone(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    check(all(gone(k) for k in kids), "a rank outlived its parent")


def case_nccl_tests_format(tmp):
    """nccl-tests' columns: both column groups, redop and root per op, N/A
    where a variant did not run or nothing was checked; --in-place 1 runs
    every op and size in place too (JSON: an in_place object per row)."""
    n, iters = 3, 4
    sizes = [8, 1024, 1 << 20]
    p = run_ok(["--ranks", str(n), "--op", "all", "--bytes", "8,1K,1M", "--iters", str(iters),
                "--warmup", "1", "--in-place", "1", "--json", f"{tmp}/f.json"])
    head = [l for l in p.stdout.splitlines() if l.startswith("#")]
    groups = [l for l in head if "out-of-place" in l]
    check(len(groups) == 1 and groups[0].index("out-of-place") < groups[0].index("in-place"),
          f"column group line {groups}")
    names = [l[1:].split() for l in head if l[1:].split()[:2] == ["size", "count"]]
    check(names == [COLUMNS], f"column names {names}")
    lines = table_lines(p.stdout)
    want = expected_rows(list(OPS), sizes, n)
    check(len(lines) == len(want) - len(sizes), f"{len(lines)} table lines")
    for f in lines:
        op = f[13]
        check(f[3] == ("sum" if op in REDUCING else "none"), f"{op}: redop {f[3]}")
        check(f[4] == ("0" if op in ROOTED else "-1"), f"{op}: root {f[4]}")
        for i in (5, 6, 7, 9, 10, 11, 14, 15):
            float(f[i])     # numbers in both groups
        check(f[8] == "N/A" and f[12] == "N/A", f"{op}: #wrong without --check {f[8]} {f[12]}")
        check(float(f[9]) > 0 and float(f[5]) > 0, f"{op}: times {f[5]} {f[9]}")
    for r in range(n):
        d = load(f"{tmp}/f.rank{r}.json")
        check(d["in_place"] is True and d["check"] is False, f"rank {r}: header {d}")
        for o in d["ops"]:
            ip = o["in_place"]
            check(o["calls"] == iters and ip["calls"] == iters, f"rank {r}: {o['op']} calls")
            check(o["wrong"] is None and ip["wrong"] is None, f"rank {r}: {o['op']} wrong")
            check(ip["mean_us"] > 0 and ip["wall_us"] > 0 and ip["busbw_gbs"] > 0, f"rank {r}: {ip}")
    # The default: out of place only, the in-place group N/A.
    p = run_ok(["--ranks", "2", "--op", "allgather,broadcast", "--bytes", "1K", "--iters", "2",
                "--json", f"{tmp}/o.json"])
    lines = table_lines(p.stdout)
    check(len(lines) == 2, f"{len(lines)} lines")
    for f in lines:
        check(f[9:13] == ["N/A"] * 4 and f[15] == "N/A", f"in place without --in-place: {f}")
        float(f[5])
    d = load(f"{tmp}/o.rank0.json")
    check(d["in_place"] is False and all("in_place" not in o for o in d["ops"]), "JSON without --in-place")


def case_inplace_calls(tmp):
    """Counted by a preloaded library: --in-place 1 makes the warm-up and
    timed calls once per variant, --check one more call per variant."""
    check(COUNTER, "no counter library given")
    n, t, iters, warmup, nsizes = 2, 2, 3, 2, 2
    colls = ["ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclBroadcast",
             "ncclReduce", "ncclAlltoAll", "ncclGather", "ncclScatter"]
    for args, per_variant in ((["--in-place", "1"], warmup + iters),
                              (["--in-place", "1", "--check"], warmup + iters + 1),
                              (["--check"], warmup + iters + 1)):
        d = f"{tmp}/{len(os.listdir(tmp))}"
        os.mkdir(d)
        variants = 2 if "--in-place" in args else 1
        run_ok(["--ranks", str(n), "--threads", str(t), "--op", "all", "--bytes", "1K,64K",
                "--iters", str(iters), "--warmup", str(warmup)] + args,
               env=clean_env(LD_PRELOAD=COUNTER, NCCL_COUNT_DIR=d, NCCLSIM_DATA=1))
        calls = nsizes * t * variants * per_variant
        want = {fn: calls for fn in colls + ["ncclSend", "ncclRecv"]}
        want["ncclGroupStart"] = want["ncclGroupEnd"] = calls   # sendrecv's
        want["ncclCommInitRank"] = want["ncclCommDestroy"] = t
        for name in os.listdir(d):
            with open(f"{d}/{name}") as f:
                got = {k: int(v) for k, v in (line.split() for line in f)}
            check(got == want, f"{args}: counted {got}, want {want}")


def check_run(args, n, env_extra=None, corrupt=None):
    """Runs with --check on the simulator with data; returns (process, lines)."""
    env = clean_env(NCCLSIM_DATA=1, **(env_extra or {}))
    if corrupt is not None:
        env["NCCLTAP_BENCH_CORRUPT"] = str(corrupt)
    p = run(["--ranks", str(n), "--check", "--warmup", "1", "--iters", "2"] + args, env=env)
    return p, table_lines(p.stdout)


def case_check(tmp):
    """--check on every op, both variants, odd rank counts and sizes, every
    type, threads and groups, launcher mode: #wrong 0 everywhere."""
    runs = [(["--op", "all", "--in-place", "1", "--bytes", "8,1K,1000,64K"], 3),
            (["--op", "all", "--in-place", "1", "--bytes", "4K", "--root", "2"], 4),
            (["--op", "all", "--in-place", "1", "--bytes", "4K", "--threads", "2", "--group", "2"], 2),
            (["--op", "allreduce,reducescatter", "--in-place", "1", "--bytes", "1K"], 1)]
    for dtype in ("half", "bfloat16", "double", "int8", "uint8", "int32", "uint64",
                  "fp8e4m3", "fp8e5m2"):
        runs.append((["--op", "all", "--in-place", "1", "--bytes", "2K", "--dtype", dtype], 4))
    for args, n in runs:
        p, lines = check_run(args + ["--json", f"{tmp}/c.json"], n)
        check(p.returncode == 0, f"{args}: exit {p.returncode}")
        check(lines, f"{args}: no table")
        for f in lines:
            check(f[8] == "0" and f[12] == "0", f"{args}: {f[13]} {f[0]} B: #wrong {f[8]} {f[12]}")
        check(footer(p.stdout)[:2] == (0, "OK"), f"{args}: footer {footer(p.stdout)}")
        for r in range(n):
            for o in load(f"{tmp}/c.rank{r}.json")["ops"]:
                check(o["wrong"] == 0 and o["in_place"]["wrong"] == 0, f"{args}: rank {r}: {o}")
    # Launcher mode: the ranks add their wrong elements up through files.
    d = f"{tmp}/launcher"
    os.mkdir(d)
    outs = launch_ranks(3, ("RANK", "WORLD_SIZE", "LOCAL_RANK"), {"NCCLSIM_DATA": 1},
                        ["--id-file", f"{d}/id", "--op", "all", "--bytes", "1K", "--iters", "2",
                         "--in-place", "1", "--check"])
    lines = table_lines(outs[0])
    check(lines and all(f[8] == "0" and f[12] == "0" for f in lines), "launcher: #wrong")
    check(os.listdir(d) == [], f"launcher: left behind {os.listdir(d)}")


def case_check_fails(tmp):
    """The check can fail: with one element of rank 1's results flipped
    after each checked call (NCCLTAP_BENCH_CORRUPT), every column counts
    exactly 1, the footer says FAILED, the exit status is 3 (on every
    rank, launcher mode too). Without data to check (the simulator without
    NCCLSIM_DATA) --check fails instead of passing."""
    n = 3
    p, lines = check_run(["--op", "all", "--in-place", "1", "--bytes", "1K,64K", "--root", "1",
                          "--json", f"{tmp}/x.json"], n, corrupt=1)
    check(p.returncode == 3, f"corrupted: exit {p.returncode}, want 3")
    check(len(lines) == 2 * len(OPS), f"{len(lines)} lines")
    for f in lines:
        check(f[8] == "1" and f[12] == "1", f"{f[13]} {f[0]} B: #wrong {f[8]} {f[12]}, want 1 and 1")
    check(footer(p.stdout)[:2] == (2 * len(lines), "FAILED"), f"footer {footer(p.stdout)}")
    for r in range(n):
        for o in load(f"{tmp}/x.rank{r}.json")["ops"]:
            check(o["wrong"] == 1 and o["in_place"]["wrong"] == 1, f"rank {r}: {o}")
    # Rank 2's Reduce and Gather results are not results (root 0): nothing wrong there.
    p, lines = check_run(["--op", "reduce,gather,allreduce", "--bytes", "1K"], n, corrupt=2)
    check(p.returncode == 3, f"corrupted rank 2: exit {p.returncode}")
    check([(f[13], f[8]) for f in lines] == [("Reduce", "0"), ("Gather", "0"), ("AllReduce", "1")],
          f"corrupted rank 2: {[(f[13], f[8]) for f in lines]}")
    check(footer(p.stdout)[:2] == (1, "FAILED"), f"footer {footer(p.stdout)}")
    # Launcher mode: every rank knows, every rank exits 3.
    d = f"{tmp}/launcher"
    os.mkdir(d)
    procs = []
    for r in range(2):
        env = clean_env(NCCLSIM_DATA=1, NCCLTAP_BENCH_CORRUPT=0, RANK=r, WORLD_SIZE=2, LOCAL_RANK=r)
        procs.append(subprocess.Popen([BENCH, "--id-file", f"{d}/id", "--bytes", "1K", "--iters", "1",
                                       "--check"], env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    for r, q in enumerate(procs):
        out, err = q.communicate(timeout=90)
        sys.stdout.write(out)
        sys.stderr.write(err)
        check(q.returncode == 3, f"launcher rank {r}: exit {q.returncode}, want 3")
    # No data behind the simulator's memory: the check cannot be made.
    p = run(["--ranks", "2", "--bytes", "1K", "--iters", "1", "--check"])
    check(p.returncode == 1 and "NCCLSIM_DATA=1" in p.stderr, f"no data: exit {p.returncode} {p.stderr!r}")
    check("Out of bounds values" not in p.stdout, "no data: a footer was printed")


def case_avg_busbw(tmp):
    """# Avg bus bandwidth: the mean of the table's busbw columns (both
    variants when run), within their rounding to 2 decimals."""
    for args in (["--in-place", "1"], []):
        p = run_ok(["--ranks", "2", "--op", "allreduce,allgather,sendrecv", "--bytes", "64K:4M",
                    "--factor", "4", "--iters", "3", "--warmup", "1"] + args)
        busbw = []
        for f in table_lines(p.stdout):
            busbw += [float(f[7])] + ([float(f[11])] if args else [])
        check(len(busbw) == 3 * 4 * (2 if args else 1), f"{args}: {len(busbw)} busbw values")
        bad, verdict, avg = footer(p.stdout)
        mean = sum(busbw) / len(busbw)
        check(bad == 0 and verdict == "OK", f"{args}: out of bounds {bad} {verdict}")
        check(abs(avg - mean) <= 0.005 + 1e-5 * mean, f"{args}: Avg bus bandwidth {avg}, the columns' mean {mean}")
        check(mean > 1, f"{args}: busbw too small to compare ({mean})")


def case_version(tmp):
    """--version prints the project's version, as `nccltap --version` does."""
    p = run_ok(["--version"])
    check(p.stdout == f"nccltap-bench {COUNTER}\n" and p.stderr == "", f"--version: {p.stdout!r} {p.stderr!r}")
    p = run_ok(["--help"])
    for opt in ("--in-place", "--check", "--version"):
        check(opt in p.stdout, f"--help does not mention {opt}")


def main():
    cases = {name[5:]: fn for name, fn in globals().items() if name.startswith("case_")}
    if CASE not in cases:
        fail(f"unknown case {CASE}; cases: {' '.join(sorted(cases))}")
    with tempfile.TemporaryDirectory(prefix="nccltap-bench-test-") as tmp:
        cases[CASE](tmp)
    print(f"bench.{CASE}: ok")


if __name__ == "__main__":
    main()
