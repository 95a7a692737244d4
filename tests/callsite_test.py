#!/usr/bin/env python3
"""Call sites end to end: a program runs under `nccltap run --sim`, then
`nccltap report --json` must name where each of its NCCL calls was made.

  bench     nccltap-bench, every op, NCCLTAP_CALLSITE_DEPTH=4: every frame
            of every site is a function at file.c:line in tools/bench/.
  cpp       tests/apps/callsite_app.cpp: three sites (a function, a function
            inlined into another, a method in a shared library of its own)
            with their demangled names, files, lines (the SITE: markers in
            the sources) and call counts.
  skip      the same with NCCLTAP_CALLSITE_SKIP=libcallsite_lib: the
            library's site moves to its caller in main.
  stripped  the program stripped after the run and its debug information
            moved to DIR/.build-id/: without --debug-dir DIR the frames are
            library+0xoffset, with it they are named as in `cpp`.

Usage: callsite_test.py --bin BUILD/bin --app callsite_app --src SOURCE --work DIR CASE"""
import argparse
import json
import os
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


def case_cpp(a, skip=False):
    out = os.path.join(a.work, "skip" if skip else "cpp")
    traced(a, out, [a.app], {"NCCLTAP_CALLSITE_SKIP": "libcallsite_lib"} if skip else {})
    check_cpp_sites(a, report(a, out), skip)


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
    names = [s["frames"][0]["function"] for s in doc["callsites"] if s["frames"][0]["library"] == os.path.basename(app)]
    check(len(names) == 2 and all(n.startswith(os.path.basename(app) + "+0x") for n in names),
          "stripped, no debug directory: the program's frames are library+0xoffset (got %s)" % names)
    check_cpp_sites(a, report(a, out, "--debug-dir", debug_dir), False)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--app", default="")
    p.add_argument("--src", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("case", choices=["bench", "first_call", "cpp", "skip", "stripped"])
    a = p.parse_args()
    a.src = os.path.abspath(a.src)
    os.makedirs(a.work, exist_ok=True)
    {"bench": case_bench, "first_call": case_first_call, "cpp": case_cpp, "skip": lambda a: case_cpp(a, True), "stripped": case_stripped}[a.case](a)
    print("FAIL: %d checks" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
