/* A training step's communication, as a data-parallel job issues it: each
 * rank (a forked process) computes, then all-reduces 1 MiB of gradients
 * and all-gathers 256 KiB right after, then waits for its stream (the
 * step's end), STEPS times. One rank may compute longer before the
 * all-reduce (a straggler as real ones are: late at the first collective
 * after its own work, on time at the one right after it, which the
 * others reach only once it has caught up), from step 0 or from step
 * STEP on (`late RANK US from STEP`: a rank that became slower).
 *
 * A mismatch (`mismatch RANK STEP [HOW]`): at step STEP, rank RANK calls
 * AllGather of the same count where the others call AllReduce (HOW
 * `allgather`, the default), or AllReduce with ncclMax (`max`), or of half
 * the count (`half`), then all go on, as a rank-dependent branch would. Settings that differ (`env RANK
 * NAME=VALUE`, up to 4 times): rank RANK sets NAME in its environment
 * before it creates its communicator, as a launcher that gives one node
 * another setting would. Gradient accumulation (`accumulate K`): each step is K
 * micro-batches, each its own work, all-reduce and all-gather, the same
 * calls K times (its steps cannot be told from its calls). A rank that
 * stops issuing (`stop RANK STEP AFTER`, with `buckets`): at step STEP,
 * rank RANK issues AFTER buckets and then waits forever, as a rank stuck
 * in its own code between two collectives does (a hang). Marked steps
 * (`mark`): each rank calls nccltap_step() as each step begins, when
 * nccltap is there (looked up, as programs do: include/nccltap.h).
 * The compute between two buckets (`gap US`, with `buckets`): 100 us
 * unless said; 0 issues a step's buckets back to back, a burst.
 * A backward slower on one rank (`slow_backward RANK US`, with `buckets`):
 * RANK computes US more before each bucket, so that it falls further
 * behind at each (US at the first, K x US at the last).
 * Tagged calls (`tags`): the step's all-reduce and all-gather through
 * NCCL 2.31's ncclAllReduceConfig and ncclAllGatherConfig, whose
 * configurations carry userProfilerTag 1 and 2 (a phase label); the
 * `setup` broadcasts through ncclBroadcastConfig with a configuration of
 * an older NCCL, whose size ends before userProfilerTag (the 99 beyond
 * it is not the program's: no tag).
 *
 * Usage: step_app NRANKS STEPS [late RANK US [from STEP]] [buckets K] [stall RANK EVERY US [from STEP to STEP]]
 *                 [mismatch RANK STEP [allgather|max|half]] [env RANK NAME=VALUE]
 *                 [accumulate K] [mark] [setup K] [work US] [stop RANK STEP AFTER] [tags]
 *                 [slow_backward RANK US] [gap US]
 * Prints, per rank, {"rank": R, "steps": N, "step_s": mean seconds}. */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/nccl_abi.h"
#include "coll_config.h"
#include "cuda_exports.h"

#define AR_COUNT (256 * 1024) /* 1 MiB of f32 */
#define AG_COUNT (16 * 1024)  /* 64 KiB sent by each rank: 256 KiB gathered by 4 */

#define CHECK(call, ok)                                                                 \
    do {                                                                                \
        long r_ = (long)(call);                                                         \
        if (r_ != (ok)) {                                                               \
            fprintf(stderr, "%s:%d: %s returned %ld\n", __FILE__, __LINE__, #call, r_); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, us % 1000000 * 1000};
    nanosleep(&ts, NULL);
}

/* One step of DDP's backward: K buckets of gradients, 1 MiB halving,
 * each all-reduced once its layers' compute (`gap_us`, and `extra_us`
 * more on a rank whose backward is slower) is done. */
static void bucket_step(ncclComm_t comm, CUstream s, CUdeviceptr grad, int buckets, int stop_after, long gap_us,
                        long extra_us)
{
    size_t count = AR_COUNT;
    for (int b = 0; b < buckets; b++) {
        if (b == stop_after)
            for (;;)
                pause(); /* stuck in its own code: the job hangs */
        if (b && gap_us)
            sleep_us(gap_us);
        if (extra_us)
            sleep_us(extra_us);
        CHECK(ncclAllReduce((void *)grad, (void *)grad, count, ncclFloat32, ncclSum, comm, s), ncclSuccess);
        count = count > 1024 ? count / 2 : count;
    }
}

/* A host stall: `rank` sleeps `us` before every `every`th step of
 * [from, to) (a descheduled rank, late for real for a few steps). */
struct stall {
    int rank;
    long every, us;
    long from, to;
};

/* A rank that calls AllGather where the others all-reduce, at one step. */
struct mismatch {
    int rank;
    long step;
    const char *how;  /* "allgather", "max", "half" */
};

/* A rank that stops issuing after `after` buckets of one step. */
struct stop {
    int rank;
    long step;
    int after;
};

/* A setting one rank has that the others do not. */
struct env_one {
    int rank;
    char *assignment; /* NAME=VALUE, from argv: putenv keeps it */
};

/* What each rank does, from the command line. */
struct step_opts {
    int late_rank;
    long late_us;
    long late_from;  /* the first step the late rank is late at */
    int buckets;
    struct stall stall;
    struct mismatch mismatch;
    struct stop stop;
    struct env_one env[4];  /* `env` given up to 4 times */
    int nenv;
    int accumulate;  /* micro-batches a step */
    int mark;        /* call nccltap_step() at each step */
    int setup;       /* broadcasts in the first step */
    long work_us;    /* every rank's own work before each all-reduce */
    int tags;        /* the per-call configuration variants, tagged */
    int slow_rank;   /* with `buckets`: this rank's backward is slower... */
    long slow_us;    /* ... by this much before each bucket */
    long gap_us;     /* with `buckets`: the compute between two buckets */
};

#define TAG_ALLREDUCE 1
#define TAG_ALLGATHER 2

/* The step's all-reduce and all-gather, plain or tagged. */
static void step_calls(const struct step_opts *o, ncclComm_t comm, CUstream s, CUdeviceptr grad, CUdeviceptr gathered)
{
    if (!o->tags) {
        CHECK(ncclAllReduce((void *)grad, (void *)grad, AR_COUNT, ncclFloat32, ncclSum, comm, s), ncclSuccess);
        CHECK(ncclAllGather((void *)grad, (void *)gathered, AG_COUNT, ncclFloat32, comm, s), ncclSuccess);
        return;
    }
    ncclCollConfig_t ar = app_coll_config(TAG_ALLREDUCE, sizeof ar), ag = app_coll_config(TAG_ALLGATHER, sizeof ag);
    CHECK(ncclAllReduceConfig((void *)grad, (void *)grad, AR_COUNT, ncclFloat32, ncclSum, comm, s, &ar), ncclSuccess);
    CHECK(ncclAllGatherConfig((void *)grad, (void *)gathered, AG_COUNT, ncclFloat32, comm, s, &ag), ncclSuccess);
}

static void setup_broadcast(const struct step_opts *o, ncclComm_t comm, CUstream s, CUdeviceptr grad)
{
    if (!o->tags) {
        CHECK(ncclBroadcast((void *)grad, (void *)grad, 1, ncclFloat32, 0, comm, s), ncclSuccess);
        return;
    }
    ncclCollConfig_t old = app_coll_config(99, offsetof(ncclCollConfig_t, userProfilerTag));
    CHECK(ncclBroadcastConfig((void *)grad, (void *)grad, 1, ncclFloat32, 0, comm, s, &old), ncclSuccess);
}

/* One micro-batch: its work, then its all-reduce and all-gather (or the
 * mismatched call, at step i). */
static void micro_batch(int rank, long i, const struct step_opts *o, ncclComm_t comm, CUstream s, CUdeviceptr grad,
                        CUdeviceptr gathered)
{
    const struct mismatch mismatch = o->mismatch;
    sleep_us(o->work_us); /* every rank's own work */
    if (rank == o->late_rank && i >= o->late_from)
        sleep_us(o->late_us);
    if (o->buckets) {
        bool stops = rank == o->stop.rank && i == o->stop.step;
        bucket_step(comm, s, grad, o->buckets, stops ? o->stop.after : -1, o->gap_us,
                    rank == o->slow_rank ? o->slow_us : 0);
    } else if (rank == mismatch.rank && i == mismatch.step) {
        if (!strcmp(mismatch.how, "allgather"))
            CHECK(ncclAllGather((void *)grad, (void *)gathered, AR_COUNT, ncclFloat32, comm, s), ncclSuccess);
        else
            CHECK(ncclAllReduce((void *)grad, (void *)grad, strcmp(mismatch.how, "half") ? AR_COUNT : AR_COUNT / 2,
                                ncclFloat32, strcmp(mismatch.how, "max") ? ncclSum : ncclMax, comm, s),
                  ncclSuccess);
        CHECK(ncclAllGather((void *)grad, (void *)gathered, AG_COUNT, ncclFloat32, comm, s), ncclSuccess);
    } else {
        step_calls(o, comm, s, grad, gathered);
    }
}

static int rank_main(int rank, int nranks, ncclUniqueId id, long steps, const struct step_opts *o)
{
    const struct stall stall = o->stall;
    void (*step_mark)(void) = o->mark ? (void (*)(void))dlsym(RTLD_DEFAULT, "nccltap_step") : NULL;
    for (int k = 0; k < o->nenv; k++)
        if (rank == o->env[k].rank)
            CHECK(putenv(o->env[k].assignment), 0);
    CUcontext ctx;
    CUstream s;
    CUdeviceptr grad, gathered;
    CHECK(cuInit(0), CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, rank), CUDA_SUCCESS);
    CHECK(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CHECK(cuMemAlloc_v2(&grad, AR_COUNT * 4), CUDA_SUCCESS);
    /* Room for the mismatched AllGather of AR_COUNT from every rank. */
    CHECK(cuMemAlloc_v2(&gathered, (size_t)AR_COUNT * 4 * (size_t)nranks), CUDA_SUCCESS);
    ncclComm_t comm;
    CHECK(ncclCommInitRank(&comm, nranks, id, rank), ncclSuccess);
    double t0 = now_s();
    for (long i = 0; i < steps; i++) {
        if (step_mark)
            step_mark();
        for (int k = 0; i == 0 && k < o->setup; k++)
            setup_broadcast(o, comm, s, grad);
        if (rank == stall.rank && i % stall.every == 0 && i >= stall.from && i < stall.to)
            sleep_us(stall.us);
        for (int k = 0; k < o->accumulate; k++)
            micro_batch(rank, i, o, comm, s, grad, gathered);
        CHECK(cuStreamSynchronize(s), CUDA_SUCCESS);
    }
    double t1 = now_s();
    printf("{\"rank\": %d, \"steps\": %ld, \"step_s\": %.6f}\n", rank, steps, steps ? (t1 - t0) / steps : 0);
    fflush(stdout);
    CHECK(ncclCommDestroy(comm), ncclSuccess);
    CHECK(cuStreamDestroy_v2(s), CUDA_SUCCESS);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = argc < 3;
    struct step_opts o = { .late_rank = -1, .slow_rank = -1, .stall = { -1, 1, 0, 0, LONG_MAX }, .mismatch = { -1, -1, "allgather" },
                           .stop = { -1, -1, -1 }, .accumulate = 1, .work_us = 200, .gap_us = 100 };
    for (int i = 3; i < argc && !bad; i++) {
        if (!strcmp(argv[i], "late") && i + 2 < argc) {
            o.late_rank = atoi(argv[i + 1]);
            o.late_us = atol(argv[i + 2]);
            if (i + 4 < argc && !strcmp(argv[i + 3], "from")) {
                o.late_from = atol(argv[i + 4]);
                i += 2;
            }
            i += 2;
        } else if (!strcmp(argv[i], "stall") && i + 3 < argc) {
            o.stall = (struct stall){ atoi(argv[i + 1]), atol(argv[i + 2]), atol(argv[i + 3]), 0, LONG_MAX };
            bad = o.stall.every < 1 || o.stall.us < 0 || o.stall.us > 10000000;
            if (i + 7 < argc && !strcmp(argv[i + 4], "from") && !strcmp(argv[i + 6], "to")) {
                o.stall.from = atol(argv[i + 5]);
                o.stall.to = atol(argv[i + 7]);
                i += 4;
            }
            i += 3;
        } else if (!strcmp(argv[i], "mismatch") && i + 2 < argc) {
            o.mismatch = (struct mismatch){ atoi(argv[i + 1]), atol(argv[i + 2]), "allgather" };
            bad = o.mismatch.rank < 0 || o.mismatch.step < 0;
            i += 2;
            if (i + 1 < argc && (!strcmp(argv[i + 1], "allgather") || !strcmp(argv[i + 1], "max") ||
                                 !strcmp(argv[i + 1], "half")))
                o.mismatch.how = argv[++i];
        } else if (!strcmp(argv[i], "env") && i + 2 < argc) {
            bad = o.nenv == 4 || atoi(argv[i + 1]) < 0 || !strchr(argv[i + 2], '=');
            if (!bad)
                o.env[o.nenv++] = (struct env_one){ atoi(argv[i + 1]), argv[i + 2] };
            i += 2;
        } else if (!strcmp(argv[i], "buckets") && i + 1 < argc) {
            o.buckets = atoi(argv[++i]);
            bad = o.buckets < 1 || o.buckets > 64;
        } else if (!strcmp(argv[i], "accumulate") && i + 1 < argc) {
            o.accumulate = atoi(argv[++i]);
            bad = o.accumulate < 1 || o.accumulate > 64;
        } else if (!strcmp(argv[i], "mark")) {
            o.mark = 1;
        } else if (!strcmp(argv[i], "work") && i + 1 < argc) {
            o.work_us = atol(argv[++i]);
        } else if (!strcmp(argv[i], "stop") && i + 3 < argc) {
            o.stop = (struct stop){ atoi(argv[i + 1]), atol(argv[i + 2]), atoi(argv[i + 3]) };
            bad = o.stop.rank < 0 || o.stop.step < 0 || o.stop.after < 0;
            i += 3;
        } else if (!strcmp(argv[i], "slow_backward") && i + 2 < argc) {
            o.slow_rank = atoi(argv[i + 1]);
            o.slow_us = atol(argv[i + 2]);
            bad = o.slow_rank < 0 || o.slow_us < 0 || o.slow_us > 1000000;
            i += 2;
        } else if (!strcmp(argv[i], "gap") && i + 1 < argc) {
            o.gap_us = atol(argv[++i]);
            bad = o.gap_us < 0 || o.gap_us > 1000000;
        } else if (!strcmp(argv[i], "tags")) {
            o.tags = 1;
        } else if (!strcmp(argv[i], "setup") && i + 1 < argc) {
            o.setup = atoi(argv[++i]);
        } else {
            bad = 1;
        }
    }
    if (bad || atoi(argv[1]) < 1 || atol(argv[2]) < 0 || o.late_us < 0 || o.late_us > 10000000) {
        fprintf(stderr, "usage: step_app NRANKS STEPS [late RANK US [from STEP]] [buckets K] [stall RANK EVERY US [from STEP to STEP]] "
                "[mismatch RANK STEP [allgather|max|half]] [env RANK NAME=VALUE] [accumulate K] [mark] [setup K] [work US] [stop RANK STEP AFTER] [tags] [slow_backward RANK US] [gap US]\n");
        return 2;
    }
    int nranks = atoi(argv[1]);
    long steps = atol(argv[2]);
    ncclUniqueId id;
    CHECK(ncclGetUniqueId(&id), ncclSuccess);
    for (int r = 0; r < nranks; r++) {
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0)
            exit(rank_main(r, nranks, id, steps, &o)); /* exit: nccltap writes its files */
    }
    int failed = 0;
    for (int r = 0; r < nranks; r++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed = 1;
    }
    return failed;
}
