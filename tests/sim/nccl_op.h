/* One NCCL operation, ready to be put on its stream. */
#ifndef NCCLSIM_NCCL_OP_H
#define NCCLSIM_NCCL_OP_H

#include <stdint.h>
#include "nccl_internal.h"
#include "nccl_model.h"
#include "nccl_signal.h"

struct sim_op {
    enum sim_func func;
    ncclComm_t comm;
    cudaStream_t stream;
    uint64_t duration_ns;
    /* What NCCLSIM_DATA moves (nccl_data.h). */
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t type;
    int redop;
    int root;                    /* the peer of send, receive, put and signal */
    int nwaits;                  /* a wait's descriptors */
    struct sim_wait waits[SIM_WAIT_MAX_DESCS];
    int data_moved;              /* a group's send, posted before its receives */
};

/* Puts the op on its stream now. A collective takes the communicator's
 * next sequence number and begins when every rank has arrived (late by
 * NCCLSIM_SLOW_US on NCCLSIM_SLOW_RANK; never, on NCCLSIM_HANG_RANK at
 * NCCLSIM_HANG_SEQ); send and receive begin on their own. On a capturing
 * stream it is put in the graph instead and takes no sequence number: each
 * launch of the graph does all of the above (but move data), on the
 * launch's stream. With NCCLSIM_DATA, moves the op's data first
 * (nccl_data.h). A one-sided op takes no sequence number: its signals
 * are numbered and met as nccl_signal.h says. */
ncclResult_t sim_op_launch(const struct sim_op *op);

#endif
