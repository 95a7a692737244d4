/* NCCL called from a library's constructor, before nccltap's own ran
 * (early_nccl_lib.c); then more calls from main. The shim must have
 * loaded its configuration on that first call: the output where
 * NCCLTAP_DIR says, every call counted, nothing dropped. */
#include <stdio.h>

#include "early_nccl.h"
#include "nccl_app.h"

int main(void)
{
    CUstream s = app_stream_on(0);
    void *b = app_buffer(1024);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    for (int k = 0; k < 30; k++)
        CHECK_NCCL(ncclAllReduce(b, b, 256, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    printf("{\"expect\": \"calls\", \"origin\": \"init\", \"rank\": 0, \"op\": \"AllReduce\", \"n\": %d}\n",
           early_calls + 30);
    printf("{\"expect\": \"totals\", \"key\": \"dropped\", \"n\": 0}\n");
    printf("{\"expect\": \"totals\", \"key\": \"files\", \"n\": 1}\n");
    return 0;
}
