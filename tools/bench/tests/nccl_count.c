/* Test double for bench.nccl_calls: an LD_PRELOAD library that counts every
 * call of every NCCL API function (the table of preload/abi/nccl_api.def),
 * forwards it to the real library, and at exit writes "name count" lines to
 * $NCCL_COUNT_DIR/<pid>. It checks what the bench's own JSON cannot: how
 * many NCCL calls and groups the bench really made. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "abi/nccl_abi.h"

enum {
#define COUNT_INDEX(name, ...) IDX_##name,
    NCCLTAP_NCCL_API(COUNT_INDEX)
#undef COUNT_INDEX
    IDX_COUNT
};

static const char *const names[IDX_COUNT] = {
#define COUNT_NAME(name, ...) #name,
    NCCLTAP_NCCL_API(COUNT_NAME)
#undef COUNT_NAME
};

static unsigned long counts[IDX_COUNT];

#define COUNT_WRAP(name, params, args, ...)                                      \
    ncclResult_t name params                                                     \
    {                                                                            \
        static ncclResult_t (*real) params;                                      \
        if (!real)                                                               \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                           \
        __atomic_fetch_add(&counts[IDX_##name], 1, __ATOMIC_RELAXED);            \
        return real ? real args : ncclInvalidUsage;                              \
    }
NCCLTAP_NCCL_API(COUNT_WRAP)
#undef COUNT_WRAP

__attribute__((destructor)) static void write_counts(void)
{
    const char *dir = getenv("NCCL_COUNT_DIR");
    unsigned long any = 0;
    for (int i = 0; i < IDX_COUNT; i++)
        any |= counts[i];
    if (!dir || !any)       /* the parent of --ranks calls no NCCL */
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%ld", dir, (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    for (int i = 0; i < IDX_COUNT; i++)
        if (counts[i])
            fprintf(f, "%s %lu\n", names[i], counts[i]);
    fclose(f);
}
