#!/bin/sh
# Issue 29, item 13: exec() ends an image with no exit handler, so its
# Prometheus file stayed and node_exporter served the dead image as live.
# The image exec() starts removes its earlier image's files as it loads:
# while the second image runs and once its own file (another GPU's) is
# written, the first image's file must be gone, and after the job none of
# the job's files is left; a file of another process (another mark, its
# GPU's name lock free) must stay.
# usage: exec_prom.sh SHIM SIM_DIR EXEC_SELF
set -u
shim=$1 sim=$2 app=$3
dir=$(mktemp -d /tmp/nccltap-exec-prom.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
prom=$dir/prom
mkdir -m 0755 "$prom"
planted=nccltap_GPU-00000000-0000-0000-0000-000000000099.prom
printf '# nccltap process boot=another pidns=1 pid=1 start=1\nnccltap_calls_total 1\n' >"$prom/$planted"
: >"$prom/.nccltap_GPU-00000000-0000-0000-0000-000000000099.lock"

env LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" LD_LIBRARY_PATH="$sim" NCCLTAP_DIR="$dir/out" \
    NCCLTAP_PROM_DIR="$prom" NCCLTAP_INTERVAL_MS=50 NCCLTAP_VERBOSE=1 "$app" 1 2>"$dir/err" &
app_pid=$!
# The job's files as they come and go: the first name seen is the first
# image's (GPU 0); when another appears (the second image's, GPU 1), the
# first must be gone already.
first= second= both=
while kill -0 "$app_pid" 2>/dev/null; do
    names=$(ls "$prom" | grep '^nccltap_.*\.prom$' | grep -v "^$planted\$")
    for n in $names; do
        if [ -z "$first" ]; then
            first=$n
        elif [ "$n" != "$first" ] && [ -z "$second" ]; then
            second=$n
            echo "$names" | grep -qx "$first" && both=$names
        fi
    done
    sleep 0.01
done
wait "$app_pid" || fail "the application failed: $(cat "$dir/err")"
cat "$dir/err"
[ -n "$first" ] || fail "no Prometheus file of the first image was seen"
[ -n "$second" ] || fail "no Prometheus file of the second image was seen"
[ -z "$both" ] && echo "second image's $second written, first image's $first gone by then" ||
    fail "the first image's $first was still there when the second image's $second was written: $both"
left=$(ls "$prom" | grep '^nccltap_.*\.prom$' | grep -v "^$planted\$")
[ -z "$left" ] || fail "files left after the job: $left"
[ -f "$prom/$planted" ] || fail "another process's file was removed"
grep -q "could not be removed" "$dir/err" && fail "a file could not be removed: $(cat "$dir/err")"
[ "$failures" = 0 ] && echo "ok: the earlier image's Prometheus file removed as the next one loaded"
[ "$failures" = 0 ]
