/* One-sided operations (NCCL 2.29.2): ncclPutSignal, ncclSignal,
 * ncclWaitSignal. NCCL's argument checks (enqueue.cc's, as of 2.29.2 to
 * 2.30: context, signal index and flags must be 0, a put needs a window
 * and a buffer, a wait at least one descriptor, each with opCnt > 0),
 * then the op is timed and launched like a send (or queued in a group);
 * nccl_signal.h says when each begins. Data is not moved, also with
 * NCCLSIM_DATA (the window is the handle's, not the peer's memory). */
#include <stdio.h>

#include "nccl_group.h"
#include "nccl_internal.h"
#include "nccl_model.h"
#include "nccl_op.h"
#include "nccl_signal.h"

static int bad_peer(ncclComm_t comm, int peer)
{
    return peer < 0 || peer >= comm->nranks;
}

/* A communicator with no signal board (nccl_signal.h) refuses them. */
static ncclResult_t no_board(ncclComm_t comm)
{
    if (comm->nranks <= SIM_SIGNAL_MAX_RANKS)
        return ncclSuccess;
    fprintf(stderr, "ncclsim: one-sided operations are simulated on communicators of at most %d ranks\n",
            SIM_SIGNAL_MAX_RANKS);
    return ncclInvalidUsage;
}

static ncclResult_t launch(struct sim_op *op)
{
    op->duration_ns = sim_duration_ns(op->func, op->count, op->type, op->comm->nranks, 0);
    ncclResult_t r = sim_group_submit_op(op);
    return r == ncclSuccess && op->comm->nonblocking ? ncclInProgress : r;
}

ncclResult_t sim_ncclPutSignal(const void *localbuff, size_t count, ncclDataType_t datatype, int peer,
                               ncclWindow_t peerWin, size_t peerWinOffset, int sigIdx, int ctx, unsigned int flags,
                               ncclComm_t comm, cudaStream_t stream)
{
    (void)peerWinOffset;
    if (!comm || (int)datatype < 0 || (int)datatype >= SIM_NCCL_NUM_TYPES || bad_peer(comm, peer) || ctx != 0 ||
        sigIdx != 0 || flags != 0 || !peerWin || !localbuff)
        return sim_group_error(ncclInvalidArgument);
    ncclResult_t r = no_board(comm);
    if (r != ncclSuccess)
        return sim_group_error(r);
    struct sim_op op = {.func = SIM_PUTSIGNAL, .comm = comm, .stream = stream, .send = localbuff,
                        .count = count, .type = datatype, .root = peer};
    return launch(&op);
}

ncclResult_t sim_ncclSignal(int peer, int sigIdx, int ctx, unsigned int flags, ncclComm_t comm, cudaStream_t stream)
{
    if (!comm || bad_peer(comm, peer) || ctx != 0 || sigIdx != 0 || flags != 0)
        return sim_group_error(ncclInvalidArgument);
    ncclResult_t r = no_board(comm);
    if (r != ncclSuccess)
        return sim_group_error(r);
    struct sim_op op = {.func = SIM_SIGNAL, .comm = comm, .stream = stream, .type = ncclInt8, .root = peer};
    return launch(&op);
}

ncclResult_t sim_ncclWaitSignal(int nDesc, ncclWaitSignalDesc_t *signalDescs, ncclComm_t comm, cudaStream_t stream)
{
    if (!comm || !signalDescs || nDesc < 1)
        return sim_group_error(ncclInvalidArgument);
    for (int i = 0; i < nDesc; i++)
        if (signalDescs[i].opCnt <= 0 || signalDescs[i].sigIdx != 0 || signalDescs[i].ctx != 0 ||
            bad_peer(comm, signalDescs[i].peer))
            return sim_group_error(ncclInvalidArgument);
    ncclResult_t r = nDesc > SIM_WAIT_MAX_DESCS ? ncclInvalidUsage : no_board(comm);
    if (r != ncclSuccess)
        return sim_group_error(r);
    struct sim_op op = {.func = SIM_WAITSIGNAL, .comm = comm, .stream = stream, .type = ncclInt8, .root = -1,
                        .nwaits = nDesc};
    for (int i = 0; i < nDesc; i++)
        op.waits[i] = (struct sim_wait){signalDescs[i].peer, signalDescs[i].opCnt};
    return launch(&op);
}
