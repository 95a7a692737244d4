#!/bin/sh
# Sustained LTTng emission on the simulator: one rank makes N 8-byte
# AllReduce calls as fast as it can with NCCLTAP_TIMING=all, into a blocking
# channel (nothing may be discarded). Prints events per second, events
# discarded, and trace bytes per operation.
# Usage: tests/perf/lttng_emission.sh BUILD_DIR [N]
set -eu
build=$(cd "$1" && pwd)
n=${2:-200000}
tmp=$(mktemp -d)
export LTTNG_HOME=$tmp/home
mkdir -p "$LTTNG_HOME"
trap 'lttng destroy -a >/dev/null 2>&1; kill $(cat "$tmp/pid" 2>/dev/null) 2>/dev/null; rm -rf "$tmp"' EXIT
lttng-sessiond --daemonize --pidfile "$tmp/pid" >/dev/null 2>&1
lttng create emission --output="$tmp/trace" >/dev/null
lttng enable-channel -u --blocking-timeout=inf --subbuf-size=1M --num-subbuf=8 ch >/dev/null
lttng enable-event -u -c ch 'nccltap:*' >/dev/null
lttng add-context -u -c ch -t vpid -t vtid -t procname >/dev/null
lttng start >/dev/null
t0=$(date +%s%N)
LTTNG_UST_ALLOW_BLOCKING=1 NCCLTAP_LTTNG=1 NCCLTAP_TIMING=all NCCLSIM_LAT_US=0 \
    LD_LIBRARY_PATH=$build/lib/nccltap/sim LD_PRELOAD=$build/lib/libnccltap.so NCCLTAP_DIR=$tmp/out \
    "$build/bin/api_exercise" burst "$n" >/dev/null
t1=$(date +%s%N)
lttng stop >/dev/null
lttng destroy emission >/dev/null
events=$(babeltrace2 "$tmp/trace" 2>"$tmp/bt.err" | grep -c 'nccltap:op_')
discarded=$(grep -ci discard "$tmp/bt.err" || true)
bytes=$(du -sb "$tmp/trace" | cut -f1)
echo "$n calls, $events op events in $(( (t1 - t0) / 1000000 )) ms: $(( events * 1000000000 / (t1 - t0) )) events/s"
echo "discarded-event warnings from babeltrace2: $discarded"
echo "trace: $bytes bytes, $(( bytes / n )) bytes per call"
