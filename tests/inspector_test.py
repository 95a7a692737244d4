#!/usr/bin/env python3
"""The per-op logs (NCCLTAP_OPS_JSONL) end to end, on the simulator:
nccltap-bench under `nccltap run`, then `nccltap report --json`.

  replay   NCCLTAP_OPS_JSONL=inspector: one record per timed op (as many as
           the rank file's totals.timed), each valid JSON with every key
           Inspector's exporter needs; tests/inspector_reader.py, written from
           Inspector's schema, recomputes each (rank, collective, size)'s time
           and busbw, which match the report's within 1%.
  bound-inspector, bound-nccltap
           NCCLTAP_OPS_MAX_MB=1 with more ops than fit, in either format: the
           file stays within 1 MiB, holds whole lines, the first ops with no
           gap, and the lines left out are counted in totals.ops_lines_dropped,
           the report and the exit summary.

Usage: inspector_test.py --bin BUILD/bin CASE
"""
import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inspector_reader  # noqa: E402
from testlib import fail  # noqa: E402


def run(bin_dir, work, env_extra, bench_args):
    out_dir = os.path.join(work, "out")
    env = dict(os.environ, **env_extra)
    nccltap = os.path.join(bin_dir, "nccltap")
    cmd = [nccltap, "run", "--sim", "--dir", out_dir, "--", os.path.join(bin_dir, "nccltap-bench")] + bench_args
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    sys.stdout.write(p.stdout[-2000:])
    sys.stderr.write(p.stderr[-2000:])
    if p.returncode != 0:
        fail("%s exited %d" % (" ".join(cmd), p.returncode))
    report = subprocess.run([nccltap, "report", "--json", out_dir], env=env, capture_output=True, text=True)
    if report.returncode != 0:
        fail("nccltap report exited %d: %s" % (report.returncode, report.stderr))
    text = subprocess.run([nccltap, "report", out_dir], env=env, capture_output=True, text=True)
    rank_files = {}
    for path in glob.glob(os.path.join(out_dir, "nccltap-*.json")):
        with open(path) as f:
            rank_files[path[:-len(".json")]] = json.load(f)
    if not rank_files:
        fail("no rank file in %s" % out_dir)
    return out_dir, p.stderr, json.loads(report.stdout), text.stdout, rank_files


def replay(bin_dir, work):
    out_dir, _, report, _, rank_files = run(
        # As torchrun would say for 4 ranks on 2 nodes: the bench's forked
        # ranks take the communicator for the job's world, of 2 nodes.
        bin_dir, work, {"NCCLTAP_OPS_JSONL": "inspector", "NCCLTAP_TIMING": "all", "NCCLSIM_BUSBW_GBS": "10",
                        "WORLD_SIZE": "4", "LOCAL_WORLD_SIZE": "2"},
        ["--ranks", "4", "--op", "all", "--bytes", "1M:4M", "--iters", "10", "--warmup", "0"])
    if glob.glob(os.path.join(out_dir, "*.ops.jsonl")):
        fail("NCCLTAP_OPS_JSONL=inspector also wrote nccltap's own per-op log")
    # One record per timed op, in the file of the process that timed it.
    for stem, doc in rank_files.items():
        path = stem + ".inspector.jsonl"
        if not os.path.exists(path):
            fail("%s: no Inspector log beside its rank file" % stem)
        records = []
        with open(path) as f:
            for no, line in enumerate(f, 1):
                try:
                    records.append(inspector_reader.parse_line(line))
                except (ValueError, inspector_reader.SchemaError) as e:
                    fail("%s:%d: %s" % (path, no, e))
        t = doc["totals"]
        if len(records) != t["timed"] or t["timed"] == 0 or t["ops_lines_dropped"] != 0:
            fail("%s: %d records, totals.timed %d, ops_lines_dropped %d"
                 % (path, len(records), t["timed"], t["ops_lines_dropped"]))
        for kind, header, metadata, perf in records:
            if (metadata["pid"] != doc["pid"] or metadata["hostname"] != doc["host"]
                    or header["rank"] not in doc["ranks"] or perf[kind + "_timing_source"] != "cuda_event"
                    or header["n_ranks"] != 4 or header["nnodes"] != 2):
                fail("%s: record %s %s is not of pid %d on %s, ranks %s of 4 on 2 nodes"
                     % (path, header, metadata, doc["pid"], doc["host"], doc["ranks"]))
    # Replayed by the reader, against the report's rows.
    summary = inspector_reader.summarize(inspector_reader.read_dir(out_dir))
    lines, problems = inspector_reader.compare(summary, report, 0.01)
    if problems or len(lines) != len(summary):
        fail("%d rows compared of %d: %s" % (len(lines), len(summary), "; ".join(problems[:5])))
    kinds = {key[2] for key in summary}
    want = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "AlltoAll", "Gather", "Scatter",
            "Send", "Recv"}
    if kinds != want:
        fail("operations in the records %s, expected %s" % (sorted(kinds), sorted(want)))
    print("ok: %d (comm, rank, op, size) rows replayed from the Inspector records" % len(summary))


def bound(bin_dir, work, fmt):
    # 2 ranks x 12000 calls (a share of them untimed when the reducer falls
    # behind on a busy machine): several MiB of lines per process in
    # either format, past a bound of 1 MiB.
    out_dir, stderr, report, text, rank_files = run(
        bin_dir, work, {"NCCLTAP_OPS_JSONL": fmt, "NCCLTAP_OPS_MAX_MB": "1", "NCCLTAP_TIMING": "all",
                        "NCCLSIM_LAT_US": "0", "NCCLTAP_VERBOSE": "1"},
        ["--ranks", "2", "--op", "allreduce", "--bytes", "8", "--iters", "12000", "--warmup", "0"])
    suffix = ".inspector.jsonl" if fmt == "inspector" else ".ops.jsonl"
    total_left_out = 0
    for stem, doc in rank_files.items():
        path = stem + suffix
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            data = f.read()
        if size > 1 << 20:
            fail("%s: %d bytes, above NCCLTAP_OPS_MAX_MB=1 (%d)" % (path, size, 1 << 20))
        if not data.endswith(b"\n"):
            fail("%s: the last line is not whole" % path)
        seqs = []
        for line in data.decode().splitlines():
            rec = json.loads(line)
            seqs.append(rec["coll_perf"]["coll_sn"] if fmt == "inspector" else rec["seq"])
        t = doc["totals"]
        left_out = t["ops_lines_dropped"]
        if left_out == 0 or len(seqs) + left_out != t["timed"]:
            fail("%s: %d lines + %d counted as not written != %d timed (expected some left out)"
                 % (path, len(seqs), left_out, t["timed"]))
        # The first timed ops, in order (calls the reducer could not time
        # leave gaps in seq): the log is the beginning of the run.
        if seqs[:1] != [0] or any(b <= a for a, b in zip(seqs, seqs[1:])):
            fail("%s: the lines are not the first ops in order: %s..." % (path, seqs[:10]))
        # Nearly full: a bound that stops early would lose ops for nothing
        # (lines differ by a few digits: two more of the longest must not fit).
        longest = max(len(line) for line in data.splitlines()) + 1
        if size + 2 * longest <= 1 << 20:
            fail("%s: %d bytes, but two more lines of %d would have fit" % (path, size, longest))
        total_left_out += left_out
        if "%d per-op lines past NCCLTAP_OPS_MAX_MB not written" % left_out not in stderr:
            fail("the exit summary does not say %d per-op lines were not written: %s" % (left_out, stderr))
    if report["totals"]["ops_lines_dropped"] != total_left_out:
        fail("report totals.ops_lines_dropped %d, the files' %d"
             % (report["totals"]["ops_lines_dropped"], total_left_out))
    if "WARNING: ops_lines_dropped %d: per-op log lines" % total_left_out not in text:
        fail("the report does not warn of the %d lines not written:\n%s" % (total_left_out, text))
    print("ok: %s logs within 1 MiB, %d lines counted as not written" % (fmt, total_left_out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("case", choices=["replay", "bound-inspector", "bound-nccltap"])
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="nccltap-inspector-")
    if a.case == "replay":
        replay(a.bin, work)
    else:
        bound(a.bin, work, "inspector" if a.case == "bound-inspector" else "1")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
