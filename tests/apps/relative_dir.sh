#!/bin/sh
# A relative NCCLTAP_DIR (and the default ./nccltap-<job>) is where the
# program started: one that chdir()s before its first NCCL call writes
# there, not under its new working directory (where `nccltap report DIR`,
# run where the job started, found nothing).
# usage: relative_dir.sh SHIM SIM_DIR API_EXERCISE
set -u
shim=$1 sim=$2 app=$3
base=$(mktemp -d /tmp/nccltap-reldir.XXXXXX) || exit 1
trap 'rm -rf "$base"' EXIT
mkdir "$base/elsewhere"
cd "$base" || exit 1
failures=0
for dir in run ""; do
    env LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" LD_LIBRARY_PATH="$sim" NCCLTAP_DIR="$dir" \
        "$app" chdir "$base/elsewhere" >"$base/app.out" 2>"$base/app.err" || { echo "FAIL: the application failed"; failures=1; }
    cat "$base/app.err"
    want=${dir:-nccltap-*}
    ls "$base"/$want/nccltap-*.json >/dev/null 2>&1 ||
        { echo "FAIL: NCCLTAP_DIR='$dir': no rank file under $base/$want"; failures=1; }
    [ -z "$(ls -A "$base/elsewhere")" ] || { echo "FAIL: NCCLTAP_DIR='$dir': files under the new working directory"; failures=1; }
done
exit $failures
