#!/bin/sh
# Instructions the shim adds to one intercepted call, background thread
# included, counted by valgrind's callgrind on the simulator (repeatable, not
# a timing): one rank, 8 B AllReduce, runs of N1 and N2 calls with and
# without the shim, NCCLTAP_TIMING=off; added instructions per call =
# ((I_shim(N2) - I_shim(N1)) - (I_plain(N2) - I_plain(N1))) / (N2 - N1).
# Workloads: `bench`, nccltap-bench (each call between its own event
# pair, as an application times it); `burst`, tests/apps/api_exercise
# (calls back to back, nothing else); `both`, one then the other. Other
# NCCLTAP_ variables set by the caller apply to the shim's runs, e.g.
# NCCLTAP_CALLSITE_DEPTH=8.
# COST_TIMING sets NCCLTAP_TIMING for the shim's runs (default off: the
# budget's configuration); auto or all also count what the reducer does
# with each completed call (BENCHMARKS.md).
# NCCLTAP_OS is off unless the caller sets it: its cost is per context
# switch, not per call (tests/perf/os_switch_cost.c), and valgrind, which
# runs one thread at a time, makes the calling thread switch 15 times as
# often as it does natively (94 against 6 in 40,000 calls), a number that
# varies from run to run: the records written at exit made the count vary
# by 20 instructions per call.
# The budget (issue 7) is 300 added instructions per call in the default
# configuration: the script exits 1 when a workload is above COST_MAX
# (default 300; COST_MAX=none only measures). Exits 77 (skipped) without
# valgrind, or when the shim is built with a sanitizer, whose checks are
# counted too. The counts are the same from run to run within 1 or 2
# instructions on a quiet machine; on a loaded one a run lasts longer and
# the reducer, which wakes by the clock, runs more passes in it (up to 5
# instructions a call more were seen): each shim run is taken twice and
# the lesser count kept, since the load only adds.
# Usage: tests/perf/callgrind_cost.sh BUILD_DIR [bench|burst|both] [N1 N2]
set -eu
build=$(cd "$1" && pwd)
workload=${2:-bench}
n1=${3:-20000}
n2=${4:-40000}
max=${COST_MAX:-300}
shim=$build/lib/libnccltap.so
sim=$build/lib/nccltap/sim

case $workload in
bench | burst | both) ;;
*) echo "usage: $0 BUILD_DIR [bench|burst|both] [N1 N2]" >&2; exit 2 ;;
esac
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed"; exit 77; }
if nm -D --undefined-only "$shim" 2>/dev/null | grep -q ' __[a-z]*san_'; then
    echo "SKIP: $shim is built with a sanitizer: its instructions are not the shim's"
    exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

instructions() { # preload calls command...
    preload=$1 calls=$2
    shift 2
    if ! LD_LIBRARY_PATH=$sim LD_PRELOAD=$preload NCCLTAP_TIMING=${COST_TIMING:-off} NCCLTAP_OS=${NCCLTAP_OS:-off} \
        NCCLSIM_LAT_US=0 NCCLTAP_DIR=$tmp/out \
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "$@" "$calls" >/dev/null 2>"$tmp/log"; then
        echo "valgrind ${preload:+with $preload }$* $calls failed:" >&2
        cat "$tmp/log" >&2
        return 1
    fi
    # All threads together: one output file, its totals line.
    awk '/^totals:/ { print $2; found = 1; exit } END { if (!found) exit 1 }' "$tmp/cg"
}

least_of_two() { # preload calls command...
    a=$(instructions "$@") && b=$(instructions "$@") || return 1
    [ "$a" -le "$b" ] && echo "$a" || echo "$b"
}

failures=0
measure() { # workload
    case $1 in
    bench) set -- bench "$build/bin/nccltap-bench" --op allreduce --bytes 8 --warmup 0 --iters ;;
    burst) set -- burst "$build/bin/api_exercise" burst ;;
    esac
    name=$1
    shift
    p1=$(instructions "" "$n1" "$@") && p2=$(instructions "" "$n2" "$@") &&
        s1=$(least_of_two "$shim" "$n1" "$@") && s2=$(least_of_two "$shim" "$n2" "$@") || exit 1
    added=$(( ((s2 - s1) - (p2 - p1)) / (n2 - n1) ))
    echo "workload: $name"
    echo "plain: $p1 ($n1 calls) $p2 ($n2 calls)"
    echo "shim:  $s1 ($n1 calls) $s2 ($n2 calls)"
    echo "added instructions per call: $added"
    if [ "$max" != none ] && [ "$added" -gt "$max" ]; then
        echo "FAIL: $name: $added added instructions per call, above the budget of $max"
        failures=$((failures + 1))
    fi
}

if [ "$workload" = both ]; then
    measure bench
    measure burst
else
    measure "$workload"
fi
[ "$failures" -eq 0 ]
