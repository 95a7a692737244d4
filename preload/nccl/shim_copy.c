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

/* The loaded object holding `addr`, by its link map. */
static struct link_map *map_of(const void *addr)
{
    Dl_info info;
    struct link_map *lm = NULL;
    return addr && dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) ? lm : NULL;
}

/* The definition of `name` (of `version`, when not NULL) in the object of
 * `lm` itself, or NULL: a handle searches the object and then its
 * dependencies, so a definition found elsewhere is not the object's. */
static void *own_definition(struct link_map *lm, const char *name, const char *version)
{
    void *h = lm->l_name && lm->l_name[0] ? dlopen(lm->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (!h)
        return NULL;
    void *def = version ? dlvsym(h, name, version) : dlsym(h, name);
    dlclose(h);
    return def && map_of(def) == lm ? def : NULL;
}

static bool other_copy(struct link_map *lm)
{
    return lm != map_of(tap_shim_self()) && own_definition(lm, TAP_SHIM_MARKER, "NCCLTAP") != NULL;
}

bool tap_shim_copy_at(const void *addr)
{
    struct link_map *lm = map_of(addr);
    return lm && other_copy(lm);
}

void *tap_shim_next_past_copies(const void *in_copy, const void *in_nccl, const char *name)
{
    struct link_map *copy = map_of(in_copy), *nccl = map_of(in_nccl);
    if (!copy || !nccl)
        return NULL;
    for (struct link_map *lm = copy->l_next; lm; lm = lm->l_next) {
        void *def = lm == nccl || !other_copy(lm) ? own_definition(lm, name, NULL) : NULL;
        if (def || lm == nccl)
            return def;
    }
    return NULL;
}
