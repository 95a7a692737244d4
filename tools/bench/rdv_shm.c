#include "rdv.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "fail.h"

/* Lives in the shared mapping: every child sees the parent's copy. After
 * the ids: one long long per rank for sums. */
struct shm_area {
    pthread_barrier_t barrier;
    int world;
    int nids;
    ncclUniqueId ids[];
};

static long long *area_sums(struct shm_area *a)
{
    return (long long *)(void *)(a->ids + a->nids);
}

struct rdv_shm {
    struct shm_area *area;
    size_t len;
};

struct shm_rdv {
    struct rdv base;        /* first: a struct rdv * is a struct shm_rdv * */
    struct shm_area *area;
};

static void shm_barrier(struct rdv *r)
{
    int rc = pthread_barrier_wait(&((struct shm_rdv *)r)->area->barrier);
    if (rc != 0 && rc != PTHREAD_BARRIER_SERIAL_THREAD)
        bench_die("pthread_barrier_wait failed: %s", strerror(rc));
}

static void shm_share_ids(struct rdv *r, ncclUniqueId *ids, int n)
{
    struct shm_area *a = ((struct shm_rdv *)r)->area;
    if (n > a->nids)
        bench_die("internal error: %d ids asked, %d shared", n, a->nids);
    if (r->rank == 0)
        memcpy(a->ids, ids, (size_t)n * sizeof *ids);
    shm_barrier(r);         /* publishes rank 0's write to the others */
    if (r->rank != 0)
        memcpy(ids, a->ids, (size_t)n * sizeof *ids);
}

static long long shm_sum(struct rdv *r, long long v)
{
    struct shm_area *a = ((struct shm_rdv *)r)->area;
    long long *sums = area_sums(a);
    sums[r->rank] = v;
    shm_barrier(r);         /* every rank's value is there */
    long long total = 0;
    for (int i = 0; i < a->world; i++)
        total += sums[i];
    shm_barrier(r);         /* and read by all before the next sum writes */
    return total;
}

static void shm_finish(struct rdv *r)
{
    free(r);    /* the parent unmaps the area once every child is gone */
}

static const struct rdv_ops shm_ops = { shm_share_ids, shm_barrier, shm_sum, shm_finish };

struct rdv_shm *rdv_shm_create(int world, int nids)
{
    struct rdv_shm *shm = calloc(1, sizeof *shm);
    if (!shm)
        bench_die("out of memory");
    shm->len = sizeof(struct shm_area) + (size_t)nids * sizeof(ncclUniqueId) +
               (size_t)world * sizeof(long long);
    void *p = mmap(NULL, shm->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        bench_die("mmap of the shared rendezvous area failed: %s", strerror(errno));
    shm->area = p;
    shm->area->world = world;
    shm->area->nids = nids;
    pthread_barrierattr_t attr;
    int rc = pthread_barrierattr_init(&attr);
    if (!rc)
        rc = pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    if (!rc)
        rc = pthread_barrier_init(&shm->area->barrier, &attr, (unsigned)world);
    if (rc)
        bench_die("cannot make a process-shared barrier: %s", strerror(rc));
    pthread_barrierattr_destroy(&attr);
    return shm;
}

struct rdv *rdv_shm_attach(struct rdv_shm *shm, int rank)
{
    struct shm_rdv *r = calloc(1, sizeof *r);
    if (!r)
        bench_die("out of memory");
    r->base.ops = &shm_ops;
    r->base.rank = rank;
    r->base.world = shm->area->world;
    r->area = shm->area;
    return &r->base;
}

void rdv_shm_destroy(struct rdv_shm *shm)
{
    /* No pthread_barrier_destroy: glibc's waits for every waiter to leave,
     * and a child killed inside the barrier never leaves. Unmapping is all
     * the barrier needs once no process uses it. */
    munmap(shm->area, shm->len);
    free(shm);
}
