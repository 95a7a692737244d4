#include "nccl_job.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_group.h"
#include "nccl_knobs.h"
#include "nccl_rdv.h"
#include "nccl_segment.h"
#include "nccl_shm.h"
#include "sim_cuda_private.h"

uint64_t sim_comm_id(const ncclUniqueId *uid)
{
    return sim_hash_bytes(uid->internal, sizeof uid->internal);
}

/* Communicators destroyed, for NCCLSIM_REUSE_HANDLES: the last one is
 * handed out first, as malloc's per-thread caches do. */
static pthread_mutex_t freed_lock = PTHREAD_MUTEX_INITIALIZER;
static ncclComm_t freed;

ncclComm_t sim_comm_alloc(void)
{
    pthread_mutex_lock(&freed_lock);
    ncclComm_t c = freed;
    if (c)
        freed = *(ncclComm_t *)c;
    pthread_mutex_unlock(&freed_lock);
    if (!c)
        return calloc(1, sizeof *c);
    memset(c, 0, sizeof *c);
    return c;
}

void sim_comm_free(ncclComm_t c)
{
    if (!sim_knobs()->reuse_handles) {
        free(c);
        return;
    }
    pthread_mutex_lock(&freed_lock);
    *(ncclComm_t *)c = freed;
    freed = c;
    pthread_mutex_unlock(&freed_lock);
}

struct sim_job *sim_job_new(enum sim_job_kind kind, const char *what, int device, ncclComm_t *out)
{
    struct sim_job *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->comm = sim_comm_alloc();
    if (!j->comm) {
        free(j);
        return NULL;
    }
    j->kind = kind;
    j->what = what;
    j->out = out;
    j->comm->device = device;
    return j;
}

static void drop_comm(struct sim_job *j)
{
    if (!j->comm)
        return;
    if (j->comm->seg)
        sim_segment_unref(j->comm->seg);
    free(j->comm);
    j->comm = NULL;
}

void sim_job_free(struct sim_job *j)
{
    if (j->rdv)
        sim_rdv_abandon(j->rdv);
    drop_comm(j);
    free(j);
}

/* The child's rank and size: the parent ranks of the same color, ordered
 * by (key, parent rank). */
static void place_in_color(struct sim_job *j, const struct sim_child_rec *all)
{
    int me = j->parent->rank, rank = 0, n = 0;
    for (int r = 0; r < j->parent->nranks; r++) {
        if (all[r].color != j->color)
            continue;
        n++;
        if (all[r].key < j->key || (all[r].key == j->key && r < me))
            rank++;
    }
    j->comm->rank = rank;
    j->comm->nranks = n;
    j->comm->id = sim_hash_mix(j->child_id, (uint32_t)j->color);
}

static ncclResult_t learn_from_exchange(struct sim_job *j)
{
    struct sim_child_rec *all = calloc((size_t)j->parent->nranks, sizeof *all);
    if (!all)
        return ncclSystemError;
    struct sim_rdv *rdv = j->rdv;
    j->rdv = NULL;
    ncclResult_t r = sim_rdv_finish(rdv, all, j->what);
    if (r == ncclSuccess && j->kind == SIM_JOB_SPLIT) {
        if (j->color == NCCL_SPLIT_NOCOLOR)
            drop_comm(j);
        else
            place_in_color(j, all);
    } else if (r == ncclSuccess) {
        const struct sim_child_rec *root = NULL;
        for (int i = 0; i < j->parent->nranks && !root; i++)
            if (all[i].has_uid)
                root = &all[i];
        if (root) {
            j->comm->id = sim_comm_id(&root->uid);
        } else {
            fprintf(stderr, "ncclsim: %s: no existing rank passed the unique id\n", j->what);
            r = ncclInvalidUsage;
        }
    }
    free(all);
    return r;
}

/* Phase 1: learn what the exchange says; open the segment. */
static ncclResult_t connect_job(struct sim_job *j)
{
    if (j->rdv) {
        ncclResult_t r = learn_from_exchange(j);
        if (r != ncclSuccess)
            return r;
    }
    if (!j->comm)
        return ncclSuccess;
    return sim_segment_attach(j->comm->id, j->comm->nranks, j->comm->rank, &j->comm->seg);
}

ncclResult_t sim_jobs_run(struct sim_job **jobs, int n)
{
    ncclResult_t first = ncclSuccess;
    ncclResult_t *res = calloc((size_t)n, sizeof *res);
    if (!res)
        first = ncclSystemError;
    /* Every job's first phase before any second one: the second waits for
     * ranks that this very thread may still have to connect. A failed job
     * still lets the others finish, so its peers are not left waiting. */
    for (int i = 0; i < n && res; i++)
        res[i] = connect_job(jobs[i]);
    for (int i = 0; i < n; i++) {
        struct sim_job *j = jobs[i];
        ncclResult_t r = res ? res[i] : ncclSystemError;
        if (r == ncclSuccess && j->comm)
            r = sim_segment_wait_all(j->comm->seg, j->what);
        if (r == ncclSuccess) {
            *j->out = j->comm;
            j->comm = NULL;   /* now the caller's */
        } else {
            *j->out = NULL;
            if (first == ncclSuccess)
                first = r;
        }
        sim_job_free(j);
    }
    free(res);
    return first;
}

static void warn_if_zero(const ncclUniqueId *id)
{
    static const ncclUniqueId zero;
    if (!memcmp(id, &zero, sizeof zero))
        fprintf(stderr, "ncclsim: a ncclUniqueId of zero bytes: communicators of programs "
                "that run at the same time will collide; use ncclGetUniqueId\n");
}

ncclResult_t sim_job_join(ncclComm_t *comm, const char *what, const ncclUniqueId *id,
                          int nranks, int rank, int early)
{
    if (!comm)
        return sim_group_error(ncclInvalidArgument);
    *comm = NULL;
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return sim_group_error(ncclInvalidArgument);
    warn_if_zero(id);
    int device = ncclsim_current_device();
    struct sim_job *j = sim_job_new(SIM_JOB_JOIN, what, device < 0 ? 0 : device, comm);
    if (!j)
        return sim_group_error(ncclSystemError);
    j->comm->id = sim_comm_id(id);
    j->comm->rank = rank;
    j->comm->nranks = nranks;
    if (early)
        *comm = j->comm;
    return sim_group_submit_job(j);
}
