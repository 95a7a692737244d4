/* A library whose constructor looks an NCCL function up (as a binding
 * that finds NCCL lazily does), while the dynamic loader holds its lock
 * for the dlopen() that runs the constructor. */
#include <dlfcn.h>
#include <stddef.h>

int ctor_lookup_found;

__attribute__((constructor)) static void look_up(void)
{
    ctor_lookup_found += dlsym(RTLD_DEFAULT, "ncclCommInitRank") != NULL;
}
