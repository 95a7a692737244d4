/* nccltap: the command. Dispatches to the subcommands; each lives in its
 * own file (run.c, report_cmd.c, demo.c). */
#include "cli.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
} commands[] = {
    { "run", cmd_run },
    { "report", cmd_report },
    { "demo", cmd_demo },
};

void usage(FILE *to)
{
    fputs(
"Usage: nccltap COMMAND [OPTIONS]\n"
"Observe the NCCL calls of every rank of a program, without changing it.\n"
"\n"
"Commands:\n"
"  run [--dir D] [--sim | --legacy-sim] [LTTng options] [--] PROGRAM [ARGS...]\n"
"      Run PROGRAM with the nccltap shim preloaded. Each process writes its\n"
"      statistics to D/nccltap-<run>@<host>-<pid>.json; <run> is the launcher's\n"
"      job id, else $NCCLTAP_RUN_ID as this command sets it (see README).\n"
"        --dir D        output directory; default $NCCLTAP_DIR, else\n"
"                       ./nccltap-<$SLURM_JOB_ID, or the date and time>\n"
"        --sim          use the simulated NCCL and CUDA driver (no GPU needed)\n"
"        --legacy-sim   use the simulated pre-2.23 NCCL on the simulated driver\n"
"        --lttng        also record an LTTng trace of every operation in D/lttng:\n"
"                       a session daemon of this run's own is started (and\n"
"                       stopped at the end); if the session cannot be set up,\n"
"                       PROGRAM is not run and the exit status is 125\n"
"      LTTng options, with --lttng:\n"
"        --blocking     make the application wait for the trace buffers rather\n"
"                       than lose events\n"
"        --kernel       also record scheduler, interrupt and network events,\n"
"                       where the kernel tracer (lttng-modules) is available\n"
"        --system       use the machine's running session daemon, not one of\n"
"                       this run's own\n"
"        --url URL      stream the trace to lttng-relayd (net://HOST) rather than\n"
"                       write D/lttng\n"
"  report [--json] [--run ID] [--debug-dir DIR]... DIR|TRACE\n"
"      Merge the per-rank files of one run in DIR (the newest, or --run ID)\n"
"      into one report: a table to read, or one JSON document with --json.\n"
"      Given an LTTng trace of the run (D/lttng, or any directory with a CTF\n"
"      trace below it and no per-rank file), the same report is built from\n"
"      its nccltap events. Call sites are named\n"
"      from the binaries' debug information, looked for by build id in each\n"
"      --debug-dir (DIR/.build-id/xx/...) and in /usr/lib/debug.\n"
"  report --perfetto OUT.json [--from S] [--to S] [--ranks LIST] DIR|TRACE\n"
"      Write the run's timeline as Chrome trace-event JSON (ui.perfetto.dev,\n"
"      chrome://tracing): a process per rank, a track per CUDA stream, the\n"
"      calls, and from a trace with kernel events the CPUs, interrupts and\n"
"      the ranks' threads off the CPU. --from/--to: seconds from the first\n"
"      op; --ranks: e.g. 0,2,5-7.\n"
"  demo [--dir D]\n"
"      Run nccltap-bench with 4 ranks under the shim, on the GPUs when there\n"
"      are any, else on the simulator, and print its report.\n"
"\n"
"Options:\n"
"  -h, --help     show this help\n"
"  --version      show nccltap's version\n", to);
}

int usage_hint(void)
{
    fputs("Try 'nccltap --help'.\n", stderr);
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0 || strcmp(name, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        printf("nccltap %s\n", NCCLTAP_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(name, commands[i].name) != 0)
            continue;
        /* The subcommand's messages (getopt's too) start "nccltap NAME:". */
        argv[1] = xasprintf("nccltap %s", name);
        return commands[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "nccltap: unknown command '%s'\n\n", name);
    usage(stderr);
    return EXIT_USAGE;
}
