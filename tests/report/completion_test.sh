#!/bin/bash
# Tests of the bash completion of nccltap and nccltap-bench: each script is
# sourced into a bash without bash-completion, COMP_WORDS is set as bash
# would set it, and COMPREPLY is compared with what should be offered.
# usage: completion_test.sh SRCDIR WORKDIR
set -u
src=$1 work=$2
rm -rf "$work" && mkdir -p "$work/dir a" "$work/dirb" && touch "$work/file1" || exit 1
cd "$work" || exit 1
# shellcheck source=/dev/null
source "$src/tools/completion/nccltap" || { echo "FAIL: sourcing nccltap's completion"; exit 1; }
# shellcheck source=/dev/null
source "$src/tools/completion/nccltap-bench" || { echo "FAIL: sourcing nccltap-bench's"; exit 1; }
failures=0

# complete WORD...: COMPREPLY for the command line WORD... (the last word
# is the one completed), through the function `complete` registered.
complete_line() {
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    local fn
    fn=$(complete -p "$1" 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
    [ -n "$fn" ] || { echo "FAIL: no completion registered for $1"; failures=$((failures + 1)); return; }
    "$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
}

# expect "WANTED" WORD...: COMPREPLY holds exactly the words of WANTED,
# separated by spaces or by '|' when any has a space.
expect() {
    local want=$1
    shift
    complete_line "$@"
    local got
    got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ')
    case $want in
    *'|'*) want=$(printf '%s\n' "$want" | tr '|' '\n' | LC_ALL=C sort | tr '\n' ' ') ;;
    *) want=$(printf '%s\n' $want | sed '/^$/d' | LC_ALL=C sort | tr '\n' ' ') ;;
    esac
    if [ "$got" != "$want" ]; then
        echo "FAIL: '$*': got '$got', expected '$want'"
        failures=$((failures + 1))
    fi
}

# offers WORD... -- LINE...: COMPREPLY holds each WORD (maybe more).
offers() {
    local words=()
    while [ "$1" != -- ]; do words+=("$1"); shift; done
    shift
    complete_line "$@"
    local w r found
    for w in "${words[@]}"; do
        found=
        for r in "${COMPREPLY[@]}"; do [ "$r" = "$w" ] && found=1; done
        [ -n "$found" ] || { echo "FAIL: '$*' does not offer '$w' (got: ${COMPREPLY[*]})"; failures=$((failures + 1)); }
    done
}

# The commands and their options.
expect "report" nccltap re
expect "run report" nccltap r
expect "demo" nccltap de
expect "--help --version" nccltap --
expect "--json" nccltap report --js
expect "--debug-dir" nccltap report --deb
expect "--dir" nccltap run --d
expect "--dir --help --scenario" nccltap demo --
expect "hang healthy" nccltap demo --scenario h
expect "run" nccltap help ru
expect "config" nccltap help co
expect "sim" nccltap help si
expect "--ranks" nccltap report out --ra        # options after PATH too
# Every option of each command's getopt table is offered (one added to the
# table and not to the completion fails here).
table_options() {
    sed -n 's/.*{ *"\([A-Za-z0-9-]*\)", *\(no\|required\|optional\)_argument.*/--\1/p' "$1"
}
for c in run:run/run.c report:report/report_cmd.c demo:demo.c; do
    # shellcheck disable=SC2046
    offers $(table_options "$src/tools/cli/${c#*:}") -- nccltap "${c%%:*}" --
done
# shellcheck disable=SC2046
offers $(table_options "$src/tools/bench/options.c") -- nccltap-bench --

# Arguments: directories for PATH, --dir and --debug-dir, files for
# --perfetto, operations for --op.
expect "dir a|dirb" nccltap report di
expect "dir a|dirb" nccltap run --dir di
expect "dir a|dirb" nccltap run --dir = di
expect "dir a|dirb" nccltap report --debug-dir di
expect "file1" nccltap report --perfetto fi
expect "file1" nccltap report -o fi
expect "json" nccltap report --format js
expect "AllReduce AllGather AlltoAll" nccltap report --op All
expect "" nccltap report --top ""
# nccltap run: after its options (or "--"), the program, then its arguments.
offers sh -- nccltap run --sim s
offers sh -- nccltap run -- s
expect "file1" nccltap run --dir out -- ls fi
expect "--blocking" nccltap run --lttng --bl

# nccltap-bench.
expect "--dtype" nccltap-bench --dt
expect "allreduce allgather all alltoall" nccltap-bench --op al
expect "allreduce,broadcast" nccltap-bench --op allreduce,br
expect "bfloat16" nccltap-bench --dtype bf
expect "file1" nccltap-bench --json fi
expect "0 1" nccltap-bench --in-place ""

if [ $failures -ne 0 ]; then
    echo "$failures failed"
    exit 1
fi
echo ok
