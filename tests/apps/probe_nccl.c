/* Probes for NCCL's functions as a program that supports several NCCL
 * versions does: dlsym(RTLD_DEFAULT, NAME) for each argument, printing
 * {"result": "found_NAME", "code": 0 or 1}. Links NCCL (the simulator
 * first on LD_LIBRARY_PATH chooses which), so that NCCL is loaded. A
 * function the NCCL lacks must be absent with nccltap preloaded too. */
#include <dlfcn.h>
#include <stdio.h>

#include "abi/nccl_abi.h"

int main(int argc, char **argv)
{
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess)
        return 1;
    for (int i = 1; i < argc; i++)
        printf("{\"result\": \"found_%s\", \"code\": %d}\n", argv[i], dlsym(RTLD_DEFAULT, argv[i]) != NULL);
    return 0;
}
