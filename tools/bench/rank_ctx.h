/* The context of one rank, shared by the rank's driver (rank.c) and its
 * helpers (worker, measure, check, barrier, report, json, stats): its CUDA
 * device, its communicators' ids, the threads' barrier and what it
 * measured. Types only, so that the helpers depend on it and not on the
 * driver that calls them. rank.c fills it before the threads start; then
 * each thread writes only its own slots of the results ([thread]) and adds
 * to wrong_here atomically, and thread 0 alone writes the rest. */
#ifndef NCCLTAP_BENCH_RANK_CTX_H
#define NCCLTAP_BENCH_RANK_CTX_H

#include <pthread.h>
#include <stdbool.h>
#include "cuda/cuda_driver.h"
#include "options.h"
#include "rdv.h"

/* The two column groups of nccl-tests: distinct send and receive buffers,
 * and sendbuff == recvbuff (with --in-place 1). */
enum { VAR_OUT_OF_PLACE, VAR_IN_PLACE, VAR_COUNT };

/* One variant of one op at one size, for every thread of the rank. */
struct variant_result {
    double *wall_us;        /* [threads]: host time per call; NULL: not run */
    double *event_sum_us;   /* [threads]: sum of per-call event durations */
    float *per_call_us;     /* [threads * iters] with --per-call, else NULL */
    long long wrong_here;   /* --check: wrong elements on this rank, all threads */
    long long wrong;        /* --check: on every rank (thread 0 adds them up) */
};

/* One op at one size. */
struct step_result {
    size_t count;           /* NCCL's count argument; 0: size skipped */
    size_t bytes;           /* the nccl-tests size S that count stands for */
    struct variant_result var[VAR_COUNT];
};

struct rank_ctx {
    const struct bench_opts *o;
    struct cuda_driver drv;
    struct rdv *rdv;
    int rank;
    int world;
    int device;             /* CUDA ordinal this rank runs on */
    int ndev;               /* devices visible to this rank */
    char device_name[128];
    int nccl_version;
    bool op_skipped[OP_COUNT];  /* `all` and this NCCL lacks the op */
    ncclUniqueId ids[BENCH_MAX_THREADS];
    pthread_barrier_t threads_barrier;
    struct step_result *steps;  /* [op index * nsizes + size index] */
    /* --check: the driver's copies (not in the shim's table), and the rank
     * whose results NCCLTAP_BENCH_CORRUPT flips (-1: none). */
    CUresult (*memcpy_htod)(CUdeviceptr dst, const void *src, size_t n);
    CUresult (*memcpy_dtoh)(void *dst, CUdeviceptr src, size_t n);
    int corrupt_rank;
};

/* Variants run: out of place, and in place with --in-place 1. */
static inline int rank_variants(const struct rank_ctx *rk)
{
    return rk->o->in_place ? VAR_COUNT : 1;
}

static inline struct step_result *rank_step(struct rank_ctx *rk, int op_i, int size_i)
{
    return &rk->steps[op_i * rk->o->nsizes + size_i];
}

#endif
