/* What happens after each communicator and group call: the hooks the
 * generated wrappers (wrappers.c) call, one per function. */
#ifndef NCCLTAP_COMM_HOOKS_H
#define NCCLTAP_COMM_HOOKS_H

#include <stdbool.h>

#include "abi/nccl_abi.h"

/* Before each communicator call: notes when it began (its init time), and
 * marks the thread as inside a wrapper. */
bool tap_comm_call_begin(void);

void tap_comm_after_ncclCommInitRank(ncclResult_t r, ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
void tap_comm_after_ncclCommInitAll(ncclResult_t r, ncclComm_t *comm, int ndev, const int *devlist);
void tap_comm_after_ncclCommInitRankConfig(ncclResult_t r, ncclComm_t *comm, int nranks, ncclUniqueId id,
                                           int rank, ncclConfig_t *config);
void tap_comm_after_ncclCommInitRankScalable(ncclResult_t r, ncclComm_t *comm, int nranks, int rank,
                                             int nid, ncclUniqueId *ids, ncclConfig_t *config);
void tap_comm_after_ncclCommSplit(ncclResult_t r, ncclComm_t comm, int color, int key,
                                  ncclComm_t *newcomm, ncclConfig_t *config);
void tap_comm_after_ncclCommShrink(ncclResult_t r, ncclComm_t comm, int *exclude, int nexclude,
                                   ncclComm_t *newcomm, ncclConfig_t *config, int flags);
void tap_comm_after_ncclCommGrow(ncclResult_t r, ncclComm_t comm, int nranks, const ncclUniqueId *id,
                                 int rank, ncclComm_t *newcomm, ncclConfig_t *config);
void tap_comm_after_ncclCommFinalize(ncclResult_t r, ncclComm_t comm);
void tap_comm_after_ncclCommDestroy(ncclResult_t r, ncclComm_t comm);
void tap_comm_after_ncclCommAbort(ncclResult_t r, ncclComm_t comm);

bool tap_group_before_ncclGroupStart(void);
void tap_group_after_ncclGroupStart(ncclResult_t r);
bool tap_group_before_ncclGroupEnd(void);
void tap_group_after_ncclGroupEnd(ncclResult_t r);
bool tap_group_before_ncclGroupSimulateEnd(void);
void tap_group_after_ncclGroupSimulateEnd(ncclResult_t r);

#endif
