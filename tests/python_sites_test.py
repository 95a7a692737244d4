#!/usr/bin/env python3
"""Python call sites end to end (issue 25): tests/apps/ctypes_nccl.py calls
NCCL through ctypes from three lines in two threads, and from a thread of C
with no Python frame, under `nccltap run --sim`. The report must name the
three lines (file:line, function) and the C thread's native site, each
with its exact calls, and no call may be left unread; the same from a
copy of the script under a name that is not ASCII; and at
NCCLTAP_CALLSITE_DEPTH=2 the Python frame above each line.

With --lttng, the same from an LTTng trace alone (`nccltap run --sim
--lttng`, the report read on the trace directory): the lines, the frames
above them, the native site, the calls, the Perfetto slices; and each line's
strings written once (one python_frame event per line, however many calls);
and with more lines than nccltap's table holds, the calls left unread
counted in the trace as in the rank file.

In a Python sub-interpreter (tests/apps/subinterp_nccl.py), on the thread
that created it and on another, each call is the sub-interpreter's line,
not the line of the outer interpreter that ran it (issue 29, item 14).

Usage: python_sites_test.py --bin BUILD/bin --src SOURCE --lib libc_thread_nccl.so --work DIR [--preload LIB]
                           [--depth1-only] [--lttng]
Needs CPython 3.10 to 3.13 (those whose frames nccltap reads), and with
--lttng lttng-sessiond and babeltrace2: exit 77 without them, a failure
where CI=true."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)
    return cond


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("%s exited with %d:\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--embed-lib", help="libembedded_subinterp.so: a sub-interpreter run on a thread of C too")
    ap.add_argument("--work", required=True)
    ap.add_argument("--preload", help="a library to preload into Python beside the shim (a sanitizer's runtime)")
    ap.add_argument("--depth1-only", action="store_true", help="not NCCLTAP_CALLSITE_DEPTH=2 (no libunwind)")
    ap.add_argument("--lttng", action="store_true", help="the call sites of an LTTng trace")
    ap.add_argument("--unsupported", action="store_true",
                    help="run under a CPython nccltap does not read: said once, every site native")
    a = ap.parse_args()
    if a.unsupported:
        return check_unsupported(a)
    if sys.version_info[:2] not in ((3, 10), (3, 11), (3, 12), (3, 13)):
        print("Python %d.%d: nccltap reads the frames of CPython 3.10 to 3.13" % sys.version_info[:2])
        return 1 if os.environ.get("CI") == "true" else 77
    source = os.path.join(a.src, "tests", "apps", "ctypes_nccl.py")
    if a.lttng:
        missing = [t for t in ("lttng-sessiond", "babeltrace2") if not shutil.which(t)]
        if missing:
            print("%s not installed" % " and ".join(missing))
            return 1 if os.environ.get("CI") == "true" else 77
        check_trace(a, source)
        check_trace_unread(a, source)
        print("FAIL: %d checks" % len(failures) if failures else "ok")
        return 1 if failures else 0
    for script in (source, non_ascii_copy(source, a.work)):
        check_script(a, script)
    if not a.depth1_only:
        check_depth2(a, source)
    check_python_skip(a, source)
    check_transient(a, source)
    check_finalizing(a)
    check_subinterpreter(a)
    print("FAIL: %d checks" % len(failures) if failures else "ok")
    return 1 if failures else 0


def check_unsupported(a):
    """Under a CPython whose frames nccltap does not read: one line says so
    and why, the calls are counted at native sites, none left unread."""
    out = os.path.join(a.work, "python-sites-unsupported")
    shutil.rmtree(out, ignore_errors=True)
    source = os.path.join(a.src, "tests", "apps", "ctypes_nccl.py")
    p = subprocess.run([os.path.join(a.bin, "nccltap"), "run", "--sim", "--dir", out, "--", sys.executable, source,
                        a.lib], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = "nccltap: CPython %d.%d: call sites stay native (nccltap reads the frames of CPython 3.10 to 3.13, " \
           "with the GIL)\n" % sys.version_info[:2]
    check(p.returncode == 0, "the script ran (exit %d: %s)" % (p.returncode, p.stderr[-400:]))
    check(p.stderr.count(said) == 1, "said once: %r (stderr: %s)" % (said, p.stderr[-400:]))
    doc = json.loads(run([os.path.join(a.bin, "nccltap"), "report", "--json", out]))
    python = [s for s in doc["callsites"] if s["frames"][0]["python"]]
    check(not python and sum(s["calls"] for s in doc["callsites"]) == 14 and doc["callsite_python_unread"] == 0,
          "14 calls at native sites, none unread (Python sites: %s)" % python)
    print("FAIL: %d checks" % len(failures) if failures else "ok")
    return 1 if failures else 0


def non_ascii_copy(source, work):
    """The script under a name CPython keeps no UTF-8 of (not ASCII: its
    characters, 2 bytes each, are read and encoded by nccltap)."""
    d = os.path.join(work, "python-sites-\u00e9")
    os.makedirs(d, exist_ok=True)
    copy = os.path.join(d, "nccl_\u884c.py")
    shutil.copy(source, copy)
    return copy


def traced(a, script, out, depth):
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH=str(depth))
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    return run([os.path.join(a.bin, "nccltap"), "run", "--sim", "--dir", out, "--", sys.executable, script, a.lib],
               env)


def qualified(name):
    """A function's name as nccltap reads it: its qualified name (3.11+),
    or on 3.10, whose code objects have none, its own name."""
    return name.rsplit(".", 1)[-1] if sys.version_info[:2] == (3, 10) else name


def check_depth2(a, script):
    """NCCLTAP_CALLSITE_DEPTH=2: each Python site has the line that made the
    call and the line that called its function (the module's main() call;
    threading's Thread.run for the worker), then two native frames."""
    with open(script) as f:
        module_line = [n for n, t in enumerate(f, 1) if t.strip() == "main()"][0]
    out = os.path.join(a.work, "python-sites-depth2")
    traced(a, script, out, 2)
    doc = json.loads(run([os.path.join(a.bin, "nccltap"), "report", "--json", out]))
    outer = {}
    for s in doc["callsites"]:
        py = [f for f in s["frames"] if f["python"]]
        native = [f for f in s["frames"] if not f["python"]]
        check(len(native) == 2, "depth 2: two native frames (got %s)" % s["frames"])
        if py:
            check(len(py) == 2, "depth 2: two Python frames (got %s)" % py)
            outer[py[0]["function"]] = (os.path.basename(py[-1]["file"]), py[-1]["line"] if py[-1]["function"]
                                        == "<module>" else py[-1]["function"])
    check(outer == {"main": ("ctypes_nccl.py", module_line), "worker": ("threading.py", qualified("Thread.run"))},
          "depth 2: the Python frame above each line (got %s)" % outer)


def check_python_skip(a, script):
    """NCCLTAP_CALLSITE_PYTHON_SKIP naming the script: its frames are left
    out, as a framework's are; the worker's call is then the line of
    threading.py that ran it, the main thread's (no Python frame above the
    script's) its native site."""
    out = os.path.join(a.work, "python-sites-skip")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH="1", NCCLTAP_CALLSITE_PYTHON_SKIP="/nothere/,ctypes_nccl.py")
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    run([os.path.join(a.bin, "nccltap"), "run", "--sim", "--dir", out, "--", sys.executable, script, a.lib], env)
    doc = json.loads(run([os.path.join(a.bin, "nccltap"), "report", "--json", out]))
    tops = sorted({os.path.basename(s["frames"][0]["file"] or "") for s in doc["callsites"]
                   if s["frames"][0]["python"]})
    check(tops == ["threading.py"], "NCCLTAP_CALLSITE_PYTHON_SKIP=ctypes_nccl.py: Python sites in %s, want "
          "threading.py alone" % tops)


def script_lines(script):
    """The LINE: markers' line numbers, by marker."""
    lines = {}
    with open(script) as f:
        for number, text in enumerate(f, 1):
            m = re.search(r"# LINE:(\w+)", text)
            if m:
                lines[m.group(1)] = number
    return lines


def site_calls(doc):
    """{"file:line in function" of a Python site's innermost frame, or the
    native function: calls}, and {innermost: the frames above it}."""
    got, above = {}, {}
    for s in doc["callsites"]:
        top = s["frames"][0]
        if top["python"]:
            where = "%s:%d in %s" % (os.path.basename(top["file"]), top["line"], top["function"])
            above[where] = [(os.path.basename(f["file"]), f["function"]) for f in s["frames"][1:] if f["python"]]
        else:
            where = top["function"]
        got[where] = got.get(where, 0) + s["calls"]
    return got, above


def check_trace(a, script):
    """`nccltap run --sim --lttng` at depth 2 (1 with --depth1-only): the
    report of the trace alone names the script's three lines (file:line in
    function), the frame above each, the C thread's native site, with the
    calls the script made, as the report of the rank files does; the
    Perfetto slices name the lines; each Python line is one python_frame
    event, whatever the calls from it."""
    depth = 1 if a.depth1_only else 2
    lines = script_lines(script)
    out = os.path.join(a.work, "python-sites-lttng")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH=str(depth))
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    nccltap = os.path.join(a.bin, "nccltap")
    printed = run([nccltap, "run", "--sim", "--lttng", "--dir", out, "--", sys.executable, script, a.lib], env)
    want = dict(json.loads([l for l in printed.splitlines() if l.startswith('{"sites"')][0])["sites"])
    trace = os.path.join(out, "lttng")

    doc = json.loads(run([nccltap, "report", "--json", trace]))
    got, above = site_calls(doc)
    name = os.path.basename(script)
    expect = {"%s:%d in %s" % (name, lines[k], "worker" if k == "b" else "main"): n
              for k, n in want.items() if k != "native"}
    expect["c_thread_nccl_loop"] = want["native"]
    check(got == expect, "the trace's sites and their calls: expected %s, got %s" % (expect, got))
    if depth == 2:
        check(above == {w: [(name, "<module>")] if "in main" in w else [("threading.py", "Thread.run")]
                        for w in expect if w != "c_thread_nccl_loop"},
              "depth 2: the trace names the Python frame above each line (got %s)" % above)
    files = json.loads(run([nccltap, "report", "--json", out]))
    check(site_calls(files) == (got, above), "the trace's sites are the rank file's: %s, %s" %
          (site_calls(files), (got, above)))

    text = run([nccltap, "report", trace])
    for k in ("a", "b", "c"):
        check(re.search(r"%s:%d\s+(main|worker)$" % (re.escape(name), lines[k]), text, re.M) is not None,
              "the text report of the trace names %s:%d:\n%s" % (name, lines[k], text))

    perfetto = os.path.join(a.work, "python-sites-lttng.perfetto.json")
    run([nccltap, "report", "--perfetto", perfetto, trace])
    with open(perfetto) as f:
        slices = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "op"]
    named = {e["args"].get("callsite") for e in slices}
    for k in ("a", "b", "c"):
        where = "%s in %s:%d [python]" % ("worker" if k == "b" else "main", name, lines[k])
        check(where in named, "the Perfetto slices of the trace name %s (got %s)" % (where, named))

    bt = subprocess.run(["babeltrace2", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    frame_re = re.compile(r'file = "([^"]*)", line = (\d+), function = "([^"]*)"')
    events = [frame_re.search(l).groups() for l in bt.stdout.splitlines() if "nccltap:python_frame:" in l]
    frames = sorted((os.path.basename(f), int(n), fn) for f, n, fn in events)
    wanted = [(name, lines[k], "worker" if k == "b" else "main") for k in ("a", "b", "c")]
    if depth == 2:
        wanted.append((name, [n for n, t in enumerate(open(script), 1) if t.strip() == "main()"][0], "<module>"))
    check(bt.returncode == 0 and len(frames) == len(set(frames)) and
          [f for f in frames if f[0] == name] == sorted(wanted) and
          [f[2] for f in frames if f[0] != name] == (["Thread.run"] if depth == 2 else []),
          "one python_frame event per line of Python, %s: %s" % (sorted(wanted), frames))


def check_trace_unread(a, script):
    """More lines of Python than nccltap's table holds (4,096; the script's
    generated code, one line each): the calls left at their native site are
    counted in the trace (python_unread) as in the rank file, and the
    report of the trace alone says how many."""
    out = os.path.join(a.work, "python-sites-lttng-unread")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH="1", CTYPES_NCCL_GENERATED="4200")
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    nccltap = os.path.join(a.bin, "nccltap")
    run([nccltap, "run", "--sim", "--lttng", "--blocking", "--dir", out, "--", sys.executable, script], env)
    rank = [os.path.join(out, p) for p in os.listdir(out) if p.endswith(".json")]
    with open(rank[0]) as f:
        unread = json.load(f)["callsite_python_unread"]
    check(unread > 100, "4,200 generated lines leave calls unread in the rank file (got %d)" % unread)
    doc = json.loads(run([nccltap, "report", "--json", os.path.join(out, "lttng")]))
    check(doc["callsite_python_unread"] == unread, "the trace's unread calls %d, the rank file's %d" %
          (doc["callsite_python_unread"], unread))
    text = run([nccltap, "report", os.path.join(out, "lttng")])
    check("NOTE: %d calls made from Python are at their native site" % unread in text,
          "the text report of the trace says %d calls were not read" % unread)


def check_transient(a, script):
    """Code objects freed one after the other (exec of compiled strings):
    each call is named by its own file and line, never by those of a code
    object freed before at the same address."""
    out = os.path.join(a.work, "python-sites-transient")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH="1", CTYPES_NCCL_TRANSIENT="64")
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    nccltap = os.path.join(a.bin, "nccltap")
    run([nccltap, "run", "--sim", "--dir", out, "--", sys.executable, script], env)
    doc = json.loads(run([nccltap, "report", "--json", out]))
    got = {}
    for s in doc["callsites"]:
        top = s["frames"][0]
        if top["python"] and top["file"].startswith("transient-"):
            got[(top["file"], top["line"])] = got.get((top["file"], top["line"]), 0) + s["calls"]
    expect = {("transient-%d" % k, k + 1): 1 for k in range(64)}
    check(got == expect, "64 transient code objects, each its own file and line once: %d of them right, "
          "e.g. got %s" % (sum(1 for k, v in expect.items() if got.get(k) == v), sorted(got.items())[:4]))


def check_finalizing(a):
    """The interpreter finalizes while a daemon thread is inside NCCL
    (tests/apps/py_finalize_nccl.py): CPython frees the thread's state while
    it still calls, so nccltap must stop reading its frames first. The
    program exits 0 with its rank file written (freed memory perturbed by
    glibc's malloc, and ASan's report, make a read of it fail), and the
    daemon's line is named for the calls made before the end."""
    out = os.path.join(a.work, "python-sites-finalizing")
    shutil.rmtree(out, ignore_errors=True)
    script = os.path.join(a.src, "tests", "apps", "py_finalize_nccl.py")
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH="1", MALLOC_PERTURB_="165")
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    nccltap = os.path.join(a.bin, "nccltap")
    run([nccltap, "run", "--sim", "--dir", out, "--", sys.executable, script, a.lib], env)
    doc = json.loads(run([nccltap, "report", "--json", out]))
    got, _ = site_calls(doc)
    lines = script_lines(script)
    daemon = got.get("py_finalize_nccl.py:%d in %s" % (lines["daemon"], qualified("main.<locals>.daemon")), 0)
    check(daemon > 0 and got.get("py_finalize_nccl.py:%d in main" % lines["main"]) == 3,
          "finalizing with a thread in NCCL: the daemon's line and main's 3 calls named (got %s)" % got)


def check_subinterpreter(a):
    """A sub-interpreter run from Python, on the main thread and on another
    (tests/apps/subinterp_nccl.py): its calls are its own line
    (subinterp_calls.py's), the main interpreter's its line, none read
    from the outer interpreter's frames nor left unread. With --embed-lib,
    also one made and run on a thread of C whose first thread state runs
    nothing (an embedding program's); memory filled by malloc is not zero
    (MALLOC_PERTURB_), as in a long-running process, so that a field
    CPython leaves unset is not read as NULL by chance."""
    out = os.path.join(a.work, "python-sites-subinterp")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NCCLTAP_CALLSITE_DEPTH="1", MALLOC_PERTURB_="165")
    if a.preload:
        env["LD_PRELOAD"] = ":".join(p for p in (a.preload, env.get("LD_PRELOAD")) if p)
    apps = os.path.join(a.src, "tests", "apps")
    script = os.path.join(apps, "subinterp_nccl.py")
    nccltap = os.path.join(a.bin, "nccltap")
    printed = run([nccltap, "run", "--sim", "--dir", out, "--", sys.executable, script] +
                  ([a.embed_lib] if a.embed_lib else []), env)
    want = json.loads([l for l in printed.splitlines() if l.startswith('{"sites"')][0])["sites"]
    doc = json.loads(run([nccltap, "report", "--json", out]))
    got, _ = site_calls(doc)
    expect = {"subinterp_nccl.py:%d in main" % script_lines(script)["main"]: want["main"],
              "subinterp_calls.py:%d in run" % script_lines(os.path.join(apps, "subinterp_calls.py"))["sub"]:
              want["sub"]}
    check(got == expect and doc["callsite_python_unread"] == 0,
          "calls made in a sub-interpreter: expected %s, got %s (%d unread)"
          % (expect, got, doc["callsite_python_unread"]))


def check_script(a, script):
    lines = script_lines(script)
    out = os.path.join(a.work, "python-sites")
    nccltap = os.path.join(a.bin, "nccltap")
    printed = traced(a, script, out, 1)
    want = dict(json.loads([l for l in printed.splitlines() if l.startswith('{"sites"')][0])["sites"])

    rank = [os.path.join(out, p) for p in os.listdir(out) if p.endswith(".json")]
    with open(rank[0]) as f:
        check(json.load(f)["callsite_python_unread"] == 0, "every Python frame was read")
    doc = json.loads(run([nccltap, "report", "--json", out]))
    got = {}
    for s in doc["callsites"]:
        top = s["frames"][0]
        if top["python"]:
            where = "%s:%d in %s" % (os.path.basename(top["file"]), top["line"], top["function"])
            check(os.path.realpath(top["file"]) == os.path.realpath(script), "a Python site's file is the script (got %s)" % top["file"])
        else:
            where = top["function"]
        got[where] = got.get(where, 0) + s["calls"]
    expect = {"%s:%d in %s" % (os.path.basename(script), lines[k], "worker" if k == "b" else "main"): n
              for k, n in want.items() if k != "native"}
    expect["c_thread_nccl_loop"] = want["native"]
    check(got == expect, "sites and their calls: expected %s, got %s" % (expect, got))

    text = run([nccltap, "report", out])
    name = os.path.basename(script)
    for k in ("a", "b", "c"):
        check(re.search(r"%s:%d\s+(main|worker)$" % (re.escape(name), lines[k]), text, re.M) is not None,
              "the text report's Call sites name %s:%d:\n%s" % (name, lines[k], text))


if __name__ == "__main__":
    sys.exit(main())
