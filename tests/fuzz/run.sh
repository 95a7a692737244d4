#!/bin/sh
# Builds the libFuzzer targets with clang and runs each for a bounded time
# from its committed seed corpus (tests/fuzz/corpus/TARGET). New inputs go
# to a scratch directory, never into the corpus; a crash leaves its input
# in BUILD/fuzz-out/ and fails the run, with the report's last lines.
# Usage: tests/fuzz/run.sh [BUILD_DIR] [SECONDS]   (defaults: build-fuzz, 20;
#        NCCLTAP_FUZZ_SECONDS also sets the time)
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build-fuzz}
# 20 s each: ten targets take 200 s (three of 45 s took 135 s in CI).
seconds=${2:-${NCCLTAP_FUZZ_SECONDS:-20}}
targets="rank_file ops_file ops_log hang_file bench_file trace_events trace_read render json_writer config"

CC=clang cmake -S "$top" -B "$build" -DNCCLTAP_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
for t in $targets; do
    cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" --target "fuzz_$t" >/dev/null
done

out=$build/fuzz-out
failed=0
for t in $targets; do
    rm -rf "$out/$t"
    mkdir -p "$out/$t/new"
    # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: one
    # that takes 1 GiB is a leak or an allocation the input controls. The
    # trace reader's child is ended when libbabeltrace2 gives it nothing
    # for TRACE_READ_IDLE_S (8 s: a hang); a crafted stream it reads slowly
    # but steadily (16 s for a few KB seen) is no hang of ours: 60 s.
    timeout=10
    [ "$t" = trace_read ] && timeout=60
    if "$build/bin/fuzz_$t" -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=1024 \
            -artifact_prefix="$out/$t/" -print_final_stats=1 \
            "$out/$t/new" "$top/tests/fuzz/corpus/$t" >"$out/$t/log" 2>&1; then
        echo "fuzz_$t: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$out/$t/log"), no crash"
    else
        echo "fuzz_$t: FAILED; input and report in $out/$t/"
        tail -n 30 "$out/$t/log"
        failed=1
    fi
done
exit $failed
