/* How long an operation takes: latency + S * factor / busbw, with S and
 * factor as nccl-tests define them (doc/PERFORMANCE.md there), so that the
 * bus bandwidth nccltap computes from a simulated duration is exactly
 * NCCLSIM_BUSBW_GBS (when latency is 0). */
#ifndef NCCLSIM_NCCL_MODEL_H
#define NCCLSIM_NCCL_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "abi/nccl_abi.h"

enum sim_func {
    SIM_ALLREDUCE, SIM_ALLGATHER, SIM_REDUCESCATTER, SIM_BROADCAST, SIM_REDUCE,
    SIM_ALLTOALL, SIM_GATHER, SIM_SCATTER, SIM_SEND, SIM_RECV,
    SIM_PUTSIGNAL, SIM_SIGNAL, SIM_WAITSIGNAL, SIM_FUNC_COUNT
};

/* Bytes of one element; 0 for an unknown type. */
size_t sim_type_size(ncclDataType_t t);

int sim_func_is_collective(enum sim_func f);

/* ncclPutSignal, ncclSignal, ncclWaitSignal (nccl_signal.h). */
int sim_func_is_onesided(enum sim_func f);

/* `count` as the function's own count argument (sendcount for AllGather,
 * recvcount for ReduceScatter). Rounded to whole nanoseconds. With
 * `slow_link`, the transfer (not the latency) takes NCCLSIM_SLOW_LINK_FACTOR
 * times longer. */
uint64_t sim_duration_ns(enum sim_func f, size_t count, ncclDataType_t t, int nranks, int slow_link);

#endif
