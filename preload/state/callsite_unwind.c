#include "state/callsite_unwind.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "base/config.h"
#include "base/log.h"

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
 * or not, stamped with the loader's counts of objects loaded and unloaded
 * when it was made (dl_phdr_info's dlpi_adds and dlpi_subs). Lookups are
 * lock-free. An address outside every range (a library loaded since, or
 * code outside every object: JIT, a bad frame) rebuilds it only when those
 * counts have changed; otherwise it costs one step of dl_iterate_phdr and
 * no allocation. A rebuilt snapshot replaces the one it was made for only
 * if no other thread replaced it first (else it is freed unseen), so no
 * lock is taken. A replaced snapshot is never freed, as a thread may still
 * read it: each new one links to the one it replaced, so there is one per
 * change of the loaded objects, all reachable. */
struct range {
    uintptr_t start, end;
    bool skip;
};

/* The loader's counts of objects loaded and unloaded (0, 0 and the number
 * of objects where dl_phdr_info lacks them). */
struct stamp {
    unsigned long long adds, subs;
    unsigned objects;
};

struct module_map {
    const struct module_map *older;
    struct stamp stamp;
    unsigned n;
    struct range r[];
};
static struct module_map *_Atomic current;

static bool has_counts(size_t size)
{
    return size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(((struct dl_phdr_info *)0)->dlpi_subs);
}

static int read_stamp(struct dl_phdr_info *info, size_t size, void *data)
{
    struct stamp *s = data;
    if (has_counts(size)) {
        s->adds = info->dlpi_adds;
        s->subs = info->dlpi_subs;
        return 1; /* the same in every object's info: the first is enough */
    }
    s->objects++;
    return 0;
}

/* Whether objects were loaded or unloaded since m was made. */
static bool changed(const struct module_map *m)
{
    struct stamp now = {0, 0, 0};
    dl_iterate_phdr(read_stamp, &now);
    return now.adds != m->stamp.adds || now.subs != m->stamp.subs || now.objects != m->stamp.objects;
}

/* NCCLTAP_CALLSITE_SKIP names a library by its file name, with or without
 * the version suffix ("libtorch_cuda" or "libtorch_cuda.so"), or by path;
 * the program itself by the name it was run as (AT_EXECFN: "python3.11"). */
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
    unsigned cap, objects;
    bool counts;
};

static int add_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct build *b = data;
    b->objects++;
    if (has_counts(size)) {
        b->counts = true;
        b->map->stamp.adds = info->dlpi_adds;
        b->map->stamp.subs = info->dlpi_subs;
    }
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
    /* The program comes first, with no name of its own. */
    const char *name = info->dlpi_name;
    if (!name[0] && b->objects == 1 && getauxval(AT_EXECFN))
        name = (const char *)getauxval(AT_EXECFN);
    b->map->r[b->map->n++] = (struct range){lo, hi, named_skipped(name)};
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* A snapshot of the objects loaded now, published in place of `old`
 * unless another thread published one first (then that one, and this one
 * freed: no thread has seen it); `old` when there is no memory. */
static const struct module_map *rebuild(struct module_map *old)
{
    struct build b = {malloc(sizeof *b.map + 64 * sizeof b.map->r[0]), 64, 0, false};
    if (!b.map)
        return old;
    b.map->older = old;
    b.map->stamp = (struct stamp){0, 0, 0};
    b.map->n = 0;
    dl_iterate_phdr(add_object, &b);
    if (!b.counts)
        b.map->stamp.objects = b.objects;
    qsort(b.map->r, b.map->n, sizeof b.map->r[0], by_start);
    struct module_map *seen = old;
    if (atomic_compare_exchange_strong_explicit(&current, &seen, b.map, memory_order_acq_rel,
                                                memory_order_acquire))
        return b.map;
    free(b.map);
    return seen;
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
    struct module_map *m = atomic_load_explicit(&current, memory_order_acquire);
    const struct range *r = find(m, pc);
    if (!r && (!m || changed(m)))
        r = find(rebuild(m), pc);
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
