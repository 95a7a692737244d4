#!/bin/sh
# Issue 19: a symlink above the output directory. An unprivileged user who
# owns a directory on the path of root's NCCLTAP_DIR (or who can plant a
# symlink in a shared one) must not redirect root's output elsewhere. The
# rule (preload/base/out_dir.h): a symlink is followed only when it and the
# directory holding it are owned by root or the effective user, and that
# directory is not writable by others unless sticky. Root's own symlinks in
# root's directories (/var/run -> /run) still work.
# nccltap never asks the kernel to follow such a symlink, so the result is
# the same whatever fs.protected_symlinks says (it covers only sticky
# world-writable directories).
# usage: parent_symlink.sh SHIM SIM_DIR API_EXERCISE
# Needs root and setpriv (util-linux); skipped (77) otherwise.
set -u
shim=$1 sim=$2 app=$3
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: needs setpriv"; exit 77; }
attacker_uid=$(id -u nobody 2>/dev/null || echo 65534)
as_attacker() { setpriv --reuid="$attacker_uid" --regid="$attacker_uid" --clear-groups "$@"; }

base=$(mktemp -d /tmp/nccltap-parent.XXXXXX) || exit 1
trap 'rm -rf "$base"' EXIT
chmod 755 "$base"
mkdir -m 700 "$base/roots" # where the attacker wants root's output
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Runs the application as root with NCCLTAP_DIR=$1; stderr in $base/err.
job() {
    env NCCLTAP_DIR="$1" LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" LD_LIBRARY_PATH="$sim" \
        NCCLTAP_TIMING=off "$app" threads >"$base/out" 2>"$base/err"
    rc=$?
    [ $rc -eq 0 ] || fail "$1: the application exited $rc"
}

# Refused, said once, nothing written where the symlink points.
refused() {
    dir=$1 label=$2 why=$3
    job "$dir"
    grep -qF "NCCLTAP_DIR=$dir is not safe to write in ($why)" "$base/err" ||
        fail "$label: no refusal on stderr: $(cat "$base/err")"
    [ "$(grep -c 'not safe' "$base/err")" -eq 1 ] || fail "$label: said more than once"
    [ -z "$(ls -A "$base/roots")" ] || fail "$label: wrote through the symlink: $(ls -A "$base/roots")"
}

# 1. The attacker's own directory on the path, holding a symlink to root's.
mkdir -m 755 "$base/home" && chown "$attacker_uid" "$base/home"
as_attacker ln -s "$base/roots" "$base/home/out"
refused "$base/home/out/job" "symlink in another user's directory" \
    "above it, a symlink in a directory another user owns"

# 2. Root's symlink, but in the attacker's directory: the attacker could
# replace it at any time, so it is refused too.
ln -s "$base/roots" "$base/home/rootlink"
refused "$base/home/rootlink/job" "root's symlink in another user's directory" \
    "above it, a symlink in a directory another user owns"

# 3. The attacker's symlink in a shared sticky directory of root's (as /tmp).
mkdir -m 1777 "$base/shared"
as_attacker ln -s "$base/roots" "$base/shared/link"
refused "$base/shared/link/job" "another user's symlink in a sticky directory" \
    "above it, a symlink owned by another user"

# 4. Benign: root's symlink in root's directory (as /var/run -> ../run),
# relative, followed; the output lands where it points.
mkdir -m 755 "$base/var" "$base/run"
ln -s ../run "$base/var/run"
job "$base/var/run/job"
grep -q "not safe" "$base/err" && fail "root's own symlink refused: $(cat "$base/err")"
ls "$base/run/job"/nccltap-*.json >/dev/null 2>&1 || fail "root's own symlink: no rank file in $base/run/job"

[ $failures -eq 0 ] && echo "ok: every symlink above the output directory that another user controls is refused"
[ $failures -eq 0 ]
