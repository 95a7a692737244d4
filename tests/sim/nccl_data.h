/* NCCLSIM_DATA=1: operations move real data, so that a data check (as
 * nccl-tests' and nccltap-bench's --check) can pass, and fail.
 *
 * Device memory is host memory then (cuda_mem.c). Data moves when the
 * operation is launched (the call, or the outermost ncclGroupEnd), not
 * in stream order: the caller must have synchronized what writes its send
 * buffer. A collective's ranks meet in a shared object per operation:
 * each posts its send buffer, waits (in the call, at most
 * NCCLSIM_RENDEZVOUS_TIMEOUT_S) until every rank has posted, then writes
 * its own result. So one thread cannot drive several ranks of a
 * collective in this mode. A send posts its data and returns; the receive
 * waits for it. Reductions: every type, sum prod max min avg; integers in
 * 64-bit integer arithmetic, floating types in double, rounded once to
 * nearest even. */
#ifndef NCCLSIM_NCCL_DATA_H
#define NCCLSIM_NCCL_DATA_H

#include <stdint.h>
#include "nccl_op.h"

/* NCCLSIM_DATA. */
int sim_data_enabled(void);

/* Moves op's data (`seq`: the collective's sequence number; unused for
 * send and receive). ncclSystemError when the other ranks do not come. */
ncclResult_t sim_data_move(const struct sim_op *op, uint64_t seq);

#endif
