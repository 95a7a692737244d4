#!/usr/bin/env python3
"""`nccltap report --html` in a real browser: a simulator scenario (the
runs of findings_test.py), its page rendered, then opened in Debian's
headless chromium with the network off (a proxy that refuses, names that
resolve nowhere, and chromium's network log read back): no console message
(a script error, a blocked fetch), no request from the page, a screenshot
taken, and the DOM (after the page's script ran) holds what a reader looks
for: the findings of the text report, word for word, each linking to an
element of the page; the straggler's rank marked late in the chart of
waits, alone; the hang's missing rank marked in the hang strip; the slow
link's rank outlined in the send/recv matrix.

usage: html_test.py CASE NCCLTAP WORKDIR
  CASE  healthy | straggler | slow_link | hang | escape | scale
  escape: names that are markup (hand-written rank files, testdata/run4)
        are shown as text, and run nothing.
  scale: 1,024 generated ranks (tests/perf/gen_ops_files.py), one late:
        the page under PAGE_MAX_BYTES and loaded within LOAD_MAX_S (the
        bounds in BENCHMARKS.md, "The HTML report at 1,024 ranks"), the
        late rank marked.
       html_test.py screenshot NCCLTAP OUT.png: docs/report-html.png, the
        straggler's page at 1000 x 1100.
Exits 77 (skipped) when chromium is not installed, except in CI (CI=true).
"""
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from findings_test import Run, check, fail  # noqa: E402  (the scenarios' runs)

SKIP = 77
# The bounds of the 1,024-rank page (BENCHMARKS.md).
PAGE_MAX_BYTES = 10 * 1000 * 1000
LOAD_MAX_S = 5.0


def chromium():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe:
        return exe
    if os.environ.get("CI") == "true":
        fail("chromium is not installed; CI must have it (tools/deps.sh)")
    print("chromium is not installed: skipped")
    sys.exit(SKIP)


def browse(page, work, shot=None, size=(1280, 4000)):
    """Opens `page` with the network off: (the DOM after its scripts ran,
    its console messages, the URLs it requested, seconds taken). With
    `shot`, takes a screenshot of `size` instead of dumping the DOM."""
    profile = os.path.join(work, "profile")
    shutil.rmtree(profile, ignore_errors=True)
    netlog = os.path.join(work, "netlog.json")
    args = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--proxy-server=127.0.0.1:9",
            "--host-resolver-rules=MAP * ~NOTFOUND", "--disable-background-networking", "--no-first-run",
            "--disable-extensions", "--user-data-dir=" + profile, "--log-net-log=" + netlog,
            "--enable-logging=stderr", "--v=0"]
    if shot:
        args += ["--hide-scrollbars", "--window-size=%d,%d" % size, "--screenshot=" + shot]
    else:
        args += ["--dump-dom"]
    t0 = time.monotonic()
    p = subprocess.run(args + ["file://" + os.path.abspath(page)], capture_output=True, text=True, timeout=120)
    took = time.monotonic() - t0
    check(p.returncode == 0, "chromium exited %d: %s" % (p.returncode, p.stderr[-2000:]))
    console = [l for l in p.stderr.split("\n") if ":CONSOLE" in l]
    return p.stdout, console, page_requests(netlog), took


def page_requests(netlog):
    """The URLs requested on behalf of a file:// page (chromium's own
    background requests, update checks and the like, are not the page's)."""
    with open(netlog) as f:
        log = json.load(f)
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [e["params"]["url"] for e in log["events"]
            if e["type"] == start and e.get("params", {}).get("network_isolation_key", "").startswith("file://")]


class Dom(html.parser.HTMLParser):
    """Every element: (tag, attributes, its text and its descendants')."""
    VOID = {"meta", "input", "br", "link", "img", "hr", "source", "col", "wbr", "area", "base", "embed"}

    def __init__(self, text):
        super().__init__()
        self.elements, self.open = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        e = (tag, dict(attrs), [])
        self.elements.append(e)
        if tag not in self.VOID:
            self.open.append(e)

    def handle_endtag(self, tag):
        while self.open:
            if self.open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for e in self.open:
            e[2].append(data)

    def find(self, tag=None, cls=None, **attrs):
        """(attributes, text) of the elements with that tag, class and attributes."""
        out = []
        for t, a, text in self.elements:
            if tag and t != tag:
                continue
            if cls and cls not in a.get("class", "").split():
                continue
            if any(a.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            out.append((a, "".join(text)))
        return out


def check_static(page):
    """What the page would fetch, read from its source: nothing. A CSP
    forbids fetching; no element has a src; every link is to the page."""
    src = open(page, encoding="utf-8").read()
    check("content=\"default-src 'none';" in src, "the page has no Content-Security-Policy")
    d = Dom(src)
    for tag, a, _ in d.elements:
        check("src" not in a, "<%s> has a src: %s" % (tag, a))
        check(tag not in ("link", "img", "iframe", "object", "embed"), "the page has a <%s>" % tag)
        href = a.get("href")
        check(href is None or href.startswith("#"), "a link leaves the page: %s" % href)


def render(run, page, rc=0):
    p = subprocess.run([run.nccltap, "report", "--html", page, run.dir], capture_output=True, text=True,
                       timeout=300, env=run.env())
    check(p.returncode == rc, "report --html exited %d: %s" % (p.returncode, p.stderr[-2000:]))


def open_page(run, page, work):
    """The page rendered, checked, opened; its DOM, and a screenshot."""
    render(run, page)
    check_static(page)
    dom, console, requests, _ = browse(page, work)
    check(not console, "console messages: %s" % console)
    check(not requests, "the page requested %s" % requests)
    check("</html>" in dom, "no DOM dumped: %s" % dom[-500:])
    shot = os.path.splitext(page)[0] + ".png"
    _, console, requests, _ = browse(page, work, shot=shot)
    check(not console and not requests, "console %s, requests %s (screenshot)" % (console, requests))
    check_png(shot, 1280, 4000)
    d = Dom(dom)
    # Every link lands on an element of the page.
    ids = {a["id"] for _, a, _ in d.elements if "id" in a}
    for a, _ in d.find("a"):
        check(a["href"][1:] in ids, "link %s leads nowhere" % a["href"])
    return d


def check_png(path, w, h):
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", "%s is not a PNG" % path)
    check(struct.unpack(">II", head[16:24]) == (w, h), "%s is %s, want %dx%d" % (path, head[16:24], w, h))


def check_findings(run, d, want):
    """The findings list says what the text says, in its order: want is
    [(kind, rank)]."""
    doc = json.loads(subprocess.run([run.nccltap, "report", "--json", run.dir], capture_output=True, text=True,
                                    timeout=120, env=run.env()).stdout)
    items = d.find("li", cls="finding")
    got = [(a["data-kind"], int(a["data-rank"])) for a, _ in items]
    check(got == want, "findings list %s, want %s" % (got, want))
    for (a, text), f in zip(items, doc["findings"]):
        line = text.strip()
        check(line == f["text"] + " evidence" + "next: " + f["next_step"],
              "list item %r, the text's line %r and next step %r" % (line, f["text"], f["next_step"]))
    if not want:
        healthy = d.find("p", cls="healthy")
        check(healthy and healthy[0][1].startswith("None: no mismatch, straggler, hang or slow transfer in"),
              "no healthy line: %s" % healthy)


def check_late(d, rank):
    """The chart of waits marks `rank` late, and no other."""
    late = d.find("g", cls="late")
    check([a["data-rank"] for a, _ in late] == [str(rank)], "late in the chart of waits: %s" % late)
    check("rank %d late" % rank in late[0][1], "the late bar's label: %r" % late[0][1])
    check(len(d.find("g", cls="rank")) >= 2, "the chart of waits has fewer than 2 bars")


def check_detects(work):
    """The harness sees what it must catch: a script error, and a page
    fetching an image, are reported."""
    bad = os.path.join(work, "bad.html")
    with open(bad, "w") as f:
        f.write('<!DOCTYPE html><html><body><img src="http://192.0.2.1/a.png"><script>nosuch();</script>'
                "</body></html>")
    _, console, requests, _ = browse(bad, work)
    check(any("nosuch" in c for c in console), "a script error was not seen: %s" % console)
    check(requests == ["http://192.0.2.1/a.png"], "the page's request was not seen: %s" % requests)


# Drives the page's tables as a reader would, then leaves what it saw on
# <body data-seen>: the op column after one click and after two, the busbw
# column's values (data-v) after one, and the ops the filter "recv" leaves.
DRIVE = """<script>
(function(){var t=document.getElementById('ops-table'),h=t.tHead.rows[0].cells;
function col(i,v){return Array.prototype.map.call(t.tBodies[0].rows,function(r){
 return v?parseFloat(r.cells[i].getAttribute('data-v')):r.cells[i].textContent;});}
h[2].click();var asc=col(2);h[2].click();var desc=col(2);h[11].click();var busbw=col(11,true);
var f=document.querySelector('input.filter[data-table=ops-table]');f.value='recv';
f.dispatchEvent(new Event('input'));
var left=Array.prototype.filter.call(t.tBodies[0].rows,function(r){return !r.hidden;})
 .map(function(r){return r.cells[2].textContent;});
document.body.setAttribute('data-seen',JSON.stringify({asc:asc,desc:desc,busbw:busbw,left:left}));})();
</script>"""


def check_tables(page, work):
    """The op table sorts by a click (text and numbers) and filters by
    what its rows contain."""
    driven = os.path.join(work, "driven.html")
    with open(page) as f:
        src = f.read()
    with open(driven, "w") as f:
        f.write(src.replace("</body>", DRIVE + "</body>"))
    dom, console, requests, _ = browse(driven, work)
    check(not console and not requests, "console %s, requests %s" % (console, requests))
    body = Dom(dom).find("body")
    seen = json.loads(body[0][0]["data-seen"])
    ops = ["AllReduce", "Recv", "Send"]
    check(seen["asc"] == ops and seen["desc"] == ops[::-1], "sorted by op: %s" % seen)
    check(seen["busbw"] == sorted(seen["busbw"]) and len(set(seen["busbw"])) > 1,
          "sorted by busbw: %s" % seen["busbw"])
    check(seen["left"] == ["Recv"], "the filter 'recv' left %s" % seen["left"])


def check_bench(run, d):
    """nccltap-bench's own busbw (its --json beside the run) is drawn in
    each op's chart, one mark per op and size, at the median over the
    ranks, and given in --json, as the bench wrote it."""
    mine = {}
    for r in range(4):
        with open(os.path.join(run.dir, "bench-healthy1.rank%d.json" % r)) as f:
            for o in json.load(f)["ops"]:
                mine.setdefault((o["op"], o["bytes"]), []).append(o["busbw_gbs"])
    median = {k: sum(sorted(v)[1:3]) / 2 for k, v in mine.items()}  # 4 ranks: the middle two
    check(("AllReduce", 1 << 20) in median, "no AllReduce in the bench's results: %s" % mine)
    marks = sorted((int(a["data-bytes"]), float(a["data-v"])) for a, _ in d.find("g", cls="bench"))
    want = sorted((b, v) for (_, b), v in median.items())
    check(len(marks) == len(want) and all(m[0] == w[0] and abs(m[1] - w[1]) <= 1e-3 * w[1]
                                          for m, w in zip(marks, want)),
          "the bench's busbw %s drawn as %s" % (want, marks))
    doc = json.loads(run.report("--json"))
    got = {(b["op"], b["bytes"]): b for b in doc["bench"]}
    check(sorted(got) == sorted(median) and all(got[k]["ranks"] == 4 and
                                               abs(got[k]["busbw_gbs"] - v) <= 1e-3 * v for k, v in median.items()),
          "--json's bench: %s, want %s" % (doc["bench"], median))


def case_healthy(run, work):
    check_detects(work)
    # The bench's own results beside the run, as nccltap demo puts them.
    cmd = run.bench_cmd(4, "allreduce,sendrecv", "1M", 50) + ["--json", os.path.join(run.dir, "bench-healthy1.json")]

    def job():
        p = subprocess.run(cmd, env=run.env(NCCLTAP_RUN_ID="healthy1"), capture_output=True, text=True, timeout=120)
        check(p.returncode == 0, "the run exited %d:\n%s" % (p.returncode, p.stderr[-3000:]))
    run.quietly(job)
    page = os.path.join(work, "healthy.html")
    d = open_page(run, page, work)
    check_bench(run, d)
    check_findings(run, d, [])
    check_tables(page, work)
    check(not d.find("g", cls="late"), "a late rank in a healthy run")
    for section in ("findings", "time", "ranks", "bandwidth", "links", "ops"):
        check(d.find(id=section), "no section #%s" % section)


def straggler_run(run):
    run.bench(4, NCCLSIM_SLOW_RANK=2, NCCLSIM_SLOW_US=200)


def case_straggler(run, work):
    straggler_run(run)
    d = open_page(run, os.path.join(work, "straggler.html"), work)
    check_findings(run, d, [("straggler", 2)])
    check_late(d, 2)
    # The strip around it: the late rank's row marked, and last to arrive
    # at the finding's worst instance, the strip's centre. (Its neighbours
    # are 200 us apart too, but a loaded machine's scheduling can reorder
    # one: the finding itself needs 75% of all instances.)
    seq = json.loads(run.report("--json"))["findings"][0]["seq"]
    last = [(a["data-rank"], a["data-seq"]) for a, _ in d.find("g", cls="last")]
    check([r for r, s in last if s == str(seq)] == ["2"] and len(last) >= 3,
          "the timeline strip's last arrivals (rank, seq): %s; the worst instance: seq %d" % (last, seq))
    check("rank 2" in [t for _, t in d.find("text", cls="late-mark")], "the strip does not mark rank 2")


def case_slow_link(run, work):
    run.bench(4, op="allreduce,sendrecv", nbytes="16M", iters=20, NCCLSIM_SLOW_LINK_RANK=1,
              NCCLSIM_SLOW_LINK_FACTOR=4)
    d = open_page(run, os.path.join(work, "slow_link.html"), work)
    check_findings(run, d, [("slow_link", 1)])
    slow = d.find("g", cls="slow")
    check([a["data-rank"] for a, _ in slow] == ["1"] and "rank 1: slow link" in slow[0][1],
          "the matrix's slow link: %s" % slow)
    check(len(d.find("rect", cls="cell")) >= 4, "the matrix has fewer than 4 cells")


def case_hang(run, work):
    # Only the hang: judged on a quiet machine (findings_test.case_hang).
    run.quietly(run.hang, attempts=3)
    d = open_page(run, os.path.join(work, "hang.html"), work)
    check_findings(run, d, [("hang", 3)])
    missing = d.find("g", cls="missing")
    check([a["data-rank"] for a, _ in missing] == ["3"], "missing in the hang strip: %s" % missing)
    marks = [t for _, t in d.find("text", cls="missing-mark")]
    check(len(marks) == 1 and marks[0].startswith("rank 3 MISSING"), "the missing rank's label: %s" % marks)
    stuck = sorted(a["data-rank"] for a, _ in d.find("g", cls="stuck"))
    check(stuck == ["0", "1", "2"], "ranks waiting in the hang strip: %s" % stuck)


PERF = os.path.join(HERE, "..", "perf")
OPS_RECORD = struct.Struct("<QQQQQQQQQiiIHBB")  # gen_ops_files.py's RECORD
SCALE_ROWS = 60


def scale_run(d):
    """1,024 ranks of 200 AllReduces each, rank 517 late at every one
    (gen_ops_files.py); to each rank file, its time in NCCL (the sum of its
    ops' intervals) and SCALE_ROWS statistics rows of its communicator, as
    gen_rank_files.py writes them: the ops tables and bandwidth charts of a
    training job's sizes."""
    subprocess.run([sys.executable, os.path.join(PERF, "gen_ops_files.py"), d, "1024", "200", "517"], check=True,
                   timeout=300)
    sys.path.insert(0, PERF)
    import gen_rank_files as grf
    import random
    rng = random.Random(1)
    keys = [k for k in grf.keys(SCALE_ROWS * 3) if k[0][0] == "world"][:SCALE_ROWS]
    for name in os.listdir(d):
        if not name.endswith(".json"):
            continue
        base = os.path.join(d, name[:-5])
        with open(base + ".ops", "rb") as f:
            raw = f.read()[4096:]
        busy = sum(r[8] - r[7] for r in OPS_RECORD.iter_unpack(raw)) / 1e9
        with open(base + ".json") as f:
            doc = json.load(f)
        rank = doc["ranks"][0]
        doc["nccl_busy_s"] = doc["nccl_timed_s"] = busy
        doc["ops"] = [json.loads(grf.row_text(rng, rank, *k).replace(grf.comm_id("world"), doc["comms"][0]["id"]))
                      for k in keys]
        with open(base + ".json", "w") as f:
            json.dump(doc, f)


def case_scale(run, work):
    scale_run(run.dir)
    page = os.path.join(work, "scale.html")
    t0 = time.monotonic()
    render(run, page)
    print("rendered in %.2f s" % (time.monotonic() - t0))
    size = os.path.getsize(page)
    check_static(page)
    # The browser's load: the page's time less an empty page's, the best of 3.
    empty = os.path.join(work, "empty.html")
    with open(empty, "w") as f:
        f.write("<!DOCTYPE html><html><body></body></html>")
    base = min(browse(empty, work)[3] for _ in range(3))
    loads = []
    for _ in range(3):
        dom, console, requests, took = browse(page, work)
        check(not console and not requests, "console %s, requests %s" % (console, requests))
        loads.append(took - base)
    load = min(loads)
    print("page %d bytes, load %.2f s (best of 3: %s; an empty page %.2f s)"
          % (size, load, ", ".join("%.2f" % t for t in loads), base))
    check(size < PAGE_MAX_BYTES, "the page is %d bytes, over %d" % (size, PAGE_MAX_BYTES))
    check(load < LOAD_MAX_S, "the page took %.2f s to load, over %.1f" % (load, LOAD_MAX_S))
    d = Dom(dom)
    check_late(d, 517)
    check(len(d.find("g", cls="rank")) == 1024, "the chart of waits has not 1,024 bars")


def screenshot(nccltap, out):
    """The README's picture (docs/report-html.png): the straggler's page, its top 1000 x 1100, the
    run in a directory the page names `out`."""
    out, nccltap = os.path.abspath(out), os.path.abspath(nccltap)
    work = tempfile.mkdtemp(prefix="nccltap-html-")
    run = Run(nccltap, work)
    os.chdir(work)
    run.dir = "out"
    straggler_run(run)
    page = os.path.join(work, "page.html")
    render(run, page)
    _, console, requests, _ = browse(page, work, shot=out, size=(1000, 1100))
    check(not console and not requests, "console %s, requests %s" % (console, requests))
    os.chdir("/")
    shutil.rmtree(work)


# Names that would be markup, or would end an attribute, if not escaped;
# with controls and a right-to-left override the text report escapes.
HOSTILE = {"host": "evil<img src=x onerror=alert(1)>\u202e\x1b[2J",
           "job": "job\"><script>alert(2)</script>",
           "comm_name": "tp' onmouseover='alert(3)",
           "op": "AllReduce</title><svg onload=alert(4)>&amp;"}


def case_escape(run, work):
    """Names from the inputs are shown as text: no element, attribute or
    script of theirs reaches the page (check_static: no src; the browser:
    no console message, no request), and the names read as the text
    report shows them."""
    testdata = os.path.join(HERE, "testdata", "run4")
    os.makedirs(run.dir)
    for name in sorted(os.listdir(testdata)):
        with open(os.path.join(testdata, name)) as f:
            try:
                doc = json.load(f)
            except ValueError:  # a file cut short, as a killed process leaves it
                continue
        doc["host"], doc["job"] = HOSTILE["host"], HOSTILE["job"]
        for c in doc["comms"]:
            c["name"] = HOSTILE["comm_name"]
        for row in doc["ops"]:
            row["comm_name"], row["op"] = HOSTILE["comm_name"], HOSTILE["op"]
        with open(os.path.join(run.dir, name), "w") as f:
            json.dump(doc, f)
    d = open_page(run, os.path.join(work, "escape.html"), work)
    check(not d.find("script", type=None)[1:], "a script of the inputs' is in the page")
    check(not d.find("img") and not d.find("svg", onload="alert(4)"), "an element of the inputs' is in the page")
    check(not [a for _, a, _ in d.elements if any(k.startswith("on") for k in a)], "an event handler is in the page")
    text = "".join(t for _, t in d.find("body"))
    for want in ("evil<img src=x onerror=alert(1)>\\xe2\\x80\\xae\\x1b[2J", 'job"><script>alert(2)</script>',
                 "tp' onmouseover='alert(3)", "AllReduce</title><svg onload=alert(4)>&amp;"):
        check(want in text, "%r is not shown as text" % want)


CASES = {"healthy": case_healthy, "escape": case_escape, "straggler": case_straggler, "slow_link": case_slow_link, "hang": case_hang,
         "scale": case_scale}


def main():
    case, nccltap, work = sys.argv[1:4]
    if case == "screenshot":
        screenshot(nccltap, work)
    else:
        chromium()
        run = Run(nccltap, work)
        CASES[case](run, work)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
