/* What NCCLTAP_GRAPH_TIMING=all costs, on this GPU: a graph of K small
 * operations (memset nodes, standing for small captured collectives) is
 * captured plain, then with an external event pair around each (the
 * stamps nccltap captures), and launched N times: the GPU time the
 * stamps add per operation and execution, and the host time of pointing
 * the 2K stamp nodes at fresh events before each launch
 * (cuGraphExecEventRecordNodeSetEvent, what nccltap does per launch).
 * Build: cc -O2 -I../../preload graph_stamp_cost.c ../../preload/cuda/cuda_driver.c -ldl
 * Run:   ./a.out [K [N]]   (default 64 operations, 2,000 launches, 5 rounds) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuda/cuda_driver.h"

static struct cuda_driver cu;
static CUresult (*memset_async)(CUdeviceptr, unsigned int, size_t, CUstream);
static CUresult (*instantiate)(CUgraphExec *, CUgraph, unsigned long long);
static CUresult (*launch)(CUgraphExec, CUstream);

#define CK(x)                                                              \
    do {                                                                   \
        CUresult r_ = (x);                                                 \
        if (r_) {                                                          \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_); \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* K memsets on s, each between two external records when `ev` is set
 * (ev[2k], ev[2k+1]); their nodes in nodes[]. */
static CUgraphExec build(CUstream s, CUdeviceptr buf, int k, CUevent *ev, CUgraphNode *nodes)
{
    CUgraph g;
    CUgraphExec x;
    CK(cu.cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    for (int i = 0; i < k; i++) {
        int st;
        const CUgraphNode *deps;
        size_t n;
        if (ev) {
            CK(cu.cuEventRecordWithFlags(ev[2 * i], s, CU_EVENT_RECORD_EXTERNAL));
            CK(cu.cuStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, &n));
            nodes[2 * i] = deps[0];
        }
        CK(memset_async(buf, (unsigned)i, 1024, s));
        if (ev) {
            CK(cu.cuEventRecordWithFlags(ev[2 * i + 1], s, CU_EVENT_RECORD_EXTERNAL));
            CK(cu.cuStreamGetCaptureInfo(s, &st, NULL, NULL, &deps, &n));
            nodes[2 * i + 1] = deps[0];
        }
    }
    CK(cu.cuStreamEndCapture(s, &g));
    CK(instantiate(&x, g, 0));
    return x;
}

/* Microseconds per launch, N launches back to back then a sync (GPU
 * bound); with `fresh`, every stamp node gets the next event of `pool`
 * before each launch, and *set_us the host time that took per launch. */
static double run(CUgraphExec x, CUstream s, int n, int k, CUgraphNode *nodes, CUevent *pool, int npool,
                  double *set_us)
{
    double set = 0;
    CK(cu.cuStreamSynchronize(s));
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        if (pool) {
            double a = now_us();
            for (int j = 0; j < 2 * k; j++)
                CK(cu.cuGraphExecEventRecordNodeSetEvent(x, nodes[j], pool[(i * 2 * k + j) % npool]));
            set += now_us() - a;
        }
        CK(launch(x, s));
    }
    CK(cu.cuStreamSynchronize(s));
    if (set_us)
        *set_us = set / n;
    return (now_us() - t0) / n;
}

int main(int argc, char **argv)
{
    int k = argc > 1 ? atoi(argv[1]) : 64, n = argc > 2 ? atoi(argv[2]) : 2000;
    char why[256];
    if (cuda_driver_load(&cu, NULL, why, sizeof why)) {
        fprintf(stderr, "%s\n", why);
        return 1;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    *(void **)&memset_async = dlsym(lib, "cuMemsetD8Async");
    *(void **)&instantiate = dlsym(lib, "cuGraphInstantiateWithFlags");
    *(void **)&launch = dlsym(lib, "cuGraphLaunch");
    CUdevice dev;
    CUcontext ctx;
    CUstream s;
    CUdeviceptr buf;
    CK(cu.cuDeviceGet(&dev, 0));
    CK(cu.cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cu.cuCtxSetCurrent(ctx));
    CK(cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cu.cuMemAlloc(&buf, 1 << 20));
    CUevent *ev = malloc(2 * (size_t)k * sizeof *ev);
    CUgraphNode *nodes = malloc(2 * (size_t)k * sizeof *nodes);
    int npool = 2 * k * 64;
    CUevent *pool = malloc((size_t)npool * sizeof *pool);
    for (int i = 0; i < 2 * k; i++)
        CK(cu.cuEventCreate(&ev[i], CU_EVENT_DEFAULT));
    for (int i = 0; i < npool; i++)
        CK(cu.cuEventCreate(&pool[i], CU_EVENT_DEFAULT));
    CUgraphExec plain = build(s, buf, k, NULL, NULL), stamped = build(s, buf, k, ev, nodes);
    run(plain, s, n, k, NULL, NULL, 0, NULL); /* warm up */
    run(stamped, s, n, k, nodes, pool, npool, NULL);
    printf("%d ops per graph, %d launches; us per launch: plain, stamped, stamped+set (host set)\n", k, n);
    for (int round = 0; round < 5; round++) {
        double set_us;
        double p = run(plain, s, n, k, NULL, NULL, 0, NULL);
        double st = run(stamped, s, n, k, NULL, NULL, 0, NULL);
        double fr = run(stamped, s, n, k, nodes, pool, npool, &set_us);
        printf("round %d: %.2f %.2f %.2f (%.2f): stamps add %.3f us GPU per op; setting them %.3f us host per op\n",
               round, p, st, fr, set_us, (st - p) / k, set_us / k);
    }
    return 0;
}
