/* Loads deepbind_lib (argv[1]) with RTLD_DEEPBIND and calls NCCL through
 * it: argv[2] "comm" creates a communicator there (nccltap sees no call
 * and must say why at exit), "version" only asks NCCL's version, the
 * library loaded lazily (RTLD_LAZY: its slots for the functions it does
 * not call stay unbound, so nothing shows NCCL used unseen). Prints "version=1" (and "comm=1") when the library's NCCL
 * calls worked. */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    bool use = strcmp(argv[2], "comm") == 0;
    void *h = dlopen(argv[1], (use ? RTLD_NOW : RTLD_LAZY) | RTLD_DEEPBIND);
    int (*version)(void) = h ? (int (*)(void))dlsym(h, "deepbind_nccl_version") : NULL;
    int (*comm)(void) = h ? (int (*)(void))dlsym(h, "deepbind_nccl_comm") : NULL;
    if (!version || !comm) {
        fprintf(stderr, "deepbind_main: %s\n", dlerror());
        return 1;
    }
    printf("version=%d\n", version() > 0);
    if (use)
        printf("comm=%d\n", comm() > 0);
    return 0;
}
