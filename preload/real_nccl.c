#include "real_nccl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "nccl_ops.h"

struct real_nccl tap_real_nccl;
_Atomic int tap_real_nccl_ready;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;
#define real tap_real_nccl

static void resolve(void)
{
    void *lib = RTLD_NEXT;
    if (tap_config.nccl_library) {
        lib = dlopen(tap_config.nccl_library, RTLD_NOW | RTLD_GLOBAL);
        if (!lib) {
            tap_log("NCCLTAP_NCCL_LIBRARY=%s cannot be loaded (%s); using the NCCL the application links",
                    tap_config.nccl_library, dlerror());
            lib = RTLD_NEXT;
        }
    }
#define NCCLTAP_REAL_RESOLVE(name, params, args, kind) *(void **)&real.name = dlsym(lib, #name);
    NCCLTAP_NCCL_API(NCCLTAP_REAL_RESOLVE)
    NCCLTAP_REAL_RESOLVE(ncclGetVersion, , , )
    NCCLTAP_REAL_RESOLVE(ncclCommCount, , , )
    NCCLTAP_REAL_RESOLVE(ncclCommCuDevice, , , )
    NCCLTAP_REAL_RESOLVE(ncclCommUserRank, , , )
#undef NCCLTAP_REAL_RESOLVE
    int v = 0;
    if (real.ncclGetVersion && real.ncclGetVersion(&v) == ncclSuccess)
        real.version = v;
    atomic_store_explicit(&tap_real_nccl_ready, 1, memory_order_release);
}

const struct real_nccl *real_nccl_resolve(void)
{
    pthread_once(&real_once, resolve);
    return &real;
}

/* Distinct functions are few; a small table of names said keeps "once". */
#define MISSING_MAX 32
static const char *_Atomic missing_said[MISSING_MAX];

ncclResult_t real_nccl_missing(const char *name)
{
    for (int i = 0; i < MISSING_MAX; i++) {
        const char *seen = atomic_load(&missing_said[i]);
        if (seen == name)
            return ncclInvalidUsage;
        if (!seen) {
            const char *expected = NULL;
            if (atomic_compare_exchange_strong(&missing_said[i], &expected, name)) {
                char v[32];
                tap_log("%s is not in the NCCL library in use (version %s); returning ncclInvalidUsage",
                        name, tap_nccl_version_str(real.version, v, sizeof v));
                return ncclInvalidUsage;
            }
            if (expected == name)
                return ncclInvalidUsage;
        }
    }
    return ncclInvalidUsage;
}
