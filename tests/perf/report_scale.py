#!/usr/bin/env python3
"""The report's memory grows with the rows it keeps, not with the JSON it
reads: `nccltap report` (text and --json) over 64 and over 512 synthetic
rank files of 200 rows (gen_rank_files.py). Each extra row may cost at most
ROW_BUDGET bytes of peak RSS (a kept row is about 330 bytes with its
histogram; keeping each file's parsed JSON, as the report once did, costs
7 KB a row), and the whole run stays within the 512 MiB that 4,096 files
may take, scaled to 512 files. No timing is asserted: BENCHMARKS.md has
the figures.

Usage: report_scale.py NCCLTAP WORKDIR [--no-rss]   (--no-rss under ASan,
whose shadow memory makes RSS meaningless; the outputs are still checked)

The cross-rank analysis at the issue's scale (BENCHMARKS.md: 1,024 ranks x
10,000 timed ops, under 30 s and 1 GiB): per-op files from
gen_ops_files.py, `nccltap report --json`, its elapsed time and peak RSS,
and the answer (the generator's straggler alone):
       report_scale.py NCCLTAP WORKDIR --ops RANKS OPS [--limit-s S] [--limit-mib M]
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = 200
ROW_BUDGET = 1024            # bytes of peak RSS per extra row
SCALED_LIMIT = 512 * 2**20 * 512 // 4096  # 64 MiB for 512 files


def generate(d, nfiles):
    shutil.rmtree(d, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_rank_files.py"), d, str(nfiles),
                    str(ROWS)], check=True)


def peak_rss(cmd):
    """Runs cmd in a child of its own and returns (stdout, peak RSS in bytes)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.dup2(w, 1)
        os.execv(cmd[0], cmd)
    os.close(w)
    chunks = []
    with os.fdopen(r, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            chunks.append(chunk)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("FAIL: %s exited with %d" % (cmd, os.waitstatus_to_exitcode(status)))
    return b"".join(chunks), usage.ru_maxrss * 1024


def crossrank_scale(nccltap, d, ranks, ops, straggler):
    """Per-op files of RANKS x OPS AllReduces in d (generated unless there),
    then `nccltap report --json` over them: (seconds, peak RSS bytes, the
    document, what is wrong with its answer)."""
    stamp = os.path.join(d, ".generated")
    want = "%d %d %d" % (ranks, ops, straggler)
    if not os.path.exists(stamp) or open(stamp).read() != want:
        shutil.rmtree(d, ignore_errors=True)
        subprocess.run([sys.executable, os.path.join(HERE, "gen_ops_files.py"), d, str(ranks), str(ops),
                        str(straggler)], check=True)
        with open(stamp, "w") as f:
            f.write(want)
    t0 = time.monotonic()
    out, rss = peak_rss([nccltap, "report", "--json", d])
    elapsed = time.monotonic() - t0
    doc = json.loads(out)
    wrong = []
    st = doc["stragglers"]
    if len(st) != 1 or st[0]["rank"] != straggler:
        wrong.append("stragglers %s, want rank %d alone" % ([s["rank"] for s in st], straggler))
    elif st[0]["last"] != ops - 1 or st[0]["instances"] != ops - 1:
        # The first instance is left out (start-up), and the generator makes
        # the next rank last there.
        wrong.append("rank %d last in %d of %d, want %d of %d"
                     % (straggler, st[0]["last"], st[0]["instances"], ops - 1, ops - 1))
    if len(doc["crossrank"]["waits"]) != ranks:
        wrong.append("%d ranks' waits, want %d" % (len(doc["crossrank"]["waits"]), ranks))
    return elapsed, rss, doc, wrong


def crossrank_main(nccltap, work):
    args = sys.argv[sys.argv.index("--ops") + 1:]
    ranks, ops = int(args[0]), int(args[1])
    limit_s = float(args[args.index("--limit-s") + 1]) if "--limit-s" in args else 30.0
    limit_mib = float(args[args.index("--limit-mib") + 1]) if "--limit-mib" in args else 1024.0
    straggler = min(517, ranks - 1)
    elapsed, rss, doc, wrong = crossrank_scale(nccltap, os.path.join(work, "ops%dx%d" % (ranks, ops)),
                                               ranks, ops, straggler)
    st = doc["stragglers"][0] if doc["stragglers"] else {}
    print("%d ranks x %d ops: %.1f s, peak RSS %.0f MiB (%d KiB); rank %s last in %s of %s, "
          "%.1f us mean wait; %d hosts" % (ranks, ops, elapsed, rss / 2**20, rss // 1024, st.get("rank"),
                                           st.get("last"), st.get("instances"), st.get("wait_us_mean", 0),
                                           len(doc["crossrank"]["hosts"])))
    if elapsed > limit_s:
        wrong.append("%.1f s, over %.0f s" % (elapsed, limit_s))
    if rss > limit_mib * 2**20:
        wrong.append("peak RSS %.0f MiB, over %.0f MiB" % (rss / 2**20, limit_mib))
    for w in wrong:
        print("FAIL:", w, file=sys.stderr)
    return 1 if wrong else 0


def main():
    nccltap, work = sys.argv[1], sys.argv[2]
    if "--ops" in sys.argv:
        return crossrank_main(nccltap, work)
    check_rss = "--no-rss" not in sys.argv
    failed = []
    sizes = {}
    for nfiles in (64, 512):
        d = os.path.join(work, "files%d" % nfiles)
        generate(d, nfiles)
        for mode in ("text", "json"):
            cmd = [nccltap, "report"] + (["--json"] if mode == "json" else []) + [d]
            out, rss = peak_rss(cmd)
            sizes[(nfiles, mode)] = rss
            print("%4d files x %d rows, %s: peak RSS %.1f MiB" % (nfiles, ROWS, mode, rss / 2**20))
            if mode == "json":
                doc = json.loads(out)
                if len(doc["ops"]) != nfiles * ROWS or doc["files"] != nfiles:
                    failed.append("--json over %d files has %d rows" % (nfiles, len(doc["ops"])))
            elif b"%d in %d processes" % (nfiles, nfiles) not in out:
                failed.append("the text report over %d files does not count them" % nfiles)
    if check_rss:
        extra_rows = (512 - 64) * ROWS
        for mode in ("text", "json"):
            growth = sizes[(512, mode)] - sizes[(64, mode)]
            if growth > extra_rows * ROW_BUDGET:
                failed.append("%s: %.0f bytes of RSS per extra row (budget %d)"
                              % (mode, growth / extra_rows, ROW_BUDGET))
            if sizes[(512, mode)] > SCALED_LIMIT:
                failed.append("%s: %.1f MiB over 512 files (limit %.0f MiB)"
                              % (mode, sizes[(512, mode)] / 2**20, SCALED_LIMIT / 2**20))
    for f in failed:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
