#!/usr/bin/env python3
"""Call sites end to end: a program runs under `nccltap run --sim`, then
`nccltap report --json` must name where each of its NCCL calls was made.

  bench     nccltap-bench, every op, NCCLTAP_CALLSITE_DEPTH=4: every frame
            of every site is a function at file.c:line in tools/bench/.
  cpp       tests/apps/callsite_app.cpp: three sites (a function, a function
            inlined into another, a method in a shared library of its own)
            with their demangled names, files, lines (the SITE: markers in
            the sources) and call counts, in --json and in the text report's
            Call sites section (and the op tables' sites column).
  skip      the same with NCCLTAP_CALLSITE_SKIP=libcallsite_lib: the
            library's site moves to its caller in main; with two libraries
            (libcallsite_lib,callsite_app) every call's site is in libc.
            And, from Python (x86-64), calls from a JIT page (a frame in no
            loaded object) at depth 2 with a skip list: no memory grows per
            call (the module map was rebuilt, and leaked, at each such
            frame); a library dlopen'ed afterwards is still skipped.
  stripped  the program stripped after the run and its debug information
            moved to DIR/.build-id/: without --debug-dir DIR the frames have
            the names the shim recorded (no file or line), with it they are
            named as in `cpp`; and the
            program moved away after the run, a full copy of it as
            DIR/.build-id/xx/rest.debug: found by build id.
  travel    the program and its library copied, run, then deleted: the
            report names every frame's function from the names the shim
            recorded (the report read on another machine).
  cxx_names a recorded C++ name of templates and lambdas: elided in the
            text report, whole in --json and with --wide.

Usage: callsite_test.py --bin BUILD/bin --app callsite_app --src SOURCE --work DIR CASE"""
import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit("%s exited with %d:\n%s%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    return p.stdout


def traced(a, out, program, extra_env):
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, **extra_env)
    run([os.path.join(a.bin, "nccltap"), "run", "--sim", "--dir", out, "--"] + program, env)


def report(a, out, *options):
    return json.loads(run([os.path.join(a.bin, "nccltap"), "report", "--json"] + list(options) + [out]))


def text_report(a, out, *options):
    return run([os.path.join(a.bin, "nccltap"), "report"] + list(options) + [out])


def marker_line(path, marker):
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if "// SITE:" + marker in line:
                return number
    sys.exit("no SITE:%s in %s" % (marker, path))


def case_bench(a):
    out = os.path.join(a.work, "bench")
    traced(a, out, [os.path.join(a.bin, "nccltap-bench"), "--ranks", "2", "--op", "all", "--bytes", "1K:4K",
                    "--iters", "3", "--warmup", "0"], {"NCCLTAP_CALLSITE_DEPTH": "4"})
    doc = report(a, out)
    bench_src = os.path.join(a.src, "tools", "bench") + os.sep
    check(doc["callsite_depth"] == 4, "callsite_depth is 4 (got %s)" % doc["callsite_depth"])
    ops = {row["op"] for row in doc["ops"]}
    site_ops = {s["op"] for s in doc["callsites"]}
    check(ops == site_ops, "every op has a call site: ops %s, sites %s" % (sorted(ops), sorted(site_ops)))
    for op in ops:
        calls = sum(r["calls"] for r in doc["ops"] if r["op"] == op)
        at_sites = sum(s["calls"] for s in doc["callsites"] if s["op"] == op)
        check(calls == at_sites, "%s: %d calls, %d at its call sites" % (op, calls, at_sites))
    for s in doc["callsites"]:
        check(len(s["frames"]) == 4, "site %d has 4 frames (%d)" % (s["id"], len(s["frames"])))
        for f in s["frames"]:
            where = "site %d (%s) frame %s at %s:%s" % (s["id"], s["op"], f["function"], f["file"], f["line"])
            check(f["library"] == "nccltap-bench" and f["file"].startswith(bench_src) and
                  f["file"].endswith(".c") and f["line"] > 0 and "+0x" not in f["function"],
                  where + " is a function at file.c:line in tools/bench")
    for row in doc["ops"]:
        check(row.get("sites"), "op row %s %s names its sites" % (row["op"], row["size_class"]))
    # Each row's calls are at one site: the sites' NCCL time is the rows',
    # their first calls (the ranks meeting, connections set up) kept apart.
    pct = sum(s["nccl_time_pct"] for s in doc["callsites"])
    check(abs(pct - 100) < 0.5, "the sites' shares of NCCL time add up to %.1f%%, not 100%%" % pct)


def case_first_call(a):
    """A first call of each size that takes 100 ms (connection set-up), made
    at the warm-up's site: kept apart there as in the rows, so no site's
    share of NCCL time passes 100% and the shares add up to at most 100%."""
    out = os.path.join(a.work, "first")
    traced(a, out, [os.path.join(a.bin, "nccltap-bench"), "--ranks", "2", "--op", "allreduce", "--bytes", "1M",
                    "--iters", "200", "--warmup", "5"],
           {"NCCLTAP_CALLSITE_DEPTH": "4", "NCCLTAP_TIMING": "all", "NCCLSIM_FIRST_CALL_US": "100000"})
    doc = report(a, out)
    pcts = [s["nccl_time_pct"] for s in doc["callsites"]]
    check(len(pcts) == 2, "two sites, warm-up and measurement (got %d)" % len(pcts))
    check(all(0 <= p <= 100 for p in pcts), "every site's share of NCCL time within 0..100%%: %s" % pcts)
    check(sum(pcts) <= 100 + 1e-6, "the sites' shares add up to at most 100%%: %s" % pcts)
    check(max(pcts) > 90, "the measurement's site holds most of the time: %s" % pcts)


def expected_sites(a, skip):
    app_src = os.path.join(a.src, "tests", "apps", "callsite_app.cpp")
    lib_src = os.path.join(a.src, "tests", "apps", "callsite_lib.cpp")
    app = os.path.basename(a.app)
    sites = [
        ("app::reduce_direct(", "", app_src, marker_line(app_src, "direct"), app, 3),
        ("app::reduce_inlined", "app::step(", app_src, marker_line(app_src, "inlined"), app, 5),
    ]
    if skip:
        sites.append(("main", "", app_src, marker_line(app_src, "caller"), app, 7))
    else:
        sites.append(("lib::Reducer::run(", "", lib_src, marker_line(lib_src, "library"), "libcallsite_lib.so", 7))
    return sites


def check_cpp_sites(a, doc, skip):
    got = doc["callsites"]
    check(len(got) == 3, "3 call sites (got %d)" % len(got))
    for function, into, path, line, library, calls in expected_sites(a, skip):
        match = [s for s in got if s["frames"] and s["frames"][0]["function"].startswith(function)]
        check(len(match) == 1, "one site in %s (sites: %s)" % (function, [s["frames"] for s in got]))
        if len(match) != 1:
            continue
        s, f = match[0], match[0]["frames"][0]
        check(f["inlined_into"].startswith(into) if into else f["inlined_into"] == "",
              "%s: inlined into %r (got %r)" % (function, into, f["inlined_into"]))
        check(f["file"] == path and f["line"] == line, "%s at %s:%d (got %s:%d)" % (function, path, line, f["file"], f["line"]))
        check(f["library"] == library, "%s in %s (got %s)" % (function, library, f["library"]))
        check(s["calls"] == calls and s["op"] == "AllReduce", "%s: %d AllReduce calls (got %d %s)"
              % (function, calls, s["calls"], s["op"]))


SITE_ROW = re.compile(r"^  #(\d+)\s+(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)%\s+(\S+)\s+(\S+)\s+(.+)$")
# The call of each site, by the size it reduces (callsite_app.cpp).
SIZE_OF = {"app::reduce_direct(": "1K", "app::reduce_inlined": "2K", "lib::Reducer::run(": "4K", "main": "4K"}


def check_text_sites(a, text, skip):
    """The text report's Call sites section: its header, a row per site
    (op, calls, file:line, function, "(inlined into ...)"), and the op
    tables' sites column naming each row's site by its number."""
    lines = text.splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith("Call sites (")]
    if not check(len(head) == 1, "one Call sites section in the text report:\n" + text):
        return
    i = head[0]
    check(lines[i] == "Call sites (NCCLTAP_CALLSITE_DEPTH=1): top 3 of 3 by NCCL time",
          "the section's header: %r" % lines[i])
    check(lines[i + 1].split() == ["site", "op", "calls", "time_ms", "%", "NCCL", "busbw", "file:line", "function"],
          "the section's columns: %r" % lines[i + 1])
    rows = [SITE_ROW.match(l) for l in lines[i + 2:i + 5]]
    check(all(rows), "3 site rows: %s" % lines[i + 2:i + 5])
    rows = [r for r in rows if r]
    number = {}
    for function, into, path, line, library, calls in expected_sites(a, skip):
        match = [r for r in rows if r.group(8).startswith(function)]
        if not check(len(match) == 1, "one text row for %s: %s" % (function, [r.group(0) for r in rows])):
            continue
        r = match[0]
        number[function] = r.group(1)
        check(r.group(2) == "AllReduce" and int(r.group(3)) == calls,
              "%s: AllReduce, %d calls: %r" % (function, calls, r.group(0)))
        check(r.group(7) == "%s:%d" % (os.path.basename(path), line),
              "%s at %s:%d: %r" % (function, os.path.basename(path), line, r.group(0)))
        if into:
            check(re.search(r" \(inlined into %s.*\)$" % re.escape(into), r.group(8)) is not None,
                  "%s: (inlined into %s...): %r" % (function, into, r.group(8)))
        else:
            check("inlined into" not in r.group(8), "%s is not inlined: %r" % (function, r.group(8)))
    # The op tables: each (AllReduce, float32, size) row names its site.
    for function, n in number.items():
        row = [l for l in lines if re.match(r"^  AllReduce\s+float32\s+%s\s" % SIZE_OF[function], l)]
        check(len(row) == 1 and row[0].split()[-1] == "#" + n,
              "the op table's %s row names site #%s (%s): %s" % (SIZE_OF[function], n, function, row))


def case_cpp(a, skip=False):
    out = os.path.join(a.work, "skip" if skip else "cpp")
    traced(a, out, [a.app], {"NCCLTAP_CALLSITE_SKIP": "libcallsite_lib"} if skip else {})
    check_cpp_sites(a, report(a, out), skip)
    check_text_sites(a, text_report(a, out), skip)


def case_skip(a):
    case_cpp(a, True)
    # Two libraries, both skipped: the library's frame and main's are left
    # out, so every call is attributed to main's caller, in libc.
    out = os.path.join(a.work, "skip2")
    traced(a, out, [a.app], {"NCCLTAP_CALLSITE_SKIP": "libcallsite_lib,%s" % os.path.basename(a.app)})
    sites = report(a, out)["callsites"]
    libs = sorted({s["frames"][0]["library"] for s in sites if s["frames"]})
    check(sum(s["calls"] for s in sites) == 15 and libs and all(l.startswith("libc.so") for l in libs),
          "NCCLTAP_CALLSITE_SKIP with two libraries: the 15 calls' sites in libc (got %s)"
          % [(s["frames"], s["calls"]) for s in sites])
    case_skip_jit(a)


# Calls from an anonymous executable page, made by the Python below: ctypes
# calls the page's code, which calls the shim's ncclAllReduce (x86-64 SysV:
# the 7th argument on the stack).
JIT_PROGRAM = r"""
import ctypes, mmap, struct, sys
n, lib = int(sys.argv[1]), sys.argv[2]
cuda = ctypes.CDLL("libcuda.so.1")
nccl = ctypes.CDLL("libnccl.so.2", mode=ctypes.RTLD_GLOBAL)
c = ctypes.c_void_p
dev, ctx, stream, buf = ctypes.c_int(), c(), c(), ctypes.c_uint64()
assert cuda.cuInit(0) == 0 and cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0 and cuda.cuCtxSetCurrent(ctx) == 0
assert cuda.cuStreamCreate(ctypes.byref(stream), 1) == 0 and cuda.cuMemAlloc_v2(ctypes.byref(buf), 4096) == 0
class UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * 128)]
uid, comm = UniqueId(), c()
assert nccl.ncclGetUniqueId(ctypes.byref(uid)) == 0
init = ctypes.CDLL(None).ncclCommInitRank
init.argtypes = [ctypes.POINTER(c), ctypes.c_int, UniqueId, ctypes.c_int]
assert init(ctypes.byref(comm), 1, uid, 0) == 0
target = ctypes.cast(ctypes.CDLL(None).ncclAllReduce, c).value  # the shim's: preloaded
code = (b"\x48\x83\xec\x18"                        # sub rsp, 24
        b"\x48\x8b\x44\x24\x20\x48\x89\x04\x24"        # mov rax, [rsp+32]; mov [rsp], rax
        b"\x48\xb8" + struct.pack("<Q", target) +  # mov rax, target
        b"\xff\xd0\x48\x83\xc4\x18\xc3")              # call rax; add rsp, 24; ret
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
jit = ctypes.CFUNCTYPE(ctypes.c_int, c, c, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, c, c)(
    ctypes.addressof(ctypes.c_char.from_buffer(page)))
def rss_kb():
    return int([l for l in open("/proc/self/status") if l.startswith("VmRSS:")][0].split()[1])
p = c(buf.value)
for i in range(500):
    assert jit(p, p, 256, 7, 0, comm, stream) == 0
before = rss_kb()
for i in range(n):
    assert jit(p, p, 256, 7, 0, comm, stream) == 0
after = rss_kb()
# A library loaded now, calling NCCL: lib::Reducer::run(void*, size_t).
class Reducer(ctypes.Structure):
    _fields_ = [("comm", c), ("stream", c)]
run = ctypes.CDLL(lib)._ZN3lib7Reducer3runEPvm
run.argtypes = [ctypes.POINTER(Reducer), c, ctypes.c_size_t]
r = Reducer(comm, stream)
for i in range(9):
    run(ctypes.byref(r), p, 1024)
assert cuda.cuStreamSynchronize(stream) == 0
print("rss_growth_kb", after - before)
"""


def case_skip_jit(a):
    if platform.machine() != "x86_64":
        print("not x86-64: the JIT page's code is x86-64; the JIT part is not run")
        return
    prog = os.path.join(a.work, "jit_calls.py")
    with open(prog, "w") as f:
        f.write(JIT_PROGRAM)
    lib = os.path.join(os.path.dirname(a.app), "libcallsite_lib.so")
    calls = 20000
    growth = {}
    for name, env in (("plain", {}), ("skip", {"NCCLTAP_CALLSITE_SKIP": "libcallsite_lib,libnothere"})):
        out = os.path.join(a.work, "jit-" + name)
        shutil.rmtree(out, ignore_errors=True)
        e = dict(os.environ, NCCLTAP_CALLSITE_DEPTH="2", **env)
        stdout = run([os.path.join(a.bin, "nccltap"), "run", "--sim", "--dir", out, "--", sys.executable, prog,
                      str(calls), lib], e)
        growth[name] = int(re.search(r"rss_growth_kb (-?\d+)", stdout).group(1))
        doc = report(a, out)
        check(sum(s["calls"] for s in doc["callsites"]) == calls + 500 + 9,
              "%s: every call at a site: %s" % (name, [(s["frames"], s["calls"]) for s in doc["callsites"]]))
        # The first native frame: a Python frame (the line that called) comes first.
        native = [(s, [f for f in s["frames"] if not f["python"]]) for s in doc["callsites"]]
        in_lib = sum(s["calls"] for s, frames in native if frames and frames[0]["library"] == "libcallsite_lib.so")
        # Skipped: the dlopen'ed library's 9 calls are attributed to their caller.
        check(in_lib == (0 if name == "skip" else 9),
              "%s: %d calls at sites in libcallsite_lib.so, loaded after the first calls" % (name, in_lib))
    # Each leaked module map was over 1.5 KB, two frames per call out of
    # every object: 60 MB over 20,000 calls. The same program without a skip
    # list is the baseline (Python's own memory, a sanitizer's quarantine).
    check(growth["skip"] - growth["plain"] < 8192,
          "calls from a JIT page with NCCLTAP_CALLSITE_SKIP: memory grew %d KB over %d calls (%d KB without "
          "the skip list)" % (growth["skip"], calls, growth["plain"]))
    print("JIT page, depth 2: %d KB more memory with a skip list than without, over %d calls"
          % (growth["skip"] - growth["plain"], calls))


# The program's two sites by the names the shim recorded from its .symtab:
# the inlined call is in the function it was inlined into.
RECORDED = ["app::reduce_direct(ncclComm*, CUstream_st*, void*)", "app::step(ncclComm*, CUstream_st*, void*)"]


def check_recorded_names(doc, app, what):
    """Without the object that ran (nor its debug information), the
    program's frames have the names the shim recorded, no file or line:
    not the symbols of whatever is at the path now."""
    frames = [s["frames"][0] for s in doc["callsites"] if s["frames"][0]["library"] == os.path.basename(app)]
    got = sorted((f["function"], f["file"], f["line"]) for f in frames)
    check(got == [(n, "", 0) for n in RECORDED], "%s: the names the shim recorded (got %s)" % (what, got))


def case_stripped(a):
    work = os.path.join(a.work, "stripped")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    app = os.path.join(work, os.path.basename(a.app))
    shutil.copy2(a.app, app)
    out = os.path.join(work, "run")
    traced(a, out, [app], {})
    # Debug information out, into the build-id layout; everything else stripped.
    rank_file = [os.path.join(out, p) for p in os.listdir(out) if p.endswith(".json")][0]
    with open(rank_file) as f:
        build_id = [m["build_id"] for m in json.load(f)["modules"] if m["path"] == app][0]
    debug_dir = os.path.join(work, "debug")
    target = os.path.join(debug_dir, ".build-id", build_id[:2], build_id[2:] + ".debug")
    os.makedirs(os.path.dirname(target))
    run(["objcopy", "--only-keep-debug", app, target])
    run(["objcopy", "--strip-all", app])
    doc = report(a, out)
    check_recorded_names(doc, app, "stripped, no debug directory")
    check_cpp_sites(a, report(a, out, "--debug-dir", debug_dir), False)

    # The program moved away after the run: nothing at its recorded path,
    # and a full copy of it (not only its debug information) in the
    # build-id layout, DIR/.build-id/xx/rest.debug, as debuginfod and
    # package managers lay them out. The object is found by its build id.
    os.remove(app)
    moved = os.path.join(work, "moved")
    full = os.path.join(moved, ".build-id", build_id[:2], build_id[2:] + ".debug")
    os.makedirs(os.path.dirname(full))
    shutil.copy2(a.app, full)
    doc = report(a, out)
    check_recorded_names(doc, app, "moved, no debug directory")
    check_cpp_sites(a, report(a, out, "--debug-dir", moved), False)
    check_text_sites(a, text_report(a, out, "--debug-dir", moved), False)
    # Another program at the recorded path (a rebuild): its build id differs,
    # so it is not used; the one that ran is found by build id.
    shutil.copy2("/bin/true", app)
    doc = report(a, out)
    check_recorded_names(doc, app, "another program at the path, no debug directory")
    check_cpp_sites(a, report(a, out, "--debug-dir", moved), False)


def case_travel(a):
    """The report read where the program and its library are not (another
    machine): the shim recorded each frame's function from the process's
    symbol tables (the library's dynamic one, the program's .symtab), so
    every native frame is still named, without file or line."""
    work = os.path.join(a.work, "travel")
    shutil.rmtree(work, ignore_errors=True)
    bin_dir = os.path.join(work, "bin")
    os.makedirs(bin_dir)
    app = os.path.join(bin_dir, os.path.basename(a.app))
    shutil.copy2(a.app, app)
    shutil.copy2(os.path.join(os.path.dirname(a.app), "libcallsite_lib.so"), bin_dir)
    out = os.path.join(work, "run")
    traced(a, out, [app], {"LD_LIBRARY_PATH": bin_dir + ":" + os.environ.get("LD_LIBRARY_PATH", "")})
    rank_file = [os.path.join(out, p) for p in os.listdir(out) if p.endswith(".json")][0]
    with open(rank_file) as f:
        paths = {m["path"] for m in json.load(f)["modules"]}
    check({app, os.path.join(bin_dir, "libcallsite_lib.so")} <= paths,
          "the run used the copies in %s (modules: %s)" % (bin_dir, sorted(paths)))
    shutil.rmtree(bin_dir)
    doc = report(a, out)
    got = sorted((s["frames"][0]["function"], s["frames"][0]["library"], s["frames"][0]["file"], s["calls"])
                 for s in doc["callsites"])
    # Without debug information the inlined call is in the function it was
    # inlined into.
    want = [("app::reduce_direct(ncclComm*, CUstream_st*, void*)", os.path.basename(app), "", 3),
            ("app::step(ncclComm*, CUstream_st*, void*)", os.path.basename(app), "", 5),
            ("lib::Reducer::run(void*, unsigned long)", "libcallsite_lib.so", "", 7)]
    check(got == want, "binaries gone: every frame named from the rank file (got %s)" % got)
    text = text_report(a, out)
    for function, *_ in want:
        short = function.split("(")[0] + "(\u2026)"
        check(short in text, "the text report names %s:\n%s" % (short, text))


# A lambda in a template of libtorch's kind, as the shim records it.
LAMBDA_MANGLED = "_ZZN4c10d2PG10collectiveIZNS0_9allreduceERSt6vectorIiSaIiEEEUliE_EEiS5_T_ENKUliE_clEi"
LAMBDA_FULL = ("c10d::PG::collective<c10d::PG::allreduce(std::vector<int, std::allocator<int> >&)::{lambda(int)#1}>"
               "(std::vector<int, std::allocator<int> >&, c10d::PG::allreduce(std::vector<int, std::allocator<int> >&)"
               "::{lambda(int)#1})::{lambda(int)#1}::operator()(int) const")
LAMBDA_SHORT = "c10d::PG::collective<\u2026>(\u2026)::{lambda#1}::operator()(\u2026) const"
# Other sites' names: kept as they are, or their parameters elided, not
# the brackets that are part of a name.
OTHER_NAMES = {2: ("_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo()"),
               3: ("_ZlsRSoRK1X", "operator<<(\u2026)"),
               4: ("_ZN1XclEi", "X::operator()(\u2026)")}


def case_cxx_names(a):
    """A recorded C++ name with templates and lambdas, its object absent:
    short in the text report, whole with --wide and in --json."""
    out = os.path.join(a.work, "cxx_names")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with open(os.path.join(a.src, "tests", "report", "testdata", "callsites", "nccltap-node-1.json")) as f:
        doc = json.load(f)
    for m in doc["modules"]:
        m["path"] = "/nonexistent/" + os.path.basename(m["path"])
        m["build_id"] = ""
    mangled = {1: LAMBDA_MANGLED}
    mangled.update((i, m) for i, (m, _) in OTHER_NAMES.items())
    for s in doc["callsites"]:
        s["symbols"] = [mangled[s["id"]] if k == 0 else "" for k in range(len(s["frames"]))]
    with open(os.path.join(out, "nccltap-node-1.json"), "w") as f:
        json.dump(doc, f)
    got = report(a, out)
    names = [s["frames"][0]["function"] for s in got["callsites"]]
    check(LAMBDA_FULL in names, "--json: the whole demangled name (got %s)" % names)
    inner = [f["function"] for s in got["callsites"] for f in s["frames"][1:]]
    check(inner and all(n.startswith("nccltap-bench+0x") for n in inner),
          "--json: frames without a recorded name are library+0xoffset (got %s)" % inner)
    text = text_report(a, out)
    check(LAMBDA_SHORT in text and LAMBDA_FULL not in text, "text: the short name %s:\n%s" % (LAMBDA_SHORT, text))
    for _, short in OTHER_NAMES.values():
        check(short in text, "text: %s:\n%s" % (short, text))
    wide = text_report(a, out, "--wide")
    check(LAMBDA_FULL in wide, "--wide: the whole name:\n%s" % wide)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--app", default="")
    p.add_argument("--src", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("case", choices=["bench", "first_call", "cpp", "skip", "stripped", "travel", "cxx_names"])
    a = p.parse_args()
    a.src = os.path.abspath(a.src)
    os.makedirs(a.work, exist_ok=True)
    {"bench": case_bench, "first_call": case_first_call, "cpp": case_cpp, "skip": case_skip,
     "stripped": case_stripped, "travel": case_travel, "cxx_names": case_cxx_names}[a.case](a)
    print("FAIL: %d checks" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
