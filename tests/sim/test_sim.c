/* Tests of the simulator: `test_sim CASE`, one CTest test per case, each
 * with its knobs set by CMakeLists.txt (LAT_US=0 and BUSBW_GBS=100 unless
 * the case says otherwise). Durations are checked against the formula,
 * computed here independently, within 0.1% (the float milliseconds of
 * cuEventElapsedTime).
 *
 * To make times exact, a test holds each rank's stream until a common
 * instant T in the near future (a gated item of the private interface),
 * so every rank arrives at T, and the event before the op also reads T. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/nccl_abi.h"
#include "cuda_exports.h"
#include "sim_cuda_private.h"

#define CHECK(c) \
    do { \
        if (!(c)) { \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            exit(1); \
        } \
    } while (0)
#define CU(x) CHECK((x) == CUDA_SUCCESS)
#define NC(x) CHECK((x) == ncclSuccess)

#define MIB (1024.0 * 1024.0)

/* The profiling twin, which nccl_abi.h does not declare. */
ncclResult_t pncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                            ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                            cudaStream_t stream);

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(double ms)
{
    struct timespec ts = { (time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6) };
    nanosleep(&ts, NULL);
}

static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static void use_device(int d)
{
    CUcontext c;
    CU(cuDevicePrimaryCtxRetain(&c, d));
    CU(cuCtxSetCurrent(c));
}

static CUstream new_stream(void)
{
    CUstream s;
    CU(cuStreamCreate(&s, 0));
    return s;
}

static CUevent new_event(void)
{
    CUevent e;
    CU(cuEventCreate(&e, CU_EVENT_DEFAULT));
    return e;
}

static float elapsed_ms(CUevent a, CUevent b)
{
    float ms = -1;
    CU(cuEventElapsedTime(&ms, a, b));
    return ms;
}

/* The model, written out again: lat + S * factor / busbw, in ms. */
static double model_ms(double lat_us, double bytes, double factor)
{
    return (lat_us * 1e3 + bytes * factor / (100e9) * 1e9) / 1e6;
}

static void check_ms(const char *what, float got, double want)
{
    fprintf(stderr, "  %-28s %.6f ms (model %.6f ms)\n", what, got, want);
    CHECK(fabs(got - want) <= want * 1e-3 + 1e-7);
}

/* How far ahead T is: time enough to set up every rank, even on a loaded
 * machine running the tests in parallel. */
#define HOLD_NS 50000000ull

/* Holds a stream until *T: every rank then arrives at *T exactly. */
static int gate_at(void *arg, uint64_t local_start_ns, uint64_t *start_ns)
{
    (void)local_start_ns;
    *start_ns = *(const uint64_t *)arg;
    return 1;
}

static void hold_until(CUstream s, const uint64_t *T)
{
    CHECK(now_ns() < *T);   /* otherwise the test machine is too slow */
    struct ncclsim_work w = { .gate = gate_at, .arg = (void *)T };
    CU(ncclsim_stream_enqueue(s, -1, &w));
}

/* A gate the test opens by hand. */
static atomic_int gate_open;   /* read by the driver's progress thread */
static int manual_gate(void *arg, uint64_t local_start_ns, uint64_t *start_ns)
{
    (void)arg;
    *start_ns = local_start_ns;
    return atomic_load(&gate_open);
}

/* ---- driver ---------------------------------------------------------- */

static void test_driver(void)
{
    int n;
    CHECK(cuDeviceGetCount(&n) == CUDA_ERROR_NOT_INITIALIZED);
    CU(cuInit(0));
    CU(cuDeviceGetCount(&n));
    CHECK(n == 8);
    CUdevice d;
    CHECK(cuDeviceGet(&d, 8) != CUDA_SUCCESS);
    CU(cuDeviceGet(&d, 3));
    char name[64];
    CU(cuDeviceGetName(name, sizeof name, 3));
    CHECK(!strcmp(name, "nccltap simulated GPU 3"));
    CUuuid u3, u3b, u4;
    CU(cuDeviceGetUuid_v2(&u3, 3));
    CU(cuDeviceGetUuid_v2(&u3b, 3));
    CU(cuDeviceGetUuid_v2(&u4, 4));
    CHECK(!memcmp(&u3, &u3b, sizeof u3) && memcmp(&u3, &u4, sizeof u3));

    /* No current context: as the real driver. */
    CUcontext c;
    CU(cuCtxGetCurrent(&c));
    CHECK(c == NULL);
    CUstream s;
    CHECK(cuStreamCreate(&s, 0) == CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuCtxGetDevice(&d) == CUDA_ERROR_INVALID_CONTEXT);
    CHECK(cuStreamSynchronize(NULL) == CUDA_ERROR_INVALID_CONTEXT);

    use_device(2);
    CU(cuCtxGetDevice(&d));
    CHECK(d == 2);
    CUcontext c5, popped;
    CU(cuDevicePrimaryCtxRetain(&c5, 5));
    CU(cuCtxPushCurrent_v2(c5));
    CU(cuCtxGetDevice(&d));
    CHECK(d == 5);
    CU(cuCtxPopCurrent_v2(&popped));
    CHECK(popped == c5);
    CU(cuCtxGetDevice(&d));
    CHECK(d == 2);

    s = new_stream();
    CU(cuStreamGetCtx(s, &c));
    CUcontext c2;
    CU(cuDevicePrimaryCtxRetain(&c2, 2));
    CHECK(c == c2);
    CU(cuStreamSynchronize(s));
    CU(cuStreamSynchronize(NULL));
    CU(cuCtxSynchronize());

    /* Memory: a GiB costs nothing; addresses unique and aligned. */
    CUdeviceptr a, b;
    CU(cuMemAlloc_v2(&a, 1ull << 30));
    CU(cuMemAlloc_v2(&b, 100));
    CHECK(a && b && a != b && a % 256 == 0 && b % 256 == 0);
    CHECK(b >= a + (1ull << 30) || a >= b + 100);
    CU(cuMemsetD8_v2(a, 0, 1ull << 30));
    CU(cuMemsetD8_v2(b + 50, 1, 50));
    CHECK(cuMemsetD8_v2(b + 50, 1, 51) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemsetD8_v2(12345, 1, 1) == CUDA_ERROR_INVALID_VALUE);
    CU(cuMemFree_v2(a));
    CHECK(cuMemFree_v2(a) == CUDA_ERROR_INVALID_VALUE);
    CU(cuMemFree_v2(b));

    const char *str;
    CU(cuGetErrorString(CUDA_ERROR_NOT_READY, &str));
    CHECK(str && *str);
    CU(cuStreamDestroy_v2(s));
}

/* ---- events ------------------------------------------------------------ */

static void test_events(void)
{
    CU(cuInit(0));
    use_device(0);
    CUstream s = new_stream();
    CUevent e0 = new_event(), e1 = new_event(), never = new_event();

    /* Never recorded: complete, but no elapsed time. */
    float ms;
    CU(cuEventQuery(never));
    CHECK(cuEventElapsedTime(&ms, never, never) == CUDA_ERROR_INVALID_HANDLE);

    /* On an idle stream an event completes when recorded. */
    CU(cuEventRecord(e0, s));
    CU(cuEventQuery(e0));

    /* 200 ms of work: not ready before, exact after; sync sleeps. */
    struct ncclsim_work w = { .duration_ns = 200000000 };
    static uint64_t T;
    T = now_ns() + HOLD_NS;
    hold_until(s, &T);
    CU(cuEventRecord(e0, s));
    CU(ncclsim_stream_enqueue(s, -1, &w));
    CU(cuEventRecord(e1, s));
    CHECK(cuEventQuery(e1) == CUDA_ERROR_NOT_READY);
    CHECK(cuEventElapsedTime(&ms, e0, e1) == CUDA_ERROR_NOT_READY);
    double cpu0 = cpu_ms();
    CU(cuEventSynchronize(e1));
    CHECK(cpu_ms() - cpu0 < 50);   /* slept, did not spin */
    CU(cuEventQuery(e1));
    check_ms("200 ms of work", elapsed_ms(e0, e1), 200);
    CU(cuEventElapsedTime_v2(&ms, e0, e1));

    /* Re-recording takes the new time. */
    sleep_ms(20);
    CU(cuEventRecord(e0, s));
    CHECK(elapsed_ms(e1, e0) >= 20);

    /* Work behind a gate: events behind it wait, resolved lazily. */
    struct ncclsim_work g = { .duration_ns = 1000000, .gate = manual_gate };
    T = now_ns() + HOLD_NS;
    hold_until(s, &T);
    CU(cuEventRecord(e0, s));
    CU(ncclsim_stream_enqueue(s, -1, &g));
    CU(cuEventRecord(e1, s));
    sleep_ms(30);
    CHECK(cuEventQuery(e1) == CUDA_ERROR_NOT_READY);
    atomic_store(&gate_open, 1);
    CU(cuStreamSynchronize(s));
    CU(cuEventQuery(e1));
    check_ms("gated 1 ms of work", elapsed_ms(e0, e1), 1);

    /* Timing disabled: elapsed time refused, as in CUDA. */
    CUevent nt;
    CU(cuEventCreate(&nt, CU_EVENT_DISABLE_TIMING));
    CU(cuEventRecord(nt, s));
    CU(cuEventSynchronize(nt));
    CHECK(cuEventElapsedTime(&ms, e0, nt) == CUDA_ERROR_INVALID_HANDLE);

    /* Destroying a stream and event with work queued is allowed. */
    atomic_store(&gate_open, 0);
    CU(ncclsim_stream_enqueue(s, -1, &g));
    CU(cuEventRecord(e1, s));
    CU(cuEventDestroy_v2(e1));
    CU(cuStreamDestroy_v2(s));
    atomic_store(&gate_open, 1);
    sleep_ms(5);

    CU(cuEventDestroy_v2(e0));
    CU(cuEventDestroy_v2(nt));
    CU(cuEventDestroy_v2(never));
}

/* ---- capture ------------------------------------------------------------ */

static void test_capture(void)
{
    CU(cuInit(0));
    use_device(0);
    ncclComm_t comm;
    NC(ncclCommInitAll(&comm, 1, NULL));
    CUstream s = new_stream();
    CUevent e0 = new_event(), e1 = new_event();
    int st;
    CU(cuStreamIsCapturing(s, &st));
    CHECK(st == CU_STREAM_CAPTURE_STATUS_NONE);
    /* Held until T: if nothing is added, e0 and e1 both complete at T. */
    static uint64_t T;
    T = now_ns() + HOLD_NS;
    hold_until(s, &T);
    CU(cuEventRecord(e0, s));
    CU(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CU(cuStreamIsCapturing(s, &st));
    CHECK(st == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    CHECK(ncclsim_stream_capturing(s, -1) == 1);
    /* 1 GiB at 100 GB/s would be 10 ms: captured, it takes none. */
    NC(ncclBroadcast(NULL, NULL, 1 << 30, ncclInt8, 0, comm, s));
    CUgraph g = NULL;
    CU(cuStreamEndCapture(s, &g));
    CHECK(g != NULL);
    CHECK(cuStreamEndCapture(s, &g) != CUDA_SUCCESS);
    CU(cuGraphDestroy(g));
    /* Synchronizing a capturing stream is refused and invalidates the
     * capture, which then ends in error with no graph. */
    CU(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuStreamSynchronize(s) == 900);
    CU(cuStreamIsCapturing(s, &st));
    CHECK(st == CU_STREAM_CAPTURE_STATUS_INVALIDATED);
    CHECK(cuStreamEndCapture(s, &g) == 901 && g == NULL);
    CU(cuEventRecord(e1, s));
    CU(cuEventSynchronize(e1));
    CHECK(elapsed_ms(e0, e1) == 0);
    /* Not counted either: the next collective is sequence 0 for both. */
    NC(ncclBroadcast(NULL, NULL, 1 << 20, ncclInt8, 0, comm, s));
    CU(cuStreamSynchronize(s));
    NC(ncclCommDestroy(comm));
    CU(cuEventDestroy_v2(e0));
    CU(cuEventDestroy_v2(e1));
    CU(cuStreamDestroy_v2(s));
}

/* ---- capture modes: unsafe calls from other threads ---------------------- */

struct unsafe_call {
    int mode;       /* the thread's capture mode */
    CUevent ev;
    CUresult got;   /* what cuEventQuery returned */
};

static void *query_from_thread(void *arg)
{
    struct unsafe_call *u = arg;
    int mode = u->mode;
    CU(cuThreadExchangeStreamCaptureMode(&mode));
    CHECK(mode == CU_STREAM_CAPTURE_MODE_GLOBAL);  /* every thread starts global */
    u->got = cuEventQuery(u->ev);
    return NULL;
}

/* One capture per case, begun with `capture_mode` on this thread, while
 * another thread in `thread_mode` queries an event: refused, and the
 * capture invalidated, exactly when CUDA's modes forbid it. */
static void capture_beside(int capture_mode, int thread_mode, bool forbidden)
{
    CUstream s = new_stream();
    struct unsafe_call u = { thread_mode, new_event(), CUDA_SUCCESS };
    CU(cuStreamBeginCapture_v2(s, capture_mode));
    pthread_t t;
    CHECK(pthread_create(&t, NULL, query_from_thread, &u) == 0);
    CHECK(pthread_join(t, NULL) == 0);
    CUgraph g = NULL;
    CUresult end = cuStreamEndCapture(s, &g);
    CHECK(forbidden ? u.got == 900 && end == 901 && !g : u.got == CUDA_SUCCESS && end == CUDA_SUCCESS && g);
    if (g)
        CU(cuGraphDestroy(g));
    CU(cuEventDestroy_v2(u.ev));
    CU(cuStreamDestroy_v2(s));
}

static void test_capture_modes(void)
{
    CU(cuInit(0));
    use_device(0);
    capture_beside(CU_STREAM_CAPTURE_MODE_GLOBAL, CU_STREAM_CAPTURE_MODE_GLOBAL, true);
    capture_beside(CU_STREAM_CAPTURE_MODE_GLOBAL, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, false);
    capture_beside(CU_STREAM_CAPTURE_MODE_GLOBAL, CU_STREAM_CAPTURE_MODE_RELAXED, false);
    capture_beside(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, CU_STREAM_CAPTURE_MODE_GLOBAL, false);
    capture_beside(CU_STREAM_CAPTURE_MODE_RELAXED, CU_STREAM_CAPTURE_MODE_GLOBAL, false);
    /* The capturing thread itself, global or thread-local: refused. */
    CUstream s = new_stream();
    CUevent e = new_event();
    CU(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    CHECK(cuEventQuery(e) == 900);
    CUgraph g = NULL;
    CHECK(cuStreamEndCapture(s, &g) == 901 && !g);
    int mode = 7;
    CHECK(cuThreadExchangeStreamCaptureMode(&mode) == CUDA_ERROR_INVALID_VALUE);
    CU(cuEventDestroy_v2(e));
    CU(cuStreamDestroy_v2(s));
}

/* ---- the model, 4 ranks in one thread ---------------------------------- */

enum fn { AR, AG, RS, BC, BCAST, RED, A2A, GA, SC, SR };

struct model_case {
    enum fn fn;
    const char *name;
    size_t count;
    ncclDataType_t type;
    double bytes, factor;   /* S and the factor for 4 ranks */
};

static ncclResult_t issue(enum fn fn, size_t count, ncclDataType_t t, ncclComm_t c, int rank,
                          int n, CUstream s)
{
    switch (fn) {
    case AR: return ncclAllReduce(NULL, NULL, count, t, ncclSum, c, s);
    case AG: return ncclAllGather(NULL, NULL, count, t, c, s);
    case RS: return ncclReduceScatter(NULL, NULL, count, t, ncclAvg, c, s);
    case BC: return ncclBroadcast(NULL, NULL, count, t, n - 1, c, s);
    case BCAST: return ncclBcast(NULL, count, t, 0, c, s);
    case RED: return ncclReduce(NULL, NULL, count, t, ncclMax, 1, c, s);
    case A2A: return ncclAlltoAll(NULL, NULL, count, t, c, s);
    case GA: return ncclGather(NULL, NULL, count, t, 0, c, s);
    case SC: return ncclScatter(NULL, NULL, count, t, 0, c, s);
    case SR: /* a ring: each rank sends to the next, receives from the previous */
        if (ncclSend(NULL, count, t, (rank + 1) % n, c, s) != ncclSuccess)
            return ncclInternalError;
        return ncclRecv(NULL, count, t, (rank + n - 1) % n, c, s);
    }
    return ncclInternalError;
}

static void test_model(void)
{
    CU(cuInit(0));
    enum { N = 4 };
    const double M = 1 << 20;
    static const struct model_case cases[] = {
        { AR, "AllReduce 64 MiB f32", 16 << 20, ncclFloat32, 64 * MIB, 2.0 * 3 / 4 },
        { AG, "AllGather 1M f16", 1 << 20, ncclFloat16, 2 * 1048576.0 * 4, 3.0 / 4 },
        { RS, "ReduceScatter 1M i32", 1 << 20, ncclInt32, 4 * 1048576.0 * 4, 3.0 / 4 },
        { BC, "Broadcast 4M u8", 4 << 20, ncclUint8, 4 * MIB, 1 },
        { BCAST, "Bcast 1M u64", 1 << 20, ncclUint64, 8 * MIB, 1 },
        { RED, "Reduce 1M f64", 1 << 20, ncclFloat64, 8 * MIB, 1 },
        { A2A, "AlltoAll 1M bf16", 1 << 20, ncclBfloat16, 2 * 1048576.0 * 4, 3.0 / 4 },
        { GA, "Gather 1M fp8e4m3", 1 << 20, ncclFloat8e4m3, 1048576.0 * 4, 3.0 / 4 },
        { SC, "Scatter 1M fp8e5m2", 1 << 20, ncclFloat8e5m2, 1048576.0 * 4, 3.0 / 4 },
        /* send then receive on one stream: two ops of S=count*ts, factor 1 */
        { SR, "Send+Recv 1M i64", 1 << 20, ncclInt64, 8 * MIB, 2 },
    };
    (void)M;
    ncclComm_t comms[N];
    NC(ncclCommInitAll(comms, N, NULL));
    CUstream s[N];
    CUevent e0[N], e1[N];
    for (int r = 0; r < N; r++) {
        int dev, rank, count;
        NC(ncclCommCuDevice(comms[r], &dev));
        NC(ncclCommUserRank(comms[r], &rank));
        NC(ncclCommCount(comms[r], &count));
        CHECK(dev == r && rank == r && count == N);
        use_device(r);
        s[r] = new_stream();
        e0[r] = new_event();
        e1[r] = new_event();
    }
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct model_case *k = &cases[i];
        static uint64_t T;
        T = now_ns() + HOLD_NS;
        for (int r = 0; r < N; r++) {
            hold_until(s[r], &T);
            CU(cuEventRecord(e0[r], s[r]));
        }
        /* One thread drives 4 GPUs: a group, as NCCL requires. The ops
         * reach the streams at ncclGroupEnd, so e1 is recorded after it. */
        NC(ncclGroupStart());
        for (int r = 0; r < N; r++)
            NC(issue(k->fn, k->count, k->type, comms[r], r, N, s[r]));
        NC(ncclGroupEnd());
        for (int r = 0; r < N; r++)
            CU(cuEventRecord(e1[r], s[r]));
        for (int r = 0; r < N; r++)
            CHECK(cuEventQuery(e1[r]) == CUDA_ERROR_NOT_READY);
        for (int r = 0; r < N; r++) {
            CU(cuEventSynchronize(e1[r]));
            CU(cuEventQuery(e1[r]));
            check_ms(k->name, elapsed_ms(e0[r], e1[r]), model_ms(0, k->bytes, k->factor));
        }
    }
    for (int r = 0; r < N; r++) {
        NC(ncclCommDestroy(comms[r]));
        CU(cuStreamDestroy_v2(s[r]));
        CU(cuEventDestroy_v2(e0[r]));
        CU(cuEventDestroy_v2(e1[r]));
    }
}

/* ---- AllReduce across threads ------------------------------------------ */

struct rank_arg {
    int rank, n;
    ncclUniqueId id;
    const uint64_t *T;
    float ms;
    int child_rank, child_n;   /* split tests */
    int child2_rank, child2_n;
};

static void *allreduce_rank(void *p)
{
    struct rank_arg *a = p;
    use_device(a->rank);
    ncclComm_t c;
    NC(ncclCommInitRank(&c, a->n, a->id, a->rank));
    int rank, n, dev;
    NC(ncclCommUserRank(c, &rank));
    NC(ncclCommCount(c, &n));
    NC(ncclCommCuDevice(c, &dev));
    CHECK(rank == a->rank && n == a->n && dev == a->rank);
    CUstream s = new_stream();
    CUevent e0 = new_event(), e1 = new_event();
    hold_until(s, a->T);
    CU(cuEventRecord(e0, s));
    NC(ncclAllReduce(NULL, NULL, 16 << 20, ncclFloat32, ncclSum, c, s));
    CU(cuEventRecord(e1, s));
    CHECK(cuEventQuery(e1) == CUDA_ERROR_NOT_READY);
    CU(cuStreamSynchronize(s));
    CU(cuEventQuery(e1));
    a->ms = elapsed_ms(e0, e1);
    NC(ncclCommFinalize(c));
    NC(ncclCommDestroy(c));
    CU(cuEventDestroy_v2(e0));
    CU(cuEventDestroy_v2(e1));
    CU(cuStreamDestroy_v2(s));
    return NULL;
}

static void run_ranks(int n, void *(*fn)(void *), struct rank_arg *args, const uint64_t *T)
{
    pthread_t t[16];
    ncclUniqueId id;
    NC(ncclGetUniqueId(&id));
    for (int r = 0; r < n; r++) {
        args[r] = (struct rank_arg){ .rank = r, .n = n, .id = id, .T = T };
        CHECK(pthread_create(&t[r], NULL, fn, &args[r]) == 0);
    }
    for (int r = 0; r < n; r++)
        pthread_join(t[r], NULL);
}

/* ---- graphs: captured collectives replayed at each launch ---------------- */

/* Captures [eA, AllReduce of ar_count f32, AllGather of 1M f16, eB] on s. */
static CUgraph capture_pair(CUstream s, ncclComm_t c, size_t ar_count, CUevent eA, CUevent eB,
                            CUgraphNode *eB_node)
{
    CU(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    int st = -1;
    cuuint64_t id = 0;
    CUgraph g = NULL;
    const CUgraphNode *deps = NULL;
    size_t ndeps = 9;
    CU(cuStreamGetCaptureInfo_v2(s, &st, &id, &g, &deps, &ndeps));
    CHECK(st == CU_STREAM_CAPTURE_STATUS_ACTIVE && id != 0 && g != NULL && ndeps == 0);
    CU(cuEventRecordWithFlags(eA, s, CU_EVENT_RECORD_EXTERNAL));
    CU(cuEventRecord(eB, s));   /* not external: no node */
    NC(ncclAllReduce(NULL, NULL, ar_count, ncclFloat32, ncclSum, c, s));
    NC(ncclAllGather(NULL, NULL, 1 << 20, ncclFloat16, c, s));
    CHECK(cuEventRecordWithFlags(eB, s, 2) == CUDA_ERROR_INVALID_VALUE);
    CU(cuEventRecordWithFlags(eB, s, CU_EVENT_RECORD_EXTERNAL));
    size_t nodes = 0;
    CU(cuGraphGetNodes(g, NULL, &nodes));
    CHECK(nodes == 4);
    CU(cuStreamGetCaptureInfo_v2(s, &st, NULL, NULL, &deps, &ndeps));
    CHECK(ndeps == 1 && deps && *deps);
    *eB_node = *deps;
    cuuint64_t id1 = 0;
    CU(cuStreamGetCaptureInfo(s, &st, &id1));
    CHECK(id1 == id);
    CUgraph out = NULL;
    CU(cuStreamEndCapture(s, &out));
    CHECK(out == g);
    CU(cuStreamGetCaptureInfo_v2(s, &st, &id1, NULL, NULL, NULL));
    CHECK(st == CU_STREAM_CAPTURE_STATUS_NONE && id1 == id);   /* not written */
    return g;
}

/* More common instants, for later launches. */
static uint64_t graph_T2, graph_T3;

static void *graph_rank(void *p)
{
    struct rank_arg *a = p;
    use_device(a->rank);
    ncclComm_t c;
    NC(ncclCommInitRank(&c, a->n, a->id, a->rank));
    CUstream s = new_stream();
    CUevent e0 = new_event(), e1 = new_event(), eA = new_event(), eB = new_event();
    CUgraphNode eB_node, eB2_node;
    CUgraph g = capture_pair(s, c, 16 << 20, eA, eB, &eB_node);
    CUgraphExec x;
    CHECK(cuGraphInstantiateWithFlags(&x, g, 1ull << 40) == CUDA_ERROR_INVALID_VALUE);
    CU(cuGraphInstantiateWithFlags(&x, g, 0));
    CU(cuGraphDestroy(g));   /* the executable graph keeps what it runs */
    double n = a->n;
    double ar = model_ms(0, 64 * MIB, 2 * (n - 1) / n), ag = model_ms(0, 2 * MIB * n, (n - 1) / n);
    /* Three launches run both ops three times, meeting the other rank each time. */
    hold_until(s, a->T);
    CU(cuEventRecord(e0, s));
    for (int i = 0; i < 3; i++)
        CU(cuGraphLaunch(x, s));
    CU(cuEventRecord(e1, s));
    CU(cuStreamSynchronize(s));
    check_ms("3 launches", elapsed_ms(e0, e1), 3 * (ar + ag));
    check_ms("captured events, last launch", elapsed_ms(eA, eB), ar + ag);
    /* The exec's eB node records e1 from the next launch; eB keeps its time. */
    CUevent eB_before = eB;
    float before = elapsed_ms(eA, eB);
    CHECK(cuGraphExecEventRecordNodeSetEvent(x, eB_node, NULL) == CUDA_ERROR_INVALID_VALUE);
    CU(cuGraphExecEventRecordNodeSetEvent(x, eB_node, e1));
    hold_until(s, &graph_T3);
    CU(cuGraphLaunch(x, s));
    CU(cuStreamSynchronize(s));
    CHECK(elapsed_ms(eA, eB_before) < 0);   /* eA moved on, eB did not */
    CHECK(before > 0);
    check_ms("swapped end event", elapsed_ms(eA, e1), ar + ag);
    /* Same topology, another size: the update takes it. */
    CUgraph g2 = capture_pair(s, c, 4 << 20, eA, eB, &eB2_node);
    CUgraphExecUpdateResultInfo info;
    CU(cuGraphExecUpdate_v2(x, g2, &info));
    CHECK(info.result == CU_GRAPH_EXEC_UPDATE_SUCCESS);
    hold_until(s, &graph_T2);
    CU(cuGraphLaunch(x, s));
    CU(cuStreamSynchronize(s));
    check_ms("updated launch", elapsed_ms(eA, eB), model_ms(0, 16 * MIB, 2 * (n - 1) / n) + ag);
    /* Another topology: refused, and the exec runs what it ran. Captured
     * thread-local, as capture_pair does: the other rank is a thread of
     * this process, and a global capture makes its calls meanwhile fail
     * (as CUDA's does), at whatever moment they come. */
    CUgraph g3;
    CU(cuStreamBeginCapture_v2(s, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL));
    NC(ncclAllReduce(NULL, NULL, 1, ncclFloat32, ncclSum, c, s));
    CHECK(cuGraphLaunch(x, s) == 900);   /* a launch into a capture: not modelled */
    CU(cuStreamEndCapture(s, &g3));
    CHECK(cuGraphExecUpdate_v2(x, g3, &info) == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
    CHECK(info.result == CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    /* g3's all-reduce was never launched: the next collective is still in
     * step with the other rank's. */
    CU(cuGraphDestroy(g3));
    CU(cuGraphDestroy(g2));
    CU(cuGraphLaunch(x, s));
    NC(ncclAllReduce(NULL, NULL, 16 << 20, ncclFloat32, ncclSum, c, s));
    CU(cuStreamSynchronize(s));
    CU(cuGraphExecDestroy(x));
    NC(ncclCommDestroy(c));
    CU(cuEventDestroy_v2(e0));
    CU(cuEventDestroy_v2(e1));
    CU(cuEventDestroy_v2(eA));
    CU(cuEventDestroy_v2(eB));
    CU(cuStreamDestroy_v2(s));
    return NULL;
}

static void test_graph(void)
{
    CU(cuInit(0));
    static uint64_t T;
    T = now_ns() + 500000000;
    graph_T2 = T + 300000000;
    graph_T3 = T + 150000000;
    struct rank_arg a[2];
    run_ranks(2, graph_rank, a, &T);
}

/* cuGetProcAddress as the driver API's reference has it: base names, the
 * newest variant at or below the version, _ptsz twins by flag, statuses. */
static void *proc(const char *symbol, int version, cuuint64_t flags, CUdriverProcAddressQueryResult want)
{
    void *fn = (void *)1;
    CUdriverProcAddressQueryResult st = -1;
    CU(cuGetProcAddress_v2(symbol, &fn, version, flags, &st));
    CHECK(st == want);
    CHECK((fn != NULL) == (want == CU_GET_PROC_ADDRESS_SUCCESS));
    return fn;
}

#define FN(f) ((void *)(uintptr_t)(f))
static void test_proc_address(void)
{
    /* No cuInit needed: cudart looks cuInit up this way. */
    int v = 0;
    CU(cuDriverGetVersion(&v));
    CHECK(v == 12080);
    CHECK(proc("cuInit", 12000, 0, CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuInit));
    CHECK(proc("cuMemAlloc", 12000, 0, CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuMemAlloc_v2));
    proc("cuMemAlloc_v2", 12000, 0, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);   /* base names only */
    proc("cuNoSuchThing", 12000, 0, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    proc("cuGraphInstantiateWithParams", 11080, 0, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
    CHECK(proc("cuGraphInstantiate", 10020, 0, CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuGraphInstantiate));
    CHECK(proc("cuGraphInstantiate", 11080, 0, CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuGraphInstantiate_v2));
    CHECK(proc("cuGraphInstantiate", 12000, 0, CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuGraphInstantiateWithFlags));
    CHECK(proc("cuGraphExecUpdate", 11080, 0, CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuGraphExecUpdate));
    CHECK(proc("cuGraphExecUpdate", 12080, 0, CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuGraphExecUpdate_v2));
    CHECK(proc("cuGraphLaunch", 12000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, CU_GET_PROC_ADDRESS_SUCCESS) ==
          FN(cuGraphLaunch));
    CHECK(proc("cuGraphLaunch", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
               CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuGraphLaunch_ptsz));
    /* No per-thread twin: the legacy function. */
    CHECK(proc("cuGraphDestroy", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
               CU_GET_PROC_ADDRESS_SUCCESS) == FN(cuGraphDestroy));
    /* Itself: entry points of its own, which answer as the exports do. */
    CUresult (*v2)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);
    *(void **)&v2 = proc("cuGetProcAddress", 12000, 0, CU_GET_PROC_ADDRESS_SUCCESS);
    CHECK(v2 != cuGetProcAddress_v2);
    void *got = NULL;
    CUdriverProcAddressQueryResult got_st;
    CU(v2("cuGraphLaunch", &got, 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &got_st));
    CHECK(got == FN(cuGraphLaunch_ptsz) && got_st == CU_GET_PROC_ADDRESS_SUCCESS);
    CHECK(proc("cuGetProcAddress", 11080, 0, CU_GET_PROC_ADDRESS_SUCCESS) != FN(cuGetProcAddress));
    /* A variant the simulator lacks is never answered by another. */
    proc("cuStreamGetCaptureInfo", 12030, 0, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    CU(cuGetProcAddress_v2_ptsz("cuGraphLaunch", &fn, 12000, 0, &st));   /* flags 0: per-thread */
    CHECK(fn == FN(cuGraphLaunch_ptsz) && st == CU_GET_PROC_ADDRESS_SUCCESS);
    CU(cuGetProcAddress("cuGraphLaunch", &fn, 11030, 0));
    CHECK(fn == FN(cuGraphLaunch));
    CHECK(cuGetProcAddress_v2("cuInit", &fn, 12090, 0, &st) == CUDA_ERROR_INVALID_VALUE); /* above the driver */
    CHECK(cuGetProcAddress_v2("cuInit", &fn, 12000, 4, &st) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGetProcAddress_v2(NULL, &fn, 12000, 0, &st) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGetProcAddress_v2("cuInit", NULL, 12000, 0, &st) == CUDA_ERROR_INVALID_VALUE);
}

static void test_allreduce_threads(void)
{
    CU(cuInit(0));
    static uint64_t T;
    T = now_ns() + 500000000;   /* time for 4 threads to initialize */
    struct rank_arg a[4];
    run_ranks(4, allreduce_rank, a, &T);
    for (int r = 0; r < 4; r++)
        check_ms("AllReduce 64 MiB f32, 4 thr", a[r].ms, model_ms(0, 64 * MIB, 1.5));
}

/* ---- latency ------------------------------------------------------------ */

static void test_broadcast_latency(void)
{
    /* NCCLSIM_LAT_US=2.5 */
    CU(cuInit(0));
    ncclComm_t c2[2], c1;
    NC(ncclCommInitAll(c2, 2, (const int[]){ 6, 7 }));
    int dev;
    NC(ncclCommCuDevice(c2[1], &dev));
    CHECK(dev == 7);
    NC(ncclCommInitAll(&c1, 1, NULL));
    static uint64_t T;
    T = now_ns() + HOLD_NS;
    CUstream s[2];
    CUevent e0[2], e1[2], f0, f1, g1;
    for (int r = 0; r < 2; r++) {
        use_device(6 + r);
        s[r] = new_stream();
        e0[r] = new_event();
        e1[r] = new_event();
        hold_until(s[r], &T);
        CU(cuEventRecord(e0[r], s[r]));
        NC(ncclBroadcast(NULL, NULL, 1000, ncclFloat32, 1, c2[r], s[r]));
        CU(cuEventRecord(e1[r], s[r]));
    }
    /* One rank: the factor is 0, only the latency is left. */
    use_device(0);
    f0 = new_event();
    f1 = new_event();
    g1 = new_event();
    hold_until(NULL, &T);
    CU(cuEventRecord(f0, NULL));
    NC(ncclAllReduce(NULL, NULL, 1 << 20, ncclFloat32, ncclSum, c1, NULL));
    CU(cuEventRecord(f1, NULL));
    NC(ncclReduceScatter(NULL, NULL, 1 << 20, ncclFloat32, ncclSum, c1, NULL));
    CU(cuEventRecord(g1, NULL));
    CU(cuCtxSynchronize());
    check_ms("AllReduce 1 rank", elapsed_ms(f0, f1), 0.0025);
    check_ms("ReduceScatter 1 rank", elapsed_ms(f1, g1), 0.0025);
    for (int r = 0; r < 2; r++) {
        CU(cuEventSynchronize(e1[r]));
        check_ms("Broadcast 4000 B, 2 ranks", elapsed_ms(e0[r], e1[r]), model_ms(2.5, 4000, 1));
        NC(ncclCommDestroy(c2[r]));
        CU(cuStreamDestroy_v2(s[r]));
        CU(cuEventDestroy_v2(e0[r]));
        CU(cuEventDestroy_v2(e1[r]));
    }
    NC(ncclCommDestroy(c1));
    CU(cuEventDestroy_v2(f0));
    CU(cuEventDestroy_v2(f1));
    CU(cuEventDestroy_v2(g1));
}

/* ---- groups ------------------------------------------------------------- */

static void test_group(void)
{
    CU(cuInit(0));
    ncclComm_t c[2];
    NC(ncclCommInitAll(c, 2, NULL));
    CUstream s[2];
    CUevent e0[2], e1[2], inside = NULL;
    for (int r = 0; r < 2; r++) {
        use_device(r);
        s[r] = new_stream();
        e0[r] = new_event();
        e1[r] = new_event();
    }
    inside = new_event();
    CHECK(ncclGroupEnd() == ncclInvalidUsage);

    /* Init of 2 ranks from one thread: only possible in a group. The
     * handles are set at the call, as NCCL does; usable after the group. */
    ncclUniqueId id;
    ncclComm_t g[2];
    NC(ncclGetUniqueId(&id));
    NC(ncclGroupStart());
    for (int r = 0; r < 2; r++) {
        use_device(r);
        NC(ncclCommInitRank(&g[r], 2, id, r));
        CHECK(g[r] != NULL);
    }
    NC(ncclGroupEnd());
    for (int r = 0; r < 2; r++)
        NC(ncclCommDestroy(g[r]));

    for (int r = 0; r < 2; r++)
        CU(cuEventRecord(e0[r], s[r]));
    uint64_t t0 = now_ns();
    NC(ncclGroupStart());
    NC(ncclGroupStart());   /* nested: only the outermost end launches */
    for (int r = 0; r < 2; r++) {
        NC(ncclAllReduce(NULL, NULL, 16 << 20, ncclFloat32, ncclSum, c[r], s[r]));
        NC(ncclAllGather(NULL, NULL, 8 << 20, ncclFloat32, c[r], s[r]));
    }
    NC(ncclGroupEnd());
    sleep_ms(30);
    /* Nothing is on the stream yet. */
    CU(cuEventRecord(inside, s[0]));
    CU(cuEventQuery(inside));
    uint64_t t_end = now_ns();
    NC(ncclGroupEnd());
    for (int r = 0; r < 2; r++)
        CU(cuEventRecord(e1[r], s[r]));
    /* AllReduce S = 64 MiB, factor 1; AllGather S = 32 MiB * 2, factor 1/2 */
    double ops = model_ms(0, 64 * MIB, 1) + model_ms(0, 64 * MIB, 0.5);
    for (int r = 0; r < 2; r++) {
        CU(cuEventSynchronize(e1[r]));
        float ms = elapsed_ms(e0[r], e1[r]);
        double before = (double)(t_end - t0) / 1e6;
        fprintf(stderr, "  group rank %d: %.3f ms, launched after %.3f ms, ops %.3f ms\n", r, ms,
                before, ops);
        CHECK(ms >= before + ops - 0.01 && ms <= before + ops + 20);
        /* The ops began at the group's end, after the event inside it. */
        CHECK(r != 0 || elapsed_ms(inside, e1[r]) >= ops - 0.01);
    }

    /* An error inside a group fails the group, and launches nothing. */
    static uint64_t T;
    T = now_ns() + HOLD_NS;
    hold_until(s[0], &T);
    CU(cuEventRecord(e0[0], s[0]));
    NC(ncclGroupStart());
    NC(ncclAllReduce(NULL, NULL, 16 << 20, ncclFloat32, ncclSum, c[0], s[0]));
    CHECK(ncclAllReduce(NULL, NULL, 1, (ncclDataType_t)12, ncclSum, c[1], s[1]) ==
          ncclInvalidArgument);
    CHECK(ncclGroupEnd() == ncclInvalidArgument);
    CU(cuEventRecord(e1[0], s[0]));
    CU(cuEventSynchronize(e1[0]));
    CHECK(elapsed_ms(e0[0], e1[0]) == 0);

    for (int r = 0; r < 2; r++) {
        NC(ncclCommDestroy(c[r]));
        CU(cuStreamDestroy_v2(s[r]));
        CU(cuEventDestroy_v2(e0[r]));
        CU(cuEventDestroy_v2(e1[r]));
    }
    CU(cuEventDestroy_v2(inside));
}

static void test_simulate_end(void)
{
    CU(cuInit(0));
    ncclComm_t c[2];
    NC(ncclCommInitAll(c, 2, NULL));
    use_device(0);
    CUevent e0 = new_event(), e1 = new_event();
    ncclSimInfo_t info = { .size = sizeof info, .magic = 0x74685283, .version = 23000 };
    static uint64_t T;
    T = now_ns() + HOLD_NS;
    hold_until(NULL, &T);
    CU(cuEventRecord(e0, NULL));
    NC(ncclGroupStart());
    for (int r = 0; r < 2; r++)
        NC(ncclAllReduce(NULL, NULL, 16 << 20, ncclFloat32, ncclSum, c[r], NULL));
    NC(ncclGroupSimulateEnd(&info));
    CU(cuEventRecord(e1, NULL));
    CU(cuEventSynchronize(e1));
    CHECK(elapsed_ms(e0, e1) == 0);   /* nothing launched */
    double want_us = 2 * model_ms(0, 64 * MIB, 1) * 1e3;
    fprintf(stderr, "  estimatedTime %.3f us (model %.3f us)\n", info.estimatedTime, want_us);
    CHECK(fabs(info.estimatedTime - want_us) <= want_us * 1e-3);
    CHECK(ncclGroupSimulateEnd(&info) == ncclInvalidUsage);
    /* No sequence number was used: the ranks still meet. */
    NC(ncclGroupStart());
    for (int r = 0; r < 2; r++)
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, c[r], NULL));
    NC(ncclGroupEnd());
    for (int r = 0; r < 2; r++) {
        use_device(r);
        CU(cuCtxSynchronize());
        NC(ncclCommDestroy(c[r]));
    }
    CU(cuEventDestroy_v2(e0));
    CU(cuEventDestroy_v2(e1));
}

/* ---- split, shrink, grow ------------------------------------------------ */

static void *split_rank(void *p)
{
    struct rank_arg *a = p;
    use_device(a->rank);
    ncclComm_t c, child, c3;
    NC(ncclCommInitRank(&c, a->n, a->id, a->rank));
    /* Colors by parity, ordered by descending parent rank. */
    NC(ncclCommSplit(c, a->rank % 2, -a->rank, &child, NULL));
    NC(ncclCommUserRank(child, &a->child_rank));
    NC(ncclCommCount(child, &a->child_n));
    /* The child works: a collective completes on it. */
    CUstream s = new_stream();
    NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, child, s));
    CU(cuStreamSynchronize(s));
    /* The last rank opts out of a second split. */
    int color = a->rank == a->n - 1 ? NCCL_SPLIT_NOCOLOR : 7;
    NC(ncclCommSplit(c, color, 0, &c3, NULL));
    if (c3) {
        NC(ncclCommUserRank(c3, &a->child2_rank));
        NC(ncclCommCount(c3, &a->child2_n));
        NC(ncclCommDestroy(c3));
    } else {
        a->child2_rank = a->child2_n = -1;
    }
    NC(ncclCommDestroy(child));
    NC(ncclCommDestroy(c));
    CU(cuStreamDestroy_v2(s));
    return NULL;
}

static void test_split(void)
{
    CU(cuInit(0));
    struct rank_arg a[4];
    run_ranks(4, split_rank, a, NULL);
    /* color 0: parents 0, 2 -> keys 0, -2 -> child ranks 1, 0; color 1 alike */
    static const int want[4] = { 1, 1, 0, 0 };
    for (int r = 0; r < 4; r++) {
        fprintf(stderr, "  parent %d: child rank %d of %d; second %d of %d\n", r, a[r].child_rank,
                a[r].child_n, a[r].child2_rank, a[r].child2_n);
        CHECK(a[r].child_n == 2 && a[r].child_rank == want[r]);
        CHECK(r == 3 ? a[r].child2_n == -1 : (a[r].child2_n == 3 && a[r].child2_rank == r));
    }

    /* The same from one thread, in a group. */
    ncclComm_t c[4], child[4];
    NC(ncclCommInitAll(c, 4, NULL));
    NC(ncclGroupStart());
    for (int r = 0; r < 4; r++) {
        NC(ncclCommSplit(c[r], r / 2, r, &child[r], NULL));
        CHECK(child[r] == NULL);   /* as in NCCL: set when complete */
    }
    NC(ncclGroupEnd());
    for (int r = 0; r < 4; r++) {
        int rank, n;
        NC(ncclCommUserRank(child[r], &rank));
        NC(ncclCommCount(child[r], &n));
        CHECK(n == 2 && rank == r % 2);
        NC(ncclCommDestroy(child[r]));
        NC(ncclCommDestroy(c[r]));
    }
}

static void *shrink_rank(void *p)
{
    struct rank_arg *a = p;
    use_device(a->rank);
    ncclComm_t c, child;
    NC(ncclCommInitRank(&c, a->n, a->id, a->rank));
    int ex[] = { 1 };
    a->child_rank = a->child_n = -1;
    if (a->rank == 1) {
        /* An excluded rank must not call it. */
        CHECK(ncclCommShrink(c, ex, 1, &child, NULL, 0) == ncclInvalidArgument);
    } else {
        NC(ncclCommShrink(c, ex, 1, &child, NULL, 0));
        NC(ncclCommUserRank(child, &a->child_rank));
        NC(ncclCommCount(child, &a->child_n));
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, child, NULL));
        CU(cuStreamSynchronize(NULL));
        NC(ncclCommDestroy(child));
    }
    NC(ncclCommDestroy(c));
    return NULL;
}

static void test_shrink_grow(void)
{
    CU(cuInit(0));
    struct rank_arg a[4];
    run_ranks(4, shrink_rank, a, NULL);
    static const int want[4] = { 0, -1, 1, 2 };
    for (int r = 0; r < 4; r++) {
        fprintf(stderr, "  shrink: parent %d -> %d of %d\n", r, a[r].child_rank, a[r].child_n);
        CHECK(a[r].child_rank == want[r] && a[r].child_n == (r == 1 ? -1 : 3));
    }

    /* Grow 2 ranks to 3, from one thread in a group (2.29 calling rules). */
    ncclComm_t c[2], g[3];
    NC(ncclCommInitAll(c, 2, NULL));
    ncclUniqueId id;
    NC(ncclGetUniqueId(&id));
    CHECK(ncclCommGrow(c[0], 2, &id, -1, &g[0], NULL) == ncclInvalidArgument);
    CHECK(ncclCommGrow(c[0], 3, &id, 0, &g[0], NULL) == ncclInvalidArgument);
    CHECK(ncclCommGrow(NULL, 3, NULL, 2, &g[2], NULL) == ncclInvalidArgument);
    NC(ncclGroupStart());
    NC(ncclCommGrow(c[0], 3, &id, -1, &g[0], NULL));
    NC(ncclCommGrow(c[1], 3, NULL, -1, &g[1], NULL));
    use_device(2);
    NC(ncclCommGrow(NULL, 3, &id, 2, &g[2], NULL));
    NC(ncclGroupEnd());
    static uint64_t T;
    T = now_ns() + HOLD_NS;
    CUstream s[3];
    CUevent e0[3], e1[3];
    for (int r = 0; r < 3; r++) {
        int rank, n, dev;
        NC(ncclCommUserRank(g[r], &rank));
        NC(ncclCommCount(g[r], &n));
        NC(ncclCommCuDevice(g[r], &dev));
        CHECK(rank == r && n == 3 && dev == r);
        use_device(r);
        s[r] = new_stream();
        e0[r] = new_event();
        e1[r] = new_event();
        hold_until(s[r], &T);
        CU(cuEventRecord(e0[r], s[r]));
    }
    NC(ncclGroupStart());
    for (int r = 0; r < 3; r++)
        NC(ncclAllGather(NULL, NULL, 1 << 20, ncclFloat32, g[r], s[r]));
    NC(ncclGroupEnd());
    for (int r = 0; r < 3; r++)
        CU(cuEventRecord(e1[r], s[r]));
    for (int r = 0; r < 3; r++) {
        CU(cuEventSynchronize(e1[r]));
        check_ms("AllGather 1M f32, grown comm", elapsed_ms(e0[r], e1[r]),
                 model_ms(0, 4 * MIB * 3, 2.0 / 3));
        NC(ncclCommDestroy(g[r]));
        if (r < 2)
            NC(ncclCommDestroy(c[r]));
        CU(cuStreamDestroy_v2(s[r]));
        CU(cuEventDestroy_v2(e0[r]));
        CU(cuEventDestroy_v2(e1[r]));
    }
}

/* ---- knobs: slow rank, hang -------------------------------------------- */

static void test_slow_rank(void)
{
    /* NCCLSIM_SLOW_RANK=2 NCCLSIM_SLOW_US=30000 */
    CU(cuInit(0));
    enum { N = 4 };
    ncclComm_t c[N];
    NC(ncclCommInitAll(c, N, NULL));
    static uint64_t T;
    T = now_ns() + HOLD_NS;
    CUstream s[N];
    CUevent e0[N], e1[N];
    for (int r = 0; r < N; r++) {
        use_device(r);
        s[r] = new_stream();
        e0[r] = new_event();
        e1[r] = new_event();
        hold_until(s[r], &T);
        CU(cuEventRecord(e0[r], s[r]));
    }
    NC(ncclGroupStart());
    for (int r = 0; r < N; r++)
        NC(ncclAllReduce(NULL, NULL, 1 << 20, ncclFloat32, ncclSum, c[r], s[r]));
    NC(ncclGroupEnd());
    for (int r = 0; r < N; r++)
        CU(cuEventRecord(e1[r], s[r]));
    /* Everyone waits the 30 ms for rank 2, then the op runs. Rank 2 is
     * busy before the collective, before the event recorded just before
     * it too: it arrives late, and does not wait itself. */
    for (int r = 0; r < N; r++) {
        CU(cuEventSynchronize(e1[r]));
        check_ms("AllReduce 4 MiB, rank 2 late", elapsed_ms(e0[r], e1[r]),
                 (r == 2 ? 0 : 30) + model_ms(0, 4 * MIB, 1.5));
        NC(ncclCommDestroy(c[r]));
        CU(cuStreamDestroy_v2(s[r]));
        CU(cuEventDestroy_v2(e0[r]));
        CU(cuEventDestroy_v2(e1[r]));
    }
}

static void test_hang(void)
{
    /* NCCLSIM_HANG_RANK=1 NCCLSIM_HANG_SEQ=1 */
    CU(cuInit(0));
    ncclComm_t c[2];
    NC(ncclCommInitAll(c, 2, NULL));
    CUstream s[2];
    CUevent e0[2], e1[2], e2[2];
    for (int r = 0; r < 2; r++) {
        use_device(r);
        s[r] = new_stream();
        e0[r] = new_event();
        e1[r] = new_event();
        e2[r] = new_event();
    }
    for (int r = 0; r < 2; r++)
        CU(cuEventRecord(e0[r], s[r]));
    NC(ncclGroupStart());
    for (int r = 0; r < 2; r++)
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, c[r], s[r]));   /* seq 0 */
    NC(ncclGroupEnd());
    for (int r = 0; r < 2; r++)
        CU(cuEventRecord(e1[r], s[r]));
    NC(ncclGroupStart());
    for (int r = 0; r < 2; r++) {
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, c[r], s[r]));   /* seq 1 */
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, c[r], s[r]));   /* seq 2 */
    }
    NC(ncclGroupEnd());
    for (int r = 0; r < 2; r++)
        CU(cuEventRecord(e2[r], s[r]));
    sleep_ms(200);
    float ms;
    /* Rank 0 got to collective 1 and waits in it; rank 1 never got there:
     * the event recorded just before it (e1) never completes either. */
    CU(cuEventSynchronize(e1[0]));
    CHECK(cuEventQuery(e1[1]) == CUDA_ERROR_NOT_READY);
    for (int r = 0; r < 2; r++) {
        CHECK(cuEventQuery(e2[r]) == CUDA_ERROR_NOT_READY);
        CHECK(cuEventElapsedTime(&ms, e0[r], e2[r]) == CUDA_ERROR_NOT_READY);
    }
    /* Abort lets the streams drain. */
    for (int r = 0; r < 2; r++)
        NC(ncclCommAbort(c[r]));
    for (int r = 0; r < 2; r++) {
        CU(cuStreamSynchronize(s[r]));
        CU(cuEventQuery(e2[r]));
        CHECK(elapsed_ms(e0[r], e2[r]) >= 200);
        CU(cuStreamDestroy_v2(s[r]));
        CU(cuEventDestroy_v2(e0[r]));
        CU(cuEventDestroy_v2(e1[r]));
        CU(cuEventDestroy_v2(e2[r]));
    }
}

/* ---- processes ---------------------------------------------------------- */

/* Rank `rank` of 2 processes. */
static void process_rank(int rank, ncclUniqueId id, const uint64_t *T)
{
    CU(cuInit(0));
    use_device(rank);
    ncclComm_t c;
    NC(ncclCommInitRank(&c, 2, id, rank));
    CUstream s = new_stream();
    CUevent e0 = new_event(), e1 = new_event();
    hold_until(s, T);
    CU(cuEventRecord(e0, s));
    NC(ncclAllReduce(NULL, NULL, 16 << 20, ncclFloat32, ncclSum, c, s));
    CU(cuEventRecord(e1, s));
    CU(cuEventSynchronize(e1));
    check_ms("AllReduce 64 MiB, 2 procs", elapsed_ms(e0, e1), model_ms(0, 64 * MIB, 1));

    /* Rank 1 issues two collectives, then leaves its host thread idle in
     * sleep: its second arrival must still be seen (progress thread). */
    NC(ncclCommUserRank(c, &rank));
    if (rank == 1) {
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, c, s));
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, c, s));
        sleep_ms(600);
    } else {
        sleep_ms(50);
        uint64_t t0 = now_ns();
        CU(cuEventRecord(e0, s));
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, c, s));
        NC(ncclAllReduce(NULL, NULL, 1024, ncclFloat32, ncclSum, c, s));
        CU(cuEventRecord(e1, s));
        CU(cuStreamSynchronize(s));
        double wall = (double)(now_ns() - t0) / 1e6;
        fprintf(stderr, "  rank 0 waited %.3f ms for an idle peer process\n", wall);
        CHECK(wall < 300);
    }
    CU(cuStreamSynchronize(s));
    NC(ncclCommDestroy(c));
    CU(cuEventDestroy_v2(e0));
    CU(cuEventDestroy_v2(e1));
    CU(cuStreamDestroy_v2(s));
}

static void test_processes(void)
{
    ncclUniqueId id;
    NC(ncclGetUniqueId(&id));
    static uint64_t T;
    T = now_ns() + 500000000;
    pid_t pid[2];
    for (int r = 0; r < 2; r++) {
        pid[r] = fork();
        CHECK(pid[r] >= 0);
        if (pid[r] == 0) {
            process_rank(r, id, &T);
            exit(0);
        }
    }
    for (int r = 0; r < 2; r++) {
        int st;
        CHECK(waitpid(pid[r], &st, 0) == pid[r]);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
}

/* ---- the ring of slots -------------------------------------------------- */

static void *ring_rank(void *p)
{
    struct rank_arg *a = p;
    use_device(a->rank);
    ncclComm_t c;
    NC(ncclCommInitRank(&c, a->n, a->id, a->rank));
    CUstream s = new_stream();
    if (a->rank == 1)
        sleep_ms(300);
    /* Rank 0 can run at most 4096 collectives ahead: then it waits. */
    uint64_t t0 = now_ns();
    for (int i = 0; i < 5000; i++)
        NC(ncclAllReduce(NULL, NULL, 1, ncclInt8, ncclSum, c, s));
    a->ms = (float)((double)(now_ns() - t0) / 1e6);
    for (int i = 0; i < 5000; i++)
        NC(ncclAllReduce(NULL, NULL, 1, ncclInt8, ncclSum, c, s));
    CU(cuStreamSynchronize(s));
    NC(ncclCommDestroy(c));
    CU(cuStreamDestroy_v2(s));
    return NULL;
}

static void test_ring(void)
{
    CU(cuInit(0));
    struct rank_arg a[2];
    run_ranks(2, ring_rank, a, NULL);
    fprintf(stderr, "  issuing 5000 collectives took rank 0 %.1f ms (peer 300 ms late)\n", a[0].ms);
    CHECK(a[0].ms >= 250);
}

/* ---- failures and errors ------------------------------------------------ */

static void test_rendezvous_timeout(void)
{
    /* NCCLSIM_RENDEZVOUS_TIMEOUT_S=0.3: rank 1 of 2 never comes. */
    CU(cuInit(0));
    ncclUniqueId id;
    NC(ncclGetUniqueId(&id));
    ncclComm_t c = (ncclComm_t)&id;
    uint64_t t0 = now_ns();
    CHECK(ncclCommInitRank(&c, 2, id, 0) == ncclSystemError);
    double s = (double)(now_ns() - t0) / 1e9;
    CHECK(c == NULL && s >= 0.3 && s < 3);
}

static void test_bad_knob(void)
{
    /* NCCLSIM_BUSBW_GBS=fast: a message, then the default 100. */
    char path[] = "/tmp/ncclsim-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    CU(cuInit(0));
    ncclComm_t c;
    NC(ncclCommInitAll(&c, 1, NULL));
    use_device(0);
    CUevent e0 = new_event(), e1 = new_event();
    static uint64_t T;
    T = now_ns() + HOLD_NS;
    hold_until(NULL, &T);
    CU(cuEventRecord(e0, NULL));
    NC(ncclBroadcast(NULL, NULL, 1 << 20, ncclInt8, 0, c, NULL));
    CU(cuEventRecord(e1, NULL));
    fflush(stderr);
    dup2(saved, 2);
    char buf[512] = { 0 };
    CHECK(pread(fd, buf, sizeof buf - 1, 0) > 0);
    close(fd);
    unlink(path);
    fprintf(stderr, "  stderr said: %s", buf);
    CHECK(strstr(buf, "NCCLSIM_BUSBW_GBS") && strstr(buf, "expected"));
    CU(cuEventSynchronize(e1));
    check_ms("Broadcast 1 MiB at default bw", elapsed_ms(e0, e1), model_ms(0, MIB, 1));
    NC(ncclCommDestroy(c));
    CU(cuEventDestroy_v2(e0));
    CU(cuEventDestroy_v2(e1));
}

/* One-sided ops: rank 1's wait for two puts of rank 0 begins when the
 * second arrives (both streams held until T: the puts end at T + d and
 * T + 2d, d the model's time of 1 MiB, factor 1), so its interval from T
 * is exactly 2d; NCCL's argument checks refuse the rest. */
static void test_onesided(void)
{
    CU(cuInit(0));
    ncclComm_t c[2];
    NC(ncclCommInitAll(c, 2, NULL));
    CUstream s[2];
    CUevent e0 = NULL, e1 = NULL;
    for (int r = 0; r < 2; r++) {
        use_device(r);
        s[r] = new_stream();
    }
    e0 = new_event();
    e1 = new_event();
    ncclWindow_t win;
    NC(ncclCommWindowRegister(c[1], (void *)0x1000, MIB, &win, 0));
    uint64_t T = now_ns() + HOLD_NS;
    hold_until(s[0], &T);
    hold_until(s[1], &T);
    CU(cuEventRecord(e0, s[1]));
    ncclWaitSignalDesc_t two = {2, 0, 0, 0};
    NC(ncclWaitSignal(1, &two, c[1], s[1]));
    CU(cuEventRecord(e1, s[1]));
    for (int k = 0; k < 2; k++)
        NC(ncclPutSignal((void *)0x1000, MIB / 4, ncclFloat32, 1, win, 0, 0, 0, 0, c[0], s[0]));
    CU(cuEventSynchronize(e1));
    check_ms("wait for 2 puts of 1 MiB", elapsed_ms(e0, e1), 2 * model_ms(0, MIB, 1));

    CHECK(ncclPutSignal((void *)0x1000, 1, ncclFloat32, 1, win, 0, 1, 0, 0, c[0], s[0]) == ncclInvalidArgument);
    CHECK(ncclPutSignal((void *)0x1000, 1, ncclFloat32, 1, win, 0, 0, 1, 0, c[0], s[0]) == ncclInvalidArgument);
    CHECK(ncclPutSignal((void *)0x1000, 1, ncclFloat32, 1, NULL, 0, 0, 0, 0, c[0], s[0]) == ncclInvalidArgument);
    CHECK(ncclSignal(1, 0, 0, 1, c[0], s[0]) == ncclInvalidArgument);
    CHECK(ncclSignal(2, 0, 0, 0, c[0], s[0]) == ncclInvalidArgument);
    CHECK(ncclWaitSignal(0, &two, c[1], s[1]) == ncclInvalidArgument);
    ncclWaitSignalDesc_t none = {0, 0, 0, 0};
    CHECK(ncclWaitSignal(1, &none, c[1], s[1]) == ncclInvalidArgument);
    NC(ncclCommWindowDeregister(c[1], win));
    for (int r = 0; r < 2; r++)
        NC(ncclCommDestroy(c[r]));
    CU(cuEventDestroy_v2(e0));
    CU(cuEventDestroy_v2(e1));
}

static const char *const new_apis[] = {
    "ncclAlltoAll", "ncclGather", "ncclScatter", "ncclCommShrink", "ncclCommGrow",
    "ncclCommInitRankScalable", "ncclGroupSimulateEnd", "ncclAllReduceConfig", "ncclAlltoAllConfig",
    "ncclScatterConfig", "ncclMemAlloc", "ncclCommRegister", "ncclCommWindowRegister", "ncclCommSuspend",
    "ncclCommRevoke", "ncclDevCommCreate", "ncclDevCommDestroy", "ncclPutSignal", "ncclSignal", "ncclWaitSignal",
};

static void check_exported(void *lib, const char *name, int want)
{
    char twin[64];
    snprintf(twin, sizeof twin, "p%s", name);
    int have = dlsym(lib, name) != NULL, have_twin = dlsym(lib, twin) != NULL;
    if (have != want || have_twin != want)
        fprintf(stderr, "  %s: exported %d, twin %d, expected %d\n", name, have, have_twin, want);
    CHECK(have == want && have_twin == want);
}

static void test_errors(void)
{
    CU(cuInit(0));
    int v;
    NC(ncclGetVersion(&v));
    CHECK(v == 23000);
    ncclComm_t c[2];
    NC(ncclCommInitAll(c, 2, NULL));
    const ncclResult_t BAD = ncclInvalidArgument;
    CHECK(ncclAllReduce(NULL, NULL, 1, ncclFloat32, ncclSum, NULL, NULL) == BAD);
    CHECK(ncclAllReduce(NULL, NULL, 1, (ncclDataType_t)12, ncclSum, c[0], NULL) == BAD);
    CHECK(ncclAllReduce(NULL, NULL, 1, (ncclDataType_t)-1, ncclSum, c[0], NULL) == BAD);
    CHECK(ncclAllReduce(NULL, NULL, 1, ncclFloat32, (ncclRedOp_t)5, c[0], NULL) == BAD);
    CHECK(ncclReduce(NULL, NULL, 1, ncclFloat32, ncclSum, 2, c[0], NULL) == BAD);
    CHECK(ncclBroadcast(NULL, NULL, 1, ncclFloat32, -1, c[0], NULL) == BAD);
    CHECK(ncclSend(NULL, 1, ncclFloat32, 2, c[0], NULL) == BAD);
    CHECK(ncclRecv(NULL, 1, ncclFloat32, -1, c[0], NULL) == BAD);
    CHECK(ncclGather(NULL, NULL, 1, ncclFloat32, 5, c[0], NULL) == BAD);
    CHECK(ncclCommInitRank(NULL, 2, (ncclUniqueId){ { 1 } }, 0) == BAD);
    ncclComm_t x;
    CHECK(ncclCommInitRank(&x, 2, (ncclUniqueId){ { 1 } }, 2) == BAD);
    CHECK(ncclCommInitAll(NULL, 2, NULL) == BAD);
    CHECK(ncclCommInitAll(&x, 1, (const int[]){ 8 }) == BAD);
    CHECK(ncclCommInitAll(&x, 9, NULL) == BAD);   /* NCCLSIM_NDEV=8 */
    CHECK(ncclCommSplit(c[0], 0, 0, NULL, NULL) == BAD);
    CHECK(ncclCommCount(NULL, &v) == BAD);
    CHECK(ncclCommUserRank(c[0], NULL) == BAD);
    ncclResult_t async;
    NC(ncclCommGetAsyncError(c[0], &async));
    CHECK(async == ncclSuccess);
    CHECK(ncclGetErrorString(ncclInvalidArgument) && *ncclGetErrorString((ncclResult_t)99));
    CHECK(pncclAllReduce(NULL, NULL, 1, ncclFloat32, ncclSum, NULL, NULL) == BAD);
    /* Accepted: avg, the last type, a zero count (discarded, as in NCCL). */
    NC(ncclGroupStart());
    for (int r = 0; r < 2; r++) {
        NC(ncclAllReduce(NULL, NULL, 1, ncclFloat8e5m2, ncclAvg, c[r], NULL));
        NC(ncclAllReduce(NULL, NULL, 0, ncclFloat32, ncclSum, c[r], NULL));
    }
    NC(ncclGroupEnd());
    for (int r = 0; r < 2; r++) {
        use_device(r);
        CU(cuCtxSynchronize());
        NC(ncclCommDestroy(c[r]));
    }

    /* Every symbol of the ABI tables, and its twin; nothing internal. */
    void *self = dlopen(NULL, RTLD_NOW);
#define NCCLSIM_CHECK_EXPORT(name, params, args, ...) check_exported(self, #name, 1);
    NCCLTAP_NCCL_API(NCCLSIM_CHECK_EXPORT)
#undef NCCLSIM_CHECK_EXPORT
    static const char *const queries[] = { "ncclGetVersion", "ncclGetUniqueId", "ncclCommCount",
        "ncclCommCuDevice", "ncclCommUserRank", "ncclCommGetAsyncError", "ncclGetErrorString" };
    for (size_t i = 0; i < sizeof queries / sizeof queries[0]; i++)
        check_exported(self, queries[i], 1);
#define NCCLSIM_CHECK_CU(field, symbol, ret, params, ...) CHECK(dlsym(self, symbol) != NULL);
    NCCLTAP_CUDA_API(NCCLSIM_CHECK_CU)
#undef NCCLSIM_CHECK_CU
    CHECK(dlsym(self, "cuEventElapsedTime_v2") != NULL);
    CHECK(dlsym(self, "sim_queue_resolve") == NULL && dlsym(self, "sim_ncclAllReduce") == NULL);
    dlclose(self);
}

static void test_legacy(void)
{
    void *lib = dlopen(NCCLSIM_LEGACY_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        fprintf(stderr, "  %s\n", dlerror());
    CHECK(lib != NULL);
    for (size_t i = 0; i < sizeof new_apis / sizeof new_apis[0]; i++)
        check_exported(lib, new_apis[i], 0);
    check_exported(lib, "ncclAllReduce", 1);
    check_exported(lib, "ncclCommSplit", 1);
    check_exported(lib, "ncclCommInitRankConfig", 1);
    check_exported(lib, "ncclGetVersion", 1);
    ncclResult_t (*get_version)(int *) = (ncclResult_t (*)(int *))dlsym(lib, "ncclGetVersion");
    int v = 0;
    NC(get_version(&v));
    CHECK(v == 21803);
    /* 2.18 has no fp8 types. */
    CU(cuInit(0));
    ncclResult_t (*init_all)(ncclComm_t *, int, const int *) =
        (ncclResult_t (*)(ncclComm_t *, int, const int *))dlsym(lib, "ncclCommInitAll");
    ncclResult_t (*bcast)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) =
        (ncclResult_t (*)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))
            dlsym(lib, "ncclBcast");
    ncclResult_t (*destroy)(ncclComm_t) = (ncclResult_t (*)(ncclComm_t))dlsym(lib, "ncclCommDestroy");
    ncclComm_t c;
    NC(init_all(&c, 1, NULL));
    CHECK(bcast(NULL, 1, ncclFloat8e4m3, 0, c, NULL) == ncclInvalidArgument);
    NC(bcast(NULL, 1, ncclBfloat16, 0, c, NULL));
    NC(destroy(c));
}

static const struct { const char *name; void (*fn)(void); } tests[] = {
    { "driver", test_driver },
    { "events", test_events },
    { "capture", test_capture },
    { "capture_modes", test_capture_modes },
    { "graph", test_graph },
    { "proc_address", test_proc_address },
    { "model", test_model },
    { "allreduce_threads", test_allreduce_threads },
    { "broadcast_latency", test_broadcast_latency },
    { "group", test_group },
    { "onesided", test_onesided },
    { "simulate_end", test_simulate_end },
    { "split", test_split },
    { "shrink_grow", test_shrink_grow },
    { "slow_rank", test_slow_rank },
    { "hang", test_hang },
    { "processes", test_processes },
    { "ring", test_ring },
    { "rendezvous_timeout", test_rendezvous_timeout },
    { "bad_knob", test_bad_knob },
    { "errors", test_errors },
    { "legacy", test_legacy },
};

int main(int argc, char **argv)
{
    for (size_t i = 0; argc == 2 && i < sizeof tests / sizeof tests[0]; i++) {
        if (!strcmp(argv[1], tests[i].name)) {
            tests[i].fn();
            fprintf(stderr, "sim.%s: ok\n", argv[1]);
            return 0;
        }
    }
    fprintf(stderr, "usage: %s CASE (one of:", argv[0]);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        fprintf(stderr, " %s", tests[i].name);
    fprintf(stderr, ")\n");
    return 2;
}
