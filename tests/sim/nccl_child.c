/* Communicators made from another: split, shrink, grow.
 *
 * Every rank derives the child's id from the parent's id and the parent's
 * count of children so far (the same on every rank, since these are
 * collective calls), so no rank has to send it. Split and grow also need
 * the other ranks' arguments: they post theirs to an exchange named the
 * same way. */
#include <stdio.h>
#include <stdlib.h>

#include "nccl_group.h"
#include "nccl_internal.h"
#include "nccl_job.h"
#include "nccl_rdv.h"
#include "nccl_segment.h"
#include "nccl_shm.h"

#define SIM_SHRINK_ABORT 0x01   /* NCCL_SHRINK_ABORT */

/* Exchange and child ids of the parent's child number n. Shrinks count
 * apart (as in NCCL, where they do not advance the child count), with the
 * top bit set so the two never meet. */
static uint64_t exchange_id(ncclComm_t parent, uint64_t n) { return sim_hash_mix(parent->id, 2 * n); }
static uint64_t child_id(ncclComm_t parent, uint64_t n) { return sim_hash_mix(parent->id, 2 * n + 1); }
static uint64_t shrink_id(ncclComm_t parent, uint64_t n) { return sim_hash_mix(parent->id, (1ull << 63) | n); }

/* Posts this rank's record and submits the job. */
static ncclResult_t post_and_submit(struct sim_job *j, ncclComm_t parent, uint64_t n,
                                    const struct sim_child_rec *rec)
{
    ncclResult_t r = sim_rdv_post(exchange_id(parent, n), parent->nranks, parent->rank, rec,
                                  sizeof *rec, &j->rdv);
    if (r != ncclSuccess) {
        sim_job_free(j);
        return sim_group_error(r);
    }
    return sim_group_submit_job(j);
}

ncclResult_t sim_ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                               ncclConfig_t *config)
{
    (void)config;
    if (!comm || !newcomm || (color < 0 && color != NCCL_SPLIT_NOCOLOR))
        return sim_group_error(ncclInvalidArgument);
    *newcomm = NULL;
    uint64_t n = ++comm->children;
    struct sim_job *j = sim_job_new(SIM_JOB_SPLIT, "ncclCommSplit", comm->device, newcomm);
    if (!j)
        return sim_group_error(ncclSystemError);
    j->parent = comm;
    j->color = color;
    j->key = key;
    j->child_id = child_id(comm, n);
    struct sim_child_rec rec = { .color = color, .key = key };
    return post_and_submit(j, comm, n, &rec);
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

ncclResult_t sim_ncclCommShrink(ncclComm_t comm, int *excludeRanksList, int excludeRanksCount,
                                ncclComm_t *newcomm, ncclConfig_t *config, int shrinkFlags)
{
    (void)config;
    if (!comm || !newcomm || !excludeRanksList || excludeRanksCount <= 0)
        return sim_group_error(ncclInvalidArgument);
    *newcomm = NULL;
    /* Sorted and without repeats (a copy: the list is the caller's). */
    int *ex = malloc((size_t)excludeRanksCount * sizeof *ex);
    if (!ex)
        return sim_group_error(ncclSystemError);
    for (int i = 0; i < excludeRanksCount; i++)
        ex[i] = excludeRanksList[i];
    qsort(ex, (size_t)excludeRanksCount, sizeof *ex, compare_ints);
    int nex = 0, below = 0, mine = 0, bad = 0;
    for (int i = 0; i < excludeRanksCount; i++) {
        if (nex && ex[nex - 1] == ex[i])
            continue;
        ex[nex++] = ex[i];
        bad |= ex[i] < 0 || ex[i] >= comm->nranks;
        mine |= ex[i] == comm->rank;
        below += ex[i] < comm->rank;
    }
    /* Excluded ranks must not call it, as in NCCL. */
    if (bad || mine || nex >= comm->nranks) {
        free(ex);
        return sim_group_error(ncclInvalidArgument);
    }
    uint64_t id = sim_hash_mix(shrink_id(comm, ++comm->shrinks),
                               sim_hash_bytes(ex, (size_t)nex * sizeof *ex));
    free(ex);
    if (shrinkFlags & SIM_SHRINK_ABORT)
        sim_segment_abort(comm->seg);
    struct sim_job *j = sim_job_new(SIM_JOB_JOIN, "ncclCommShrink", comm->device, newcomm);
    if (!j)
        return sim_group_error(ncclSystemError);
    j->comm->id = id;
    j->comm->rank = comm->rank - below;
    j->comm->nranks = comm->nranks - nex;
    return sim_group_submit_job(j);
}

ncclResult_t sim_ncclCommGrow(ncclComm_t comm, int nRanks, const ncclUniqueId *uniqueId, int rank,
                              ncclComm_t *newcomm, ncclConfig_t *config)
{
    (void)config;
    if (!newcomm || nRanks <= 0)
        return sim_group_error(ncclInvalidArgument);
    *newcomm = NULL;
    /* New ranks know the unique id: they join like ncclCommInitRank. */
    if (!comm) {
        if (!uniqueId)
            return sim_group_error(ncclInvalidArgument);
        return sim_job_join(newcomm, "ncclCommGrow", uniqueId, nRanks, rank, 0);
    }
    /* Existing ranks keep their rank and learn the id from the one
     * (the root) that passes it. */
    if (nRanks <= comm->nranks || rank != -1)
        return sim_group_error(ncclInvalidArgument);
    uint64_t n = ++comm->children;
    struct sim_job *j = sim_job_new(SIM_JOB_GROW, "ncclCommGrow", comm->device, newcomm);
    if (!j)
        return sim_group_error(ncclSystemError);
    j->parent = comm;
    j->comm->rank = comm->rank;
    j->comm->nranks = nRanks;
    struct sim_child_rec rec = { .has_uid = uniqueId != NULL };
    if (uniqueId)
        rec.uid = *uniqueId;
    return post_and_submit(j, comm, n, &rec);
}
