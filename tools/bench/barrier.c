#include "barrier.h"

#include <string.h>
#include "fail.h"

void barrier_init(struct rank_ctx *rk)
{
    int rc = pthread_barrier_init(&rk->threads_barrier, NULL, (unsigned)rk->o->threads);
    if (rc)
        bench_die("pthread_barrier_init failed: %s", strerror(rc));
}

void barrier_destroy(struct rank_ctx *rk)
{
    pthread_barrier_destroy(&rk->threads_barrier);
}

void barrier_threads(struct rank_ctx *rk)
{
    int rc = pthread_barrier_wait(&rk->threads_barrier);
    if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
        bench_die("pthread_barrier_wait failed: %s", strerror(rc));
}

void barrier_all(struct rank_ctx *rk, int thread)
{
    /* Threads of a rank meet first, then thread 0 stands for the rank in
     * the cross-rank barrier, then it releases its threads. */
    barrier_threads(rk);
    if (thread == 0)
        rk->rdv->ops->barrier(rk->rdv);
    barrier_threads(rk);
}
