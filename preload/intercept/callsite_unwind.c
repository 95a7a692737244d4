#include "callsite_unwind.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

#ifdef NCCLTAP_WITH_LIBUNWIND
#include <libunwind.h>
#endif

/* ---- libunwind, loaded on first use ----
 * Loaded with dlopen and RTLD_LOCAL rather than linked: libunwind.so.8
 * defines backtrace() and the _Unwind_* functions C++ exceptions use, and a
 * preloaded library's dependencies come before libc and libgcc_s in symbol
 * lookup, so linking it would swap the application's unwinder. Loading it
 * also keeps the shim usable where it is not installed. */
static int (*backtrace_fn)(void **buffer, int size);

static void load_libunwind(void)
{
#ifdef NCCLTAP_WITH_LIBUNWIND
    void *lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL); /* never closed */
    if (lib)
        backtrace_fn = (__typeof__(&unw_backtrace))dlsym(lib, "unw_backtrace");
    if (!backtrace_fn)
        tap_log("NCCLTAP_CALLSITE_DEPTH=%u needs libunwind.so.8, which cannot be loaded (%s): "
                "call sites have one frame", tap_config.callsite_depth, lib ? "no unw_backtrace" : dlerror());
#else
    tap_log("NCCLTAP_CALLSITE_DEPTH=%u: this nccltap was built without libunwind: call sites have one frame",
            tap_config.callsite_depth);
#endif
}

bool tap_unwind_ready(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_libunwind);
    return backtrace_fn != NULL;
}

/* ---- which addresses are in skipped libraries ----
 * A sorted snapshot of every loaded object's address range, marked skipped
 * or not, rebuilt when an address falls outside all of them (a library
 * loaded since). A snapshot is never freed: a thread may still read it;
 * there is one per rebuild, and rebuilds follow dlopen. */
struct range {
    uintptr_t start, end;
    bool skip;
};
struct module_map {
    unsigned n;
    struct range r[];
};
static struct module_map *_Atomic current;

/* NCCLTAP_CALLSITE_SKIP names a library by its file name, with or without
 * the version suffix ("libtorch_cuda" or "libtorch_cuda.so"), or by path. */
static bool named_skipped(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *list = tap_config.callsite_skip;
    while (*list) {
        size_t n = strcspn(list, ",");
        const char *name = memchr(list, '/', n) ? path : base;
        if (n && strncmp(name, list, n) == 0 && (name[n] == '\0' || name[n] == '.'))
            return true;
        list += n + (list[n] == ',');
    }
    return false;
}

struct build {
    struct module_map *map;
    unsigned cap;
};

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct build *b = data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t s = info->dlpi_addr + ph->p_vaddr;
        lo = s < lo ? s : lo;
        hi = s + ph->p_memsz > hi ? s + ph->p_memsz : hi;
    }
    if (lo >= hi)
        return 0;
    if (b->map->n == b->cap) {
        unsigned cap = b->cap * 2;
        struct module_map *m = realloc(b->map, sizeof *m + cap * sizeof m->r[0]);
        if (!m)
            return 1;
        b->map = m;
        b->cap = cap;
    }
    b->map->r[b->map->n++] = (struct range){lo, hi, named_skipped(info->dlpi_name)};
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static struct module_map *rebuild(void)
{
    struct build b = {malloc(sizeof *b.map + 64 * sizeof b.map->r[0]), 64};
    if (!b.map)
        return NULL;
    b.map->n = 0;
    dl_iterate_phdr(add_object, &b);
    qsort(b.map->r, b.map->n, sizeof b.map->r[0], by_start);
    atomic_store_explicit(&current, b.map, memory_order_release);
    return b.map;
}

static const struct range *find(const struct module_map *m, uintptr_t pc)
{
    unsigned lo = 0, hi = m ? m->n : 0;
    while (lo < hi) {
        unsigned mid = (lo + hi) / 2;
        if (pc < m->r[mid].start)
            hi = mid;
        else if (pc >= m->r[mid].end)
            lo = mid + 1;
        else
            return &m->r[mid];
    }
    return NULL;
}

bool tap_skip_wanted(void) { return tap_config.callsite_skip[0] != '\0'; }

bool tap_skip_pc(uintptr_t pc)
{
    const struct range *r = find(atomic_load_explicit(&current, memory_order_acquire), pc);
    if (!r)
        r = find(rebuild(), pc); /* code outside every object (JIT) lands here each time */
    return r && r->skip;
}

/* ---- the walk ---- */

/* Frames above the wrapper's return address that a walk looks at: enough
 * for nccltap's own frames (before it) and, with libraries to skip, for a
 * deep framework stack. */
#define WALK_FRAMES 128

void tap_unwind_site(uintptr_t ra, uintptr_t *out, unsigned depth)
{
    void *raw[WALK_FRAMES];
    bool skipping = tap_skip_wanted();
    int n = backtrace_fn(raw, skipping ? WALK_FRAMES : (int)depth + 8);
    /* nccltap's frames end where the wrapper returns to. */
    int i = 0;
    while (i < n && (uintptr_t)raw[i] != ra)
        i++;
    unsigned k = 0;
    if (i == n) { /* not found (no unwind information): the one frame known */
        out[k++] = ra;
    } else {
        for (; i < n && k < depth; i++)
            if (!skipping || !tap_skip_pc((uintptr_t)raw[i]))
                out[k++] = (uintptr_t)raw[i];
    }
    while (k < depth)
        out[k++] = 0;
}
