/* exit() while 8 other threads still call NCCL as fast as they can, each on
 * a one-rank communicator of its own (grouped pairs of AllReduces with
 * `groups`). The shim must still write its rank file, with every call in a
 * row or a counter, and leave within NCCLTAP_EXIT_WAIT_MS. Prints, for
 * tests/shim_case.py, the one file expected and when exit() was called
 * (CLOCK_MONOTONIC, which the checker reads too).
 *
 * Usage: busy_exit plain|groups */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "nccl_app.h"

#define THREADS 8
#define COUNT 256
#define CALLS_BEFORE_EXIT 200 /* per thread: exit comes mid-stream */

static bool grouped;
static _Atomic int warmed_up;

static void *caller(void *arg)
{
    int dev = (int)(long)arg % 4;
    CUstream s = app_stream_on(dev);
    void *b = app_buffer(COUNT * 4);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    for (long k = 0;; k++) {
        if (grouped)
            CHECK_NCCL(ncclGroupStart());
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
        if (grouped) {
            CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
            CHECK_NCCL(ncclGroupEnd());
        }
        if (k == CALLS_BEFORE_EXIT)
            atomic_fetch_add(&warmed_up, 1);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2 || (strcmp(argv[1], "plain") && strcmp(argv[1], "groups"))) {
        fprintf(stderr, "usage: busy_exit plain|groups\n");
        return 2;
    }
    grouped = !strcmp(argv[1], "groups");
    app_cuda_init();
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, caller, (void *)t);
    while (atomic_load(&warmed_up) < THREADS) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    printf("{\"expect\": \"totals\", \"key\": \"files\", \"n\": 1}\n");
    printf("{\"exit_called_ns\": %lld}\n", (long long)now.tv_sec * 1000000000ll + now.tv_nsec);
    exit(0); /* the callers are still calling */
}
