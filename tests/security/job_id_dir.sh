#!/bin/sh
# Issue 19: the shim's default output directory, ./nccltap-<job>, takes the
# launcher's job id, which any environment may set: it must stay one name
# in the working directory (TORCHELASTIC_RUN_ID='a/../../escaped' once put
# the output two levels up).
# usage: job_id_dir.sh SHIM SIM_DIR API_EXERCISE
set -u
shim=$1 sim=$2 app=$3
base=$(mktemp -d /tmp/nccltap-jobid.XXXXXX) || exit 1
trap 'rm -rf "$base"' EXIT
mkdir -p "$base/a/b"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs the application in $base/a/b with job id variable $1 set to $2.
job() {
    (cd "$base/a/b" && env -u NCCLTAP_DIR -u SLURM_JOB_ID -u PMIX_NAMESPACE -u TORCHELASTIC_RUN_ID \
        -u LSB_JOBID "$1=$2" LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" LD_LIBRARY_PATH="$sim" \
        NCCLTAP_TIMING=off "$app" threads) >"$base/out" 2>"$base/err" || fail "$1=$2: the application failed"
}

job TORCHELASTIC_RUN_ID 'a/../../escaped'
[ -e "$base/a/escaped" ] && fail "the output escaped the working directory: $(ls "$base/a/escaped")"
ls "$base/a/b/nccltap-a_.._.._escaped"/nccltap-*.json >/dev/null 2>&1 ||
    fail "no rank file in nccltap-a_.._.._escaped: $(ls -A "$base/a/b") $(cat "$base/err")"
rm -rf "$base/a/b"/* "$base/a/escaped"
job SLURM_JOB_ID '..'
ls "$base/a/b/nccltap-.."/nccltap-*.json >/dev/null 2>&1 || fail "SLURM_JOB_ID=..: $(ls -A "$base/a/b")"
rm -rf "$base/a/b"/*
job PMIX_NAMESPACE "$(printf '%0300d' 1)"
made=$(ls "$base/a/b")
[ ${#made} -le 136 ] && ls "$base/a/b/$made"/nccltap-*.json >/dev/null 2>&1 ||
    fail "a 300-character job id: '$made' $(cat "$base/err")"

[ $failures -eq 0 ] && echo "ok: the default directory is one name in the working directory"
[ $failures -eq 0 ]
