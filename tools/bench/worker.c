#include "worker.h"

#include <stdlib.h>
#include "barrier.h"
#include "check.h"
#include "deadline.h"
#include "fail.h"
#include "measure.h"
#include "report.h"
#include "worker_ctx.h"

static void setup(struct worker *w)
{
    struct rank_ctx *rk = w->rk;
    const struct cuda_driver *drv = &rk->drv;
    const struct bench_opts *o = rk->o;

    /* The primary context is what the CUDA runtime would use, so the shim
     * sees the same context it sees in real applications. It is current
     * per thread: set it in each one. */
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(drv, cuDeviceGet, (&dev, rk->device));
    CU_CHECK(drv, cuDevicePrimaryCtxRetain, (&ctx, dev));
    CU_CHECK(drv, cuCtxSetCurrent, (ctx));
    CU_CHECK(drv, cuStreamCreate, (&w->stream, CU_STREAM_NON_BLOCKING));

    /* Every op fits in max-size send and receive buffers (AllGather and
     * Gather receive S, ReduceScatter and AlltoAll send S). */
    CU_CHECK(drv, cuMemAlloc, (&w->send, o->max_size));
    CU_CHECK(drv, cuMemAlloc, (&w->recv, o->max_size));
    if (drv->cuMemsetD8) {
        CU_CHECK(drv, cuMemsetD8, (w->send, 0, o->max_size));
        CU_CHECK(drv, cuMemsetD8, (w->recv, 0, o->max_size));
    }

    if (o->check && !(w->host = malloc(o->max_size)))
        bench_die("--check: cannot allocate %zu bytes of host memory", o->max_size);

    w->nev = (o->iters + o->group - 1) / o->group;
    w->ev_start = calloc((size_t)w->nev, sizeof *w->ev_start);
    w->ev_end = calloc((size_t)w->nev, sizeof *w->ev_end);
    if (!w->ev_start || !w->ev_end)
        bench_die("out of memory");
    for (int i = 0; i < w->nev; i++) {
        CU_CHECK(drv, cuEventCreate, (&w->ev_start[i], CU_EVENT_DEFAULT));
        CU_CHECK(drv, cuEventCreate, (&w->ev_end[i], CU_EVENT_DEFAULT));
    }

    NCCL_CHECK(ncclCommInitRank, (&w->comm, rk->world, rk->ids[w->thread], rk->rank));
    if (rk->world > 1)
        deadline_party_done();
}

static void teardown(struct worker *w)
{
    const struct cuda_driver *drv = &w->rk->drv;
    CU_CHECK(drv, cuStreamSynchronize, (w->stream));
    NCCL_CHECK(ncclCommDestroy, (w->comm));
    for (int i = 0; i < w->nev; i++) {
        CU_CHECK(drv, cuEventDestroy, (w->ev_start[i]));
        CU_CHECK(drv, cuEventDestroy, (w->ev_end[i]));
    }
    free(w->ev_start);
    free(w->ev_end);
    free(w->host);
    CU_CHECK(drv, cuMemFree, (w->send));
    CU_CHECK(drv, cuMemFree, (w->recv));
    CU_CHECK(drv, cuStreamDestroy, (w->stream));
}

void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct rank_ctx *rk = w->rk;
    const struct bench_opts *o = rk->o;
    if (o->threads > 1)
        fail_set_thread(w->thread);
    setup(w);

    for (int i = 0; i < o->nops; i++) {
        enum bench_op op = o->ops[i];
        if (rk->op_skipped[op])
            continue;
        for (int s = 0; s < o->nsizes; s++) {
            struct step_result *res = rank_step(rk, i, s);
            if (res->count == 0) {
                if (w->thread == 0)
                    report_skipped(rk, op, o->sizes[s]);
                continue;
            }
            /* As nccl-tests: out of place, then in place, each checked
             * right after its timed calls. */
            for (int v = 0; v < rank_variants(rk); v++) {
                measure_step(w, op, res->count, v, &res->var[v]);
                if (o->check)
                    __atomic_add_fetch(&res->var[v].wrong_here,
                                       check_step(w, op, res->count, v), __ATOMIC_RELAXED);
            }
            /* Thread 0 reports once every thread has stored its numbers,
             * and the wrong elements of every rank are added up. */
            barrier_threads(rk);
            if (w->thread == 0) {
                for (int v = 0; o->check && v < rank_variants(rk); v++)
                    res->var[v].wrong = rk->rdv->ops->sum(rk->rdv, res->var[v].wrong_here);
                report_step(rk, op, res);
            }
        }
    }

    teardown(w);
    return NULL;
}
