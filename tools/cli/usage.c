/* Every help text of nccltap, and the messages that point to them. Below
 * main.c and the subcommands, which all call it; it calls nothing of
 * theirs. Single-threaded, as the command is. */
#include "usage.h"

#include <stdarg.h>

/* The help texts. Each is what `nccltap CMD --help` and `nccltap help CMD`
 * print, and what the manual pages are made of (help2man, tools/man/): an
 * option is a line "  -x, --name ARG   meaning", and every option a
 * command's getopt table accepts is named (cli.help_* test it). */
void usage(FILE *to)
{
    fputs(
"Usage: nccltap COMMAND [OPTIONS] [ARGS...]\n"
"  or:  nccltap help [COMMAND]\n"
"Observe the NCCL calls of every rank of a program, without changing it: each\n"
"call is counted, timed on the GPU, reduced into bandwidth statistics per\n"
"communicator, operation, datatype and size, and merged across ranks into\n"
"one report.\n"
"\n"
"Commands:\n"
"  run      run a program with the nccltap shim preloaded into it\n"
"  report   merge the per-rank files (or the LTTng trace) of a run into one\n"
"           report: text, JSON, CSV, an HTML page or a Perfetto timeline\n"
"  demo     run nccltap-bench under the shim with a fault injected into the\n"
"           simulator (or on the GPUs), and print its report\n"
"  help     show this help, or a command's; 'nccltap help config' lists\n"
"           every NCCLTAP_* variable with its default and accepted values,\n"
"           'nccltap help sim' the simulator's NCCLSIM_* fault knobs\n"
"\n"
"'nccltap COMMAND --help' or 'nccltap help COMMAND' shows the command's\n"
"options.\n"
"\n"
"Options:\n"
"  -h, --help     show this help\n"
"  -V, --version  show nccltap's version\n"
"\n"
"Examples:\n"
"  $ nccltap run -- torchrun --nproc-per-node 8 train.py\n"
"  $ nccltap run --dir out -- mpirun -np 16 ./app\n"
"  $ nccltap report out\n"
"  $ nccltap demo\n", to);
}

void usage_run(FILE *to)
{
    fputs(
"Usage: nccltap run [OPTIONS] [--] PROGRAM [ARGS...]\n"
"Run PROGRAM with the nccltap shim preloaded into it (first in LD_PRELOAD,\n"
"keeping what was there), forward the signals nccltap receives to it, and\n"
"return its exit status. Every process of PROGRAM that calls NCCL writes its\n"
"statistics to D/nccltap-<run>@<host>-<pid>.json; <run> is the launcher's job\n"
"id, else $NCCLTAP_RUN_ID, which this command sets. At the end nccltap says\n"
"where the output went and how to read it ('nccltap report D').\n"
"Options end at PROGRAM: its own options are left alone, even without '--'.\n"
"\n"
"The options --timing ... --step-function set nccltap's common variables, their\n"
"values checked here with the shim's own rules (--step-function's, which the\n"
"Python marker reads, with nccltap's); 'nccltap help config' lists every\n"
"variable. NCCLTAP_* variables of the environment that nccltap does\n"
"not read (misspellings) are said once, with the nearest name it reads.\n"
"\n"
"The exit status is PROGRAM's, or 128+N when a signal N killed it; else 2 for\n"
"a wrong command line, 125 when nccltap itself failed (output directory,\n"
"LTTng session), 126 when PROGRAM cannot be run, 127 when PROGRAM or a part\n"
"of nccltap is missing.\n"
"\n"
"Options:\n"
"  -d, --dir D       output directory; default $NCCLTAP_DIR, else\n"
"                    ./nccltap-<$SLURM_JOB_ID, or the date and time>; made\n"
"                    with its parents, mode $NCCLTAP_DIR_MODE (default 0700)\n"
"      --sim         use the simulated NCCL and CUDA driver (no GPU needed):\n"
"                    put them first on LD_LIBRARY_PATH\n"
"      --legacy-sim  use the simulated pre-2.23 NCCL (2.18) on the simulated\n"
"                    CUDA driver\n"
"      --lttng       also record an LTTng trace of every operation in D/lttng:\n"
"                    a session daemon of this run's own is started (and\n"
"                    stopped at the end); if the session cannot be set up,\n"
"                    PROGRAM is not run and the exit status is 125\n"
"      --blocking    with --lttng: make the application wait for the trace\n"
"                    buffers rather than lose events\n"
"      --kernel      with --lttng: also record scheduler, interrupt and network\n"
"                    events, where the kernel tracer (lttng-modules) is\n"
"                    available\n"
"      --system      with --lttng: use the machine's running session daemon,\n"
"                    not one of this run's own\n"
"      --url URL     with --lttng: stream the trace to lttng-relayd\n"
"                    (net://HOST) rather than write D/lttng\n"
"      --timing MODE       set NCCLTAP_TIMING: auto (default), all, pairs or off\n"
"      --hang-timeout S    set NCCLTAP_HANG_TIMEOUT_S: seconds an operation may\n"
"                          stay pending before the hang watchdog reports it\n"
"                          (default 300; 0 .. 604800; 0: off)\n"
"      --interval-ms MS    set NCCLTAP_INTERVAL_MS: how often the per-rank files\n"
"                          are rewritten (default 5000; 10 .. 3600000)\n"
"      --ops-jsonl FORMAT  set NCCLTAP_OPS_JSONL: also log every timed operation\n"
"                          as a JSON line: 1 nccltap's, inspector NCCL\n"
"                          Inspector's, 0 none (default)\n"
"      --prom-dir DIR      set NCCLTAP_PROM_DIR: write Prometheus textfiles there\n"
"      --step-function F   set NCCLTAP_STEP_FUNCTION: each call of the Python\n"
"                          function F (NAME, Class.NAME or FILE.py:NAME) starts\n"
"                          a training step (nccltap's sitecustomize goes first\n"
"                          on PYTHONPATH)\n"
"  -h, --help        show this help\n"
"\n"
"Examples:\n"
"  $ nccltap run -- torchrun --nproc-per-node 8 train.py\n"
"  $ nccltap run --dir out -- mpirun -np 16 ./app\n"
"  $ nccltap run --sim --dir out -- nccltap-bench --ranks 4\n"
"  $ nccltap run --lttng --kernel --dir out -- ./app\n"
"  $ nccltap run --timing all --hang-timeout 60 -- torchrun ... train.py\n", to);
}

void usage_report(FILE *to)
{
    fputs(
"Usage: nccltap report [--format FMT] [-o FILE] [OPTIONS] PATH\n"
"  or:  nccltap report --format html -o FILE [OPTIONS] PATH\n"
"  or:  nccltap report --format perfetto -o FILE [--from S] [--to S] [--ranks LIST] PATH\n"
"Merge the per-rank files of one run into one report, read top to bottom:\n"
"first the findings (a straggler, a hang, a slow link, a busbw below the one\n"
"expected, the OS's interference: the culprit and the evidence), then\n"
"per communicator, operation, datatype and size the calls, times and\n"
"bandwidth (busbw as nccl-tests computes it), where the time goes,\n"
"stragglers, slow transfers and hangs across ranks, call sites, and the OS's\n"
"interference: from the context switches each rank recorded of its own\n"
"threads (NCCLTAP_OS), or from a trace with kernel events.\n"
"\n"
"PATH is a directory of per-rank files ('nccltap run' output: the newest run\n"
"in it, or --run ID), or an LTTng trace of the run (D/lttng, or any directory\n"
"with a CTF trace below it and no per-rank file), from which the same report\n"
"is built. Options may come before or after PATH.\n"
"\n"
"Options:\n"
"      --format FMT     text (the default), json, csv, html or perfetto: what\n"
"                       --json, --csv, --html and --perfetto below write\n"
"  -o, --output FILE    write it to FILE, whole or not at all, rather than to\n"
"                       standard output (html and perfetto need it)\n"
"      --json           one JSON document rather than the text report\n"
"      --findings       print only the findings, one line each (with --json: as\n"
"                       JSON); exit 1 when there is one, 0 when the run is\n"
"                       healthy, 2 on a usage error: for scripts and CI\n"
"      --html FILE      write the report to FILE as one HTML page that needs no\n"
"                       network (styles, script and SVG charts inline): the\n"
"                       findings, each linked to its picture; where the time\n"
"                       goes; each rank's time in NCCL split into waiting and\n"
"                       transferring; busbw against size; the send/recv\n"
"                       matrix; the hang; a timeline strip around the worst\n"
"                       finding; sortable, filterable tables\n"
"      --compare A B    what changed in communication from run A to run B\n"
"                       (directories or traces, the newest run of each): ops\n"
"                       matched by op, dtype and size, the largest change in\n"
"                       NCCL time per rank first, and their steps (text, or\n"
"                       --json)\n"
"      --csv            the merged rows as CSV, one line per communicator,\n"
"                       operation, datatype and size (not with --json)\n"
"      --wide           every column of the tables (by default they fit in 120\n"
"                       columns), and call sites' C++ names whole\n"
"      --top N          rows in \"Where the time goes\" (default 10, at most\n"
"                       100000)\n"
"      --comm ID        only this communicator: its id or its name\n"
"      --op NAME        only this operation, e.g. AllReduce\n"
"      --expect-busbw [OP:]GBS[@MINBYTES],...\n"
"                       the busbw a transfer should reach, where the run has\n"
"                       nothing to compare it with (one communicator, one\n"
"                       op): below half of it is named a slow transfer;\n"
"                       default: $NCCLTAP_EXPECT_BUSBW_GBS\n"
"      --run ID         the run to read when PATH holds several (default: the\n"
"                       newest)\n"
"      --debug-dir DIR  look for the binaries' separate debug information in DIR\n"
"                       (by build id: DIR/.build-id/xx/...) as well as in\n"
"                       /usr/lib/debug, to name call sites; may be repeated\n"
"      --perfetto OUT   write the run's timeline to OUT as Chrome trace-event\n"
"                       JSON (ui.perfetto.dev, chrome://tracing) rather than a\n"
"                       report: a process per rank, a track per CUDA stream,\n"
"                       the calls, the ranks' threads off the CPU (NCCLTAP_OS, or\n"
"                       kernel events), and from a trace with kernel events the\n"
"                       CPUs and interrupts\n"
"      --from S         with --perfetto: from S seconds after the run's first op\n"
"      --to S           with --perfetto: up to S seconds after the run's first op\n"
"      --ranks LIST     with --perfetto: only these ranks, e.g. 0,2,5-7\n"
"  -h, --help           show this help\n"
"\n"
"Examples:\n"
"  $ nccltap report out\n"
"  $ nccltap report --json out > report.json\n"
"  $ nccltap report --findings out || echo 'something is wrong'\n"
"  $ nccltap report --format html -o report.html out\n"
"  $ nccltap report --compare before/ after/\n"
"  $ nccltap report out --op AllReduce --top 5 --wide\n"
"  $ nccltap report --run 1234 --debug-dir /opt/app/debug out\n"
"  $ nccltap report --perfetto t.json --from 2 --to 3 --ranks 0-3 out\n",
          to);
}

void usage_demo(FILE *to)
{
    fputs(
"Usage: nccltap demo [OPTIONS]\n"
"Show what nccltap finds, on any machine: run nccltap-bench under the shim for\n"
"a few seconds (every operation, 8 B to 64 MiB, 20 timed calls each) with 4\n"
"ranks on the simulated NCCL and CUDA driver, with a fault injected, then\n"
"print the report of that run. The bench's own table goes to a file in the\n"
"output directory; the last line is the command that shows the report again.\n"
"On GPUs (one rank per GPU, at most 4) no fault can be injected: the demo says\n"
"so and runs the healthy scenario.\n"
"\n"
"Options:\n"
"  -s, --scenario S  what is injected: healthy (nothing), straggler (rank 2\n"
"                    computes 1 ms longer before every 4th collective; the\n"
"                    default),\n"
"                    slow-link (rank 1's link 4 times slower) or hang (rank 3\n"
"                    never reaches collective seq 50: the run is stopped once\n"
"                    the hang watchdog has written, after 1 s)\n"
"  -d, --dir D       output directory, as for 'nccltap run'\n"
"  -h, --help        show this help\n"
"\n"
"Examples:\n"
"  $ nccltap demo\n"
"  $ nccltap demo --scenario hang --dir /tmp/demo\n", to);
}

/* The command being run ("nccltap run"), whose help the hints point to. */
static const char *hint_for = "nccltap";

void usage_set_command(const char *command)
{
    hint_for = command;
}

int usage_hint(void)
{
    fprintf(stderr, "Try '%s --help'.\n", hint_for);
    return EXIT_USAGE;
}

int usage_error(const char *argv0, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", argv0);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return usage_hint();
}
