/* A CUDA-graph workload, as CUDA-graph training steps and serving engines
 * run one: each rank (a forked process) captures 4 all-reduces and an
 * all-gather into a graph, instantiates it and launches it ITERS times.
 * It calls the driver's graph entry points directly (linked against
 * libcuda.so.1), the way the dynamic linker lets nccltap see them.
 *
 * Usage: graph_app NRANKS ITERS SYNC_EVERY
 *                  [update | late RANK US | hold MS | churn update | churn instantiate | many N]
 * With `update`, half way the executable graph is updated
 * (cuGraphExecUpdate_v2) to a graph of the same shape whose all-reduces
 * are twice as large. With `late RANK US`, rank RANK sleeps US
 * microseconds before each launch: a straggler seen only in replays
 * (the others wait for it at each launch's first collective). Captures
 * are in the global mode, as PyTorch's are: another thread's
 * synchronization or query in the global mode (nccltap's reducer, unless
 * it relaxes its own mode) invalidates them. With `hold MS`, each capture
 * stays open MS milliseconds after its first operation, long enough for
 * the reducer's periodic work (NCCLTAP_INTERVAL_MS=10) to fall inside.
 * With `churn update`, the executable graph is updated
 * (cuGraphExecUpdate_v2) to the graph it runs before each launch; with
 * `churn instantiate`, each launch has an executable graph of its own,
 * instantiated before it and destroyed after it: the same captured ops
 * run ITERS times either way. With `many N`, N executable graphs of the
 * one graph are instantiated, each launched once (ITERS is not used), and
 * destroyed at the end: N of them alive at once.
 * The stream is synchronized every SYNC_EVERY launches (0: only at the
 * end), as a training step waits for its last one. Prints, per rank, one
 * JSON line: the graph's node count and the wall time of the launches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/nccl_abi.h"
#include "cuda_exports.h"

#define AR_COUNT (256 * 1024) /* 1 MiB of f32 */
#define AG_COUNT (64 * 1024)  /* 256 KiB of f32 sent by each rank */

#define CHECK(call, ok)                                                          \
    do {                                                                         \
        long r_ = (long)(call);                                                  \
        if (r_ != (ok)) {                                                        \
            fprintf(stderr, "%s:%d: %s returned %ld\n", __FILE__, __LINE__, #call, r_); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long hold_ms; /* `hold MS` */

static CUgraph capture(CUstream s, ncclComm_t comm, CUdeviceptr send, CUdeviceptr recv, size_t ar_count)
{
    CUgraph g;
    CHECK(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
    for (int k = 0; k < 4; k++) {
        CHECK(ncclAllReduce((void *)send, (void *)recv, ar_count, ncclFloat32, ncclSum, comm, s), ncclSuccess);
        if (k == 0 && hold_ms)
            usleep((useconds_t)hold_ms * 1000);
    }
    CHECK(ncclAllGather((void *)send, (void *)recv, AG_COUNT, ncclFloat32, comm, s), ncclSuccess);
    CHECK(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
    return g;
}

struct late {
    int rank;     /* -1: none */
    long us;
};

enum churn { CHURN_NONE, CHURN_UPDATE, CHURN_INSTANTIATE };
static enum churn churn; /* `churn update | instantiate` */
static long many;        /* `many N` */

/* `many N`: N executable graphs of g alive at once, each launched once. */
static void launch_many(CUstream s, CUgraph g)
{
    CUgraphExec *x = calloc((size_t)many, sizeof *x);
    if (!x)
        exit(1);
    for (long i = 0; i < many; i++) {
        CHECK(cuGraphInstantiateWithFlags(&x[i], g, 0), CUDA_SUCCESS);
        CHECK(cuGraphLaunch(x[i], s), CUDA_SUCCESS);
    }
    CHECK(cuStreamSynchronize(s), CUDA_SUCCESS);
    for (long i = 0; i < many; i++)
        CHECK(cuGraphExecDestroy(x[i]), CUDA_SUCCESS);
    free(x);
}

/* `churn`: ITERS launches of g's ops, each by an exec updated to g just
 * before, or instantiated just before and destroyed just after. */
static void launch_churning(CUstream s, CUgraph g, long iters, long sync_every)
{
    CUgraphExec x;
    CHECK(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
    for (long i = 0; i < iters; i++) {
        if (churn == CHURN_UPDATE) {
            CUgraphExecUpdateResultInfo info;
            CHECK(cuGraphExecUpdate_v2(x, g, &info), CUDA_SUCCESS);
        } else if (i > 0) {
            CHECK(cuGraphExecDestroy(x), CUDA_SUCCESS);
            CHECK(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
        }
        CHECK(cuGraphLaunch(x, s), CUDA_SUCCESS);
        if (sync_every && (i + 1) % sync_every == 0)
            CHECK(cuStreamSynchronize(s), CUDA_SUCCESS);
    }
    CHECK(cuGraphExecDestroy(x), CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(s), CUDA_SUCCESS);
}

static int rank_main(int rank, int nranks, ncclUniqueId id, long iters, long sync_every, int update,
                     struct late late)
{
    CUcontext ctx;
    CUstream s;
    CUdeviceptr send, recv;
    CHECK(cuInit(0), CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, rank), CUDA_SUCCESS);
    CHECK(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CHECK(cuMemAlloc_v2(&send, 2 * AR_COUNT * 4), CUDA_SUCCESS);
    CHECK(cuMemAlloc_v2(&recv, (size_t)AG_COUNT * 4 * (size_t)nranks), CUDA_SUCCESS);
    ncclComm_t comm;
    CHECK(ncclCommInitRank(&comm, nranks, id, rank), ncclSuccess);

    CUgraphExec x;
    CUgraph g = capture(s, comm, send, recv, AR_COUNT);
    size_t nodes = 0;
    CHECK(cuGraphGetNodes(g, NULL, &nodes), CUDA_SUCCESS);
    if (churn || many) {
        double t0 = now_s();
        if (many)
            launch_many(s, g);
        else
            launch_churning(s, g, iters, sync_every);
        printf("{\"rank\": %d, \"nodes\": %zu, \"launch_s\": %.6f}\n", rank, nodes, now_s() - t0);
        fflush(stdout);
        CHECK(cuGraphDestroy(g), CUDA_SUCCESS);
        CHECK(ncclCommDestroy(comm), ncclSuccess);
        CHECK(cuStreamDestroy_v2(s), CUDA_SUCCESS);
        return 0;
    }
    CHECK(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
    CHECK(cuGraphDestroy(g), CUDA_SUCCESS); /* the executable graph lives on */

    double t0 = now_s();
    for (long i = 0; i < iters; i++) {
        if (update && i == iters / 2) {
            CUgraph g2 = capture(s, comm, send, recv, 2 * AR_COUNT);
            CUgraphExecUpdateResultInfo info;
            CHECK(cuGraphExecUpdate_v2(x, g2, &info), CUDA_SUCCESS);
            CHECK(cuGraphDestroy(g2), CUDA_SUCCESS);
        }
        if (rank == late.rank)
            usleep((useconds_t)late.us);
        CHECK(cuGraphLaunch(x, s), CUDA_SUCCESS);
        if (sync_every && (i + 1) % sync_every == 0)
            CHECK(cuStreamSynchronize(s), CUDA_SUCCESS);
    }
    /* Destroyed with its last launches still running, as CUDA allows:
     * their executions are timed all the same. */
    CHECK(cuGraphExecDestroy(x), CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(s), CUDA_SUCCESS);
    double t1 = now_s();
    printf("{\"rank\": %d, \"nodes\": %zu, \"launch_s\": %.6f}\n", rank, nodes, t1 - t0);
    fflush(stdout);
    CHECK(ncclCommDestroy(comm), ncclSuccess);
    CHECK(cuStreamDestroy_v2(s), CUDA_SUCCESS);
    return 0;
}

int main(int argc, char **argv)
{
    int update = argc == 5 && !strcmp(argv[4], "update");
    struct late late = { -1, 0 };
    if (argc == 7 && !strcmp(argv[4], "late"))
        late = (struct late){ atoi(argv[5]), atol(argv[6]) };
    if (argc == 6 && !strcmp(argv[4], "hold"))
        hold_ms = atol(argv[5]);
    if (argc == 6 && !strcmp(argv[4], "churn"))
        churn = !strcmp(argv[5], "update") ? CHURN_UPDATE : !strcmp(argv[5], "instantiate") ? CHURN_INSTANTIATE
                                                                                          : CHURN_NONE;
    if (argc == 6 && !strcmp(argv[4], "many"))
        many = atol(argv[5]);
    if ((argc != 4 && !update && late.rank < 0 && !hold_ms && !churn && many <= 0) || atoi(argv[1]) < 1 ||
        atol(argv[2]) < 0 || atol(argv[3]) < 0 || late.us < 0 || late.us > 1000000 || hold_ms < 0 ||
        hold_ms > 10000 || many < 0 || many > 100000) {
        fprintf(stderr, "usage: graph_app NRANKS ITERS SYNC_EVERY [update | late RANK US | hold MS | "
                        "churn update | churn instantiate | many N]\n");
        return 2;
    }
    int nranks = atoi(argv[1]);
    long iters = atol(argv[2]), sync_every = atol(argv[3]);
    ncclUniqueId id;
    CHECK(ncclGetUniqueId(&id), ncclSuccess);
    for (int r = 0; r < nranks; r++) {
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0)
            exit(rank_main(r, nranks, id, iters, sync_every, update, late)); /* exit: nccltap writes its files */
    }
    int failed = 0;
    for (int r = 0; r < nranks; r++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed = 1;
    }
    return failed;
}
