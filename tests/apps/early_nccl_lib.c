/* A library whose constructor uses NCCL: linked into the application, its
 * constructor runs before the preloaded shim's (dependencies are
 * initialized first), so the shim is reached before its own constructor
 * ran, as with libraries that set up communication at load. */
#include "abi/nccl_abi.h"
#include "early_nccl.h"
#include "nccl_app.h"

#define COUNT 256

int early_calls;

__attribute__((constructor)) static void early_nccl(void)
{
    app_cuda_init();
    CUstream s = app_stream_on(0);
    void *b = app_buffer(COUNT * 4);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    for (early_calls = 0; early_calls < 50; early_calls++)
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
}
