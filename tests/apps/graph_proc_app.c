/* graph_app's workload (4 all-reduces and an all-gather captured into a
 * graph, launched ITERS times on each rank), reaching the driver as cudart
 * does: not linked against libcuda.so.1, it dlopens it, looks up
 * cuGetProcAddress with dlsym and gets every driver function through it.
 *
 * Usage: graph_proc_app NRANKS ITERS SYNC_EVERY MODE HANDLE
 * MODE, what is asked of cuGetProcAddress:
 *   flags   cuGetProcAddress_v2 at 12.2: cuGraphInstantiateWithFlags,
 *           cuGraphLaunch; half way cuGraphExecUpdate (its _v2) to a graph
 *           whose all-reduces are twice as large
 *   inst12  cuGetProcAddress_v2 at 12.0: cuGraphInstantiate (CUDA 12's,
 *           with flags), cuGraphLaunch
 *   params  cuGetProcAddress_v2 with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_
 *           STREAM: cuGraphInstantiateWithParams and cuGraphLaunch (their
 *           _ptsz twins)
 *   ptsz    cuGetProcAddress_v2_ptsz with flags 0 (the per-thread default
 *           stream): cuGraphLaunch_ptsz, launched on the NULL stream
 *   v1      cuGetProcAddress (CUDA 11.3's) at 11.8: cuGraphInstantiate
 *           (its _v2, with an error node and a log), cuGraphLaunch; half
 *           way cuGraphExecUpdate (CUDA 10.2's)
 *   self    cuGetProcAddress_v2 asked for "cuGetProcAddress" at 12.2, as
 *           cudart does, and everything through what that returned
 * HANDLE, where dlsym looks cuGetProcAddress up: handle (libcuda's own
 * handle, cudart's way), default (RTLD_DEFAULT), next (RTLD_NEXT).
 * Prints, per rank, one JSON line: the graph's node count. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "abi/cuda_abi.h"
#include "abi/nccl_abi.h"

#define AR_COUNT (256 * 1024)
#define AG_COUNT (64 * 1024)

#define CHECK(call, ok)                                                                  \
    do {                                                                                 \
        long r_ = (long)(call);                                                          \
        if (r_ != (ok)) {                                                                \
            fprintf(stderr, "%s:%d: %s returned %ld\n", __FILE__, __LINE__, #call, r_); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

typedef CUresult (*gpa_v1_fn)(const char *, void **, int, cuuint64_t);
typedef CUresult (*gpa_v2_fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

static const char *mode;
static gpa_v1_fn gpa_v1;
static gpa_v2_fn gpa_v2;
static int version;
static cuuint64_t flags;

/* The driver's `name` as cudart gets it; exits where it has none. */
static void *get(const char *name)
{
    void *fn = NULL;
    CUdriverProcAddressQueryResult status = -1;
    CUresult r = gpa_v1 ? gpa_v1(name, &fn, version, flags) : gpa_v2(name, &fn, version, flags, &status);
    if (r != CUDA_SUCCESS || !fn || (!gpa_v1 && status != CU_GET_PROC_ADDRESS_SUCCESS)) {
        fprintf(stderr, "cuGetProcAddress(%s, %d, %llu): %d, %p, status %d\n", name, version, flags, r, fn,
                status);
        exit(1);
    }
    return fn;
}

#define GET(var, name) *(void **)&(var) = get(name)

static void *symbol(const char *name, const char *how)
{
    void *fn = NULL;
    if (!strcmp(how, "default")) {
        fn = dlsym(RTLD_DEFAULT, name);
    } else if (!strcmp(how, "next")) {
        fn = dlsym(RTLD_NEXT, name);
    } else {
        void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        fn = h ? dlsym(h, name) : NULL;
    }
    if (!fn) {
        fprintf(stderr, "dlsym(%s, %s): %s\n", how, name, dlerror());
        exit(1);
    }
    return fn;
}

static void choose_lookup(const char *how)
{
    version = 12020;
    if (!strcmp(mode, "v1")) {
        *(void **)&gpa_v1 = symbol("cuGetProcAddress", how);
        version = 11080;
    } else if (!strcmp(mode, "ptsz")) {
        *(void **)&gpa_v2 = symbol("cuGetProcAddress_v2_ptsz", how);
    } else {
        *(void **)&gpa_v2 = symbol("cuGetProcAddress_v2", how);
    }
    if (!strcmp(mode, "inst12"))
        version = 12000;
    if (!strcmp(mode, "params"))
        flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    if (!strcmp(mode, "self"))
        GET(gpa_v2, "cuGetProcAddress");
}

static struct {
    CUresult (*init)(unsigned);
    CUresult (*retain)(CUcontext *, CUdevice);
    CUresult (*set_ctx)(CUcontext);
    CUresult (*stream_create)(CUstream *, unsigned);
    CUresult (*stream_destroy)(CUstream);
    CUresult (*sync)(CUstream);
    CUresult (*mem_alloc)(CUdeviceptr *, size_t);
    CUresult (*begin)(CUstream, int);
    CUresult (*end)(CUstream, CUgraph *);
    CUresult (*nodes)(CUgraph, CUgraphNode *, size_t *);
    CUresult (*inst_flags)(CUgraphExec *, CUgraph, unsigned long long);
    CUresult (*inst_log)(CUgraphExec *, CUgraph, CUgraphNode *, char *, size_t);
    CUresult (*inst_params)(CUgraphExec *, CUgraph, CUDA_GRAPH_INSTANTIATE_PARAMS *);
    CUresult (*update_v2)(CUgraphExec, CUgraph, CUgraphExecUpdateResultInfo *);
    CUresult (*update_v1)(CUgraphExec, CUgraph, CUgraphNode *, int *);
    CUresult (*launch)(CUgraphExec, CUstream);
    CUresult (*exec_destroy)(CUgraphExec);
    CUresult (*destroy)(CUgraph);
} cu;

static void get_driver(void)
{
    GET(cu.init, "cuInit");
    GET(cu.retain, "cuDevicePrimaryCtxRetain");
    GET(cu.set_ctx, "cuCtxSetCurrent");
    GET(cu.stream_create, "cuStreamCreate");
    GET(cu.stream_destroy, "cuStreamDestroy");
    GET(cu.sync, "cuStreamSynchronize");
    GET(cu.mem_alloc, "cuMemAlloc");
    GET(cu.begin, "cuStreamBeginCapture");
    GET(cu.end, "cuStreamEndCapture");
    GET(cu.nodes, "cuGraphGetNodes");
    GET(cu.launch, "cuGraphLaunch");
    GET(cu.exec_destroy, "cuGraphExecDestroy");
    GET(cu.destroy, "cuGraphDestroy");
    if (!strcmp(mode, "v1")) {
        GET(cu.inst_log, "cuGraphInstantiate");
        GET(cu.update_v1, "cuGraphExecUpdate");
    } else if (!strcmp(mode, "params")) {
        GET(cu.inst_params, "cuGraphInstantiateWithParams");
    } else {
        GET(cu.inst_flags, strcmp(mode, "inst12") ? "cuGraphInstantiateWithFlags" : "cuGraphInstantiate");
        GET(cu.update_v2, "cuGraphExecUpdate");
    }
}

static CUgraph capture(CUstream s, ncclComm_t comm, CUdeviceptr send, CUdeviceptr recv, size_t ar_count)
{
    CUgraph g;
    CHECK(cu.begin(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), CUDA_SUCCESS);
    for (int k = 0; k < 4; k++)
        CHECK(ncclAllReduce((void *)send, (void *)recv, ar_count, ncclFloat32, ncclSum, comm, s), ncclSuccess);
    CHECK(ncclAllGather((void *)send, (void *)recv, AG_COUNT, ncclFloat32, comm, s), ncclSuccess);
    CHECK(cu.end(s, &g), CUDA_SUCCESS);
    return g;
}

static CUgraphExec instantiate(CUgraph g)
{
    CUgraphExec x;
    if (cu.inst_log) {
        CUgraphNode err;
        char log[64];
        CHECK(cu.inst_log(&x, g, &err, log, sizeof log), CUDA_SUCCESS);
    } else if (cu.inst_params) {
        CUDA_GRAPH_INSTANTIATE_PARAMS p = {.flags = 0, .result_out = -1};
        CHECK(cu.inst_params(&x, g, &p), CUDA_SUCCESS);
        CHECK(p.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS);
    } else {
        CHECK(cu.inst_flags(&x, g, 0), CUDA_SUCCESS);
    }
    return x;
}

static void update(CUgraphExec x, CUgraph g)
{
    if (cu.update_v1) {
        CUgraphNode err;
        int result;
        CHECK(cu.update_v1(x, g, &err, &result), CUDA_SUCCESS);
    } else {
        CUgraphExecUpdateResultInfo info;
        CHECK(cu.update_v2(x, g, &info), CUDA_SUCCESS);
    }
}

static int rank_main(int rank, int nranks, ncclUniqueId id, long iters, long sync_every)
{
    CUcontext ctx;
    CUstream s;
    CUdeviceptr send, recv;
    CHECK(cu.init(0), CUDA_SUCCESS);
    CHECK(cu.retain(&ctx, rank), CUDA_SUCCESS);
    CHECK(cu.set_ctx(ctx), CUDA_SUCCESS);
    CHECK(cu.stream_create(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    CHECK(cu.mem_alloc(&send, 2 * AR_COUNT * 4), CUDA_SUCCESS);
    CHECK(cu.mem_alloc(&recv, (size_t)AG_COUNT * 4 * (size_t)nranks), CUDA_SUCCESS);
    ncclComm_t comm;
    CHECK(ncclCommInitRank(&comm, nranks, id, rank), ncclSuccess);

    int updates = cu.update_v1 || (cu.update_v2 && !strcmp(mode, "flags"));
    /* ptsz: launched on the NULL stream, the per-thread default stream */
    CUstream launch_on = strcmp(mode, "ptsz") ? s : NULL;
    CUgraph g = capture(s, comm, send, recv, AR_COUNT);
    size_t nodes = 0;
    CHECK(cu.nodes(g, NULL, &nodes), CUDA_SUCCESS);
    CUgraphExec x = instantiate(g);
    CHECK(cu.destroy(g), CUDA_SUCCESS);
    for (long i = 0; i < iters; i++) {
        if (updates && i == iters / 2) {
            CUgraph g2 = capture(s, comm, send, recv, 2 * AR_COUNT);
            update(x, g2);
            CHECK(cu.destroy(g2), CUDA_SUCCESS);
        }
        CHECK(cu.launch(x, launch_on), CUDA_SUCCESS);
        if (sync_every && (i + 1) % sync_every == 0)
            CHECK(cu.sync(launch_on), CUDA_SUCCESS);
    }
    CHECK(cu.exec_destroy(x), CUDA_SUCCESS);
    CHECK(cu.sync(launch_on), CUDA_SUCCESS);
    printf("{\"rank\": %d, \"nodes\": %zu}\n", rank, nodes);
    fflush(stdout);
    CHECK(ncclCommDestroy(comm), ncclSuccess);
    CHECK(cu.stream_destroy(s), CUDA_SUCCESS);
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const modes[] = {"flags", "inst12", "params", "ptsz", "v1", "self"};
    int ok = argc == 6 && atoi(argv[1]) >= 1 && atol(argv[2]) >= 0 && atol(argv[3]) >= 0 &&
             (!strcmp(argv[5], "handle") || !strcmp(argv[5], "default") || !strcmp(argv[5], "next"));
    for (size_t i = 0; ok && i < sizeof modes / sizeof modes[0] && !mode; i++)
        if (!strcmp(argv[4], modes[i]))
            mode = modes[i];
    if (!ok || !mode) {
        fprintf(stderr, "usage: graph_proc_app NRANKS ITERS SYNC_EVERY flags|inst12|params|ptsz|v1|self "
                        "handle|default|next\n");
        return 2;
    }
    int nranks = atoi(argv[1]);
    long iters = atol(argv[2]), sync_every = atol(argv[3]);
    choose_lookup(argv[5]);
    get_driver();
    ncclUniqueId id;
    CHECK(ncclGetUniqueId(&id), ncclSuccess);
    for (int r = 0; r < nranks; r++) {
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0)
            exit(rank_main(r, nranks, id, iters, sync_every));
    }
    int failed = 0;
    for (int r = 0; r < nranks; r++) {
        int st;
        if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed = 1;
    }
    return failed;
}
