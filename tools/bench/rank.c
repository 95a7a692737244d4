#include "rank.h"

#include <stdlib.h>
#include <string.h>
#include "barrier.h"
#include "check.h"
#include "deadline.h"
#include "fail.h"
#include "bench_json.h"
#include "rank_ctx.h"
#include "report.h"
#include "worker.h"
#include "worker_ctx.h"

/* The driver entries the bench cannot do without (the loader checks only
 * those the shim needs). */
static void check_driver(const struct cuda_driver *d)
{
    if (!d->cuDeviceGetCount || !d->cuDeviceGet || !d->cuDevicePrimaryCtxRetain ||
        !d->cuCtxSetCurrent || !d->cuStreamCreate || !d->cuStreamSynchronize ||
        !d->cuStreamDestroy || !d->cuEventDestroy || !d->cuMemAlloc || !d->cuMemFree)
        bench_die("the CUDA driver lacks entry points nccltap-bench needs");
}

static void pick_device(struct rank_ctx *rk, int local_rank)
{
    const struct cuda_driver *drv = &rk->drv;
    CU_CHECK(drv, cuDeviceGetCount, (&rk->ndev));
    if (rk->ndev <= 0)
        bench_die("no CUDA device");
    rk->device = local_rank % rk->ndev;
    strcpy(rk->device_name, "?");
    CUdevice dev;
    if (drv->cuDeviceGetName && drv->cuDeviceGet(&dev, rk->device) == CUDA_SUCCESS)
        drv->cuDeviceGetName(rk->device_name, (int)sizeof rk->device_name, dev);
}

/* Ops this NCCL lacks: skipped with a note under `all`, fatal when named. */
static void check_ops(struct rank_ctx *rk)
{
    const struct bench_opts *o = rk->o;
    for (int i = 0; i < o->nops; i++) {
        const char *fn;
        if (op_available(o->ops[i], &fn))
            continue;
        if (!o->ops_all) {
            char version[32];
            bench_die("--op %s: this NCCL (%s) has no %s", op_desc(o->ops[i])->cli,
                      tap_nccl_version_str(rk->nccl_version, version, sizeof version), fn);
        }
        rk->op_skipped[o->ops[i]] = true;
    }
}

static void alloc_variant(const struct bench_opts *o, struct variant_result *v)
{
    v->wall_us = calloc((size_t)o->threads, sizeof *v->wall_us);
    v->event_sum_us = calloc((size_t)o->threads, sizeof *v->event_sum_us);
    if (!v->wall_us || !v->event_sum_us)
        bench_die("out of memory");
    if (o->per_call) {
        v->per_call_us = calloc((size_t)o->threads * (size_t)o->iters, sizeof *v->per_call_us);
        if (!v->per_call_us)
            bench_die("out of memory");
    }
}

static void alloc_steps(struct rank_ctx *rk)
{
    const struct bench_opts *o = rk->o;
    size_t n = (size_t)o->nops * (size_t)o->nsizes;
    rk->steps = calloc(n, sizeof *rk->steps);
    if (!rk->steps)
        bench_die("out of memory");
    for (int i = 0; i < o->nops; i++) {
        for (int s = 0; s < o->nsizes; s++) {
            struct step_result *res = rank_step(rk, i, s);
            ncclDataType_t t = o->dtype->nccl;
            res->count = op_count(o->ops[i], o->sizes[s], t, rk->world);
            res->bytes = op_bytes(o->ops[i], res->count, t, rk->world);
            for (int v = 0; v < rank_variants(rk); v++)
                alloc_variant(o, &res->var[v]);
        }
    }
}

static void free_steps(struct rank_ctx *rk)
{
    size_t n = (size_t)rk->o->nops * (size_t)rk->o->nsizes;
    for (size_t i = 0; i < n; i++) {
        for (int v = 0; v < VAR_COUNT; v++) {
            free(rk->steps[i].var[v].wall_us);
            free(rk->steps[i].var[v].event_sum_us);
            free(rk->steps[i].var[v].per_call_us);
        }
    }
    free(rk->steps);
}

/* Whether --check found a wrong element in any result (every rank knows
 * the sums). */
static bool any_wrong(const struct rank_ctx *rk)
{
    const struct bench_opts *o = rk->o;
    for (int i = 0; i < o->nops; i++) {
        if (rk->op_skipped[o->ops[i]])
            continue;
        for (int s = 0; s < o->nsizes; s++)
            for (int v = 0; v < rank_variants(rk); v++)
                if (rk->steps[i * o->nsizes + s].var[v].wrong > 0)
                    return true;
    }
    return false;
}

static void run_threads(struct rank_ctx *rk)
{
    int n = rk->o->threads;
    struct worker *w = calloc((size_t)n, sizeof *w);
    pthread_t *tid = calloc((size_t)n, sizeof *tid);
    if (!w || !tid)
        bench_die("out of memory");
    barrier_init(rk);
    for (int t = 0; t < n; t++) {
        w[t].rk = rk;
        w[t].thread = t;
    }
    /* Thread 0 is this thread: with --threads 1 there is no other. */
    for (int t = 1; t < n; t++) {
        int rc = pthread_create(&tid[t], NULL, worker_main, &w[t]);
        if (rc)
            bench_die("pthread_create failed: %s", strerror(rc));
    }
    worker_main(&w[0]);
    for (int t = 1; t < n; t++)
        pthread_join(tid[t], NULL);
    fail_set_thread(-1);
    barrier_destroy(rk);
    free(tid);
    free(w);
}

int rank_run(const struct bench_opts *o, struct rdv *rdv, int rank, int world, int local_rank)
{
    fail_set_rank(rank);
    struct rank_ctx *rk = calloc(1, sizeof *rk);
    if (!rk)
        bench_die("out of memory");
    rk->o = o;
    rk->rdv = rdv;
    rk->rank = rank;
    rk->world = world;

    char why[256];
    if (cuda_driver_load(&rk->drv, NULL, why, sizeof why))
        bench_die("%s", why);
    check_driver(&rk->drv);
    pick_device(rk, local_rank);
    NCCL_CHECK(ncclGetVersion, (&rk->nccl_version));
    check_ops(rk);
    if (o->check)
        check_init(rk);
    alloc_steps(rk);

    if (rank == 0)
        for (int t = 0; t < o->threads; t++)
            NCCL_CHECK(ncclGetUniqueId, (&rk->ids[t]));
    rdv->ops->share_ids(rdv, rk->ids, o->threads);
    /* NCCL waits for every rank of a communicator at its init, with no
     * bound of its own: --timeout bounds it (each thread's init). */
    if (world > 1)
        deadline_arm(o->timeout_s, o->threads,
                     "in ncclCommInitRank, waiting for the other ranks (are they all started, with this run's "
                     "ids? set --id-file, or raise --timeout)");

    report_header(rk);
    run_threads(rk);
    report_footer(rk);
    if (o->json)
        json_write(rk);
    rdv->ops->finish(rdv);

    int rc = any_wrong(rk) ? BENCH_EXIT_WRONG : 0;
    free_steps(rk);
    free(rk);
    return rc;
}
