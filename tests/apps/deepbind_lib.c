/* A library linked against NCCL that its program loads with
 * RTLD_DEEPBIND: its own dependencies come first in its symbol lookups, so
 * its NCCL calls go to libnccl directly, past a preloaded nccltap. */
#include "abi/nccl_abi.h"

int deepbind_nccl_version(void);

int deepbind_nccl_version(void)
{
    int v = 0;
    return ncclGetVersion(&v) == ncclSuccess ? v : -1;
}
