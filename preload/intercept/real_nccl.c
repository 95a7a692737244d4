#include "real_nccl.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "nccl_ops.h"
#include "runtime.h"

struct real_nccl tap_real_nccl;
_Atomic int tap_real_nccl_ready;
static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;
#define real tap_real_nccl

static int find_nccl(struct dl_phdr_info *info, size_t size, void *found)
{
    (void)size;
    const char *slash = strrchr(info->dlpi_name, '/');
    const char *base = slash ? slash + 1 : info->dlpi_name;
    if (strncmp(base, "libnccl.so", 10) != 0)
        return 0;
    *(void **)found = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
    return *(void **)found != NULL;
}

/* The NCCL to call. Usually the next definition after the shim in the
 * global scope (RTLD_NEXT). An application whose NCCL comes with a library
 * it dlopen()s privately (Python extension modules, PyTorch among them) has
 * it outside that scope, although its calls still reach the shim: then the
 * loaded libnccl.so is found by name among the process's objects. */
/* Why the library NCCLTAP_NCCL_LIBRARY names cannot be the NCCL to call,
 * or NULL when it can. Calling nccltap itself would recurse forever. */
static const char *not_nccl(void *lib)
{
    void *init = dlsym(lib, "ncclCommInitRank");
    Dl_info theirs, ours;
    if (init && dladdr(init, &theirs) && dladdr((void *)not_nccl, &ours) && theirs.dli_fbase == ours.dli_fbase)
        return "it is nccltap itself";
    if (!init || !dlsym(lib, "ncclGetVersion"))
        return "it has no NCCL (no ncclGetVersion or ncclCommInitRank)";
    return NULL;
}

static atomic_flag library_said = ATOMIC_FLAG_INIT;

static void *nccl_library(void)
{
    if (tap_config.nccl_library) {
        void *lib = dlopen(tap_config.nccl_library, RTLD_NOW | RTLD_GLOBAL);
        const char *why = lib ? not_nccl(lib) : dlerror();
        if (!why)
            return lib;
        TAP_LOG_ONCE(library_said, "NCCLTAP_NCCL_LIBRARY=%s cannot be used (%s); using the NCCL the "
                     "application links", tap_config.nccl_library, why);
    }
    if (dlsym(RTLD_NEXT, "ncclGetVersion"))
        return RTLD_NEXT;
    void *lib = NULL;
    dl_iterate_phdr(find_nccl, &lib);
    return lib;
}

/* Caller holds resolve_lock. */
static void resolve(void)
{
    void *lib = nccl_library();
    if (!lib)
        return; /* not loaded yet: tried again when a function is missing */
#define NCCLTAP_REAL_RESOLVE(name, params, args, kind) *(void **)&real.name = dlsym(lib, #name);
    NCCLTAP_NCCL_API(NCCLTAP_REAL_RESOLVE)
#undef NCCLTAP_REAL_RESOLVE
#define NCCLTAP_REAL_QUERY_RESOLVE(ret, name, params, args) *(void **)&real.name = dlsym(lib, #name);
    NCCLTAP_NCCL_QUERIES(NCCLTAP_REAL_QUERY_RESOLVE)
#undef NCCLTAP_REAL_QUERY_RESOLVE
    int v = 0;
    if (real.ncclGetVersion && real.ncclGetVersion(&v) == ncclSuccess)
        real.version = v;
}

const struct real_nccl *real_nccl_resolve(void)
{
    tap_bring_up(); /* NCCLTAP_NCCL_LIBRARY, also before the constructor ran */
    pthread_mutex_lock(&resolve_lock);
    if (!atomic_load_explicit(&tap_real_nccl_ready, memory_order_relaxed)) {
        resolve();
        atomic_store_explicit(&tap_real_nccl_ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&resolve_lock);
    return &real;
}

const struct real_nccl *real_nccl_retry(void)
{
    pthread_mutex_lock(&resolve_lock);
    if (!real.ncclGetVersion)
        resolve();
    pthread_mutex_unlock(&resolve_lock);
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
