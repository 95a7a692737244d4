/* Command-line options of nccltap-bench. */
#ifndef NCCLTAP_BENCH_OPTIONS_H
#define NCCLTAP_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include "dtype.h"
#include "ops.h"

#define BENCH_EXIT_USAGE 2
#define BENCH_EXIT_WRONG 3      /* --check found wrong elements */
#define BENCH_MAX_THREADS 64
#define BENCH_MAX_FORK_RANKS 1024

struct bench_opts {
    int fork_ranks;             /* --ranks N; 0: one rank of a launcher */
    const char *id_file;        /* --id-file; NULL: derived from the job */
    enum bench_op ops[OP_COUNT * 4];
    int nops;
    bool ops_all;               /* `all` was asked: skip ops NCCL lacks */
    size_t *sizes;              /* requested S values, in order */
    int nsizes;
    size_t max_size;
    int iters;
    int warmup;
    const struct dtype_desc *dtype;
    int root;
    int group;                  /* ops per ncclGroupStart/End; 1: no group */
    int threads;                /* communicators (threads) per rank */
    const char *json;           /* --json FILE; NULL: none */
    bool per_call;
    bool in_place;              /* --in-place 1: the in-place variant too */
    bool check;                 /* --check: verify every result's data */
    bool mark_steps;            /* --mark-steps: each timed unit (a call, or --group's group) a step */
    int timeout_s;              /* id file and barrier waits */
    int delay_rank;             /* --delay-rank: sleeps delay_us before each op; -1: none */
    int delay_us;
    int work_us;                /* --work-us: every rank computes this much CPU time before each op */
};

/* Parses argv. Returns -1 when the bench should run, otherwise the exit
 * status to end with (0 after --help or --version, BENCH_EXIT_USAGE after
 * a message on stderr). */
int options_parse(int argc, char **argv, struct bench_opts *o);

/* Checks what depends on the world size (--root). Returns 0, or -1 after a
 * message. */
int options_check_world(const struct bench_opts *o, int world);

#endif
