#!/bin/sh
# The attack of issue 7, as an unprivileged user against a job run as root:
# the attacker plants symlinks named like nccltap's files, pointing at a
# root-owned 0600 file, in a directory the job writes to. The victim file
# must stay untouched, and the application unharmed.
# fs.protected_symlinks=1 (most distributions' default) makes the kernel
# refuse to follow another user's symlink in a sticky world-writable
# directory, whatever nccltap does; it does nothing in a directory that is
# world-writable but not sticky, as the attacker's own is (cases 0 and 1).
# Case 2 tests nccltap's own O_NOFOLLOW only where it is 0 (containers).
# usage: symlink_attack.sh SHIM SIM_DIR API_EXERCISE
# Needs root and setpriv (util-linux); skipped (77) otherwise.
set -u
shim=$1 sim=$2 app=$3
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: needs setpriv"; exit 77; }
attacker_uid=$(id -u nobody 2>/dev/null || echo 65534)
as_attacker() { setpriv --reuid="$attacker_uid" --regid="$attacker_uid" --clear-groups "$@"; }

base=$(mktemp -d /tmp/nccltap-attack.XXXXXX) || exit 1
trap 'rm -rf "$base"' EXIT
chmod 1777 "$base" # as /tmp
victim=$base/victim
printf 'root secret\n' >"$victim" && chmod 0600 "$victim"
before=$(sha256sum "$victim"; stat -c '%s %Y %a %U' "$victim")
host=$(uname -n | tr -c 'A-Za-z0-9._\n-' '_')
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs the application as root in $base (as if in /tmp) with NCCLTAP_DIR=$3,
# or with none when $3 is not given: then the shim's default, nccltap-atk
# from SLURM_JOB_ID=atk. The attacker plants symlinks in $1 for this very
# pid (the shell execs the application, keeping its pid) under every name
# nccltap writes or wrote: the rank file, its temporary file, the per-op
# file and the per-op log. (The hang file is written as the rank file is,
# through a temporary file renamed over it.)
job() {
    dir=$1 label=$2
    if [ $# -ge 3 ]; then set -- NCCLTAP_DIR="$3"; else set -- -u NCCLTAP_DIR; fi
    (cd "$base" && env "$@" LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" LD_LIBRARY_PATH="$sim" \
    SLURM_JOB_ID=atk NCCLTAP_TIMING=all NCCLTAP_OPS_JSONL=1 \
        sh -c '
        for name in "nccltap-atk@$1-$$.json" "nccltap-atk@$1-$$.ops" "nccltap-atk@$1-$$.ops.jsonl" \
                    "nccltap-$1-$$.json.tmp" "nccltap-$1-$$.ops.jsonl" "nccltap-$1-$$.json"; do
            setpriv --reuid="$3" --regid="$3" --clear-groups ln -sf "$4" "$2/$name" 2>/dev/null
        done
        exec "$5" threads' sh "$host" "$dir" "$attacker_uid" "$victim" "$app") >"$base/out" 2>"$base/err"
    rc=$?
    [ $rc -eq 0 ] || fail "$label: the application exited $rc"
    after=$(sha256sum "$victim"; stat -c '%s %Y %a %U' "$victim")
    [ "$after" = "$before" ] || fail "$label: the victim file was changed: $(head -c 60 "$victim")"
}

# 0. The issue's repro exactly: the attacker makes nccltap-atk, world-
# writable, in the shared directory; the job, run as root there with
# SLURM_JOB_ID=atk and no NCCLTAP_DIR, would write into it by default.
# The shim refuses it, says so once, and writes nothing anywhere.
as_attacker mkdir -m 777 "$base/nccltap-atk"
job "$base/nccltap-atk" "default directory"
grep -q "NCCLTAP_DIR=$base/nccltap-atk is not safe to write in (owned by another user)" "$base/err" ||
    fail "default directory: no refusal on stderr: $(cat "$base/err")"
[ "$(grep -c 'not safe' "$base/err")" -eq 1 ] || fail "default directory: said more than once"
[ -z "$(find "$base/nccltap-atk" ! -type l ! -type d)" ] ||
    fail "default directory: the shim wrote $(ls -a "$base/nccltap-atk")"
[ -z "$(find "$base" -mindepth 1 -maxdepth 1 -name 'nccltap-*' ! -name nccltap-atk)" ] ||
    fail "default directory: the shim wrote elsewhere: $(ls -a "$base")"

# 1. The same directory named by NCCLTAP_DIR (the attacker's own). The
# shim refuses it, says so once, and writes nothing.
as_attacker mkdir -m 777 "$base/atk"
job "$base/atk" "attacker's directory" "$base/atk"
grep -q "NCCLTAP_DIR=$base/atk is not safe to write in (owned by another user)" "$base/err" ||
    fail "attacker's directory: no refusal on stderr: $(cat "$base/err")"
[ "$(grep -c 'not safe' "$base/err")" -eq 1 ] || fail "attacker's directory: said more than once"
[ -z "$(find "$base/atk" ! -type l ! -type d)" ] || fail "attacker's directory: the shim wrote $(ls -a "$base/atk")"

# 2. A shared sticky directory (as /tmp), root's: usable, but no planted
# name is written through; the rank file replaces the attacker's symlink.
mkdir -m 1777 "$base/shared"
job "$base/shared" "sticky directory" "$base/shared"
ls "$base/shared"/nccltap-atk@*.json >/dev/null 2>&1 || fail "sticky directory: no rank file written"
for f in "$base/shared"/nccltap-atk@*.json; do
    [ -L "$f" ] && fail "sticky directory: $f is still a symlink"
    [ "$(stat -c '%a %U' "$f")" = "600 root" ] || fail "sticky directory: $f has mode/owner $(stat -c '%a %U' "$f")"
done
grep -q "no per-operation log" "$base/err" || fail "sticky directory: the planted per-op log name was not refused"
grep -q "cannot create the per-op file in $base/shared (File exists)" "$base/err" ||
    fail "sticky directory: the planted per-op file name was not refused: $(cat "$base/err")"

# 3. NCCLTAP_DIR itself a symlink planted by the attacker (to a directory
# of root's): refused, as O_NOFOLLOW | O_DIRECTORY opens it.
mkdir -m 700 "$base/roots"
as_attacker ln -s "$base/roots" "$base/shared/link"
job "$base/shared/link" "symlinked directory" "$base/shared/link"
grep -q "NCCLTAP_DIR=$base/shared/link is not safe to write in" "$base/err" ||
    fail "symlinked directory: no refusal: $(cat "$base/err")"
[ -z "$(ls "$base/roots")" ] || fail "symlinked directory: wrote through it: $(ls "$base/roots")"

[ $failures -eq 0 ] && echo "ok: the victim file is untouched in every case"
[ $failures -eq 0 ]
