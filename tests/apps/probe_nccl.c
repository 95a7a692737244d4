/* Probes for NCCL's functions as a program that supports several NCCL
 * versions does: dlsym(RTLD_DEFAULT, NAME) for each argument, printing
 * {"result": "found_NAME", "code": 1 found, 0 not found with dlerror()
 * saying why, 2 not found and dlerror() NULL (what ctypes and the POSIX
 * idiom `if (!dlerror())` take for found, and crash on)}. Links NCCL (the
 * simulator first on LD_LIBRARY_PATH chooses which), so that NCCL is
 * loaded. A function the NCCL lacks must be absent with nccltap preloaded
 * too, as glibc says it. */
#include <dlfcn.h>
#include <stdio.h>

#include "abi/nccl_abi.h"

int main(int argc, char **argv)
{
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess)
        return 1;
    for (int i = 1; i < argc; i++) {
        dlerror();
        void *p = dlsym(RTLD_DEFAULT, argv[i]);
        const char *why = dlerror();
        printf("{\"result\": \"found_%s\", \"code\": %d}\n", argv[i], p ? 1 : why ? 0 : 2);
    }
    return 0;
}
