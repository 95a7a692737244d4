#!/bin/sh
# Tests of `nccltap run` and of the command line.
# usage: run_test.sh CASE NCCLTAP WORKDIR EMPTY_SO
#   NCCLTAP   the nccltap under test (the shim is found next to it)
#   WORKDIR   a scratch directory for this case (emptied first)
#   EMPTY_SO  a shared object that does nothing
set -u
case_name=$1 nccltap=$2 work=$3 empty_so=$4

rm -rf "$work" && mkdir -p "$work" && work=$(cd "$work" && pwd -P) || exit 1
bindir=$(cd "$(dirname "$nccltap")" && pwd -P)
shim=$(cd "$bindir/../lib" 2>/dev/null && pwd -P)/libnccltap.so
out=$work/out
err=$work/stderr

fail() { echo "FAIL: $*" >&2; [ -s "$err" ] && sed 's/^/  stderr: /' "$err" >&2; exit 1; }
expect_rc() { [ "$1" -eq "$2" ] || fail "$3: exit status $1, expected $2"; }
expect_err() { grep -qF -- "$1" "$err" || fail "stderr lacks '$1'"; }

# A copy of nccltap in a prefix of its own, to test how it finds its parts.
fake_prefix() {
    mkdir -p "$work/prefix/bin" "$work/prefix/lib" && cp "$nccltap" "$work/prefix/bin/nccltap"
}

case $case_name in
exit_status)
    "$nccltap" run --dir "$out" -- /bin/sh -c 'exit 3' 2>"$err"
    expect_rc $? 3 "exit 3"
    expect_err "nccltap: no per-rank file of this run in $out"
    "$nccltap" run --dir "$out" -- true 2>"$err"
    expect_rc $? 0 "true"
    ;;
signal_status)
    # Killed by a signal: 128 + the signal's number, as a shell reports it.
    "$nccltap" run --dir "$out" -- sh -c 'kill -TERM $$' 2>"$err"
    expect_rc $? 143 "killed by SIGTERM"
    expect_err "signal 15"
    ;;
exit_status_high)
    # An exit status above 128 is not a signal: exit 200 is just that. A
    # shell's 128+N (its command killed by signal N) is said as what it
    # may be, not as nccltap's own observation.
    "$nccltap" run --dir "$out" -- sh -c 'exit 200' 2>"$err"
    expect_rc $? 200 "exit 200"
    grep -q "signal" "$err" && fail "exit 200 reported as a signal"
    expect_err "nccltap: no per-rank file of this run in $out: the command made no NCCL call"
    "$nccltap" run --dir "$out" -- sh -c 'exit 137' 2>"$err"
    expect_rc $? 137 "exit 137"
    expect_err "exited with status 137, as a shell does when its command was killed by signal 9"
    grep -q "sh was killed by signal" "$err" && fail "exit 137 reported as nccltap seeing a signal"
    ;;
outdir_unwritable)
    # No rank file because nccltap could not write: say that, not "no NCCL
    # call". Not writable: a 0500 directory (root ignores modes: then as
    # nobody, in a directory of nobody's).
    mkdir -p "$work/ro" && chmod 500 "$work/ro"
    as_user=""
    if [ "$(id -u)" -eq 0 ]; then
        command -v setpriv >/dev/null || { echo "SKIP: needs setpriv as root"; exit 77; }
        nobody=$(id -u nobody 2>/dev/null || echo 65534)
        chmod 755 "$work" && chown "$nobody:$nobody" "$work/ro"
        touch "$err" && chown "$nobody" "$err"
        as_user="setpriv --reuid=$nobody --regid=$nobody --clear-groups"
    fi
    $as_user "$nccltap" run --dir "$work/ro" -- true 2>"$err"
    expect_rc $? 0 "true in a read-only directory"
    expect_err "no per-rank file of this run in $work/ro: nccltap cannot write there (Permission denied)"
    grep -q "no NCCL call" "$err" && fail "unwritable directory said as 'no NCCL call'"
    # A read-only and a full filesystem, where mounts can be made (root).
    if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
        mkdir -p "$work/rofs" "$work/full"
        unshare -m sh -c '
            mount -t tmpfs -o ro,size=1m tmpfs "$2/rofs" &&
            "$1" run --dir "$2/rofs" -- true 2>"$2/stderr.rofs"
            mount -t tmpfs -o size=256k tmpfs "$2/full" &&
            { dd if=/dev/zero of="$2/full/fill" bs=4k 2>/dev/null; true; } &&
            "$1" run --dir "$2/full" -- true 2>"$2/stderr.full"' sh "$nccltap" "$work"
        err=$work/stderr.rofs
        expect_err "no per-rank file of this run in $work/rofs: nccltap cannot write there (its filesystem is read-only)"
        err=$work/stderr.full
        expect_err "no per-rank file of this run in $work/full: its filesystem is full"
    fi
    ;;
forward_signal)
    # SIGTERM sent to nccltap reaches the command; SIGUSR1 too.
    for sig in TERM USR1; do
        rm -f "$work/started"
        "$nccltap" run --dir "$out" -- sh -c 'touch "$0/started"; exec sleep 30' "$work" 2>"$err" &
        pid=$!
        i=0
        while [ ! -e "$work/started" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
        [ -e "$work/started" ] || fail "the command did not start"
        sleep 0.2
        kill -$sig $pid
        wait $pid
        rc=$?
        [ $sig = TERM ] && expect_rc $rc 143 "SIGTERM forwarded"
        [ $sig = USR1 ] && expect_rc $rc 138 "SIGUSR1 (10 on Linux) forwarded"
    done
    ;;
ld_preload)
    # The shim first, with its absolute path; what was preloaded stays, after it.
    LD_PRELOAD=$empty_so "$nccltap" run --dir "$out" -- \
        sh -c 'printf "%s\n%s\n" "$LD_PRELOAD" "$NCCLTAP_DIR"' >"$work/env" 2>"$err"
    expect_rc $? 0 "printing the environment"
    printf '%s\n%s\n' "$shim:$empty_so" "$out" | cmp -s - "$work/env" ||
        fail "LD_PRELOAD/NCCLTAP_DIR: got '$(cat "$work/env")'"
    env -u LD_PRELOAD "$nccltap" run --dir "$out" -- sh -c 'printf "%s\n" "$LD_PRELOAD"' \
        >"$work/env" 2>"$err"
    [ "$(cat "$work/env")" = "$shim" ] || fail "LD_PRELOAD alone: got '$(cat "$work/env")'"
    ;;
output_dir)
    cd "$work" || exit 1
    # --dir: made absolute, created with its parents.
    "$nccltap" run --dir rel/sub -- sh -c 'echo "$NCCLTAP_DIR"' >"$work/env" 2>"$err"
    [ "$(cat "$work/env")" = "$work/rel/sub" ] && [ -d "$work/rel/sub" ] ||
        fail "--dir rel/sub: got '$(cat "$work/env")'"
    # NCCLTAP_DIR from the environment is kept (made absolute).
    NCCLTAP_DIR=envdir "$nccltap" run -- sh -c 'echo "$NCCLTAP_DIR"' >"$work/env" 2>"$err"
    [ "$(cat "$work/env")" = "$work/envdir" ] && [ -d "$work/envdir" ] ||
        fail "NCCLTAP_DIR=envdir: got '$(cat "$work/env")'"
    # Else ./nccltap-<SLURM_JOB_ID>, else ./nccltap-<date-time>.
    env -u NCCLTAP_DIR SLURM_JOB_ID=77 "$nccltap" run -- sh -c 'echo "$NCCLTAP_DIR"' \
        >"$work/env" 2>"$err"
    [ "$(cat "$work/env")" = "$work/nccltap-77" ] && [ -d "$work/nccltap-77" ] ||
        fail "SLURM_JOB_ID=77: got '$(cat "$work/env")'"
    env -u NCCLTAP_DIR -u SLURM_JOB_ID "$nccltap" run -- sh -c 'echo "$NCCLTAP_DIR"' \
        >"$work/env" 2>"$err"
    case $(cat "$work/env") in
    "$work"/nccltap-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9][0-9][0-9]) ;;
    *) fail "default directory: got '$(cat "$work/env")'" ;;
    esac
    ;;
output_dir_unsafe)
    # The shim's rules for --dir: a symlink, or a directory others can write
    # in (not sticky), is refused before the command runs; made ones get
    # NCCLTAP_DIR_MODE (0700 by default), exactly.
    mkdir -p "$work/real" && ln -s "$work/real" "$work/link"
    "$nccltap" run --dir "$work/link" -- true 2>"$err"
    expect_rc $? 125 "--dir a symlink"
    expect_err "cannot use the output directory $work/link: a symlink or not a directory"
    mkdir -m 777 "$work/open" && chmod 777 "$work/open"
    "$nccltap" run --dir "$work/open" -- true 2>"$err"
    expect_rc $? 125 "--dir writable by others"
    expect_err "cannot use the output directory $work/open: writable by others and not sticky"
    mkdir -m 1777 "$work/sticky" && chmod 1777 "$work/sticky"
    "$nccltap" run --dir "$work/sticky" -- true 2>"$err"
    expect_rc $? 0 "--dir sticky, as /tmp"
    (umask 077 && "$nccltap" run --dir "$work/made/sub" -- true 2>"$err")
    [ "$(stat -c %a "$work/made/sub")" = 700 ] || fail "made with mode $(stat -c %a "$work/made/sub")"
    (umask 077 && NCCLTAP_DIR_MODE=0750 "$nccltap" run --dir "$work/made750" -- true 2>"$err")
    [ "$(stat -c %a "$work/made750")" = 750 ] || fail "NCCLTAP_DIR_MODE=0750: mode $(stat -c %a "$work/made750")"
    ;;
dir_mode_refused)
    # NCCLTAP_DIR_MODE=0777 would make directories nccltap then refuses to
    # write in (others can write, not sticky): refused up front, said, and
    # 0700 used for what is made, parents included.
    (umask 022 && NCCLTAP_DIR_MODE=0777 "$nccltap" run --dir "$work/m777/sub" -- true 2>"$err")
    expect_rc $? 0 "NCCLTAP_DIR_MODE=0777"
    expect_err "NCCLTAP_DIR_MODE=0777 is not valid: others could write in the directories nccltap makes"
    expect_err "expected an octal mode from 0700 to 0775 without write permission for others"
    expect_err "using 0700"
    [ "$(stat -c %a "$work/m777")" = 700 ] && [ "$(stat -c %a "$work/m777/sub")" = 700 ] ||
        fail "NCCLTAP_DIR_MODE=0777: made $(stat -c %a "$work/m777") and $(stat -c %a "$work/m777/sub")"
    (umask 022 && NCCLTAP_DIR_MODE=0772 "$nccltap" run --dir "$work/m772" -- true 2>"$err")
    expect_rc $? 0 "NCCLTAP_DIR_MODE=0772"
    [ "$(stat -c %a "$work/m772")" = 700 ] || fail "NCCLTAP_DIR_MODE=0772: made $(stat -c %a "$work/m772")"
    (umask 077 && NCCLTAP_DIR_MODE=0775 "$nccltap" run --dir "$work/m775" -- true 2>"$err")
    [ "$(stat -c %a "$work/m775")" = 775 ] || fail "NCCLTAP_DIR_MODE=0775: made $(stat -c %a "$work/m775")"
    ;;
default_dir_job_id)
    # The job id becomes one safe name in the working directory, whatever
    # it holds: no '/', no "..", no control character, not overlong.
    mkdir -p "$work/cwd" && cd "$work/cwd" || exit 1
    show='printf "%s\n" "$NCCLTAP_DIR"'
    env -u NCCLTAP_DIR SLURM_JOB_ID='a/../../escaped' "$nccltap" run -- sh -c "$show" >"$work/env" 2>"$err"
    expect_rc $? 0 "SLURM_JOB_ID=a/../../escaped"
    [ "$(cat "$work/env")" = "$work/cwd/nccltap-a_.._.._escaped" ] || fail "a/../../escaped: got '$(cat "$work/env")'"
    [ -e "$work/escaped" ] && fail "the output escaped the working directory"
    env -u NCCLTAP_DIR SLURM_JOB_ID="$(printf 'x\033[2Jy')" "$nccltap" run -- sh -c "$show" >"$work/env" 2>"$err"
    [ "$(cat "$work/env")" = "$work/cwd/nccltap-x__2Jy" ] || fail "control characters: got '$(cat "$work/env")'"
    long=$(printf '%0300d' 7)
    env -u NCCLTAP_DIR SLURM_JOB_ID="$long" "$nccltap" run -- sh -c "$show" >"$work/env" 2>"$err"
    expect_rc $? 0 "a 300-character job id"
    name=$(basename "$(cat "$work/env")")
    [ -d "$work/cwd/$name" ] && [ ${#name} -le 200 ] || fail "a 300-character job id: got '$name'"
    ;;
messages)
    # With a per-rank file of this run (named by the run id the command
    # sets): how to get the report (quoted for a shell).
    env -u SLURM_JOB_ID -u NCCLTAP_RUN_ID "$nccltap" run --dir "$work/a dir" -- \
        sh -c 'echo "{}" > "$NCCLTAP_DIR/nccltap-$NCCLTAP_RUN_ID@h-1.json"' 2>"$err"
    expect_rc $? 0 "writing a file"
    expect_err "nccltap: output in $work/a dir (run "
    # With this nccltap's full path: it works as printed, on PATH or not.
    expect_err "nccltap: report with: $bindir/nccltap report '$work/a dir'"
    # Another run into the same directory: the report command names it.
    env -u SLURM_JOB_ID -u NCCLTAP_RUN_ID "$nccltap" run --dir "$work/a dir" -- \
        sh -c 'echo "{}" > "$NCCLTAP_DIR/nccltap-$NCCLTAP_RUN_ID@h-2.json"; echo "$NCCLTAP_RUN_ID" > "$0"' \
        "$work/run_id" 2>"$err"
    expect_err "nccltap: report with: $bindir/nccltap report --run $(cat "$work/run_id") '$work/a dir'"
    # Without: say that nothing was recorded, and never "output in".
    "$nccltap" run --dir "$out" -- true 2>"$err"
    expect_err "no per-rank file of this run in $out: the command made no NCCL call"
    grep -q "output in" "$err" && fail "says 'output in' with no output"
    # Killed before the first interval: say that, not "no NCCL call".
    "$nccltap" run --dir "$out" -- sh -c 'kill -KILL $$' 2>"$err"
    expect_err "the command was killed before nccltap wrote its first interval"
    ;;
report_runs)
    # Two runs in one directory, and what a killed run leaves: the report
    # reads the newest run, names the other, ignores temporary files.
    testdata=$(cd "$(dirname "$0")/testdata/run4" && pwd)
    mkdir -p "$out"
    for f in nodeA-1001 nodeA-1002 nodeB-2001 nodeB-2002; do
        cp "$testdata/nccltap-$f.json" "$out/nccltap-old@$f.json"
        touch -d '2 hours ago' "$out/nccltap-old@$f.json"
    done
    for f in nodeA-1001 nodeB-2001; do cp "$testdata/nccltap-$f.json" "$out/nccltap-new@$f.json"; done
    # Files named before run ids: one more run, named once.
    for f in nodeA-1001 nodeB-2001; do cp "$testdata/nccltap-$f.json" "$out/nccltap-$f.json"; done
    touch -d '3 hours ago' "$out/nccltap-nodeA-1001.json" "$out/nccltap-nodeB-2001.json"
    echo '{"format": "nccltap-rank/1", "host": "half' >"$out/.nccltap-new@nodeA-1003.json.77.0123456789abcdef.tmp"
    echo '{"half' >"$out/nccltap-nodeA-1003.json.tmp"
    files() { sed -n 's/^ *"files": \([0-9]*\),*$/\1/p' "$work/report"; }
    "$nccltap" report --json "$out" >"$work/report" 2>"$err"
    expect_rc $? 0 "report of the newest run"
    [ "$(files)" = 2 ] || fail "newest run: $(files) files read, expected 2"
    expect_err "holds 2 other runs ((none), old); reading the newest run new (--run ID for another)"
    grep -q "skipping\|\.tmp" "$err" && fail "a temporary file was read"
    "$nccltap" report --json --run old "$out" >"$work/report" 2>"$err"
    expect_rc $? 0 "report --run old"
    [ "$(files)" = 4 ] || fail "--run old: $(files) files read, expected 4"
    "$nccltap" report --run nosuch "$out" >"$work/report" 2>"$err"
    expect_rc $? 1 "report --run nosuch"
    expect_err "no per-rank file of run nosuch in $out; runs there: "
    ;;
not_found)
    "$nccltap" run --dir "$out" -- /nonexistent/command arg 2>"$err"
    expect_rc $? 127 "missing command"
    expect_err "/nonexistent/command"
    "$nccltap" run --dir "$out" -- "$work" 2>"$err"
    expect_rc $? 126 "a directory as the command"
    ;;
missing_shim)
    fake_prefix
    "$work/prefix/bin/nccltap" run --dir "$out" -- true 2>"$err"
    expect_rc $? 127 "no shim"
    expect_err "shim is missing: $work/prefix/lib/libnccltap.so"
    "$work/prefix/bin/nccltap" demo --dir "$out" 2>"$err"
    expect_rc $? 127 "demo without the bench"
    expect_err "bench is missing: $work/prefix/bin/nccltap-bench"
    ;;
demo)
    # The bench on the GPUs or the simulator, then the report of its run.
    "$nccltap" demo --dir "$out" >"$work/stdout" 2>"$err"
    expect_rc $? 0 "demo"
    expect_err "nccltap: output in $out"
    grep -q "^nccltap report: $out\$" "$work/stdout" || fail "no report on stdout"
    grep -q "^Communicator " "$work/stdout" || fail "no communicator in the report"
    if grep -q "no GPU found" "$err"; then
        [ "$(grep -c "^  AllReduce  *float32" "$work/stdout")" -gt 0 ] || fail "no AllReduce row"
        grep -q "^      3  " "$work/stdout" || fail "the simulator runs 4 ranks"
        expect_err "nccltap demo: scenario straggler: rank 2 "
    fi
    ! grep -q "^# nccltap-bench" "$work/stdout" || fail "the bench's table is on stdout"
    last=$(tail -n 1 "$work/stdout")
    case $last in
    "  $(dirname "$nccltap")/nccltap report --run "*" $out") ;;
    *) fail "the last line is no command with nccltap's full path: $last" ;;
    esac
    # The hang ends by itself, once every rank's watchdog has written.
    "$nccltap" demo --scenario hang --dir "$out" >"$work/stdout" 2>"$err"
    expect_rc $? 0 "demo --scenario hang"
    if grep -q "no GPU found" "$err"; then
        expect_err "the hang watchdog has written; stopping the hung run"
        grep -q "MISSING rank 3: " "$work/stdout" || fail "the hang's report names no rank 3 missing"
    fi
    "$nccltap" demo --scenario slowlink 2>"$err"
    expect_rc $? 2 "demo --scenario slowlink"
    expect_err "unknown scenario 'slowlink' (--scenario): one of healthy, straggler, slow-link, hang"
    ;;
sim)
    # The simulator's directories go first on LD_LIBRARY_PATH, only when asked.
    fake_prefix
    p=$work/prefix
    cp "$empty_so" "$p/lib/libnccltap.so"
    "$p/bin/nccltap" run --dir "$out" --sim -- true 2>"$err"
    expect_rc $? 127 "--sim without the simulator"
    expect_err "simulated NCCL is missing"
    mkdir -p "$p/lib/nccltap/sim" "$p/lib/nccltap/sim-legacy"
    touch "$p/lib/nccltap/sim/libnccl.so.2" "$p/lib/nccltap/sim/libcuda.so.1" \
          "$p/lib/nccltap/sim-legacy/libnccl.so.2"
    show='printf "%s\n" "${LD_LIBRARY_PATH-unset}"'
    LD_LIBRARY_PATH=/old "$p/bin/nccltap" run --dir "$out" --sim -- sh -c "$show" \
        >"$work/env" 2>"$err"
    [ "$(cat "$work/env")" = "$p/lib/nccltap/sim:/old" ] || fail "--sim: got '$(cat "$work/env")'"
    LD_LIBRARY_PATH=/old "$p/bin/nccltap" run --dir "$out" --legacy-sim -- sh -c "$show" \
        >"$work/env" 2>"$err"
    [ "$(cat "$work/env")" = "$p/lib/nccltap/sim-legacy:$p/lib/nccltap/sim:/old" ] ||
        fail "--legacy-sim: got '$(cat "$work/env")'"
    env -u LD_LIBRARY_PATH "$p/bin/nccltap" run --dir "$out" -- sh -c "$show" \
        >"$work/env" 2>"$err"
    [ "$(cat "$work/env")" = unset ] || fail "no --sim: got '$(cat "$work/env")'"
    ;;
usage)
    "$nccltap" >/dev/null 2>"$err"; expect_rc $? 2 "no command"
    expect_err "Usage: nccltap"
    "$nccltap" frobnicate 2>"$err"; expect_rc $? 2 "unknown command"
    expect_err "unknown command 'frobnicate'"
    "$nccltap" --help >"$work/help" 2>"$err"; expect_rc $? 0 "--help"
    for c in run report demo help; do
        grep -q "^  $c  " "$work/help" || fail "--help lists no '$c'"
    done
    # Each command's own help, from --help and from `nccltap help CMD`
    # (cli.help_* check that they name every option).
    for c in run demo; do
        "$nccltap" $c --help >"$work/help" 2>"$err"; expect_rc $? 0 "$c --help"
        grep -q "^Usage: nccltap $c " "$work/help" || fail "$c --help: $(head -1 "$work/help")"
        "$nccltap" help $c | cmp -s - "$work/help" || fail "help $c differs from $c --help"
    done
    "$nccltap" help report >"$work/help" 2>"$err"; expect_rc $? 0 "help report"
    grep -q "^Usage: nccltap report " "$work/help" || fail "help report: $(head -1 "$work/help")"
    "$nccltap" help frobnicate 2>"$err"; expect_rc $? 2 "help of an unknown command"
    expect_err "nccltap help: unknown command 'frobnicate'"
    [ "$("$nccltap" --version)" = "nccltap ${EXPECT_VERSION:?}" ] || fail "--version"
    "$nccltap" run 2>"$err"; expect_rc $? 2 "run without a command"
    expect_err "nccltap run: no command to run"
    "$nccltap" run --bogus -- true 2>"$err"; expect_rc $? 2 "run --bogus"
    expect_err "nccltap run: unrecognized option"
    expect_err "Try 'nccltap run --help'."
    "$nccltap" demo extra 2>"$err"; expect_rc $? 2 "demo with an argument"
    ;;
*)
    fail "unknown case $case_name"
    ;;
esac
echo ok
