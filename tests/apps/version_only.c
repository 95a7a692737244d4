/* A program linked against NCCL that only asks its version, as a launcher
 * or a framework's import does: no NCCL call nccltap wraps, so nccltap
 * has nothing to count and nothing to warn of. Prints "version=1". */
#include <stdio.h>

#include "abi/nccl_abi.h"

int main(void)
{
    int v = 0;
    printf("version=%d\n", ncclGetVersion(&v) == ncclSuccess && v > 0);
    return 0;
}
