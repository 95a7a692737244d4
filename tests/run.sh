#!/bin/sh
# The whole test suite, as CI runs it: a warnings-as-errors build, then the
# same tests again under AddressSanitizer and UndefinedBehaviorSanitizer,
# then the unit and shim tests (the threads of the shim: the application's,
# the reducer, fork, constructors) under ThreadSanitizer, then the fuzz
# targets (clang's libFuzzer) for 20 s each (NCCLTAP_FUZZ_SECONDS).
# Usage: tests/run.sh [build-directory-prefix]   (default: build)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$top/build}
jobs=$(nproc 2>/dev/null || echo 2)
tests= skip=
. "$top/tools/deps.sh"

# run_suite DIR [CMAKE_ARGS...]; $tests, $skip: ctest -R and -E filters.
run_suite() {
    dir=$1; shift
    cmake -S "$top" -B "$dir" -DNCCLTAP_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$jobs"
    (cd "$dir" && ctest --output-on-failure -j "$jobs" ${tests:+-R "$tests"} ${skip:+-E "$skip"})
}

echo "== release build, warnings as errors"
run_suite "$prefix"
echo "== AddressSanitizer + UndefinedBehaviorSanitizer"
# Not under ASan: the verdicts that a healthy run has no finding, and the
# timings held to the simulator's model (the bench's busbw within 5%, 8
# ranks' straggler on 2 CPUs). ASan slows the simulated ranks unevenly (a
# rank descheduled for milliseconds is late for real, and the report says
# so); they are judged in the build above, and the same code runs under
# ASan in the other cases.
skip='^(cli\.(findings|html)_healthy|cli\.findings_trace_healthy|crossrank\.(slow_link_single|jitter_healthy|links_healthy)|os\.(healthy|nobody|competitor|lttng)|bench\.busbw|cli\.findings_straggler8|steps\.(found|late_small))$' \
run_suite "$prefix-asan" -DCMAKE_BUILD_TYPE=Debug -DNCCLTAP_SANITIZE=address,undefined
skip=
echo "== ThreadSanitizer: unit and shim tests"
# Deep call sites walk the stack with libunwind, whose per-thread destructor
# locks a mutex after TSan has let go of the exiting thread: TSan's runtime
# crashes there (gcc 12), whatever the shim does. That case runs above.
# Not under TSan either (each runs in the two builds above): the churn and
# 5,000-communicator tests race by design on the handle NCCL writes into
# *newcomm while another thread looks for it, and in the simulator's
# handle reuse; the exit tests time the exit, which TSan slows past the
# bound. Nor the lookup in a constructor while another thread dlopen()s:
# glibc's loader lock orders the new library's entry before
# dl_iterate_phdr reads it, a lock TSan does not see, so it calls the
# read a race.
tests='^(units|shim\.|security\.)' \
skip='^shim\.(threads_deep_callsites|comm_churn_threads.*|comms_past_the_limit|exit_while_threads_call.*|lookup_in_a_constructor)$' \
    run_suite "$prefix-tsan" -DCMAKE_BUILD_TYPE=Debug -DNCCLTAP_SANITIZE=thread
echo "== libFuzzer: the rank-file, per-op file, per-op log, hang-report and bench-result readers, the trace events, the JSON writer, the configuration"
"$top/tests/fuzz/run.sh" "$prefix-fuzz"
