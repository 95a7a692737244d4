#!/usr/bin/env python3
"""The verdicts of scenarios_gpu.sh: per scenario and mode, the first
finding against the culprit wanted (healthy: none), and what it says.
Usage: scenarios_summary.py OUT; writes OUT/scenarios.json."""
import glob
import json
import os
import sys

WANT = {"healthy": None, "compute": ("straggler", 2), "host": ("straggler", 1), "late": ("straggler", 2),
        "hang": ("hang", 3)}


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
        want = WANT.get(name)
        ok = got == want and (want is not None or not f)
        ev = f[0].get("evidence", {}) if f else {}
        rows.append({"scenario": name, "mode": mode, "ok": ok, "want": want, "got": got,
                     "findings": [g["text"] for g in f], "share": ev.get("nccl_time_share"),
                     "others_wait_us": ev.get("others_wait_us"), "calls": rep.get("totals", {}).get("calls")})
    json.dump(rows, open(os.path.join(out, "scenarios.json"), "w"), indent=1)
    for r in rows:
        print("%-8s %-5s %-4s want %-16s got %-16s %s" % (r["scenario"], r["mode"], "OK" if r["ok"] else "FAIL",
                                                       r.get("want"), r.get("got"),
                                                       (r.get("findings") or ["(none)"])[0][:150]))
    sys.exit(0 if rows and all(r["ok"] for r in rows) else 1)


if __name__ == "__main__":
    main()
