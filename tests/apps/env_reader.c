/* A thread reads the environment (getenv, as a library reading its
 * settings does) for the whole life of the program, while the main thread
 * makes its first communicator and calls NCCL. The environment was grown
 * by the program first (setenv of a new name, as Python's os.environ
 * does), so a later setenv reallocates the array under the reader.
 * Prints expectations for tests/shim_case.py. */
#include <pthread.h>
#include <stdatomic.h>

#include "nccl_app.h"

#define CALLS 50

static atomic_int stop;
static unsigned long long reads;

static void *reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop))
        reads += getenv("ENV_READER_NEVER_SET") == NULL;
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    setenv("ENV_READER_GROWN", "1", 1);
    pthread_t t;
    if (pthread_create(&t, NULL, reader, NULL) != 0)
        return 2;
    app_cuda_init();
    CUstream s = app_stream_on(0);
    void *b = app_buffer(1024);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    for (int i = 0; i < CALLS; i++)
        CHECK_NCCL(ncclAllReduce(b, b, 256, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("{\"expect\": \"calls\", \"origin\": \"init\", \"rank\": 0, \"op\": \"AllReduce\", \"n\": %d}\n", CALLS);
    return reads ? 0 : 3;
}
