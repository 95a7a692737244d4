#!/usr/bin/env python3
"""The verdicts of scenarios_gpu.sh: per scenario and mode, the first
finding against the culprit wanted (the scenario's file `culprit`; -1,
healthy: none, unless the script's own backward times show a rank's host
20% slower than the fastest's: then that rank, a straggler, and between
10% and 20% either), and what it says;
and the steps (issue 35): the report's steps of the busiest communicator
against the script's (as many where the program marked them; found from
the calls, within 2: a first step unlike the rest is outside them), its
median step time against the script's (median over ranks of each rank's
median after step 20: within 5%).
Usage: scenarios_summary.py OUT; writes OUT/scenarios.json."""
import glob
import json
import os
import sys

KIND = {"compute": "straggler", "host": "straggler", "late": "straggler", "hang": "hang"}


# A run where nobody was made slower: a finding is wanted when the
# script's own figures show a rank's host this much slower in backward
# than the fastest's, none below HOST_EVEN; between, either. The culprit
# is any of the slow ranks: within HOST_EVEN of the slowest (two ranks'
# hosts 5.67 and 5.78 ms in backward, the others 4.3 and 4.5, on 4 H200s:
# the one named is as slow as the slowest).
HOST_SLOWER = 1.2
HOST_EVEN = 1.1


def slower_hosts(app_path):
    """(ranks, slowest / fastest): the ranks whose host time in backward
    is within HOST_EVEN of the slowest's, from the script's lines; (None,
    None) where it did not print them."""
    try:
        bwd = {a["rank"]: a["bwd_ms"] for a in script_lines(open(app_path).read()) if "bwd_ms" in a}
    except (OSError, ValueError):
        return None, None
    if len(bwd) < 2 or min(bwd.values()) <= 0:
        return None, None
    slowest = max(bwd.values())
    return sorted(r for r, t in bwd.items() if t * HOST_EVEN >= slowest), slowest / min(bwd.values())


def script_lines(text):
    """The script's JSON objects: one a line, or run together where two
    ranks wrote at once ({...}{...})."""
    dec, out, i = json.JSONDecoder(), [], text.find("{")
    while i >= 0:
        obj, end = dec.raw_decode(text, i)
        out.append(obj)
        i = text.find("{", end)
    return out


def steps_check(report, app_path):
    """(ok, what) of the report's steps against the script's lines."""
    try:
        app = script_lines(open(app_path).read())
    except (OSError, ValueError):
        return False, "no script output"
    app = [a for a in app if "step_ms" in a]
    comms = report.get("steps") or []
    if not app or not comms:
        return False, "script ranks %d, report's communicators with steps %d" % (len(app), len(comms))
    c = max(comms, key=lambda c: c["nsteps"])
    want_n = app[0]["steps"]
    want_ms = sorted(a["step_ms"] for a in app)[len(app) // 2]
    got_ms = (c["step_us_median"] or 0) / 1e3
    # Marked, the program's steps are as many as its loop's; found from
    # the calls, a first step unlike the rest (DDP's) is outside them.
    count_ok = want_n - 2 <= c["nsteps"] <= want_n and (not c["by_marks"] or c.get("marked") == want_n)
    ok = count_ok and abs(got_ms - want_ms) <= 0.05 * want_ms
    outside = ""
    if c.get("before") or c.get("after"):
        outside = "; %d collectives before them, %d after" % (c.get("before", 0), c.get("after", 0))
    how = "%s marked, of them alike" % c.get("marked") if c["by_marks"] else "found"
    return ok, "steps %d of %d (%s%s), %.3f ms a step against the script's %.3f (%+.1f%%)" % (
        c["nsteps"], want_n, how, outside, got_ms, want_ms,
        100.0 * (got_ms / want_ms - 1) if want_ms else 0)


def main():
    out = sys.argv[1]
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "*-*", "report.json"))):
        name, mode = os.path.basename(os.path.dirname(path)).rsplit("-", 1)
        try:
            rep = json.load(open(path))
        except ValueError:
            rows.append({"scenario": name, "mode": mode, "ok": False, "why": "no report"})
            continue
        f = rep.get("findings", [])
        got = (f[0]["kind"], f[0]["rank"]) if f else None
        culprit = int(open(os.path.join(os.path.dirname(path), "culprit")).read())
        want = (KIND[name.rstrip("0123456789")], culprit) if culprit >= 0 else None
        slow, ratio = slower_hosts(os.path.join(os.path.dirname(path), "app.jsonl"))
        if want is None and ratio is not None:
            # Nobody made slower: the script's own backward times say
            # whether a rank's host was anyway (a shared machine's CPUs).
            # Named as a straggler, or as the late rank of steps that got
            # slower part-way (a host that slowed mid-run: 4 H200s, steps
            # 8.7 -> 10.5 ms from step 61, rank 0 late in 56 of the 58).
            named_slow = got is not None and got[0] in ("straggler", "slower") and got[1] in slow
            if ratio >= HOST_SLOWER:
                want = got if named_slow else ("straggler", slow)
            elif ratio > HOST_EVEN and named_slow:
                want = got
        ok = got == want and (want is not None or not f)
        ev = f[0].get("evidence", {}) if f else {}
        steps_ok, steps = (True, "") if name == "hang" else steps_check(
            rep, os.path.join(os.path.dirname(path), "app.jsonl"))
        rows.append({"scenario": name, "mode": mode, "ok": ok, "want": want, "got": got, "host_ratio": ratio,
                     "steps_ok": steps_ok, "steps": steps,
                     "findings": [g["text"] for g in f], "share": ev.get("nccl_time_share"),
                     "others_wait_us": ev.get("others_wait_us"), "calls": rep.get("totals", {}).get("calls")})
    json.dump(rows, open(os.path.join(out, "scenarios.json"), "w"), indent=1)
    for r in rows:
        print("%-8s %-5s %-4s want %-16s got %-16s %s" % (r["scenario"], r["mode"], "OK" if r["ok"] else "FAIL",
                                                       r.get("want"), r.get("got"),
                                                       (r.get("findings") or ["(none)"])[0][:150]))
        if r.get("host_ratio"):
            print("%-8s %-5s      the slowest rank's host time in backward %.2f x the fastest's" % (
                "", "", r["host_ratio"]))
        if r.get("steps"):
            print("%-8s %-5s %-4s %s" % ("", "", "OK" if r["steps_ok"] else "FAIL", r["steps"]))
    sys.exit(0 if rows and all(r["ok"] and r.get("steps_ok", True) for r in rows) else 1)


if __name__ == "__main__":
    main()
