/* Another NCCL-wrapping tool, of the plain LD_PRELOAD kind (as NVIDIA's
 * checkpoint shim for NCCL): it defines every function of nccltap's
 * table, counts the call and calls the next definition, found with
 * dlsym(RTLD_NEXT), returning its result unchanged. Preloaded before or
 * after nccltap, or between or after two copies of it, it must see every
 * call of the program, once, and the program the results NCCL gave.
 * Says at exit: "chain_tool: N calls, F failed" (F: results other than
 * ncclSuccess it passed back). Any thread. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>

#include "abi/nccl_abi.h"

static _Atomic int calls, failed;

/* The next definition of `name` after this tool, looked up once per
 * function (a race looks it up twice, with the same answer). */
static void *next_of(void *_Atomic *slot, const char *name)
{
    void *fn = atomic_load(slot);
    if (!fn) {
        fn = dlsym(RTLD_NEXT, name);
        atomic_store(slot, fn);
    }
    return fn;
}

static ncclResult_t counted(ncclResult_t r)
{
    atomic_fetch_add(&calls, 1);
    if (r != ncclSuccess)
        atomic_fetch_add(&failed, 1);
    return r;
}

#define CHAIN_TOOL_WRAP(name, params, args, kind)                                       \
    __attribute__((visibility("default"))) ncclResult_t name params                      \
    {                                                                                   \
        static void *_Atomic next;                                                      \
        ncclResult_t(*fn) params = (ncclResult_t(*) params)next_of(&next, #name);       \
        return counted(fn ? fn args : ncclInvalidUsage);                                \
    }
NCCLTAP_NCCL_API(CHAIN_TOOL_WRAP)
#undef CHAIN_TOOL_WRAP

__attribute__((destructor)) static void said(void)
{
    fprintf(stderr, "chain_tool: %d calls, %d failed\n", atomic_load(&calls), atomic_load(&failed));
}
