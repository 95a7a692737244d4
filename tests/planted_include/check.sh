#!/bin/sh
# layout.planted_upward_include: a file compiled with the base floor's
# include directories can include base's and abi's headers (downward.c
# builds) and cannot include entry's (upward.c fails, on that #include).
# Usage: check.sh BUILD_DIR
set -u
build=$1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! cmake --build "$build" --target layout_planted_downward >"$log" 2>&1; then
    cat "$log"
    echo "FAIL: a base-floor file including base/ and abi/ headers did not build"
    exit 1
fi
if cmake --build "$build" --target layout_planted_upward >"$log" 2>&1; then
    echo "FAIL: a base-floor file including entry/intercept.h built: upward includes are not refused"
    exit 1
fi
if ! grep -q 'entry/intercept.h: No such file' "$log"; then
    cat "$log"
    echo "FAIL: the upward build failed, but not on its #include \"entry/intercept.h\""
    exit 1
fi
echo "ok: base sees base/ and abi/; #include \"entry/intercept.h\" from base does not compile"
