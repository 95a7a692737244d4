#include "entry/unseen.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>

#include "base/got_scan.h"
#include "base/log.h"
#include "entry/api_table.h"
#include "nccl/real_nccl.h"

/* The first loaded libnccl.so, by the name real_nccl.c finds NCCL by
 * (not nccltap's own, nor its simulator's test doubles of other names),
 * and an address inside it. */
struct libnccl {
    const char *name;
    const void *inside;
};

static int find_libnccl(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    if (!real_nccl_is_library(info->dlpi_name))
        return 0;
    struct libnccl *l = out;
    l->name = info->dlpi_name;
    for (int i = 0; i < info->dlpi_phnum && !l->inside; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD)
            l->inside = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    return 1;
}

void tap_say_unseen_nccl(void)
{
    if (atomic_load_explicit(&tap_real_nccl_current, memory_order_acquire))
        return; /* a wrapper ran: NCCL's calls come through */
    /* Who defines ncclAllReduce first in the global scope: nccltap, unless
     * the program (or a library ahead of nccltap) has NCCL inside. This
     * lookup is nccltap's own, so its dlsym passes it on. */
    Dl_info mine, first, nccl;
    if (!dladdr((void *)tap_say_unseen_nccl, &mine))
        return;
    void *f = dlsym(RTLD_DEFAULT, "ncclAllReduce");
    if (f && dladdr(f, &first) && first.dli_fbase != mine.dli_fbase) {
        tap_log("no NCCL call reached nccltap: ncclAllReduce is defined in %s, ahead of nccltap (NCCL linked "
                "statically into it), so its calls cannot be seen",
                first.dli_fname && first.dli_fname[0] ? first.dli_fname : "the program");
        return;
    }
    /* libnccl loaded and no call through nccltap: said only where an object
     * is bound to it directly (RTLD_DEEPBIND) for a function nccltap wraps.
     * The functions it does not wrap (ncclGetVersion, ncclGetErrorString,
     * ncclMemAlloc...) are bound to libnccl in every process, rightly: a
     * program that only asked NCCL's version, the torchrun agent that
     * imports torch, a launcher that links NCCL and forks its ranks, hear
     * nothing. */
    struct libnccl lib = { NULL, NULL };
    dl_iterate_phdr(find_libnccl, &lib);
    const char *caller = lib.inside && dladdr(lib.inside, &nccl)
                             ? tap_got_bound_into(nccl.dli_fbase, mine.dli_fbase, tap_api_wraps) : NULL;
    if (caller)
        tap_log("no NCCL call reached nccltap: %s calls %s directly, past the preloaded nccltap (it was loaded "
                "with RTLD_DEEPBIND, which binds a library to its own dependencies first)",
                caller[0] ? caller : "the program", lib.name);
}
