#include "entry/unseen.h"

#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>

#include "base/log.h"
#include "nccl/real_nccl.h"

/* The first loaded object whose file name holds "libnccl.so" (not
 * nccltap's own, nor its simulator's test doubles of other names). */
static int find_libnccl(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    const char *name = info->dlpi_name, *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, "libnccl.so", 10) != 0)
        return 0;
    *(const char **)out = name;
    return 1;
}

void tap_say_unseen_nccl(void)
{
    if (atomic_load_explicit(&tap_real_nccl_ready, memory_order_acquire))
        return; /* a wrapper ran: NCCL's calls come through */
    /* Who defines ncclAllReduce first in the global scope: nccltap, unless
     * the program (or a library ahead of nccltap) has NCCL inside. This
     * lookup is nccltap's own, so its dlsym passes it on. */
    Dl_info mine, first;
    void *f = dlsym(RTLD_DEFAULT, "ncclAllReduce");
    if (f && dladdr(f, &first) && dladdr((void *)tap_say_unseen_nccl, &mine) &&
        first.dli_fbase != mine.dli_fbase) {
        tap_log("no NCCL call reached nccltap: ncclAllReduce is defined in %s, ahead of nccltap (NCCL linked "
                "statically into it), so its calls cannot be seen",
                first.dli_fname && first.dli_fname[0] ? first.dli_fname : "the program");
        return;
    }
    const char *lib = NULL;
    dl_iterate_phdr(find_libnccl, &lib);
    if (lib)
        tap_log("no NCCL call reached nccltap, although %s is loaded: if the program called NCCL, a library "
                "that loaded it with RTLD_DEEPBIND made the calls, which go past the preloaded nccltap", lib);
}
