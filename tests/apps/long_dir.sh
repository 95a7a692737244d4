#!/bin/sh
# NCCLTAP_DIR longer than nccltap keeps (4,095 characters): said, naming
# the variable and the limit, and the files go to the default directory
# (./nccltap-<job>), not to the cut path (its parent, which two such runs
# then shared, unsaid).
# usage: long_dir.sh SHIM SIM_DIR API_EXERCISE
set -u
shim=$1 sim=$2 app=$3
base=$(mktemp -d /tmp/nccltap-longdir.XXXXXX) || exit 1
trap 'rm -rf "$base"' EXIT
long=$base/$(printf '%04100d' 0)/run-one
cd "$base" || exit 1
env LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" LD_LIBRARY_PATH="$sim" NCCLTAP_DIR="$long" NCCLTAP_JOB_ID=longdir \
    "$app" burst 3 >"$base/out" 2>"$base/err" || { echo "FAIL: the application failed"; cat "$base/err"; exit 1; }
cat "$base/err"
failures=0
grep -q "NCCLTAP_DIR is too long (at most 4095 characters): writing to $base/nccltap-" "$base/err" ||
    { echo "FAIL: no message naming NCCLTAP_DIR and its limit"; failures=1; }
ls "$base"/nccltap-*/nccltap-*.json >/dev/null 2>&1 || { echo "FAIL: no rank file in the default directory"; failures=1; }
[ -e "$base/0000" ] && { echo "FAIL: a directory made from the cut path"; failures=1; }
exit $failures
