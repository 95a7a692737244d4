/* Calls NCCL, then execs itself (the pid stays) and calls NCCL again: each
 * image's output must be kept, the second beside the first. The first
 * image waits past an interval before exec (run with NCCLTAP_INTERVAL_MS
 * at most 100), since exec runs no exit handler: its file is that of its
 * last interval.
 *
 * Usage: exec_self [DEVICE]   (execs itself as `exec_self again [DEVICE]`)
 * With DEVICE, the second image uses that GPU (the first uses GPU 0), and
 * waits as long before it exits, so that its own Prometheus file, of
 * another GPU than the first's, is written and can be watched. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nccl_app.h"

#define COUNT 1024

static void allreduces(int n, int dev)
{
    CUstream s = app_stream_on(dev);
    void *b = app_buffer(COUNT * 4);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    for (int k = 0; k < n; k++)
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    CHECK_NCCL(ncclCommDestroy(comm));
}

static void a_few_intervals(void)
{
    struct timespec t = {0, 400 * 1000000L}; /* a few intervals: the files are written */
    nanosleep(&t, NULL);
}

int main(int argc, char **argv)
{
    app_cuda_init();
    if (argc > 1 && !strcmp(argv[1], "again")) {
        allreduces(4, argc > 2 ? atoi(argv[2]) : 0);
        if (argc > 2)
            a_few_intervals();
        return 0;
    }
    allreduces(3, 0);
    a_few_intervals();
    execl("/proc/self/exe", argv[0], "again", argc > 1 ? argv[1] : (char *)NULL, (char *)NULL);
    perror("exec_self: execl");
    return 1;
}
