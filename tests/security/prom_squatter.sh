#!/bin/sh
# Issue 19: in a shared sticky directory (1777) for Prometheus textfiles,
# another user creates nccltap_<GPU UUID>.prom first (GPU UUIDs are not
# secret). The job's user cannot rename over it; nccltap must not leave the
# forged file as the only one served under the job: it writes under a name
# of its own, says so once naming the squatter's uid, and its metrics are
# served. Squatter: nobody; victim: daemon (uid 1), both through setpriv.
# usage: prom_squatter.sh SHIM SIM_DIR API_EXERCISE
# Needs root and setpriv (util-linux); skipped (77) otherwise.
set -u
shim=$1 sim=$2 app=$3
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v setpriv >/dev/null || { echo "SKIP: needs setpriv"; exit 77; }
squatter=$(id -u nobody 2>/dev/null || echo 65534)
victim=1
as() { uid=$1; shift; setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"; }

base=$(mktemp -d /tmp/nccltap-squat.XXXXXX) || exit 1
trap 'rm -rf "$base"' EXIT
chmod 0755 "$base"
mkdir -m 1777 "$base/prom" "$base/learn"
mkdir -m 0700 "$base/out" && chown "$victim" "$base/out"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The victim's job, writing its Prometheus files into $1 (kept at exit).
job() {
    as "$victim" env LD_PRELOAD="$shim${LD_PRELOAD:+:$LD_PRELOAD}" LD_LIBRARY_PATH="$sim" \
        NCCLTAP_DIR="$base/out/$2" NCCLTAP_PROM_DIR="$1" NCCLTAP_PROM_KEEP=1 NCCLTAP_TIMING=all \
        "$app" threads >"$base/stdout" 2>"$base/err" || fail "the application failed: $(cat "$base/err")"
}

# Which GPU files the job writes, learned in a directory nobody else uses.
job "$base/learn" learn
names=$(cd "$base/learn" && ls nccltap_GPU-*.prom 2>/dev/null)
[ -n "$names" ] || { echo "FAIL: no GPU file to squat: $(ls -A "$base/learn")"; exit 1; }
for name in $names; do
    as "$squatter" sh -c "printf 'nccl_forged_total{job=\"victim\"} 1e9\n' >'$base/prom/$name'" ||
        fail "the squatter could not plant $name"
done

job "$base/prom" squatted
cat "$base/err"
for name in $names; do
    [ "$(stat -c %u "$base/prom/$name")" = "$squatter" ] || fail "$name changed hands"
    gpu=${name%.prom}
    own=$(find "$base/prom" -maxdepth 1 -name "$gpu-*.prom" -user "$victim" | head -1)
    [ -n "$own" ] || fail "no file of the victim's for $gpu beside the squatter's: $(ls -lA "$base/prom")"
    [ -n "$own" ] && ! grep -q '^nccl_' "$own" && fail "$own holds no metric"
done
grep -q "belongs to uid $squatter" "$base/err" || fail "the squatter's uid is not said"
[ "$(grep -c "belongs to uid" "$base/err")" -le 1 ] || fail "said more than once"
grep -q "Operation not permitted" "$base/err" && fail "the victim tried to replace the squatter's file"
[ "$failures" = 0 ] && echo "ok: the squatter's file left alone, the victim's metrics under a name of its own"
[ "$failures" = 0 ]
