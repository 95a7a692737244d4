/* Runs out of file descriptors for a few intervals right after its first
 * NCCL calls, then has them again: a passing EMFILE when the shim first
 * opens its output directory. The shim must try again and write every
 * call. Run with NCCLTAP_INTERVAL_MS=100. With the argument "first-call",
 * the descriptors are gone from before the first call until the next
 * second: the shim's first perf_event_open for the calling thread
 * (NCCLTAP_OS=switch) fails with EMFILE too, and must be tried again.
 * Prints expectations for tests/shim_case.py. */
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "nccl_app.h"

#define COUNT 1024
#define MAX_FDS 1024 /* the soft limit is lowered to this */

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, ms % 1000 * 1000000L};
    nanosleep(&t, NULL);
}

/* Holds every descriptor up to MAX_FDS for `ms`, then lets them go. */
static void starve(long ms)
{
    struct rlimit old, low;
    getrlimit(RLIMIT_NOFILE, &old);
    low = old;
    if (low.rlim_cur > MAX_FDS)
        low.rlim_cur = MAX_FDS;
    setrlimit(RLIMIT_NOFILE, &low);
    static int held[MAX_FDS];
    int n = 0;
    while (n < MAX_FDS && (held[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
        n++;
    sleep_ms(ms);
    while (n > 0)
        close(held[--n]);
    setrlimit(RLIMIT_NOFILE, &old);
}

int main(int argc, char **argv)
{
    int first_call = argc > 1 && strcmp(argv[1], "first-call") == 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    app_cuda_init();
    CUstream s = app_stream_on(0);
    void *b = app_buffer(COUNT * 4);
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, 1, id, 0));
    if (first_call) {
        /* The first call made while the descriptors are gone; the
         * reducer's first look at its thread comes then. */
        struct rlimit old, low;
        getrlimit(RLIMIT_NOFILE, &old);
        low = old;
        low.rlim_cur = 3;
        setrlimit(RLIMIT_NOFILE, &low);
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
        sleep_ms(350);
        setrlimit(RLIMIT_NOFILE, &old);
        sleep_ms(1300); /* past the shim's second before it tries the thread again */
    } else {
        CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
        starve(350); /* three intervals without a descriptor to spare */
    }
    CHECK_NCCL(ncclAllReduce(b, b, COUNT, ncclFloat32, ncclSum, comm, s));
    CHECK_CU(cu.cuStreamSynchronize(s));
    sleep_ms(250);
    CHECK_NCCL(ncclCommDestroy(comm));
    printf("{\"expect\": \"calls\", \"origin\": \"init\", \"rank\": 0, \"op\": \"AllReduce\", \"n\": 2}\n");
    printf("{\"expect\": \"totals\", \"key\": \"files\", \"n\": 1}\n");
    return 0;
}
