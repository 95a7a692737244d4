#include "nccl/shim_copy.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stddef.h>

/* Exported by nccltap and by nothing else (exports.map): a library that
 * has it is nccltap, at whatever path, a copy included. Looked up with
 * dlvsym under its version node (NCCLTAP, exports.map): dlvsym is no
 * copy's hook, so two copies never ask each other's dlsym, which would
 * ask this again. */
__attribute__((visibility("default"), used)) const char nccltap_shim_marker[] = "nccltap " NCCLTAP_VERSION;

extern const char __ehdr_start[] __attribute__((visibility("hidden")));

const void *tap_shim_self(void)
{
    return __ehdr_start;
}

static const void *object_of(const void *addr)
{
    Dl_info info;
    return addr && dladdr(addr, &info) ? info.dli_fbase : NULL;
}

bool tap_shim_passive(void)
{
    enum { UNKNOWN, ACTIVE, PASSIVE };
    static _Atomic int state;
    int s = atomic_load_explicit(&state, memory_order_acquire);
    if (s == UNKNOWN) {
        /* The first marker in the global scope: this copy's, unless another
         * copy is ahead. None found (this copy loaded privately, with
         * RTLD_LOCAL, and no other one global): active. */
        const void *first = object_of(dlvsym(RTLD_DEFAULT, TAP_SHIM_MARKER, "NCCLTAP"));
        s = first && first != tap_shim_self() ? PASSIVE : ACTIVE;
        atomic_store_explicit(&state, s, memory_order_release);
    }
    return s == PASSIVE;
}

bool tap_shim_copy_at(const void *addr)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!addr || !dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm || info.dli_fbase == tap_shim_self())
        return false;
    void *h = lm->l_name && lm->l_name[0] ? dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (!h)
        return false;
    /* A handle searches the object and its dependencies: the definition
     * must be the object's own. */
    bool copy = object_of(dlvsym(h, TAP_SHIM_MARKER, "NCCLTAP")) == info.dli_fbase;
    dlclose(h);
    return copy;
}
