/* Another preloaded tool that wraps dlsym, as such tools are written: in
 * C, finding the next dlsym by its version. Preloaded before or after
 * nccltap (shim.dlsym_beside_another_tool*): both must keep working. At
 * exit it says how often the program looked up "nccltap_shim_marker" (a
 * name only dlsym_nccl looks up) through it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>


static void *(*next_dlsym)(void *, const char *);
static unsigned long marker_lookups;

void *dlsym(void *handle, const char *name)
{
    if (!next_dlsym) {
        *(void **)&next_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (!next_dlsym)
            *(void **)&next_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        if (!next_dlsym)
            *(void **)&next_dlsym = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.17");
    }
    if (strcmp(name, "nccltap_shim_marker") == 0)
        __atomic_fetch_add(&marker_lookups, 1, __ATOMIC_RELAXED);
    return next_dlsym(handle, name);
}

__attribute__((destructor)) static void say(void)
{
    fprintf(stderr, "dlsym_tool: nccltap_shim_marker looked up %lu times\n", marker_lookups);
}
