/* A library linked against NCCL that its program loads with
 * RTLD_DEEPBIND: its own dependencies come first in its symbol lookups, so
 * its NCCL calls go to libnccl directly, past a preloaded nccltap.
 * deepbind_nccl_version asks only NCCL's version (no evidence that NCCL
 * was used unseen); deepbind_nccl_comm creates and destroys a
 * communicator of one device (evidence). */
#include "abi/nccl_abi.h"

int deepbind_nccl_version(void);
int deepbind_nccl_comm(void);

int deepbind_nccl_version(void)
{
    int v = 0;
    return ncclGetVersion(&v) == ncclSuccess ? v : -1;
}

int deepbind_nccl_comm(void)
{
    ncclComm_t comm = NULL;
    if (ncclCommInitAll(&comm, 1, NULL) != ncclSuccess)
        return -1;
    return ncclCommDestroy(comm) == ncclSuccess ? 1 : -1;
}
