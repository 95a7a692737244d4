/* A profiler of NCCL's own kind, preloaded beside nccltap: it defines
 * ncclAllReduce and calls pncclAllReduce, NCCL's profiling interface, to
 * reach NCCL. With nccltap exporting pncclAllReduce too, neither order in
 * LD_PRELOAD may loop or count a call twice. Says at exit how many calls
 * it saw: "pnccl_profiler: N calls". */
#include <stdatomic.h>
#include <stdio.h>

#include "abi/nccl_abi.h"

static _Atomic int calls;

__attribute__((visibility("default"))) ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                                                                  ncclDataType_t datatype, ncclRedOp_t op,
                                                                  ncclComm_t comm, cudaStream_t stream)
{
    atomic_fetch_add(&calls, 1);
    return pncclAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream);
}

__attribute__((destructor)) static void said(void)
{
    fprintf(stderr, "pnccl_profiler: %d calls\n", atomic_load(&calls));
}
