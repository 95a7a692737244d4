#!/bin/sh
# Tests of the help, the version, the manual pages and the install of the
# completion, against the programs' getopt tables.
# usage: help_test.sh CASE NCCLTAP BENCH WORKDIR SRCDIR [BUILDDIR MAN_PAGES]
#   NCCLTAP, BENCH  the programs under test
#   WORKDIR         a scratch directory for this case (emptied first)
#   SRCDIR          the source tree, whose getopt tables are read
#   BUILDDIR        the build tree: to install (case install), whose
#                   simulator libraries are read (case sim)
#   MAN_PAGES       ON when the build made help2man's manual pages
# Needs EXPECT_VERSION (the project's version) in the environment, and
# CMAKE (cmake) for the install.
set -u
case_name=$1 nccltap=$2 bench=$3 work=$4 src=$5 build=${6-} man_pages=${7-OFF}

rm -rf "$work" && mkdir -p "$work" && work=$(cd "$work" && pwd -P) || exit 1
err=$work/stderr
fail() { echo "FAIL: $*" >&2; [ -s "$err" ] && sed 's/^/  stderr: /' "$err" >&2; exit 1; }

# The options a source file's getopt_long accepts, one a line: "--name" for
# each entry of its struct option tables, "-x" for each letter of its
# optstrings.
table_options() {
    sed -n 's/.*{ *"\([A-Za-z0-9-]*\)", *\(no\|required\|optional\)_argument.*/--\1/p' "$1"
    sed -n 's/.*getopt_long([^"]*"\([^"]*\)".*/\1/p' "$1" | tr -d '+:-' | sed 's/./-&\n/g' | grep .
}

# Fails unless the text in file $2 names each option of source file $1
# ($3 says what the text is).
names_all() {
    opts=$(table_options "$1")
    [ -n "$opts" ] || fail "no getopt table found in $1"
    for o in $opts; do
        grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$2" || fail "$3 does not name $o (accepted by $1)"
    done
}

case $case_name in
options)
    # Each command's help, by --help and by `nccltap help CMD`: on stdout,
    # status 0, its own synopsis, and every option its getopt table takes
    # (an option added without help fails here).
    for c in run:run/run.c report:report/report_cmd.c demo:demo.c; do
        cmd=${c%%:*} file=$src/tools/cli/${c#*:}
        for how in "$cmd --help" "help $cmd" "$cmd -h"; do
            $nccltap $how >"$work/help" 2>"$err"
            rc=$?
            [ $rc -eq 0 ] || fail "nccltap $how: exit status $rc"
            head -1 "$work/help" | grep -q "^Usage: nccltap $cmd " ||
                fail "nccltap $how: not $cmd's help: $(head -1 "$work/help")"
            names_all "$file" "$work/help" "nccltap $how"
        done
    done
    # nccltap's own: every command, --help and --version.
    "$nccltap" --help >"$work/help" 2>"$err" || fail "nccltap --help"
    for c in run report demo help; do
        grep -q "^  $c  " "$work/help" || fail "nccltap --help lists no '$c'"
    done
    for o in -h --help -V --version; do
        grep -qE -- "(^| )$o([, ]|\$)" "$work/help" || fail "nccltap --help does not name $o"
    done
    # The bench's.
    "$bench" --help >"$work/help" 2>"$err" || fail "nccltap-bench --help"
    names_all "$src/tools/bench/options.c" "$work/help" "nccltap-bench --help"
    ;;
config)
    # `nccltap help config` lists every variable (preload/base/
    # config_vars.def) with its default and accepted values;
    # docs/configuration.md's table lists the same names; every NCCLTAP_* name the
    # shim or the command reads is among them.
    "$nccltap" help config >"$work/config" 2>"$err" || fail "nccltap help config: exit status $?"
    head -1 "$work/config" | grep -q "^Usage: nccltap help config" ||
        fail "nccltap help config: $(head -1 "$work/config")"
    sed -n 's/^  \(NCCLTAP_[A-Z0-9_]*\)$/\1/p' "$work/config" | sort >"$work/listed"
    n=$(wc -l <"$work/listed")
    [ "$n" -ge 20 ] || fail "nccltap help config lists $n variables"
    [ "$(grep -c '^      default: .*; accepted: ' "$work/config")" -eq "$n" ] ||
        fail "nccltap help config: a variable without its default and accepted values"
    sed -n 's/^| `\(NCCLTAP_[A-Z0-9_]*\)` |.*/\1/p' "$src/docs/configuration.md" | sort >"$work/readme"
    diff "$work/listed" "$work/readme" >"$work/diff" ||
        fail "docs/configuration.md's table (>) and config_vars.def (<) differ: $(tr '\n' ' ' <"$work/diff")"
    grep -rhoE '"NCCLTAP_[A-Z0-9_]+"' "$src/preload" "$src/tools/cli" --include=*.c | tr -d '"' | sort -u \
        >"$work/read"
    # Not the names the shim leaves to nccltap's other programs (the
    # bench's prefix, the GPU suite's and the fuzzers' variables).
    unlisted=$(comm -23 "$work/read" "$work/listed" | grep -vE '_$|^NCCLTAP_(GPU_RANKS|RUN_FLAGS)$')
    [ -z "$unlisted" ] || fail "read but not in config_vars.def: $unlisted"
    "$nccltap" help nosuch >/dev/null 2>"$err"
    rc=$?
    [ $rc -eq 2 ] && grep -q "config" "$err" || fail "nccltap help nosuch: status $rc, or config not named"
    ;;
sim)
    # `nccltap help sim` lists every NCCLSIM_* knob (tests/sim/
    # sim_knobs.def) with its default, one line each; every NCCLSIM_ name
    # in the simulator's libraries (what it reads and names in its
    # messages) and in its sources is listed, and so is every one the demo
    # sets; the simulator's README lists the same knobs.
    "$nccltap" help sim >"$work/sim" 2>"$err" || fail "nccltap help sim: exit status $?"
    head -1 "$work/sim" | grep -q "^Usage: nccltap help sim" || fail "nccltap help sim: $(head -1 "$work/sim")"
    sed -n 's/^  \(NCCLSIM_[A-Z0-9_]*\)=[^ ]*  *[^ ].*/\1/p' "$work/sim" | sort >"$work/listed"
    n=$(wc -l <"$work/listed")
    [ "$n" -ge 10 ] || fail "nccltap help sim lists $n knobs, each as '  NAME=DEFAULT  meaning'"
    [ -z "$(uniq -d "$work/listed")" ] || fail "nccltap help sim lists a knob twice: $(uniq -d "$work/listed")"
    libs=$(ls "$build"/lib/nccltap/sim/*.so* "$build"/lib/nccltap/sim-legacy/*.so* 2>/dev/null)
    [ -n "$libs" ] || fail "no simulator library in $build/lib/nccltap"
    # shellcheck disable=SC2086
    { grep -aohE 'NCCLSIM_[A-Z0-9_]+' $libs
      grep -ohE '"NCCLSIM_[A-Z0-9_]+' "$src"/tests/sim/*.c "$src"/tests/sim/*.h | tr -d '"'
      grep -ohE 'NCCLSIM_[A-Z0-9_]+' "$src/tools/cli/demo.c" "$src/tools/demo.sh"
    } | sort -u >"$work/read"
    unlisted=$(comm -23 "$work/read" "$work/listed")
    [ -z "$unlisted" ] || fail "named by the simulator or the demo but not in sim_knobs.def: $unlisted"
    sed -n 's/^| `\(NCCLSIM_[A-Z0-9_]*\)` |.*/\1/p' "$src/tests/sim/README.md" | sort >"$work/readme"
    diff "$work/listed" "$work/readme" >"$work/diff" ||
        fail "tests/sim/README.md's knob table (>) and sim_knobs.def (<) differ: $(tr '\n' ' ' <"$work/diff")"
    ;;
man)
    # The hand-written manual pages (tools/man/*.in, as the build made
    # them): no warning from troff (groff -ww; mandoc -Tlint where it is
    # installed; man -l at 80 columns), a NAME line, and every option of
    # `nccltap run --help` and `nccltap report --help` in its page;
    # nccltap-files(5) names every field of the per-op file's header and
    # record, every key the shim's JSON writers write, and every metric.
    linted=
    for page in "$build/share/man/man1/nccltap-run.1" "$build/share/man/man1/nccltap-report.1" \
                "$build/share/man/man5/nccltap-files.5"; do
        name=$(basename "$page")
        [ -s "$page" ] || fail "no $name in the build tree"
        grep -q "^\.TH $(echo "${name%.*}" | tr a-z A-Z) ${name##*.} " "$page" || fail "$name: no .TH"
        grep -q '^\.SH NAME' "$page" && grep -q "^${name%.*} \\\\- " "$page" || fail "$name: no NAME line"
        grep -q '^\.SH "SEE ALSO"' "$page" || fail "$name: no SEE ALSO"
        if command -v groff >/dev/null 2>&1; then
            groff -ww -man -t -z "$page" >"$work/lint" 2>&1 || fail "groff $name: exit status $?"
            [ -s "$work/lint" ] && fail "groff -ww $name: $(cat "$work/lint")"
            linted="$linted groff"
        fi
        if command -v mandoc >/dev/null 2>&1; then
            mandoc -Tlint -Wwarning "$page" >"$work/lint" 2>&1 || fail "mandoc -Tlint $name: $(cat "$work/lint")"
            linted="$linted mandoc"
        fi
        if command -v man >/dev/null 2>&1; then
            LC_ALL=C MANWIDTH=80 man --warnings -l "$page" >"$work/man.txt" 2>"$work/lint" ||
                fail "man -l $name: exit status $?"
            [ -s "$work/lint" ] && fail "man -l $name at 80 columns: $(cat "$work/lint")"
            grep -q "^ *${name%.*} - " "$work/man.txt" || fail "man -l $name: no NAME line"
        fi
    done
    if [ -z "$linted" ]; then
        # CI installs groff (tools/deps.sh): there, no linter is a failure.
        [ "${CI-}" = true ] && fail "neither groff nor mandoc to check the manual pages with"
        echo "skipped: neither groff nor mandoc"
        exit 77
    fi
    # The pages' text, troff's escapes undone (\- is -, fonts dropped).
    plain() { sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\(dq/"/g; s/\\&//g' "$1"; }
    for c in run report; do
        plain "$build/share/man/man1/nccltap-$c.1" >"$work/page"
        "$nccltap" "$c" --help >"$work/help" 2>"$err" || fail "nccltap $c --help: exit status $?"
        opts=$(sed -n 's/^  *\(-[A-Za-z]\)\{0,1\}\(, \)\{0,1\}\(--[a-z][a-z-]*\).*/\1 \3/p' "$work/help")
        [ -n "$opts" ] || fail "no option found in nccltap $c --help"
        for o in $opts; do
            grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$work/page" ||
                fail "nccltap-$c.1 does not name $o (in nccltap $c --help)"
        done
    done
    plain "$build/share/man/man5/nccltap-files.5" >"$work/page"
    w=$src/preload/writers
    # The per-op file's fields: the members of its two structs.
    sed -n '/^struct tap_ops_\(header\|record\) {/,/^};/p' "$w/ops_file_format.h" |
        sed -n 's/^ *\(u\{0,1\}int[0-9]*_t\|char\) \([a-z_, ]*\)[[;].*/\2/p' | tr ',' '\n' | tr -d ' ' |
        grep . >"$work/names"
    [ "$(wc -l <"$work/names")" -ge 20 ] || fail "ops_file_format.h: its fields not found"
    # The JSON keys of the rank file, the hang file and the per-op log.
    grep -ohE '\\"[a-z_0-9]+\\"' "$w/rank_file.c" "$w/hang_file.c" "$w/ops_log.c" "$w/os_out.c" \
        "$w/callsite_out.c" "$w/load_map.c" | tr -d '\\"' >>"$work/names"
    # The Prometheus metrics, and the formats' names.
    grep -ohE '"nccl(tap)?_[a-z0-9_]+' "$w"/prom_*.c | tr -d '"' | grep -v '_$' >>"$work/names"
    echo nccltap-rank/1 nccltap-hang/1 NCCLTAP-OPS | tr ' ' '\n' >>"$work/names"
    for n in $(sort -u "$work/names"); do
        grep -qE -- "(^|[^A-Za-z0-9_])$n([^A-Za-z0-9_]|\$)" "$work/page" ||
            fail "nccltap-files.5 does not name $n (written by preload/writers/)"
    done
    ;;
version)
    v=${EXPECT_VERSION:?}
    [ "$("$nccltap" --version 2>"$err")" = "nccltap $v" ] || fail "nccltap --version: $("$nccltap" --version)"
    [ "$("$nccltap" -V 2>"$err")" = "nccltap $v" ] || fail "nccltap -V"
    "$bench" --version >"$work/version" 2>"$err" || fail "nccltap-bench --version: exit status $?"
    head -1 "$work/version" | grep -qE "^nccltap-bench (.* )?$v([ ,;]|\$)" ||
        fail "nccltap-bench --version: $(head -1 "$work/version")"
    ;;
install)
    # What `cmake --install` puts in a prefix: the programs, the completion
    # and, when help2man made them, the manual pages, each naming the
    # options of its program.
    p=$work/prefix
    "${CMAKE:-cmake}" --install "$build" --prefix "$p" >"$work/install.log" 2>"$err" ||
        fail "cmake --install: $(tail -3 "$work/install.log")"
    # The hand-written manual pages and the documentation, whatever was
    # found at build time.
    for f in bin/nccltap bin/nccltap-bench share/bash-completion/completions/nccltap \
             share/bash-completion/completions/nccltap-bench share/man/man1/nccltap-run.1 \
             share/man/man1/nccltap-report.1 share/man/man5/nccltap-files.5 \
             share/doc/nccltap/README.md share/doc/nccltap/SECURITY.md share/doc/nccltap/docs/findings.md \
             share/nccltap/prometheus/nccltap-rules.yml; do
        [ -s "$p/$f" ] || fail "not installed: $f"
    done
    if [ "$man_pages" != ON ]; then
        # CI installs help2man (tools/deps.sh): there, no pages is a failure.
        [ "${CI-}" = true ] && fail "no manual pages: help2man was not found at build time"
        echo "no help2man manual pages (no help2man at build time)"
        [ -e "$p/share/man/man1/nccltap.1" ] && fail "a manual page, but none was made"
        echo ok
        exit 0
    fi
    m=$p/share/man/man1
    for page in nccltap nccltap-run nccltap-report nccltap-demo nccltap-config nccltap-bench; do
        [ -s "$m/$page.1" ] || fail "not installed: share/man/man1/$page.1"
        grep -q "^\.TH $(echo "$page" | tr a-z A-Z) " "$m/$page.1" || fail "$page.1: no .TH"
        grep -q "$EXPECT_VERSION" "$m/$page.1" || fail "$page.1 does not say version $EXPECT_VERSION"
        grep -q '^\.SH SYNOPSIS' "$m/$page.1" || fail "$page.1: no SYNOPSIS"
        grep -q '^\.SH "SEE ALSO"' "$m/$page.1" || fail "$page.1: no SEE ALSO"
    done
    # The pages' text, options unescaped (help2man writes \-\-dir).
    for c in run:run/run.c report:report/report_cmd.c demo:demo.c; do
        page=$m/nccltap-${c%%:*}.1
        sed 's/\\-/-/g; s/\\f[BIRP]//g; s/\\fI\\,//g; s/\\\/\\fR//g' "$page" >"$work/page"
        names_all "$src/tools/cli/${c#*:}" "$work/page" "$(basename "$page")"
    done
    # The variables' page names every variable.
    sed 's/\\-/-/g; s/\\f[BIRP]//g' "$m/nccltap-config.1" >"$work/page"
    for v in $("$nccltap" help config | sed -n 's/^  \(NCCLTAP_[A-Z0-9_]*\)$/\1/p'); do
        grep -q "$v" "$work/page" || fail "nccltap-config.1 does not name $v"
    done
    sed 's/\\-/-/g; s/\\f[BIRP]//g' "$m/nccltap-bench.1" >"$work/page"
    names_all "$src/tools/bench/options.c" "$work/page" "nccltap-bench.1"
    if command -v man >/dev/null 2>&1; then
        LC_ALL=C MANWIDTH=80 man -l "$m/nccltap-report.1" >"$work/man.txt" 2>"$err" ||
            fail "man -l nccltap-report.1"
        grep -q "^ *nccltap-report  *-  *merge " "$work/man.txt" || fail "man nccltap-report: no NAME line"
    fi
    ;;
*)
    fail "unknown case $case_name"
    ;;
esac
echo ok
