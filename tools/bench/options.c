#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sizes.h"

static void usage(FILE *f)
{
    fprintf(f,
"Usage: nccltap-bench [options]\n"
"Runs NCCL operations and times every call with its own CUDA events.\n"
"\n"
"  --ranks N          fork N ranks on this host (rank r uses device r mod ndev)\n"
"                     without it: one rank of a launcher, from RANK/WORLD_SIZE,\n"
"                     OMPI_COMM_WORLD_RANK/_SIZE or SLURM_PROCID/SLURM_NTASKS\n"
"  --id-file PATH     launcher mode: file through which rank 0 hands out the\n"
"                     ncclUniqueId (must be shared by all ranks; default\n"
"                     $TMPDIR/nccltap-bench-<SLURM job, MASTER_PORT or ppid>),\n"
"                     in a directory only you (or root, sticky) can write in\n"
"  --op LIST          allreduce allgather reducescatter broadcast reduce\n"
"                     alltoall gather scatter sendrecv, comma-separated, or all\n"
"                     (default allreduce)\n"
"  --bytes SPEC       MIN:MAX (times --factor each step) or a list 8,1K,1M;\n"
"                     S is the whole array as in nccl-tests (default 8:128M)\n"
"  --factor F         size step of MIN:MAX (default 2)\n"
"  --iters N          timed calls per op and size (default 20)\n"
"  --warmup N         untimed calls before them (default 5)\n"
"  --dtype T          %s\n"
"                     (default float)\n"
"  --root R           root of broadcast, reduce, gather, scatter (default 0)\n"
"  --group K          K ops per ncclGroupStart/End (default 1: no group)\n"
"  --threads T        T threads per rank, each with its own communicator\n"
"  --in-place 0|1     1: run every op and size in place too (sendbuff ==\n"
"                     recvbuff), as nccl-tests does; 0: out of place only\n"
"                     (default 0)\n"
"  --check            verify every result: rank- and index-dependent data in,\n"
"                     wrong elements counted in #wrong; exit 3 when any is wrong\n"
"                     (one more call per op, size, variant and thread)\n"
"  --mark-steps       under nccltap, call nccltap_step() before each timed call\n"
"                     (or group): each is a training step to the report and to\n"
"                     Prometheus (nccltap_steps_total)\n"
"  --json FILE        per-rank results in FILE with .rank<R> before the extension\n"
"  --per-call         put every call's duration in the JSON\n"
"  --timeout SEC      give up waiting for other ranks after SEC (default 300):\n"
"                     for the id file, at each barrier and in ncclCommInitRank\n"
"  --delay-rank R     rank R sleeps --delay-us before each op (unit of --group):\n"
"  --delay-us T       a straggler the others wait for (default 0)\n"
"  --work-us T        every rank computes T us of its own CPU time before each op\n"
"                     (unit of --group), as a training step's host work does: a\n"
"                     rank whose CPU is shared takes longer and arrives late\n"
"  --version          show nccltap-bench's version\n"
"  -h, --help         this text\n",
            dtype_names());
}

static int bad(const char *fmt, const char *arg)
{
    fprintf(stderr, "nccltap-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see nccltap-bench --help)\n");
    return BENCH_EXIT_USAGE;
}

/* An integer in [lo, hi]; -1 on anything else. */
static int int_arg(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int add_ops(struct bench_opts *o, const char *list)
{
    char *copy = strdup(list);
    if (!copy)
        return bad("%s: out of memory", "--op");
    char *save = NULL;
    int rc = -1;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int first = 0, last;
        if (strcmp(tok, "all") == 0) {
            last = OP_COUNT - 1;
            o->ops_all = true;
        } else if ((first = op_find(tok)) >= 0) {
            last = first;
        } else {
            rc = bad("unknown op '%s'", tok);
            break;
        }
        for (int i = first; i <= last; i++) {
            if (o->nops == (int)(sizeof o->ops / sizeof o->ops[0])) {
                rc = bad("too many ops in '%s'", list);
                goto out;
            }
            o->ops[o->nops++] = (enum bench_op)i;
        }
    }
out:
    free(copy);
    return rc;
}

enum {
    OPT_RANKS = 256, OPT_ID_FILE, OPT_OP, OPT_BYTES, OPT_FACTOR, OPT_ITERS,
    OPT_WARMUP, OPT_DTYPE, OPT_ROOT, OPT_GROUP, OPT_THREADS, OPT_JSON,
    OPT_PER_CALL, OPT_TIMEOUT, OPT_DELAY_RANK, OPT_DELAY_US, OPT_WORK_US, OPT_IN_PLACE, OPT_CHECK, OPT_MARK_STEPS,
    OPT_VERSION
};

static const struct option longopts[] = {
    { "ranks",    required_argument, NULL, OPT_RANKS },
    { "id-file",  required_argument, NULL, OPT_ID_FILE },
    { "op",       required_argument, NULL, OPT_OP },
    { "bytes",    required_argument, NULL, OPT_BYTES },
    { "factor",   required_argument, NULL, OPT_FACTOR },
    { "iters",    required_argument, NULL, OPT_ITERS },
    { "warmup",   required_argument, NULL, OPT_WARMUP },
    { "dtype",    required_argument, NULL, OPT_DTYPE },
    { "root",     required_argument, NULL, OPT_ROOT },
    { "group",    required_argument, NULL, OPT_GROUP },
    { "threads",  required_argument, NULL, OPT_THREADS },
    { "json",     required_argument, NULL, OPT_JSON },
    { "per-call", no_argument,       NULL, OPT_PER_CALL },
    { "timeout",  required_argument, NULL, OPT_TIMEOUT },
    { "delay-rank", required_argument, NULL, OPT_DELAY_RANK },
    { "delay-us", required_argument, NULL, OPT_DELAY_US },
    { "work-us",  required_argument, NULL, OPT_WORK_US },
    { "in-place", required_argument, NULL, OPT_IN_PLACE },
    { "check",    no_argument,       NULL, OPT_CHECK },
    { "mark-steps", no_argument,     NULL, OPT_MARK_STEPS },
    { "version",  no_argument,       NULL, OPT_VERSION },
    { "help",     no_argument,       NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* One option's value; -1 when taken, else the exit status. */
static int take(struct bench_opts *o, int c, const char *arg,
                const char **bytes, int *factor)
{
    switch (c) {
    case OPT_RANKS:
        if (int_arg(arg, 1, BENCH_MAX_FORK_RANKS, &o->fork_ranks))
            return bad("--ranks wants a rank count from 1 to 1024, not '%s'", arg);
        return -1;
    case OPT_ID_FILE:
        if (!*arg)
            return bad("--id-file wants a path%s", "");
        o->id_file = arg;
        return -1;
    case OPT_OP:
        return add_ops(o, arg);
    case OPT_BYTES:
        *bytes = arg;
        return -1;
    case OPT_FACTOR:
        if (int_arg(arg, 2, 1 << 20, factor))
            return bad("--factor wants an integer of at least 2, not '%s'", arg);
        return -1;
    case OPT_ITERS:
        if (int_arg(arg, 1, INT_MAX / 2, &o->iters))
            return bad("--iters wants a positive count, not '%s'", arg);
        return -1;
    case OPT_WARMUP:
        if (int_arg(arg, 0, INT_MAX / 2, &o->warmup))
            return bad("--warmup wants a count of 0 or more, not '%s'", arg);
        return -1;
    case OPT_DTYPE:
        if (!(o->dtype = dtype_find(arg)))
            return bad("unknown --dtype '%s'", arg);
        return -1;
    case OPT_ROOT:
        if (int_arg(arg, 0, INT_MAX, &o->root))
            return bad("--root wants a rank, not '%s'", arg);
        return -1;
    case OPT_GROUP:
        if (int_arg(arg, 1, 1 << 20, &o->group))
            return bad("--group wants a positive count, not '%s'", arg);
        return -1;
    case OPT_THREADS:
        if (int_arg(arg, 1, BENCH_MAX_THREADS, &o->threads))
            return bad("--threads wants a count from 1 to 64, not '%s'", arg);
        return -1;
    case OPT_JSON:
        if (!*arg)
            return bad("--json wants a file name%s", "");
        o->json = arg;
        return -1;
    case OPT_PER_CALL:
        o->per_call = true;
        return -1;
    case OPT_TIMEOUT:
        if (int_arg(arg, 1, 7 * 24 * 3600, &o->timeout_s))
            return bad("--timeout wants seconds, not '%s'", arg);
        return -1;
    case OPT_DELAY_RANK:
        if (int_arg(arg, 0, INT_MAX, &o->delay_rank))
            return bad("--delay-rank wants a rank, not '%s'", arg);
        return -1;
    case OPT_IN_PLACE: {
        int v;
        if (int_arg(arg, 0, 1, &v))
            return bad("--in-place wants 0 or 1, not '%s'", arg);
        o->in_place = v;
        return -1;
    }
    case OPT_MARK_STEPS:
        o->mark_steps = true;
        return -1;
    case OPT_CHECK:
        o->check = true;
        return -1;
    case OPT_DELAY_US:
        if (int_arg(arg, 0, 60 * 1000 * 1000, &o->delay_us))
            return bad("--delay-us wants microseconds from 0 to 60000000, not '%s'", arg);
        return -1;
    case OPT_WORK_US:
        if (int_arg(arg, 0, 60 * 1000 * 1000, &o->work_us))
            return bad("--work-us wants microseconds from 0 to 60000000, not '%s'", arg);
        return -1;
    default:
        return bad("internal error on option %s", "?");
    }
}

int options_parse(int argc, char **argv, struct bench_opts *o)
{
    memset(o, 0, sizeof *o);
    o->iters = 20;
    o->warmup = 5;
    o->dtype = dtype_find("float");
    o->group = 1;
    o->threads = 1;
    o->timeout_s = 300;
    o->delay_rank = -1;
    const char *bytes = "8:128M";
    int factor = 2;

    opterr = 0;     /* our messages, not getopt's */
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        int rc;
        if (c == 'h') {
            usage(stdout);
            return 0;
        } else if (c == OPT_VERSION) {
            printf("nccltap-bench %s\n", NCCLTAP_VERSION);
            return 0;
        } else if (c == ':') {
            rc = bad("option '%s' needs a value", argv[optind - 1]);
        } else if (c == '?' && optopt) {
            char shortopt[3] = { '-', (char)optopt, '\0' };
            rc = bad("unknown option '%s'", shortopt);
        } else if (c == '?') {
            rc = bad("unknown option '%s'", argv[optind - 1]);
        } else {
            rc = take(o, c, optarg, &bytes, &factor);
        }
        if (rc >= 0)
            return rc;
    }
    if (optind < argc)
        return bad("unexpected argument '%s'", argv[optind]);
    if (o->nops == 0)
        o->ops[o->nops++] = OP_ALLREDUCE;

    char why[256];
    o->nsizes = sizes_expand(bytes, (unsigned long)factor, &o->sizes, why, sizeof why);
    if (o->nsizes < 0)
        return bad("--bytes: %s", why);
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > o->max_size)
            o->max_size = o->sizes[i];
    return -1;
}

int options_check_world(const struct bench_opts *o, int world)
{
    if (o->root >= world) {
        fprintf(stderr, "nccltap-bench: --root %d is not a rank of %d (see nccltap-bench --help)\n",
                o->root, world);
        return -1;
    }
    if (o->delay_rank >= world) {
        fprintf(stderr, "nccltap-bench: --delay-rank %d is not a rank of %d (see nccltap-bench --help)\n",
                o->delay_rank, world);
        return -1;
    }
    return 0;
}
