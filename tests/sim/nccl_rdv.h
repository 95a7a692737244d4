/* An all-to-all exchange of one small record per participant, in shared
 * memory: how the ranks of a communicator learn each other's arguments to
 * ncclCommSplit and ncclCommGrow.
 *
 * Two steps, so that one thread can take part for several ranks (a group
 * of splits, one per GPU): post every rank's record first, then finish. */
#ifndef NCCLSIM_NCCL_RDV_H
#define NCCLSIM_NCCL_RDV_H

#include <stddef.h>
#include <stdint.h>
#include "abi/nccl_abi.h"

struct sim_rdv;

/* Joins exchange `id` of `n` participants as `index` and publishes `rec`
 * (`size` bytes, the same size everywhere). Does not wait. */
ncclResult_t sim_rdv_post(uint64_t id, int n, int index, const void *rec, size_t size,
                          struct sim_rdv **out);

/* Waits for every record (at most NCCLSIM_RENDEZVOUS_TIMEOUT_S, then
 * ncclSystemError), copies them to all[n * size] in index order, and
 * leaves; the last name reference is removed by whoever sees the exchange
 * complete. Frees rdv in every case. `what` names the call in messages. */
ncclResult_t sim_rdv_finish(struct sim_rdv *rdv, void *all, const char *what);

/* Leaves without waiting (the caller failed for another reason). */
void sim_rdv_abandon(struct sim_rdv *rdv);

#endif
