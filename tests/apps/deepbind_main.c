/* Loads deepbind_lib (argv[1]) with RTLD_DEEPBIND and calls NCCL through
 * it; nccltap sees no call and must say why at exit. Prints "version=1"
 * when the library's NCCL call worked. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_DEEPBIND);
    int (*version)(void) = h ? (int (*)(void))dlsym(h, "deepbind_nccl_version") : NULL;
    if (!version) {
        fprintf(stderr, "deepbind_main: %s\n", dlerror());
        return 1;
    }
    printf("version=%d\n", version() > 0);
    return 0;
}
