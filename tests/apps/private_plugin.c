/* A plugin that uses NCCL, loaded by private_nccl.c with dlopen(RTLD_LOCAL)
 * as Python loads extension modules (PyTorch's NCCL arrives this way): its
 * libnccl.so.2 is then outside the global symbol scope. */
#include "nccl_app.h"

int plugin_run(int n);

__attribute__((visibility("default"))) int plugin_run(int n)
{
    app_cuda_init();
    CUstream s = app_stream_on(0);
    void *b = app_buffer(4096);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    for (int k = 0; k < n; k++)
        CHECK_NCCL(ncclAllReduce(b, b, 1024, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    return 0;
}
