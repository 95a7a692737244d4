#!/usr/bin/env python3
"""Prometheus textfiles (NCCLTAP_PROM_DIR), against the real Debian tools.

Cases:
  files     the simulator job's files: one per GPU, named by its UUID as
            nvidia-smi prints it, mode 0644, no temporary file left; every
            file passes `promtool check metrics`; HELP and TYPE for every
            family; counters and the histogram agree with the job.
  names     communicator names with quotes, backslashes, newlines and bytes
            that are not UTF-8: escaped as the format requires.
  removed   without NCCLTAP_PROM_KEEP the files exist during the run and are
            gone after it, which rank 0 says once.
  shared_gpu two processes on one GPU: each its own file, no series in both.
  no_gpu    without CUDA: a file per process, named by host and pid.
  bad_config an unsafe directory and a bad flag: said once for the job (the
            directory at start), nothing written there.
  services  node_exporter's textfile collector serves the files and a real
            Prometheus server scrapes it: AllReduce busbw is the simulator's
            within 1%, histogram_quantile(0.5) within the bucket that holds
            the simulated duration.
  dashboard import asks for the Prometheus data source (__inputs), every
            panel queries it; every metric and label that tools/grafana/nccltap.json's
            queries use appears in that real scrape, and every panel's
            query, run while the job writes its files, gives finite
            values; the p50 panel's AllReduce is in the simulated
            duration's bucket, bytes/s over calls/s is the size.
  rules     tools/prometheus/nccltap-rules.yml passes `promtool check
            rules` and its unit tests (`promtool test rules`), which give
            every alert a case that fires it, naming its labels, and a
            healthy case where nothing fires.
  straggler live: rank 2 of 4 late by NCCLSIM_SLOW_US at every AllReduce;
            while the job runs, the rules' per-rank wait caused
            (nccltap:rank_wait_caused_seconds:mean5m) names rank 2 within
            10% of the delay, the others under 10% of it, the dashboard's
            wait panel puts rank 2 on top by the delay, and NcclStraggler
            is pending for rank 2 alone.
  hang      live: rank 1 never reaches AllReduce seq 50; with the rules'
            threshold set to 5 s, NcclRankMissing is active for rank 1
            alone, naming the op and seq, within 5 s plus two scrape
            intervals of the op's call, and not before 5 s; the dashboard's
            hang panel has rank 1 alone behind.

The binaries come from Debian's prometheus and prometheus-node-exporter.
Without them the test is skipped (exit 77), except in CI (CI=true), where
that is a failure.
"""
import argparse
import calendar
import ctypes
import glob
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from testlib import fail, every_op_timing  # noqa: E402

BUSBW_GBS = 200.0
NRANKS = 4
ALLREDUCE_BYTES = 128 << 20
# Inspector's metrics keep Inspector's names, which promtool's linter would
# spell in seconds; it has no other complaint to make about these files.
INSPECTOR_LINT = {
    "nccl_collective_exec_time_microseconds use base unit \"seconds\" instead of \"microseconds\"",
    "nccl_p2p_exec_time_microseconds use base unit \"seconds\" instead of \"microseconds\"",
}
# Inspector's busbw is the geometric mean over every call, the first
# (connection set-up, ranks arriving one by one) included: a rank
# descheduled on a busy machine pulls it further than nccltap's (total bytes
# over total time, the first call apart), which is held to 1%.
INSPECTOR_BUSBW_TOLERANCE = 0.03
# Held by the process that writes a GPU's file while it lives; they stay.
LOCK = re.compile(r"^\.nccltap_GPU-[0-9a-f-]{36}\.lock$")
UUID = re.compile(r"^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def tool(*names):
    for n in names:
        path = shutil.which(n)
        if path:
            return path
    return None


def need_tools(*names):
    found = [tool(*n.split("|")) for n in names]
    missing = [n for n, f in zip(names, found) if not f]
    if missing:
        msg = "not found: %s (Debian: apt-get install prometheus prometheus-node-exporter)" % ", ".join(missing)
        if os.environ.get("CI") == "true":
            fail(msg + "; CI must have them (tools/deps.sh)")
        print("SKIP: " + msg)
        sys.exit(77)
    return found


# -- the exposition format, as Prometheus' text parser reads it -------------

LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|\})')


def unescape(v):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "\\": "\\", '"': '"'}[m.group(1)], v)


def parse(text):
    """{family: {"help", "type"}}, [(name, labels, value)]; fails on any
    line the format does not allow."""
    families, samples = {}, []
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            kind, name, rest = line[2:6].lower(), *line[7:].split(" ", 1)
            families.setdefault(name, {})[kind] = rest
            continue
        if line.startswith("# "):
            continue  # a comment, as the format allows (nccltap's first line names the process)
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{|\s)", line)
        if not m:
            fail("not a sample: %r" % line)
        name, pos, labels = m.group(1), m.end(1), {}
        if line[pos] == "{":
            pos += 1
            while line[pos] != "}":
                lm = LABEL.match(line, pos)
                if not lm:
                    fail("bad labels at %d: %r" % (pos, line))
                labels[lm.group(1)] = unescape(lm.group(2))
                pos = lm.end() - (1 if lm.group(3) == "}" else 0)
            pos += 1
        samples.append((name, labels, float(line[pos:].strip())))
    return families, samples


def family_of(name, families):
    for suffix in ("_bucket", "_sum", "_count"):
        base = name[: -len(suffix)]
        if name.endswith(suffix) and families.get(base, {}).get("type") == "histogram":
            return base
    return name


# -- the job ----------------------------------------------------------------

def run_job(args, work, env_extra, bench_args, app=None, watch=None, output=None):
    """The bench (or `app`) under `nccltap run --sim`; returns the prom dir
    (and appends the job's stdout and stderr to `output`)."""
    prom = os.path.join(work, "prom")
    env = dict(os.environ, NCCLTAP_PROM_DIR=prom, NCCLTAP_TIMING="all", NCCLSIM_LAT_US="0",
               NCCLSIM_BUSBW_GBS=str(BUSBW_GBS))
    env.update(env_extra)
    cmd = [os.path.join(args.bin, "nccltap"), "run", "--sim", "--dir", os.path.join(work, "out"), "--"]
    cmd += app or [os.path.join(args.bin, "nccltap-bench")] + bench_args
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if watch:
        watch(proc, prom)
    out, _ = proc.communicate(timeout=240)
    if proc.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(cmd), proc.returncode, out))
    if output is not None:
        output.append(out)
    return prom


def allreduce_job(args, work, extra=None):
    # Slurm's job shape: 4 tasks on 2 nodes, Inspector's n_nodes of the
    # communicator of every rank.
    env = {"NCCLTAP_PROM_KEEP": "1", "NCCLTAP_JOB_ID": "prom-test-job", "SLURM_NTASKS": str(NRANKS),
           "SLURM_NNODES": "2"}
    env.update(extra or {})
    return run_job(args, work, env, ["--ranks", str(NRANKS), "--op", "allreduce,sendrecv",
                                     "--bytes", str(ALLREDUCE_BYTES), "--iters", "200", "--warmup", "2"])


def prom_files(prom):
    return sorted(glob.glob(os.path.join(prom, "*.prom")))


def promtool_accepts(promtool, path):
    with open(path, "rb") as f:
        r = subprocess.run([promtool, "check", "metrics"], stdin=f, capture_output=True, text=True)
    # 0: clean; 3: lint findings only (a parse error is 1).
    findings = {l.strip() for l in (r.stdout + r.stderr).splitlines() if l.strip()}
    if r.returncode == 0 or (r.returncode == 3 and findings <= INSPECTOR_LINT):
        return findings
    fail("promtool check metrics %s: exit %d\n%s%s" % (path, r.returncode, r.stdout, r.stderr))


# -- cases --------------------------------------------------------------------

def case_files(args, work):
    (promtool,) = need_tools("promtool")
    prom = allreduce_job(args, work)
    files = prom_files(prom)
    if len(files) != NRANKS:
        fail("expected %d files (one per GPU), found %s" % (NRANKS, files))
    leftovers = [f for f in os.listdir(prom) if not f.endswith(".prom") and not LOCK.match(f)]
    if leftovers:
        fail("files other than .prom and the GPUs' locks left in %s: %s" % (prom, leftovers))
    findings = set()
    gpus = set()
    for path in files:
        name = os.path.basename(path)
        uuid = name[len("nccltap_"):-len(".prom")]
        if not name.startswith("nccltap_") or not UUID.match(uuid):
            fail("%s is not nccltap_<GPU UUID as nvidia-smi prints it>.prom" % name)
        mode = stat.S_IMODE(os.stat(path).st_mode)
        if mode != 0o644:
            fail("%s has mode %04o, not 0644 (node_exporter reads it as another user)" % (name, mode))
        findings |= promtool_accepts(promtool, path)
        with open(path) as f:
            families, samples = parse(f.read())
        for fam, meta in families.items():
            if "help" not in meta or "type" not in meta:
                fail("%s: %s has no %s" % (name, fam, "HELP" if "help" not in meta else "TYPE"))
        for n, labels, _ in samples:
            if family_of(n, families) not in families:
                fail("%s: sample %s has no HELP/TYPE" % (name, n))
            if labels.get("gpu") != uuid:
                fail("%s: %s has gpu=%r, not the file's GPU" % (name, n, labels.get("gpu")))
        gpus.add(uuid)
        check_values(name, samples)
    if findings != INSPECTOR_LINT:
        fail("expected promtool's lint to name exactly Inspector's two metrics, got %s" % findings)
    # Without Inspector's gauges, promtool has nothing at all to say.
    prom2 = allreduce_job(args, os.path.join(work, "no-inspector"), {"NCCLTAP_PROM_INSPECTOR": "0"})
    for path in prom_files(prom2):
        if promtool_accepts(promtool, path):
            fail("%s: promtool lint findings without Inspector's gauges" % path)
    print("ok: %d files, one per GPU (%s); promtool accepts them (its linter names only Inspector's "
          "microseconds, and nothing without them)" % (len(files), ", ".join(sorted(gpus))))


def check_values(name, samples):
    """The job's numbers: 202 AllReduce calls per rank, all timed."""
    def one(metric, **want):
        got = [v for n, l, v in samples if n == metric and all(l.get(k) == x for k, x in want.items())]
        if len(got) != 1:
            fail("%s: %d samples of %s%s" % (name, len(got), metric, want))
        return got[0]
    calls = 202
    ar = {"op": "AllReduce", "size_class": str(ALLREDUCE_BYTES), "job_id": "prom-test-job"}
    if one("nccltap_ops_total", **ar) != calls:
        fail("%s: nccltap_ops_total %s is not %d" % (name, ar, calls))
    if one("nccltap_bytes_total", **ar) != calls * ALLREDUCE_BYTES:
        fail("%s: nccltap_bytes_total is not %d x %d" % (name, calls, ALLREDUCE_BYTES))
    if one("nccltap_op_duration_seconds_count", **ar) != calls:
        fail("%s: the histogram's count is not %d (every call is timed)" % (name, calls))
    buckets = sorted((float(l["le"]), v) for n, l, v in samples
                     if n == "nccltap_op_duration_seconds_bucket" and l["op"] == "AllReduce")
    counts = [v for _, v in buckets]
    if counts != sorted(counts) or buckets[-1] != (float("inf"), calls):
        fail("%s: histogram buckets not cumulative up to +Inf = %d: %s" % (name, calls, buckets))
    mean = one("nccltap_op_duration_seconds_sum", **ar) / calls
    if not 0.9 * expected_duration_s() < mean < 1.5 * expected_duration_s():
        fail("%s: mean AllReduce time %.6f s, the simulator's is %.6f s" % (name, mean, expected_duration_s()))
    for metric in ("nccltap_dropped_ops_total", "nccltap_untimed_ops_total", "nccltap_prom_ops_not_kept_total"):
        if one(metric) != 0:
            fail("%s: %s is not 0" % (name, metric))
    one("nccltap_pending_ops")
    one("nccl_p2p_bus_bandwidth_gbs", p2p_operation="Send", message_size="128-129MB")
    # Inspector's slurm_job_id is nccltap's job_id: one job, one id.
    insp = dict(collective="AllReduce", message_size="128-129MB", nranks=str(NRANKS), n_nodes="2",
                slurm_job_id="prom-test-job")
    busbw = one("nccl_bus_bandwidth_gbs", **insp)
    if abs(busbw - BUSBW_GBS) > INSPECTOR_BUSBW_TOLERANCE * BUSBW_GBS:
        fail("%s: nccl_bus_bandwidth_gbs %.3f, the simulator's is %.1f" % (name, busbw, BUSBW_GBS))
    # One interval (the whole run): Inspector's mean time is the
    # histogram's, over the same calls.
    exec_us = one("nccl_collective_exec_time_microseconds", **insp)
    if abs(exec_us - mean * 1e6) > 1e-6 * exec_us:
        fail("%s: nccl_collective_exec_time_microseconds %.6f, the histogram's mean %.6f us"
             % (name, exec_us, mean * 1e6))


def expected_duration_s():
    return ALLREDUCE_BYTES * 2 * (NRANKS - 1) / NRANKS / (BUSBW_GBS * 1e9)


def case_names(args, work):
    (promtool,) = need_tools("promtool")
    prom = run_job(args, work, {"NCCLTAP_PROM_KEEP": "1"}, [], app=[args.api_exercise, "names"])
    files = prom_files(prom)
    if len(files) != 1:
        fail("expected one file, found %s" % files)
    promtool_accepts(promtool, files[0])
    with open(files[0], encoding="utf-8") as f:  # strict: valid UTF-8
        _, samples = parse(f.read())
    names = {l["comm_name"] for n, l, _ in samples if n == "nccltap_ops_total"}
    want = {"a" * 62, "caf\u00e9-\ufffd\ufffd-\ufffd\ufffd", "esc\x1b[31mred", 'q"b\\s\nl'}
    if names != want:
        fail("comm_name values %r, expected %r" % (sorted(names), sorted(want)))
    print("ok: communicator names escaped and made UTF-8: %r" % sorted(names))


def case_removed(args, work):
    seen = set()

    def watch(proc, prom):
        while proc.poll() is None:
            seen.update(os.path.basename(p) for p in prom_files(prom))
            time.sleep(0.01)

    output = []
    prom = run_job(args, work, {"NCCLTAP_INTERVAL_MS": "50"},
                   ["--ranks", "2", "--op", "allreduce", "--bytes", "64M", "--iters", "1500", "--warmup", "0"],
                   watch=watch, output=output)
    if len(seen) != 2:
        fail("expected the 2 ranks' files during the run, saw %s" % sorted(seen))
    left = [f for f in os.listdir(prom) if not LOCK.match(f)]
    if left:
        fail("left in %s after exit without NCCLTAP_PROM_KEEP: %s" % (prom, left))
    # Said, once for the job (by rank 0), naming the way to keep them.
    said = "nccltap: Prometheus files removed from NCCLTAP_PROM_DIR=%s at exit" % prom
    if output[0].count(said) != 1 or "NCCLTAP_PROM_KEEP=1 keeps them" not in output[0]:
        fail("expected %r once, with NCCLTAP_PROM_KEEP=1, in the job's output:\n%s" % (said, output[0]))
    print("ok: %s written during the run, removed at exit, said once" % sorted(seen))


def case_sigterm(args, work):
    """`nccltap run` stopped by SIGTERM, as schedulers and torchrun stop
    ranks: the ranks die without removing their files, and nccltap run
    removes them once its command has ended (their writers' locks free),
    saying so: node_exporter serves no dead job's values. A temporary file
    of a writer killed mid-write goes too."""
    seen = set()

    def watch(proc, prom):
        deadline = time.time() + 60
        while len(seen) < 2 and time.time() < deadline and proc.poll() is None:
            seen.update(os.path.basename(p) for p in prom_files(prom))
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)

    output = []
    prom = os.path.join(work, "prom")
    # What a rank killed between writing its file and renaming it leaves:
    # the writer's temporary file (preload/base/out_file.c), its lock free.
    os.makedirs(prom)
    gpu = "GPU-00000000-0000-0000-0000-00000000beef"
    for planted in (".nccltap_%s.lock" % gpu, ".nccltap_%s.prom.99999.0123456789abcdef.tmp" % gpu):
        with open(os.path.join(prom, planted), "w") as f:
            f.write("nccltap_ops_total 1\n" if planted.endswith(".tmp") else "")
    env = dict(os.environ, NCCLTAP_PROM_DIR=prom, NCCLTAP_INTERVAL_MS="50", NCCLTAP_TIMING="all")
    cmd = [os.path.join(args.bin, "nccltap"), "run", "--sim", "--dir", os.path.join(work, "out"), "--",
           os.path.join(args.bin, "nccltap-bench"), "--ranks", "2", "--op", "allreduce", "--bytes", "64M",
           "--iters", "100000", "--warmup", "0"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    watch(proc, prom)
    out, _ = proc.communicate(timeout=120)
    if len(seen) != 2:
        fail("expected the 2 ranks' files during the run, saw %s:\n%s" % (sorted(seen), out))
    left = [f for f in os.listdir(prom) if not LOCK.match(f)]
    if left:
        fail("left in %s after SIGTERM: %s\n%s" % (prom, left, out))
    if "Prometheus file" not in out:
        fail("nobody said the files were removed:\n%s" % out)
    print("ok: %s removed after SIGTERM (exit %d)" % (sorted(seen), proc.returncode))


def case_shared_gpu(args, work):
    """Two processes on one GPU: two files, no series in both, also while
    both write them."""
    (promtool,) = need_tools("promtool")
    # A process names its file at its first write and holds the name while
    # it lives: both must write while both live. With the default interval
    # (5 s) this short job wrote only at exit, and on a busy machine the
    # first had exited (its lock gone) before the second wrote, which then
    # took the name. Inspector's gauges are the last interval's: the files
    # are read while the job runs, when both have them.
    live = []

    def watch(proc, prom):
        while proc.poll() is None:
            texts = []
            for path in prom_files(prom):
                try:
                    with open(path) as f:
                        texts.append((os.path.basename(path), f.read()))
                except FileNotFoundError:
                    pass
            if len(texts) == 2 and all("\nnccl_bus_bandwidth_gbs{" in t for _, t in texts):
                live[:] = texts
            time.sleep(0.01)

    prom = run_job(args, work, {"NCCLTAP_PROM_KEEP": "1", "NCCLSIM_NDEV": "1", "NCCLTAP_INTERVAL_MS": "50"},
                   ["--ranks", "2", "--op", "allreduce", "--bytes", "128M", "--iters", "500", "--warmup", "1"],
                   watch=watch)
    files = [os.path.basename(f) for f in prom_files(prom)]
    own = [f for f in files if re.match(r"^nccltap_GPU-[0-9a-f-]{36}\.prom$", f)]
    other = [f for f in files if re.match(r"^nccltap_GPU-[0-9a-f-]{36}-[0-9]+\.prom$", f)]
    if len(files) != 2 or len(own) != 1 or len(other) != 1 or own[0][:-5] != other[0].rsplit("-", 1)[0]:
        fail("expected nccltap_<UUID>.prom and nccltap_<UUID>-<pid>.prom, found %s" % files)
    if sorted(n for n, _ in live) != sorted(files):
        fail("the two files, each with Inspector's gauges, were never seen while the job ran: %s"
             % [n for n, _ in live])
    for when, texts in (("at exit", [(n, open(os.path.join(prom, n)).read()) for n in files]),
                        ("while running", live)):
        series = []
        for name, text in texts:
            path = os.path.join(work, "check.prom")
            with open(path, "w") as f:
                f.write(text)
            promtool_accepts(promtool, path)
            _, samples = parse(text)
            series.append({(n, tuple(sorted(l.items()))) for n, l, _ in samples})
        both = series[0] & series[1]
        if both:
            fail("%s: series in both files (node_exporter would drop them): %s" % (when, sorted(both)[:3]))
    print("ok: two processes on one GPU: %s, no series in both, at exit or while both ran with "
          "Inspector's gauges" % files)


def case_no_gpu(args, work):
    """Without CUDA (NCCLTAP_TIMING=off: no driver call) no GPU is known:
    one file per process, nccltap_<host>-<pid>.prom, counters only."""
    (promtool,) = need_tools("promtool")
    prom = run_job(args, work, {"NCCLTAP_PROM_KEEP": "1", "NCCLTAP_TIMING": "off"},
                   ["--ranks", "2", "--op", "allreduce", "--bytes", "1M", "--iters", "30", "--warmup", "0"])
    host = re.sub(r"[^A-Za-z0-9._-]", "_", socket.gethostname())
    files = [os.path.basename(f) for f in prom_files(prom)]
    if len(files) != 2 or not all(re.match(r"^nccltap_%s-[0-9]+\.prom$" % re.escape(host), f) for f in files):
        fail("expected nccltap_%s-<pid>.prom for each of 2 processes, found %s" % (host, files))
    for name in files:
        promtool_accepts(promtool, os.path.join(prom, name))
        with open(os.path.join(prom, name)) as f:
            _, samples = parse(f.read())
        calls = [v for n, l, v in samples if n == "nccltap_ops_total" and l["gpu"] == ""]
        timed = [v for n, l, v in samples if n == "nccltap_op_duration_seconds_count"]
        if calls != [30] or timed != [0]:
            fail("%s: ops_total %s (want [30], gpu empty), histogram count %s (want [0])" % (name, calls, timed))
    print("ok: no GPU: %s, calls counted, nothing timed" % files)


def case_bad_config(args, work):
    """A directory others can write in (not sticky) and a bad flag: each
    said once for the job, naming its variable, the directory at start
    (while the job runs, long before the first write: the interval is an
    hour); no Prometheus file; the job and its rank files unharmed."""
    unsafe = os.path.join(work, "shared")
    os.mkdir(unsafe)
    os.chmod(unsafe, 0o777)
    # KEEP=1: the files would be written at exit at the latest.
    env = dict(os.environ, NCCLTAP_PROM_DIR=unsafe, NCCLTAP_PROM_KEEP="1", NCCLTAP_PROM_INSPECTOR="maybe",
               NCCLSIM_LAT_US="0", NCCLTAP_INTERVAL_MS="3600000")
    cmd = [os.path.join(args.bin, "nccltap"), "run", "--sim", "--dir", os.path.join(work, "out"), "--",
           os.path.join(args.bin, "nccltap-bench"), "--ranks", "2", "--op", "allreduce", "--bytes", "128M",
           "--iters", "2000", "--warmup", "0"]
    said_dir = ("NCCLTAP_PROM_DIR=%s is not safe to write in (writable by others and not sticky): "
                "no Prometheus file is written" % unsafe)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err, running_when_said = "", None
    for line in proc.stderr:
        err += line
        if said_dir in line and running_when_said is None:
            running_when_said = proc.poll() is None
    proc.wait(timeout=120)
    if proc.returncode != 0:
        fail("the job failed (%d):\n%s" % (proc.returncode, err))
    if not running_when_said:
        fail("the unsafe NCCLTAP_PROM_DIR was not said while the job ran:\n%s" % err)
    # The configuration is read once, before the bench forks its ranks;
    # each rank opens the directory when its first communicator is made,
    # and rank 0 says what is wrong with it, for the job.
    for want, times in ((said_dir, 1),
                        ("NCCLTAP_PROM_INSPECTOR=maybe is not valid: expected 0 or 1; using 1", 1)):
        n = err.count(want)
        if n != times:
            fail("%r said %d times on stderr, expected %d:\n%s" % (want, n, times, err))
    if os.listdir(unsafe):
        fail("files written in the unsafe directory: %s" % os.listdir(unsafe))
    if len(glob.glob(os.path.join(work, "out", "*.json"))) != 2:
        fail("the rank files are missing: %s" % os.listdir(os.path.join(work, "out")))
    print("ok: an unsafe NCCLTAP_PROM_DIR said once for the job, at start; a bad NCCLTAP_PROM_INSPECTOR once; "
          "nothing written there, the job unharmed")


# -- the services -------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """The services die with the test, even when it is killed (timeout)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Services:
    """node_exporter (textfile collector only) and Prometheus scraping it,
    on free loopback ports; stopped on exit, whatever happens."""

    def __init__(self, work, textfile_dir):
        self.procs = []
        self.work = work
        self.textfile_dir = textfile_dir

    def start(self, exporter, server, rules=None):
        self.node_port, self.prom_port = free_port(), free_port()
        log = open(os.path.join(self.work, "node_exporter.log"), "w")
        self.procs.append(subprocess.Popen(
            [exporter, "--web.listen-address=127.0.0.1:%d" % self.node_port, "--collector.disable-defaults",
             "--collector.textfile", "--collector.textfile.directory=" + self.textfile_dir],
            stdout=log, stderr=log, preexec_fn=die_with_parent))
        config = os.path.join(self.work, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: node\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % self.node_port)
            if rules:
                f.write("rule_files: ['%s']\n" % rules)
        log = open(os.path.join(self.work, "prometheus.log"), "w")
        self.procs.append(subprocess.Popen(
            [server, "--config.file=" + config, "--storage.tsdb.path=" + os.path.join(self.work, "tsdb"),
             "--web.listen-address=127.0.0.1:%d" % self.prom_port],
            stdout=log, stderr=log, preexec_fn=die_with_parent))

    def stop(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def logs(self):
        out = ""
        for name in ("node_exporter.log", "prometheus.log"):
            path = os.path.join(self.work, name)
            if os.path.exists(path):
                with open(path) as f:
                    out += "--- %s (last lines)\n%s" % (name, "".join(f.readlines()[-15:]))
        return out

    def alerts(self, name):
        """The alerts `name` active now (pending or firing), from the API."""
        url = "http://127.0.0.1:%d/api/v1/alerts" % self.prom_port
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.load(r)
        return [a for a in body["data"]["alerts"] if a["labels"].get("alertname") == name]

    def query(self, expr, at=None):
        """The instant query's result, evaluated now or at time `at`."""
        params = {"query": expr}
        if at is not None:
            params["time"] = "%.3f" % at
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (self.prom_port, urllib.parse.urlencode(params))
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.load(r)
        if body.get("status") != "success":
            fail("query %s: %s" % (expr, body))
        return body["data"]["result"]

    def wait_for(self, expr, count, seconds=60):
        """The result of `expr` once it has `count` series."""
        deadline = time.time() + seconds
        last = None
        while time.time() < deadline:
            for p in self.procs:
                if p.poll() is not None:
                    fail("%s exited %d\n%s" % (p.args[0], p.returncode, self.logs()))
            try:
                last = self.query(expr)
                if len(last) >= count:
                    return last
            except OSError as e:  # not listening yet
                last = e
            time.sleep(0.5)
        fail("no %d series for %s within %d s (last: %s)\n%s" % (count, expr, seconds, last, self.logs()))

    def scrape(self):
        """What node_exporter serves, as Prometheus scrapes it."""
        url = "http://127.0.0.1:%d/metrics" % self.node_port
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.read().decode()


def with_services(args, work, check):
    exporter, server = need_tools("prometheus-node-exporter|node_exporter", "prometheus")
    prom = allreduce_job(args, work)
    services = Services(work, prom)
    old = signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # finally runs on ctest's kill
    try:
        services.start(exporter, server)
        # Every rank's series scraped at least once.
        services.wait_for('nccltap_busbw_gbs{op="AllReduce"}', NRANKS)
        check(services)
    finally:
        services.stop()
        signal.signal(signal.SIGTERM, old)


def case_services(args, work):
    def check(s):
        for metric, sel, tolerance in (("nccltap_busbw_gbs", 'op="AllReduce"', 0.01),
                                       ("nccl_bus_bandwidth_gbs", 'collective="AllReduce"',
                                        INSPECTOR_BUSBW_TOLERANCE)):
            result = s.query("%s{%s}" % (metric, sel))
            if len(result) != NRANKS:
                fail("%s{%s}: %d series, expected one per rank: %s" % (metric, sel, len(result), result))
            for r in result:
                v = float(r["value"][1])
                if abs(v - BUSBW_GBS) > tolerance * BUSBW_GBS:
                    fail("%s %s = %.3f GB/s, the simulator's is %.1f (%g%%)"
                         % (metric, r["metric"], v, BUSBW_GBS, 100 * tolerance))
            print("ok: %s{%s}: %s GB/s (simulated %.0f)" % (metric, sel,
                  ", ".join("%.2f" % float(r["value"][1]) for r in result), BUSBW_GBS))
        expr = 'histogram_quantile(0.5, sum by (le) (nccltap_op_duration_seconds_bucket{op="AllReduce"}))'
        p50 = float(s.query(expr)[0]["value"][1])
        bounds = sorted({float(r["metric"]["le"]) for r in
                         s.query('nccltap_op_duration_seconds_bucket{op="AllReduce"}')})
        want = expected_duration_s()
        upper = min(b for b in bounds if b >= want)
        lower = max([b for b in bounds if b < want] or [0.0])
        if not lower <= p50 <= upper:
            fail("%s = %.6f s, outside the bucket (%.6g, %.6g] that holds the simulated %.6f s"
                 % (expr, p50, lower, upper, want))
        print("ok: %s = %.6f s; simulated %.6f s, bucket (%.6g, %.6g]" % (expr, p50, want, lower, upper))
    with_services(args, work, check)


# The dashboard's panel of the steps found from the calls (per
# communicator, while the job runs: nccltap_comm_step_*).
FOUND_STEPS_PANEL = "Steps found from the calls"


def check_found_steps(services, panels, live):
    """The found-steps panels over a job of DDP's buckets (step_app
    buckets 6): each target a series per rank, the last step's time
    positive and its NCCL time within it (the union of the step's calls'
    intervals; 1.5x for the polls' resolution of stamped calls)."""
    services.wait_for('nccltap_comm_step_last_seconds{job_id="prom-test-steps"}', NRANKS)
    services.wait_for('nccltap_comm_step_last_nccl_seconds{job_id="prom-test-steps"}', NRANKS)
    at, values = time.time(), {}
    for panel in panels:
        for target in panel["targets"]:
            expr = dashboard_query(target["expr"])
            res = [r for r in services.query(expr, at) if r["metric"].get("job_id") == "prom-test-steps"]
            vals = {r["metric"].get("rank"): float(r["value"][1]) for r in res}
            if len(vals) != NRANKS or not all(finite(v) and v > 0 for v in vals.values()):
                fail("panel %r: %s gives %s, want a positive time per rank" % (panel["title"], expr, vals))
            values[target["refId"]] = vals
    step, nccl = values.get("A", {}), values.get("B", {})
    if set(step) != set(nccl) or any(nccl[r] > 1.5 * step[r] for r in step):
        fail("the last step's time %s and its NCCL time %s: want the NCCL time within the step" % (step, nccl))
    live["found_steps"] = values
    print("ok: the steps found from the calls, per rank: step %s s, NCCL %s s" % (step, nccl))


def dashboard_query(expr):
    """A panel's query as Grafana sends it, its variables at "All"."""
    expr = expr.replace("$__rate_interval", "1m")
    return re.sub(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?", ".*", expr)


def finite(v):
    return v == v and v not in (float("inf"), float("-inf"))


def check_import(board):
    """Import asks for the Prometheus data source (__inputs), and every
    query goes to the one chosen (through the datasource variable)."""
    inputs = [i for i in board.get("__inputs", []) if i.get("pluginId") == "prometheus"]
    if len(inputs) != 1:
        fail("the dashboard's __inputs hold %d Prometheus data sources, want 1: %s" % (len(inputs), inputs))
    var = [v for v in board["templating"]["list"] if v["type"] == "datasource"]
    if len(var) != 1 or var[0]["current"].get("value") != "${%s}" % inputs[0]["name"]:
        fail("the datasource variable does not default to the imported data source: %s" % var)
    for panel in board["panels"]:
        for ds in [panel.get("datasource")] + [t.get("datasource") for t in panel["targets"]]:
            if ds != {"type": "prometheus", "uid": "${%s}" % var[0]["name"]}:
                fail("panel %r queries %s, not the chosen data source" % (panel["title"], ds))


def board_query(args, title_part, legend_part):
    """A dashboard panel's query (variables at "All") whose legend has
    `legend_part`."""
    with open(os.path.join(args.src, "tools", "grafana", "nccltap.json")) as f:
        board = json.load(f)
    for p in board["panels"]:
        for t in p["targets"]:
            if title_part in p["title"] and legend_part in t["legendFormat"]:
                return dashboard_query(t["expr"])
    fail("no dashboard panel %r with a legend %r" % (title_part, legend_part))


def case_dashboard(args, work):
    """The dashboard's metrics and labels are in a real scrape, and every
    panel's query, run while the job is still writing its files (so that
    rates see counters grow, as they do in production), gives finite
    values: a query over files that no longer change gives rate() = 0 and
    histogram_quantile() = NaN, which a check for "any data" passes. The
    p50 panel's AllReduce falls in the bucket of the simulated duration."""
    dashboard = os.path.join(args.src, "tools", "grafana", "nccltap.json")
    sys.path.insert(0, os.path.join(args.src, "tools", "grafana"))
    from dashboard_queries import metrics_and_labels  # noqa: E402

    with open(dashboard) as f:
        board = json.load(f)
    check_import(board)
    # Steps found from the calls need a job with steps: checked on a second
    # job below (step_app's DDP buckets); the first is one AllReduce size.
    found = [p for p in board["panels"] if p["title"].startswith(FOUND_STEPS_PANEL)]
    if not found:
        fail("no panel %r in %s" % (FOUND_STEPS_PANEL, dashboard))
    used = metrics_and_labels(dict(board, panels=[p for p in board["panels"] if p not in found]))
    if not used:
        fail("no queries found in %s" % dashboard)
    exporter, server = need_tools("prometheus-node-exporter|node_exporter", "prometheus")
    prom = os.path.join(work, "prom")
    os.mkdir(prom, 0o755)
    services = Services(work, prom)
    old = signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # finally runs on ctest's kill
    live = {}

    def check(proc, _):
        # Files every 200 ms, scraped every second, for about 8 s (1.0 ms
        # per simulated AllReduce of 128 MiB at 200 GB/s).
        ar = 'op="AllReduce"'
        services.wait_for('rate(nccltap_ops_total{%s}[1m]) > 0' % ar, NRANKS)
        services.wait_for('rate(nccltap_op_duration_seconds_count{%s}[1m]) > 0' % ar, NRANKS)
        _, samples = parse(services.scrape())
        scraped = {}
        for name, labels, _ in samples:
            scraped.setdefault(name, set()).update(labels)
        for metric, labels in sorted(used.items()):
            if metric not in scraped:
                fail("the dashboard uses %s, which the scrape does not have" % metric)
            missing = labels - scraped[metric] - {"job", "instance"}  # Prometheus' target labels
            if missing:
                fail("the dashboard uses labels %s of %s, which the scrape lacks (it has %s)"
                     % (sorted(missing), metric, sorted(scraped[metric])))
        print("ok: the %d metrics the dashboard uses, with their labels, are in the scrape: %s"
              % (len(used), ", ".join(sorted(used))))
        # Every panel at one instant, as Grafana draws them: the same scrapes
        # in every rate's window.
        results, at = {}, time.time()
        for panel in board["panels"]:
            if panel in found:
                continue
            for target in panel["targets"]:
                expr = dashboard_query(target["expr"])
                res = services.query(expr, at)
                if not res:
                    fail("panel %r: no data for %s" % (panel["title"], expr))
                bad = [r for r in res if not finite(float(r["value"][1]))]
                if bad:
                    fail("panel %r: %s gives %s" % (panel["title"], expr,
                         ", ".join("%s=%s" % (r["metric"], r["value"][1]) for r in bad)))
                results[target["expr"]] = res
        live["running"] = proc.poll() is None
        live["results"] = results
        print("ok: every panel's query gives finite values: %d queries%s"
              % (len(results), " (the job still running)" if live["running"] else ""))

    try:
        services.start(exporter, server)
        services.wait_for("up", 1)
        run_job(args, work, {"NCCLTAP_PROM_KEEP": "1", "NCCLTAP_JOB_ID": "prom-test-job",
                             "NCCLTAP_INTERVAL_MS": "200"},
                ["--ranks", str(NRANKS), "--op", "allreduce", "--bytes", str(ALLREDUCE_BYTES),
                 "--iters", "8000", "--warmup", "2", "--mark-steps"], watch=check)
        bounds = sorted({float(r["metric"]["le"]) for r in
                         services.query('nccltap_op_duration_seconds_bucket{op="AllReduce"}')})
        run_job(args, work, {"NCCLTAP_PROM_KEEP": "1", "NCCLTAP_JOB_ID": "prom-test-steps",
                             "NCCLTAP_INTERVAL_MS": "200"}, None,
                app=[os.path.join(args.bin, "step_app"), str(NRANKS), "400", "buckets", "6"],
                watch=lambda proc, _: check_found_steps(services, found, live))
    finally:
        services.stop()
        signal.signal(signal.SIGTERM, old)
    if "results" not in live or "found_steps" not in live:
        fail("the panels were not queried")

    def panel(title_part, expr_part):
        for p in board["panels"]:
            for t in p["targets"]:
                if title_part in p["title"] and expr_part in t["expr"]:
                    return {tuple(sorted(r["metric"].items())): float(r["value"][1])
                            for r in live["results"][t["expr"]]}
        fail("no panel %r with %r" % (title_part, expr_part))

    def allreduce(values, **more):
        got = [v for k, v in values.items() if dict(k).get("op") == "AllReduce"
               and all(dict(k).get(a) == b for a, b in more.items())]
        if len(got) != 1:
            fail("expected one AllReduce series, got %s" % values)
        return got[0]

    # p50 and p99 of the rates of the buckets: the simulated duration's bucket.
    size = {"size_class": str(ALLREDUCE_BYTES)}
    p50 = allreduce(panel("p50", "histogram_quantile(0.5,"), **size)
    p99 = allreduce(panel("p50", "histogram_quantile(0.99,"), **size)
    want = expected_duration_s()
    upper = min(b for b in bounds if b >= want)
    lower = max([b for b in bounds if b < want] or [0.0])
    if not lower <= p50 <= upper:
        fail("the p50 panel's AllReduce %.6f s is outside the bucket (%.6g, %.6g] of the simulated %.6f s"
             % (p50, lower, upper, want))
    if not p50 <= p99:
        fail("the p99 panel's AllReduce %.6f s is below its p50 %.6f s" % (p99, p50))
    # Rates of counters that grow: calls and bytes per second, and bytes per
    # call exactly the size (both counters are in one file, one scrape, and
    # were queried at one instant).
    calls = allreduce(panel("Calls per second", ""))
    nbytes = allreduce(panel("Bytes per second", ""))
    if not calls > 0 or abs(nbytes / calls - ALLREDUCE_BYTES) > 1e-6 * ALLREDUCE_BYTES:
        fail("calls/s %.3f, bytes/s %.3f: not > 0 with %d bytes per call" % (calls, nbytes, ALLREDUCE_BYTES))
    busbw = allreduce(panel("per collective", ""), **size)
    if not 0.5 * BUSBW_GBS < busbw < 1.5 * BUSBW_GBS:
        fail("the busbw panel's AllReduce %.3f GB/s, the simulator's %.1f" % (busbw, BUSBW_GBS))
    for title, expr in (("Dropped", "dropped"), ("Dropped", "untimed")):
        vals = panel(title, expr)
        if any(v != 0 for v in vals.values()):
            fail("the %s calls panel: %s, not 0" % (expr, vals))
    # A step a call issued (--mark-steps: marked on the host, which issues
    # them all ahead of the GPU, so the rate may be 0 by now): a series per
    # process, and the last step's time.
    steps, last = panel("Steps", "nccltap_steps_total"), panel("Steps", "nccltap_step_last_seconds")
    if len(steps) != NRANKS or len(last) != NRANKS or not all(v > 0 for v in last.values()):
        fail("the steps panel: %s steps/s, last step %s s: want %d processes each" % (steps, last, NRANKS))
    print("ok: p50 %.6f s in the bucket (%.6g, %.6g] of the simulated %.6f s; p99 %.6f s; %.1f calls/s "
          "of %d bytes; busbw %.2f GB/s; nothing dropped or untimed"
          % (p50, lower, upper, want, p99, calls, ALLREDUCE_BYTES, busbw))


# -- the rules ------------------------------------------------------------------

def rules_path(args):
    return os.path.join(args.src, "tools", "prometheus", "nccltap-rules.yml")


def case_rules(args, work):
    (promtool,) = need_tools("promtool")
    rules = rules_path(args)
    tests = os.path.join(os.path.dirname(rules), "nccltap-rules.test.yml")
    for cmd in (["check", "rules", rules], ["test", "rules", tests]):
        r = subprocess.run([promtool] + cmd, capture_output=True, text=True, cwd=work)
        if r.returncode != 0:
            fail("promtool %s: exit %d\n%s%s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
    # Every alert has a case that fires it and one where it stays quiet.
    with open(rules) as f:
        alerts = set(re.findall(r"^\s*- alert: (\w+)", f.read(), re.M))
    with open(tests) as f:
        text = f.read()
    checks = re.findall(r"alertname: (\w+)\n\s*exp_alerts:( \[\])?", text)
    fired = {a for a, empty in checks if not empty}
    quiet = {a for a, empty in checks if empty}
    want = {"NcclRankMissing", "NcclStraggler", "NcclBusbwBelowExpected", "NcclTapDropping",
            "NcclCollectiveMismatch"}
    if alerts != want or fired != want or quiet != want:
        fail("alerts %s; tested firing %s, quiet %s; want each of %s" % (sorted(alerts), sorted(fired),
                                                                       sorted(quiet), sorted(want)))
    print("ok: promtool checks the rules and passes their unit tests; each of %s is tested firing and quiet"
          % ", ".join(sorted(want)))


SLOW_RANK, SLOW_US = 2, 500


def live_job(args, work, services, rules, env, bench_args, check):
    """The services with `rules`, and the job under `env`, `check(proc)`
    run while it runs; the job is stopped then if it still runs."""
    exporter, server = need_tools("prometheus-node-exporter|node_exporter", "prometheus")
    prom = os.path.join(work, "prom")
    os.mkdir(prom, 0o755)
    services.textfile_dir = prom
    old = signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # finally runs on ctest's kill
    proc = None
    try:
        services.start(exporter, server, rules)
        services.wait_for("up", 1)
        env = dict(dict(os.environ, NCCLTAP_PROM_DIR=prom, NCCLTAP_TIMING=every_op_timing(env), NCCLSIM_LAT_US="0",
                        NCCLSIM_BUSBW_GBS=str(BUSBW_GBS), NCCLTAP_JOB_ID="prom-live", NCCLTAP_INTERVAL_MS="200"),
                   **env)
        cmd = [os.path.join(args.bin, "nccltap"), "run", "--sim", "--dir", os.path.join(work, "out"), "--",
               os.path.join(args.bin, "nccltap-bench")] + bench_args
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        check(proc)
    finally:
        if proc:
            if proc.poll() is None:
                proc.terminate()
            proc.communicate(timeout=60)
        services.stop()
        signal.signal(signal.SIGTERM, old)


def case_straggler(args, work):
    services = Services(work, None)
    want = SLOW_US * 1e-6

    def check(proc):
        expr = 'nccltap:rank_wait_caused_seconds:mean5m{op="AllReduce"}'
        deadline, last = time.time() + 90, None
        while time.time() < deadline and proc.poll() is None:
            res = services.query(expr)
            waits = {r["metric"]["rank"]: float(r["value"][1]) for r in res}
            last = waits
            late = max(waits, key=waits.get) if len(waits) == NRANKS else None
            if late == str(SLOW_RANK) and abs(waits[late] - want) <= 0.1 * want and \
                    all(v < 0.1 * want for r, v in waits.items() if r != late):
                break
            time.sleep(0.5)
        else:
            fail("%s did not name rank %d late by %.0f us (within 10%%) while the job ran: last %s\n%s"
                 % (expr, SLOW_RANK, SLOW_US, last, services.logs()))
        print("ok: while the job runs, %s: %s (rank %d late by %.0f us)"
              % (expr, ", ".join("rank %s %.1f us" % (r, v * 1e6) for r, v in sorted(last.items())),
                 SLOW_RANK, SLOW_US))
        # The dashboard's panel: the late rank on top, by the delay.
        res = services.query(board_query(args, "Wait per rank", "caused"))
        panel = {r["metric"]["rank"]: float(r["value"][1]) for r in res}
        top = max(panel, key=panel.get) if panel else None
        if top != str(SLOW_RANK) or abs(panel[top] - want) > 0.1 * want:
            fail("the dashboard's wait caused panel: %s, want rank %d on top by %.0f us" % (panel, SLOW_RANK, SLOW_US))
        print("ok: the dashboard's wait caused panel puts rank %s on top: %.1f us" % (top, panel[top] * 1e6))
        # The alert waits 5 minutes to fire: pending now, for rank 2 alone.
        deadline = time.time() + 30
        while time.time() < deadline and proc.poll() is None:
            ranks = sorted(a["labels"]["rank"] for a in services.alerts("NcclStraggler"))
            if ranks:
                break
            time.sleep(0.5)
        if ranks != [str(SLOW_RANK)]:
            fail("NcclStraggler active for ranks %s, want [%d]" % (ranks, SLOW_RANK))
        if proc.poll() is not None:
            fail("the job ended before the checks: make it longer")
        print("ok: NcclStraggler is pending for rank %d alone" % SLOW_RANK)

    live_job(args, work, services, rules_path(args),
             {"NCCLSIM_SLOW_RANK": str(SLOW_RANK), "NCCLSIM_SLOW_US": str(SLOW_US)},
             ["--ranks", str(NRANKS), "--op", "allreduce", "--bytes", str(ALLREDUCE_BYTES), "--iters", "40000",
              "--warmup", "2"], check)


HANG_RANK, HANG_SEQ, HANG_AFTER_S, SCRAPE_S = 1, 50, 5, 1


def case_hang(args, work):
    # The shipped rules, with the stall threshold (in one place) at 5 s
    # instead of 300.
    with open(rules_path(args)) as f:
        text = f.read()
    threshold = "record: nccltap:hang_threshold_seconds\n        expr: vector(300)"
    if text.count(threshold) != 1 or text.count("300") != 2:  # the record, and its comment
        fail("%s: expected the threshold %r in one place" % (rules_path(args), threshold))
    rules = os.path.join(work, "nccltap-rules.yml")
    with open(rules, "w") as f:
        f.write(text.replace(threshold, threshold.replace("300", str(HANG_AFTER_S))))
    services = Services(work, None)

    def check(proc):
        called = None
        deadline = time.time() + 60
        while time.time() < deadline and proc.poll() is None:
            if called is None:
                res = services.query('min(nccltap_comm_oldest_pending_timestamp_seconds{op="AllReduce"})')
                called = float(res[0]["value"][1]) if res else None
            active = services.alerts("NcclRankMissing")
            if active:
                break
            time.sleep(0.1)
        else:
            fail("NcclRankMissing never active while rank %d hangs\n%s" % (HANG_RANK, services.logs()))
        seen = time.time()
        if called is None:
            fail("no oldest pending op was scraped before the alert")
        labels = [a["labels"] for a in active]
        if len(labels) != 1 or labels[0].get("rank") != str(HANG_RANK) or labels[0].get("op") != "AllReduce" \
                or labels[0].get("seq") != str(HANG_SEQ) or labels[0].get("job_id") != "prom-live":
            fail("NcclRankMissing active with %s, want rank %d alone, AllReduce seq %d" % (labels, HANG_RANK,
                                                                                              HANG_SEQ))
        a = active[0]
        at = a["activeAt"]  # RFC 3339, UTC: 2026-11-26T13:40:01.123456789Z
        whole, _, frac = at.rstrip("Z").partition(".")
        active_at = calendar.timegm(time.strptime(whole, "%Y-%m-%dT%H:%M:%S")) + float("0." + (frac or "0"))
        after = active_at - called
        bound = HANG_AFTER_S + 2 * SCRAPE_S
        if not HANG_AFTER_S <= after <= bound:
            fail("NcclRankMissing active %.2f s after the op's call, want %d to %d s" % (after, HANG_AFTER_S, bound))
        print("ok: NcclRankMissing %s for rank %s (%s seq %s) %.2f s after the stuck op's call (threshold %d s, "
              "bound %d s); seen %.2f s after" % (a["state"], labels[0]["rank"], labels[0]["op"], labels[0]["seq"],
                                                  after, HANG_AFTER_S, bound, seen - called))

        # The dashboard's hang panel: rank 1 behind, the others not.
        res = services.query(board_query(args, "Hang", "behind"))
        behind = {r["metric"]["rank"]: float(r["value"][1]) for r in res}
        if sorted(behind) != [str(r) for r in range(NRANKS)] or \
                any((v > 0) != (r == str(HANG_RANK)) for r, v in behind.items()):
            fail("the dashboard's hang panel: ops behind %s, want rank %d alone above 0" % (behind, HANG_RANK))
        print("ok: the dashboard's hang panel has rank %d behind by %.0f op, the others at 0"
              % (HANG_RANK, behind[str(HANG_RANK)]))

    live_job(args, work, services, rules,
             {"NCCLSIM_HANG_RANK": str(HANG_RANK), "NCCLSIM_HANG_SEQ": str(HANG_SEQ)},
             ["--ranks", str(NRANKS), "--op", "allreduce", "--bytes", "1M", "--iters", "200", "--warmup", "0"],
             check)


def case_hang_auto(args, work):
    """The default timing stamps every op, so a hang at an op it did not
    time precisely is pending too: rank 1 never reaches AllReduce seq 50
    (NCCLSIM_HANG_RANK), files every 200 ms, NCCLTAP_HANG_TIMEOUT_S=2. Once
    the hang timeout has passed, within one interval, each waiting rank's
    file counts the stuck op pending, and its comm's oldest pending op's
    timestamp is that old."""
    prom = os.path.join(work, "prom")
    os.mkdir(prom)
    timeout_s, interval_s = 2, 0.2
    env = dict(os.environ, NCCLTAP_PROM_DIR=prom, NCCLTAP_TIMING="auto", NCCLTAP_INTERVAL_MS="200",
               NCCLTAP_HANG_TIMEOUT_S=str(timeout_s), NCCLSIM_HANG_RANK=str(HANG_RANK),
               NCCLSIM_HANG_SEQ=str(HANG_SEQ))
    cmd = [os.path.join(args.bin, "nccltap"), "run", "--sim", "--dir", os.path.join(work, "out"), "--",
           os.path.join(args.bin, "nccltap-bench"), "--ranks", str(NRANKS), "--op", "allreduce", "--bytes", "1M",
           "--iters", "200", "--warmup", "0"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline, ages = time.time() + 60, {}
        while time.time() < deadline and len(ages) < NRANKS - 1:
            for path in glob.glob(os.path.join(prom, "*.prom")):
                try:
                    text = open(path).read()
                    now = time.time()
                except OSError:
                    continue
                _, samples = parse(text)
                pending = [v for n, _, v in samples if n == "nccltap_pending_ops"]
                oldest = [(l, v) for n, l, v in samples if n == "nccltap_comm_oldest_pending_timestamp_seconds"]
                for labels, ts in oldest:
                    rank = int(labels["rank"])
                    if rank != HANG_RANK and sum(pending) >= 1 and now - ts >= timeout_s:
                        ages.setdefault(rank, (now - ts, labels.get("op")))
            time.sleep(0.05)
        if sorted(ages) != [r for r in range(NRANKS) if r != HANG_RANK]:
            fail("the waiting ranks' files with the stuck op pending past %d s: %s" % (timeout_s, ages))
        for rank, (age, op) in sorted(ages.items()):
            if op != "AllReduce" or age > timeout_s + 2 * interval_s + 1:
                fail("rank %d: oldest pending %s, first seen %.2f s old (timeout %d s, interval %.1f s)"
                     % (rank, op, age, timeout_s, interval_s))
        print("ok: the waiting ranks' files carry the stuck AllReduce pending, first seen at ages %s s"
              % {r: round(a, 2) for r, (a, _) in sorted(ages.items())})
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def case_steps(args, work):
    """A program that marks its steps (tests/apps/step_app.c `mark`, 50
    steps, each calling nccltap_step()): each GPU's file has
    nccltap_steps_total 50 and nccltap_step_last_seconds, the last step's
    time (a step is 200 us of work and more), and promtool accepts it; a
    job that marks none has neither family."""
    (promtool,) = need_tools("promtool")
    app = os.path.join(args.bin, "step_app")
    keep = {"NCCLTAP_PROM_KEEP": "1"}  # the files stay after the job
    prom = run_job(args, work, keep, None, app=[app, str(NRANKS), "50", "mark"])
    files = prom_files(prom)
    if len(files) != NRANKS:
        fail("expected %d files, found %s" % (NRANKS, files))
    for path in files:
        promtool_accepts(promtool, path)
        with open(path) as f:
            _, samples = parse(f.read())
        steps = [v for n, _, v in samples if n == "nccltap_steps_total"]
        last = [v for n, _, v in samples if n == "nccltap_step_last_seconds"]
        if steps != [50] or len(last) != 1 or not 200e-6 <= last[0] < 1.0:
            fail("%s: nccltap_steps_total %s, nccltap_step_last_seconds %s; want 50 and one time" % (path, steps, last))
    unmarked = run_job(args, os.path.join(work, "unmarked"), keep, None, app=[app, str(NRANKS), "5"])
    if len(prom_files(unmarked)) != NRANKS:
        fail("expected %d files of the unmarked job, found %s" % (NRANKS, prom_files(unmarked)))
    for path in prom_files(unmarked):
        with open(path) as f:
            if "nccltap_step" in f.read():
                fail("%s: step families without marks" % path)
    print("ok: %d files with 50 steps marked and the last step's time; none without marks" % len(files))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--api-exercise")
    ap.add_argument("case", choices=["files", "names", "removed", "sigterm", "shared_gpu", "no_gpu", "bad_config", "services",
                                       "dashboard", "rules", "straggler", "hang", "hang_auto", "steps"])
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="nccltap-prom-")
    try:
        globals()["case_" + args.case](args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
