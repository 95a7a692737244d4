/* A one-rank job with a thread named as NCCL names its own ("NCCL Proxy 0"),
 * started after the communicator as NCCL starts its proxy, that works and
 * sleeps by turns for the job's length: NCCLTAP_OS must find it by name
 * and record its switches (tests/os_test.py nccl_thread). The calling
 * thread makes 250 AllReduces, 10 ms apart (2.5 s). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "nccl_app.h"

#define CALLS 250

static _Atomic int done;

static void pause_ns(long ns)
{
    struct timespec t = {0, ns};
    nanosleep(&t, NULL);
}

static void *proxy(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "NCCL Proxy 0");
    while (!atomic_load(&done)) {
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do
            clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000);
        pause_ns(1000000);
    }
    return NULL;
}

int main(void)
{
    app_cuda_init();
    CUstream s = app_stream_on(0);
    void *b = app_buffer(1024);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    pthread_t th;
    pthread_create(&th, NULL, proxy, NULL);
    for (int i = 0; i < CALLS; i++) {
        CHECK_NCCL(ncclAllReduce(b, b, 256, ncclFloat32, ncclSum, comm, s));
        CHECK_CU(cu.cuStreamSynchronize(s));
        pause_ns(10000000);
    }
    atomic_store(&done, 1);
    pthread_join(th, NULL);
    CHECK_NCCL(ncclCommDestroy(comm));
    return 0;
}
