#!/bin/sh
# Makes sure the Debian/Ubuntu packages nccltap builds and tests with are
# installed: installs the missing ones when run as root, otherwise prints
# the command that would. Sourced by tools/demo.sh and tests/run.sh.
# One package per line, so that each change names its own.
nccltap_deps="
cmake
make
gcc
clang
libc6-dev
pkg-config
python3
libjansson-dev
libyajl-dev
liblttng-ust-dev
lttng-tools
babeltrace2
openmpi-bin
libbabeltrace2-dev
libunwind-dev
libdw-dev
libelf-dev
g++
python3-bt2
prometheus
prometheus-node-exporter
valgrind
help2man
"

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
