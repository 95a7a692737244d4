/* Collectives and point-to-point calls: NCCL's argument checks, then the
 * operation is timed by the model and launched (or queued in a group). */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "nccl_group.h"
#include "nccl_internal.h"
#include "nccl_knobs.h"
#include "nccl_model.h"
#include "nccl_op.h"

/* Arguments a function does not have (not -1: that is a bad root). */
#define NO_ROOT INT_MIN
#define NO_REDOP INT_MIN

/* User reduction ops: ncclRedOpCreatePreMulSum takes the communicator's
 * lowest free slot of 32 and returns ncclNumOps + slot scrambled with the
 * communicator's address, as NCCL does (scramble()); ncclRedOpDestroy
 * frees it. The scalar is not read: a user op is timed as any reduction. */
#define SIM_USER_OPS 32

/* NCCL's scrambling of user reduction handles (ncclUserRedOpMangle, NCCL
 * 2.11+): the upper 32 bits of the address folded onto the lower,
 * multiplied by Knuth's 64-bit constant, the product's upper half cut to
 * 31 bits and XORed into the value; built-in values, and values whose
 * image would be one, are left alone. Its own inverse. */
static int scramble(ncclComm_t comm, int redop)
{
    if (redop < SIM_NCCL_NUM_OPS)
        return redop;
    uint64_t h = (uint64_t)(uintptr_t)comm;
    h ^= h >> 32;
    h *= 0x9e3779b97f4a7c13ull;
    int image = (int)((h >> 32) & 0x7fffffff) ^ redop;
    return image < SIM_NCCL_NUM_OPS ? redop : image;
}

/* The slot of user op `redop` of comm, or -1. */
static int user_slot(ncclComm_t comm, int redop)
{
    int slot = scramble(comm, redop) - SIM_NCCL_NUM_OPS;
    return slot >= 0 && slot < SIM_USER_OPS && (comm->user_ops >> slot & 1u) ? slot : -1;
}

static int user_op(ncclComm_t comm, int redop)
{
    return user_slot(comm, redop) >= 0;
}

ncclResult_t sim_ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
                                          ncclScalarResidence_t residence, ncclComm_t comm)
{
    if (!op || !scalar || !comm || (int)datatype < 0 || (int)datatype >= SIM_NCCL_NUM_TYPES ||
        (residence != ncclScalarDevice && residence != ncclScalarHostImmediate))
        return ncclInvalidArgument;
    if (comm->user_ops == UINT32_MAX)
        return ncclInvalidUsage;
    int slot = __builtin_ctz(~comm->user_ops);
    comm->user_ops |= 1u << slot;
    *op = (ncclRedOp_t)scramble(comm, SIM_NCCL_NUM_OPS + slot);
    return ncclSuccess;
}

ncclResult_t sim_ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm)
{
    if (!comm || !user_op(comm, (int)op))
        return ncclInvalidArgument;
    comm->user_ops &= ~(1u << user_slot(comm, (int)op));
    return ncclSuccess;
}

static ncclResult_t check(ncclComm_t comm, ncclDataType_t type, int redop, int root)
{
    if (!comm)
        return ncclInvalidArgument;
    if ((int)type < 0 || (int)type >= SIM_NCCL_NUM_TYPES)
        return ncclInvalidArgument;
    /* A user op (>= SIM_NCCL_NUM_OPS) must be one of the communicator's
     * (ncclRedOpCreatePreMulSum); it moves no data (NCCLSIM_DATA refuses it). */
    if (redop != NO_REDOP && (redop < 0 || (redop >= SIM_NCCL_NUM_OPS && !user_op(comm, redop))))
        return ncclInvalidArgument;
    if (redop != NO_REDOP && redop >= SIM_NCCL_NUM_OPS && sim_knobs()->data)
        return ncclInvalidArgument;
    if (root != NO_ROOT && (root < 0 || root >= comm->nranks))
        return ncclInvalidArgument;
    return ncclSuccess;
}

/* Whether the op crosses NCCLSIM_SLOW_LINK_RANK's link: every collective
 * of a communicator that has that rank, and sends and receives from or to it. */
static int slow_link(enum sim_func f, ncclComm_t comm, int peer)
{
    int r = sim_knobs()->slow_link_rank;
    if (r < 0)
        return 0;
    if (sim_func_is_collective(f))
        return comm->nranks > r;
    return comm->rank == r || peer == r;
}

/* NCCLSIM_FIRST_CALL_US more for the communicator's first call of a
 * function and size class, as NCCL takes to set up a connection it makes
 * lazily. Every rank makes the same calls, so all take it at the same op. */
static uint64_t first_call_ns(ncclComm_t comm, enum sim_func f, size_t count, ncclDataType_t type)
{
    double us = sim_knobs()->first_call_us;
    if (us <= 0)
        return 0;
    uint64_t bytes = (uint64_t)count * sim_type_size(type);
    unsigned cls = bytes > 1 ? 63u - (unsigned)__builtin_clzll(bytes) : 0u;
    uint64_t bit = 1ull << cls;
    if (comm->called[f] & bit)
        return 0;
    comm->called[f] |= bit;
    return (uint64_t)llround(us * 1e3);
}

/* NCCLSIM_SLOWER_FACTOR times the transfer from the communicator's
 * collective NCCLSIM_SLOWER_FROM_SEQ on: bandwidth lost part-way through
 * a job (a link retrained to a lower speed, a noisy neighbour), the same
 * on every rank. The latency stays. */
static uint64_t slower_ns(ncclComm_t comm, uint64_t duration_ns)
{
    const struct sim_knobs *k = sim_knobs();
    if (k->slower_from_seq < 0 || comm->next_seq < (uint64_t)k->slower_from_seq)
        return duration_ns;
    double lat = k->lat_us * 1e3;
    return (uint64_t)llround(lat + ((double)duration_ns - lat) * k->slower_factor);
}

static ncclResult_t submit(enum sim_func f, const void *send, void *recv, size_t count,
                           ncclDataType_t type, int redop, int root, ncclComm_t comm,
                           cudaStream_t stream)
{
    ncclResult_t r = check(comm, type, redop, root);
    if (r != ncclSuccess)
        return sim_group_error(r);
    /* NCCL discards empty collectives: no kernel, no sequence number. */
    if (count == 0 && sim_func_is_collective(f))
        return ncclSuccess;
    struct sim_op op = {
        .func = f, .comm = comm, .stream = stream,
        .duration_ns = slower_ns(comm, sim_duration_ns(f, count, type, comm->nranks, slow_link(f, comm, root))) +
                       first_call_ns(comm, f, count, type),
        .send = send, .recv = recv, .count = count, .type = type, .redop = redop, .root = root,
    };
    r = sim_group_submit_op(&op);
    return r == ncclSuccess && comm->nonblocking ? ncclInProgress : r;
}

ncclResult_t sim_ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream)
{
    return submit(SIM_ALLREDUCE, sendbuff, recvbuff, count, datatype, (int)op, NO_ROOT, comm, stream);
}

ncclResult_t sim_ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                               ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    return submit(SIM_ALLGATHER, sendbuff, recvbuff, sendcount, datatype, NO_REDOP, NO_ROOT, comm, stream);
}

ncclResult_t sim_ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                                   ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                   cudaStream_t stream)
{
    return submit(SIM_REDUCESCATTER, sendbuff, recvbuff, recvcount, datatype, (int)op, NO_ROOT, comm, stream);
}

ncclResult_t sim_ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                               ncclDataType_t datatype, int root, ncclComm_t comm,
                               cudaStream_t stream)
{
    return submit(SIM_BROADCAST, sendbuff, recvbuff, count, datatype, NO_REDOP, root, comm, stream);
}

ncclResult_t sim_ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream)
{
    return submit(SIM_BROADCAST, buff, buff, count, datatype, NO_REDOP, root, comm, stream);
}

ncclResult_t sim_ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                            ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                            cudaStream_t stream)
{
    return submit(SIM_REDUCE, sendbuff, recvbuff, count, datatype, (int)op, root, comm, stream);
}

ncclResult_t sim_ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                              ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
    return submit(SIM_ALLTOALL, sendbuff, recvbuff, count, datatype, NO_REDOP, NO_ROOT, comm, stream);
}

ncclResult_t sim_ncclGather(const void *sendbuff, void *recvbuff, size_t count,
                            ncclDataType_t datatype, int root, ncclComm_t comm,
                            cudaStream_t stream)
{
    return submit(SIM_GATHER, sendbuff, recvbuff, count, datatype, NO_REDOP, root, comm, stream);
}

ncclResult_t sim_ncclScatter(const void *sendbuff, void *recvbuff, size_t count,
                             ncclDataType_t datatype, int root, ncclComm_t comm,
                             cudaStream_t stream)
{
    return submit(SIM_SCATTER, sendbuff, recvbuff, count, datatype, NO_REDOP, root, comm, stream);
}

/* NCCL 2.31's per-call configuration variants: the configuration (or
 * NULL) changes how NCCL runs the collective (algorithm, CTAs, a profiler
 * tag), not what it moves, which is all the simulator models. */
ncclResult_t sim_ncclAllReduceConfig(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                     ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream,
                                     const ncclCollConfig_t *config)
{
    (void)config;
    return sim_ncclAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream);
}

ncclResult_t sim_ncclAllGatherConfig(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                                     ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t *config)
{
    (void)config;
    return sim_ncclAllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream);
}

ncclResult_t sim_ncclReduceScatterConfig(const void *sendbuff, void *recvbuff, size_t recvcount,
                                         ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                                         cudaStream_t stream, const ncclCollConfig_t *config)
{
    (void)config;
    return sim_ncclReduceScatter(sendbuff, recvbuff, recvcount, datatype, op, comm, stream);
}

ncclResult_t sim_ncclBroadcastConfig(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                     int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t *config)
{
    (void)config;
    return sim_ncclBroadcast(sendbuff, recvbuff, count, datatype, root, comm, stream);
}

ncclResult_t sim_ncclReduceConfig(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                  ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream,
                                  const ncclCollConfig_t *config)
{
    (void)config;
    return sim_ncclReduce(sendbuff, recvbuff, count, datatype, op, root, comm, stream);
}

ncclResult_t sim_ncclAlltoAllConfig(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                    ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t *config)
{
    (void)config;
    return sim_ncclAlltoAll(sendbuff, recvbuff, count, datatype, comm, stream);
}

ncclResult_t sim_ncclGatherConfig(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                  int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t *config)
{
    (void)config;
    return sim_ncclGather(sendbuff, recvbuff, count, datatype, root, comm, stream);
}

ncclResult_t sim_ncclScatterConfig(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                                   int root, ncclComm_t comm, cudaStream_t stream, const ncclCollConfig_t *config)
{
    (void)config;
    return sim_ncclScatter(sendbuff, recvbuff, count, datatype, root, comm, stream);
}

ncclResult_t sim_ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                          ncclComm_t comm, cudaStream_t stream)
{
    return submit(SIM_SEND, sendbuff, NULL, count, datatype, NO_REDOP, peer, comm, stream);
}

ncclResult_t sim_ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                          ncclComm_t comm, cudaStream_t stream)
{
    return submit(SIM_RECV, NULL, recvbuff, count, datatype, NO_REDOP, peer, comm, stream);
}
