#!/bin/sh
# Makes sure the Debian/Ubuntu packages nccltap needs are installed:
# installs the missing ones when run as root, otherwise prints the command
# that would and exits 1. Sourced by tools/demo.sh (the build's packages
# only: nccltap_deps_for=build), tests/run.sh and .ci/run (the build's and
# the tests', the default). The check asks dpkg-query as found on PATH
# (none: no check, as on a distribution without dpkg).
# One package per line, so that each change names its own.

# What CMake needs to configure and build nccltap with BUILD_TESTING=OFF.
nccltap_build_packages="
cmake
make
gcc
libc6-dev
pkg-config
libjansson-dev
libyajl-dev
"

# What the tests need on top: the build's optional parts (LTTng provider
# and trace reader, deep call sites, symbolized call sites, manual pages:
# each built only when its package is there, and tested; groff lints the
# hand-written pages), the tools the
# tests drive, and the sanitizers' and fuzzers' compilers.
nccltap_test_packages="
clang
g++
python3
liblttng-ust-dev
lttng-tools
babeltrace2
libbabeltrace2-dev
python3-bt2
libunwind-dev
libdw-dev
libelf-dev
help2man
groff-base
openmpi-bin
prometheus
prometheus-node-exporter
valgrind
chromium
"

case ${nccltap_deps_for:-all} in
build) nccltap_deps=$nccltap_build_packages ;;
all) nccltap_deps="$nccltap_build_packages $nccltap_test_packages" ;;
*) echo "tools/deps.sh: nccltap_deps_for='$nccltap_deps_for'; accepted: build, all" >&2; exit 2 ;;
esac

nccltap_missing=""
if command -v dpkg-query >/dev/null 2>&1; then
    for p in $nccltap_deps; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
            nccltap_missing="$nccltap_missing $p"
    done
fi
if [ -n "$nccltap_missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing:$nccltap_missing"
        DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $nccltap_missing >/dev/null ||
            { echo "could not install:$nccltap_missing" >&2; exit 1; }
    else
        echo "missing packages; install them with: sudo apt-get install$nccltap_missing" >&2
        exit 1
    fi
fi
