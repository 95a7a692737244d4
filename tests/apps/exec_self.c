/* Calls NCCL, then execs itself (the pid stays) and calls NCCL again: each
 * image's output must be kept, the second beside the first. The first
 * image waits past an interval before exec (run with NCCLTAP_INTERVAL_MS
 * at most 100), since exec runs no exit handler: its file is that of its
 * last interval.
 *
 * Usage: exec_self   (execs itself as `exec_self again`) */
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nccl_app.h"

#define COUNT 1024

static void allreduces(int n)
{
    CUstream s = app_stream_on(0);
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

int main(int argc, char **argv)
{
    app_cuda_init();
    if (argc > 1 && !strcmp(argv[1], "again")) {
        allreduces(4);
        return 0;
    }
    allreduces(3);
    struct timespec t = {0, 400 * 1000000L}; /* a few intervals: the file is written */
    nanosleep(&t, NULL);
    execl("/proc/self/exe", argv[0], "again", (char *)NULL);
    perror("exec_self: execl");
    return 1;
}
