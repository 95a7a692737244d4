/* A thread looks NCCL's functions up with dlsym, before any NCCL is
 * loaded, while the main thread loads and unloads a library whose
 * constructor does the same (ctor_lookup_lib.c) 2,000 times. Neither may
 * wait for the other: nccltap answers both lookups, and must not hold a
 * lock of its own across the loader's. Stops itself (SIGALRM, 20 s) if stuck.
 * Usage: ctor_lookup_main LIB */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static atomic_int done;

static void *look_up(void *arg)
{
    (void)arg;
    unsigned long n = 0;
    while (!atomic_load(&done))
        n += dlsym(RTLD_DEFAULT, "ncclAllReduce") != NULL;
    return (void *)n;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    alarm(20);
    pthread_t t;
    if (pthread_create(&t, NULL, look_up, NULL) != 0)
        return 2;
    for (int i = 0; i < 2000; i++) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            fprintf(stderr, "ctor_lookup_main: %s\n", dlerror());
            return 1;
        }
        dlclose(h);
    }
    atomic_store(&done, 1);
    void *found;
    pthread_join(t, &found);
    printf("{\"result\": \"found_without_nccl\", \"code\": %d}\n", found != NULL);
    return 0;
}
