/* Rendezvous of the ranks outside NCCL: handing out the ncclUniqueIds and
 * host barriers. The bench's bookkeeping never uses NCCL, so that with
 * --warmup 0 the only NCCL operations are the ones it measures (and
 * communicator init and destroy). Every function dies on error. */
#ifndef NCCLTAP_BENCH_RDV_H
#define NCCLTAP_BENCH_RDV_H

#include "abi/nccl_abi.h"

struct rdv;

struct rdv_ops {
    /* Collective: rank 0 passes `n` ids in, every other rank gets them. */
    void (*share_ids)(struct rdv *r, ncclUniqueId *ids, int n);
    /* Collective: returns when every rank has called it. */
    void (*barrier)(struct rdv *r);
    /* Collective: the sum of every rank's `v` (--check's #wrong). */
    long long (*sum)(struct rdv *r, long long v);
    /* Collective, at the end of the run: removes what the rendezvous left
     * behind and frees `r`. Ranks other than 0 need not wait for the
     * others. */
    void (*finish)(struct rdv *r);
};

struct rdv {
    const struct rdv_ops *ops;
    int rank;
    int world;
};

/* One rank alone: nothing to share or wait for. */
struct rdv *rdv_solo(void);

/* --ranks: a MAP_SHARED anonymous mapping made by the parent before fork,
 * holding the ids and a process-shared barrier. */
struct rdv_shm;
struct rdv_shm *rdv_shm_create(int world, int nids);
struct rdv *rdv_shm_attach(struct rdv_shm *shm, int rank);    /* in a child */
void rdv_shm_destroy(struct rdv_shm *shm);                     /* in the parent */

/* Launcher mode: files next to `id_path` (which every rank must see). */
struct rdv *rdv_file(const char *id_path, int rank, int world, int timeout_s);

#endif
