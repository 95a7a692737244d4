#!/bin/sh
# Issue 19: exec() keeps the pid. The image it starts must write beside the
# earlier image's files (nccltap-<run>@<host>-<pid>+exec1.*), not over them,
# and the report must read both, saying it reads them as two processes.
# usage: exec_self.sh SHIM SIM_DIR EXEC_SELF NCCLTAP
set -u
shim=$1 sim=$2 app=$3 nccltap=$4
dir=$(mktemp -d /tmp/nccltap-exec.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

env LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" LD_LIBRARY_PATH="$sim" NCCLTAP_DIR="$dir/out" \
    NCCLTAP_INTERVAL_MS=50 NCCLTAP_TIMING=all NCCLTAP_OPS_JSONL=1 "$app" 2>"$dir/err" || fail "the application failed"
grep -q "File exists" "$dir/err" && fail "a file of the first image was in the way: $(cat "$dir/err")"
ls "$dir/out"
first=$(ls "$dir/out" | grep -c '^nccltap-.*-[0-9]*\.json$')
second=$(ls "$dir/out" | grep -c '^nccltap-.*-[0-9]*+exec1\.json$')
[ "$first" = 1 ] && [ "$second" = 1 ] || fail "rank files: $first of the first image, $second of the second, expected 1 each"
[ "$(ls "$dir/out" | grep -c '+exec1\.ops\.jsonl$')" = 1 ] || fail "no per-op log of the second image"
"$nccltap" report --json "$dir/out" >"$dir/report.json" 2>"$dir/report.err" || fail "the report failed: $(cat "$dir/report.err")"
cat "$dir/report.err"
calls=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["totals"]["calls"])' "$dir/report.json")
[ "$calls" = 7 ] || fail "the report counts $calls calls, expected 3 + 4"
grep -q "exec'd (its image 1): read as a process of its own" "$dir/report.err" || fail "the report does not say how it reads the two images"
[ "$failures" = 0 ] && echo "ok: both images' files, both in the report"
[ "$failures" = 0 ]
