#!/usr/bin/env python3
"""`nccltap report` on a directory anyone could have written to.

fifo:   FIFOs named like a rank file and like a per-op log, and a symlink
        named like a rank file to a device (/dev/zero, endless), must not
        block the report: they are named on stderr and skipped, the rest
        is read.
escape: control characters, bidirectional overrides and isolates
        (U+202A..U+202E, U+2066..U+2069) and line and paragraph separators
        (U+2028, U+2029) in a host, job, communicator or op name reach the
        terminal only escaped (\\x1b, \\xe2\\x80\\xae), and so does a quote
        in a name the report prints between quotes, so that no name can
        forge the text around it; --json keeps them exactly.

escape_os: the same characters in what the OS interference section and
        finding print: a per-op record's op name (the OS finding's worst
        op, in the text, --findings and --html), a thread's name in a rank
        file's "os", the note of a process whose records were refused, and
        a file name in the run's directory that the messages on stderr
        name. None reaches the terminal raw (so no file can clear the
        screen and print a "Findings: None" of its own), the page shows
        them as text, not markup, and --json keeps them exactly.

Usage: report_hostile.py fifo|escape|escape_os NCCLTAP TESTDATA WORKDIR
"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testlib import Checks, fresh  # noqa: E402

check = Checks(sys.stderr)


def report(nccltap, *args):
    try:
        p = subprocess.run([nccltap, "report", *args], capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        check(False, "the report ended within 20 s")
        return None
    return p


def check_fifo(nccltap, testdata, work):
    d = fresh(os.path.join(work, "fifo"))
    for name in ("nccltap-nodeA-1001.json", "nccltap-nodeA-1002.json"):
        shutil.copy(os.path.join(testdata, "run4", name), d)
    os.mkfifo(os.path.join(d, "nccltap-pipe-7.json"))
    os.mkfifo(os.path.join(d, "nccltap-nodeA-1001.ops.jsonl"))
    os.mkdir(os.path.join(d, "nccltap-dir-8.json"))
    os.symlink("/dev/zero", os.path.join(d, "nccltap-zero-9.json"))
    p = report(nccltap, d)
    if p is None:
        return
    err = p.stderr.decode()
    check(p.returncode == 0, f"the readable files are reported (exit {p.returncode}): {err}")
    check(b"2 in 2 processes" in p.stdout, "both readable files are in the report")
    check("nccltap-pipe-7.json: a FIFO, not a regular file" in err,
          f"the FIFO named like a rank file is named: {err}")
    check("nccltap-nodeA-1001.ops.jsonl: a FIFO, not a regular file" in err,
          f"the FIFO named like a per-op log is named: {err}")
    check("nccltap-dir-8.json: a directory, not a regular file" in err,
          f"a directory named like a rank file is named: {err}")
    check("nccltap-zero-9.json: a character device, not a regular file" in err,
          f"a symlink to /dev/zero named like a rank file is named: {err}")
    check(b"skipped    3 files" in p.stdout, "the three skipped rank files are counted")


HOSTILE = {
    "host": "evil\x1b]0;owned\x07\x1b[2Jhost\u2067\u2029",
    "job": "job\r\x1b[1A\u202a",
    # A quote ends the quoted name early and forges the rest of its heading;
    # U+202E turns what follows it around on the screen, U+2028 breaks the line.
    "comm_name": "tp\x1b[31m\u009b2J\", 64 ranks\u202e\u2028\u2066",
    "op": "AllReduce\x1b[5m\u202d",
}

# Characters a terminal acts on or reorders the line by: C0 and C1 controls
# (but the newline), DEL, bidirectional embeddings, overrides and isolates,
# line and paragraph separators.
def acted_on(c):
    o = ord(c)
    return ((o < 0x20 and c != "\n") or 0x7f <= o <= 0x9f or 0x202a <= o <= 0x202e or
            0x2066 <= o <= 0x2069 or o in (0x2028, 0x2029))


def check_escape(nccltap, testdata, work):
    d = fresh(os.path.join(work, "escape"))
    with open(os.path.join(testdata, "run4", "nccltap-nodeA-1001.json")) as f:
        doc = json.load(f)
    doc["host"] = HOSTILE["host"]
    doc["job"] = HOSTILE["job"]
    for c in doc["comms"]:
        c["name"] = HOSTILE["comm_name"]
    for row in doc["ops"]:
        row["comm_name"] = HOSTILE["comm_name"]
        row["op"] = HOSTILE["op"]
    with open(os.path.join(d, "nccltap-evil-1001.json"), "w") as f:
        json.dump(doc, f)

    p = report(nccltap, d)
    if p is None:
        return
    out = p.stdout.decode("utf-8")
    check(p.returncode == 0, f"exit 0 (got {p.returncode}): {p.stderr}")
    bad = sorted({hex(ord(c)) for c in out if acted_on(c)})
    check(not bad, f"no control, bidi or separator character reaches the terminal: {bad}")
    for want in ("evil\\x1b]0;owned\\x07\\x1b[2Jhost\\xe2\\x81\\xa7\\xe2\\x80\\xa9",
                 "job\\x0d\\x1b[1A\\xe2\\x80\\xaa",
                 '"tp\\x1b[31m\\xc2\\x9b2J\\x22, 64 ranks\\xe2\\x80\\xae\\xe2\\x80\\xa8\\xe2\\x81\\xa6"',
                 "AllReduce\\x1b[5m\\xe2\\x80\\xad"):
        check(want in out, f"{want!r} is shown escaped")
    check('", 64 ranks' not in out, "a quote in a communicator name cannot end its quotes")

    p = report(nccltap, "--json", d)
    if p is None:
        return
    j = json.loads(p.stdout)
    check(j["ranks"][0]["host"] == HOSTILE["host"], "--json keeps the host exactly")
    check(j["job"] == HOSTILE["job"], "--json keeps the job exactly")
    check({c["name"] for c in j["comms"]} == {HOSTILE["comm_name"]},
          "--json keeps the communicator name exactly")


# A name that clears the screen and prints a verdict of its own, and
# markup that would run a script in the page.
FORGED = "AllReduce\x1b[2J\x1b[HFindings\x0d\n  None\u202e<img src=x onerror=alert(1)>"
FORGED_SHOWN = "AllReduce\\x1b[2J\\x1b[HFindings\\x0d\\x0a  None\\xe2\\x80\\xae<img src=x onerror=alert(1)>"
COMM = "5ca1ab1e00c0ffee"


def os_run(d, os_of):
    """Two ranks of 12 AllReduces named FORGED; each rank starts every other
    one 100 us late (rank 0 the even ones), so neither is a straggler;
    rank 0's thread 7, preempted 80 us before its calls of ops 2 and 4,
    explains 15% of rank 1's NCCL time (an OS finding); os_of(rank) is each
    rank file's "os"."""
    for pid, rank in ((101, 0), (102, 1)):
        doc = {"format": "nccltap-rank/1", "final": True, "host": "node", "pid": pid, "job": "os",
               "timing": "all", "timing_note": "", "wall_s": 0.02, "nccl_busy_s": 0.00108,
               "nccl_timed_s": 0.00108, "ranks": [rank],
               "comms": [{"id": COMM, "parent": "", "name": "world", "rank": rank, "nranks": 2,
                          "origin": "init", "state": "destroyed", "calls": 12}],
               "ops": [], "os": os_of(rank),
               "totals": {"calls": 12, "dropped": 0, "timed": 12, "untimed": 0, "captured": 0,
                          "pending": 0, "failed": 0}}
        with open(os.path.join(d, f"nccltap-node-{pid}.json"), "w") as f:
            json.dump(doc, f)
        with open(os.path.join(d, f"nccltap-node-{pid}.ops.jsonl"), "w") as f:
            for seq in range(12):
                start = 1_000_000 + seq * 1_000_000 + (100_000 if seq % 2 == rank else 0)
                f.write(json.dumps({"comm": COMM, "seq": seq, "rank": rank, "peer": -1, "op": FORGED,
                                    "dtype": "float32", "bytes": 1 << 20, "group": 0, "group_ops": 1,
                                    "tid": 7, "stream": "0x7f00", "enqueue_ns": start - 1000,
                                    "start_ns": start, "end_ns": 1_000_000 + seq * 1_000_000 + 140_000})
                        + "\n")


def check_terminal(what, text):
    bad = sorted({hex(ord(c)) for c in text if acted_on(c)})
    check(not bad, f"{what}: no control, bidi or separator character reaches the terminal: {bad}")


def check_escape_os(nccltap, _testdata, work):
    d = fresh(os.path.join(work, "os"))
    os_run(d, lambda rank: {"mode": "switch", "note": "", "threads": [{"tid": 7, "comm": FORGED}],
                            "off": [[7, 0, 3_010_000, 3_090_000, 1], [7, 0, 5_010_000, 5_090_000, 1]]})
    with open(os.path.join(d, "nccltap-evil\x1b[2J\x1b[H-9.json"), "w") as f:
        f.write("not a rank file")
    for opts in ([], ["--findings"]):
        p = report(nccltap, *opts, d)
        if p is None:
            continue
        out, err = p.stdout.decode(), p.stderr.decode()
        check(p.returncode in (0, 1), f"{opts}: ends well (exit {p.returncode}): {err}")
        check_terminal(f"{opts}", out)
        check_terminal(f"{opts} stderr", err)
        out = out.replace("\n      ", " ")  # a Findings line past 120 columns goes on at 6
        check(f"during {FORGED_SHOWN} seq 2" in out, f"{opts}: the OS finding shows the op escaped: {out}")
        check("nccltap-evil\\x1b[2J\\x1b[H-9.json" in err, f"{opts}: stderr names the file escaped: {err}")
        if not opts:
            check(f"  {FORGED_SHOWN} (7)" in out, "the OS rows show the thread's name escaped")
    page = os.path.join(d, "page.html")
    p = report(nccltap, "--html", page, d)
    if p is not None and check(p.returncode == 0, f"--html ends well: {p.stderr}"):
        with open(page, encoding="utf-8") as f:
            html = f.read()
        check("<img" not in html, "--html: a name adds no markup")
        check("\x1b" not in html, "--html: no escape character in the page")
        check("during AllReduce\\x1b[2J\\x1b[HFindings\\x0d\\x0a  None\\xe2\\x80\\xae&lt;img src=x "
              "onerror=alert(1)&gt; seq 2" in html, "--html: the OS finding shows the op escaped, as text")
    p = report(nccltap, "--json", d)
    if p is not None and check(p.returncode == 0, f"--json ends well: {p.stderr}"):
        j = json.loads(p.stdout)
        check(any(f.get("evidence", {}).get("worst_op") == FORGED for f in j["findings"]),
              "--json keeps the op name exactly")

    d = fresh(os.path.join(work, "refused"))
    os_run(d, lambda rank: {"mode": "switch", "note": FORGED, "threads": [], "off": []})
    p = report(nccltap, d)
    if p is not None:
        out = p.stdout.decode()
        check_terminal("a refused process's note", out)
        check(f"OS interference: not recorded: in 2 processes {FORGED_SHOWN}\n" in out,
              f"the note is shown escaped: {out}")


def main():
    mode, nccltap, testdata, work = sys.argv[1:5]
    os.makedirs(work, exist_ok=True)
    {"fifo": check_fifo, "escape": check_escape, "escape_os": check_escape_os}[mode](nccltap, testdata, work)
    return check.result()


if __name__ == "__main__":
    sys.exit(main())
