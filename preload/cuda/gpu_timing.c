#include "cuda/gpu_timing.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/config.h"
#include "base/log.h"
#include "base/mpmc_queue.h"
#include "base/monotonic.h"

#define MAX_CONTEXTS 64
#define CHUNK 1024 /* events created at a time: 512 ops in flight */
/* A pool starts larger: calls enqueued back to back, faster than the
 * reducer wakes to grow it, would otherwise find it empty (2048 ops). */
#define FIRST_CHUNK 4096

/* One kind of event: timed (CU_EVENT_DEFAULT) or a mark (timing
 * disabled: about half the host cost, no GPU time, no elapsed time). */
struct event_kind {
    struct mpmc_queue *free_events; /* struct tap_event * */
    _Atomic uint32_t created;
    _Atomic int want_more;
    _Atomic bool refused; /* the driver refused an event: grown again only once dry */
};

struct event_pool {
    CUcontext ctx;
    struct event_kind kinds[2];     /* [timed] */
    /* Reducer only. */
    CUstream calib_stream;
    CUevent ref;
    CUevent probe;   /* a calibration's try, kept as `ref` when the best; NULL: none made */
    uint64_t ref_ns; /* CLOCK_MONOTONIC of `ref`; 0: not calibrated */
};

struct cuda_driver tap_cu;
static _Atomic int gpu_state; /* 0 unknown, 1 ready, -1 unavailable */
static pthread_once_t gpu_once = PTHREAD_ONCE_INIT;
static char gpu_note[256];
static _Atomic uint64_t pair_cost_ns;

static struct event_pool *_Atomic pools[MAX_CONTEXTS];
static _Atomic unsigned npools;
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
/* One grower of a published pool at a time (its count is checked, then
 * raised): apart from pools_lock, so that a context's first call does not
 * wait behind a growth of thousands of events. Never nested with it. */
static pthread_mutex_t grow_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread void *tl_stream __attribute__((tls_model("initial-exec")));
static __thread struct event_pool *tl_pool __attribute__((tls_model("initial-exec")));

static void load_driver(void)
{
    if (cuda_driver_load(&tap_cu, NULL, gpu_note, sizeof gpu_note) != 0 ||
        !tap_cu.cuStreamGetCtx || !tap_cu.cuCtxPushCurrent || !tap_cu.cuCtxPopCurrent ||
        !tap_cu.cuEventSynchronize || !tap_cu.cuStreamCreate) {
        if (!gpu_note[0])
            snprintf(gpu_note, sizeof gpu_note, "the CUDA driver lacks entry points nccltap needs");
        atomic_store(&gpu_state, -1);
        tap_log("cannot time operations (%s): counting only", gpu_note);
        return;
    }
    atomic_store(&gpu_state, 1);
}

bool tap_gpu_init(void)
{
    if (tap_config.timing == TAP_TIMING_OFF)
        return false;
    pthread_once(&gpu_once, load_driver);
    return atomic_load(&gpu_state) == 1;
}

bool tap_gpu_ready(void) { return atomic_load_explicit(&gpu_state, memory_order_relaxed) == 1; }

const char *tap_gpu_note(void) { return gpu_note; }

uint64_t tap_event_pair_cost_ns(void) { return atomic_load_explicit(&pair_cost_ns, memory_order_relaxed); }

/* Creates up to `n` events of a kind in the pool's context; the caller
 * has it current. */
static void create_events(struct event_pool *p, bool timed, uint32_t n)
{
    struct event_kind *k = &p->kinds[timed];
    uint32_t have = atomic_load(&k->created);
    if (have + n > tap_config.max_inflight)
        n = tap_config.max_inflight > have ? tap_config.max_inflight - have : 0;
    if (n == 0)
        return;
    struct tap_event *chunk = calloc(n, sizeof *chunk);
    if (!chunk)
        return;
    uint32_t made = 0;
    for (; made < n; made++) {
        if (tap_cu.cuEventCreate(&chunk[made].ev, timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING) !=
            CUDA_SUCCESS)
            break;
        chunk[made].pool = p;
        chunk[made].timed = timed;
        atomic_init(&chunk[made].holders, 1);
        struct tap_event *e = &chunk[made];
        mpmc_push(k->free_events, &e, sizeof e);
    }
    atomic_store_explicit(&k->refused, made < n, memory_order_relaxed);
    if (!made)
        free(chunk);
    atomic_fetch_add(&k->created, made);
}

/* Host cost of one event record, on a private stream: what every timed op
 * pays twice on the caller's thread. The first few hundred records are
 * cheaper than the steady state (the driver's command queue is empty), so
 * only the second half is timed. Timed ops measure it again as they run. */
static void measure_pair_cost(struct event_pool *p)
{
    enum { N = 1000 };
    for (int i = 0; i < N; i++)
        tap_cu.cuEventRecord(p->ref, p->calib_stream);
    uint64_t t0 = tap_monotonic_ns();
    for (int i = 0; i < N; i++)
        tap_cu.cuEventRecord(p->ref, p->calib_stream);
    uint64_t t1 = tap_monotonic_ns();
    tap_cu.cuEventSynchronize(p->ref);
    atomic_store(&pair_cost_ns, 2 * (t1 - t0) / N);
}

static struct event_pool *create_pool(CUcontext ctx)
{
    struct event_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ctx = ctx;
    for (int timed = 0; timed < 2; timed++)
        p->kinds[timed].free_events = mpmc_create(tap_config.max_inflight, sizeof(struct tap_event *));
    if (!p->kinds[0].free_events || !p->kinds[1].free_events || tap_cu.cuCtxPushCurrent(ctx) != CUDA_SUCCESS) {
        free(p);
        return NULL;
    }
    if (tap_cu.cuStreamCreate(&p->calib_stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        tap_cu.cuEventCreate(&p->ref, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
        CUcontext popped;
        tap_cu.cuCtxPopCurrent(&popped);
        free(p);
        return NULL;
    }
    if (tap_cu.cuEventCreate(&p->probe, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
        p->probe = NULL; /* calibrations keep their last try, not their best */
    create_events(p, false, FIRST_CHUNK);
    create_events(p, true, FIRST_CHUNK);
    if (tap_event_pair_cost_ns() == 0)
        measure_pair_cost(p);
    CUcontext popped;
    tap_cu.cuCtxPopCurrent(&popped);
    return p;
}

static struct event_pool *find_pool(CUcontext ctx)
{
    unsigned n = atomic_load_explicit(&npools, memory_order_acquire);
    for (unsigned i = 0; i < n; i++) {
        struct event_pool *p = atomic_load_explicit(&pools[i], memory_order_relaxed);
        if (p->ctx == ctx)
            return p;
    }
    return NULL;
}

/* A context's first pool is made on the caller's thread, which may be
 * capturing (its first NCCL call inside a graph): the pool's synchronizes
 * run in the relaxed mode, so that they do not invalidate the capture. */
static struct event_pool *pool_of_context(CUcontext ctx)
{
    struct event_pool *p = find_pool(ctx);
    if (p)
        return p;
    pthread_mutex_lock(&pools_lock);
    p = find_pool(ctx);
    unsigned n = atomic_load(&npools);
    if (!p && n < MAX_CONTEXTS) {
        int mode = tap_capture_mode_exchange(CU_STREAM_CAPTURE_MODE_RELAXED);
        p = create_pool(ctx);
        if (mode >= 0)
            tap_capture_mode_exchange(mode);
        if (p) {
            atomic_store_explicit(&pools[n], p, memory_order_relaxed);
            atomic_store_explicit(&npools, n + 1, memory_order_release);
        }
    }
    pthread_mutex_unlock(&pools_lock);
    return p;
}

struct event_pool *tap_pool_of_stream(void *stream)
{
    if (stream && stream == tl_stream)
        return tl_pool;
    CUcontext ctx = NULL;
    CUresult r = stream ? tap_cu.cuStreamGetCtx((CUstream)stream, &ctx)
                        : tap_cu.cuCtxGetCurrent(&ctx);
    if (r != CUDA_SUCCESS || !ctx)
        return NULL;
    struct event_pool *p = pool_of_context(ctx);
    if (stream) {
        tl_stream = stream;
        tl_pool = p;
    }
    return p;
}

void tap_pool_of_current_context(void)
{
    CUcontext ctx = NULL;
    if (tap_gpu_ready() && tap_cu.cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx)
        pool_of_context(ctx);
}

void tap_pool_reserve(bool timed, uint32_t n)
{
    CUcontext ctx = NULL;
    if (!tap_gpu_ready() || tap_cu.cuCtxGetCurrent(&ctx) != CUDA_SUCCESS || !ctx)
        return;
    struct event_pool *p = pool_of_context(ctx);
    pthread_mutex_lock(&grow_lock);
    uint32_t have = p ? atomic_load(&p->kinds[timed].created) : n;
    if (have < n)
        create_events(p, timed, n - have);
    pthread_mutex_unlock(&grow_lock);
}

struct tap_event *tap_event_take(struct event_pool *p, bool timed)
{
    struct tap_event *e;
    if (mpmc_pop(p->kinds[timed].free_events, &e, sizeof e))
        return e;
    atomic_store_explicit(&p->kinds[timed].want_more, 1, memory_order_relaxed);
    return NULL;
}

void tap_event_give(struct tap_event *e)
{
    if (atomic_fetch_sub_explicit(&e->holders, 1, memory_order_acq_rel) > 1)
        return;
    atomic_store_explicit(&e->holders, 1, memory_order_relaxed);
    mpmc_push(e->pool->kinds[e->timed].free_events, &e, sizeof e);
}

void tap_event_share(struct tap_event *e) { atomic_store_explicit(&e->holders, 2, memory_order_relaxed); }

bool tap_stream_capturing(void *stream)
{
    int status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (!tap_cu.cuStreamIsCapturing ||
        tap_cu.cuStreamIsCapturing((CUstream)stream, &status) != CUDA_SUCCESS)
        return false;
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool tap_stream_capture_graph(void *stream, uint64_t *capture_id, void **graph)
{
    int status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    CUgraph g = NULL;
    if (!tap_cu.cuStreamGetCaptureInfo ||
        tap_cu.cuStreamGetCaptureInfo((CUstream)stream, &status, &id, &g, NULL, NULL) != CUDA_SUCCESS ||
        status != CU_STREAM_CAPTURE_STATUS_ACTIVE || !g)
        return false;
    *capture_id = id;
    *graph = g;
    return true;
}

void *tap_capture_event_node(struct tap_event *e, void *stream)
{
    int status = CU_STREAM_CAPTURE_STATUS_NONE;
    const CUgraphNode *deps = NULL;
    size_t n = 0;
    if (!tap_cu.cuStreamGetCaptureInfo || !tap_cu.cuEventRecordWithFlags ||
        tap_cu.cuEventRecordWithFlags(e->ev, (CUstream)stream, CU_EVENT_RECORD_EXTERNAL) != CUDA_SUCCESS ||
        tap_cu.cuStreamGetCaptureInfo((CUstream)stream, &status, NULL, NULL, &deps, &n) != CUDA_SUCCESS ||
        status != CU_STREAM_CAPTURE_STATUS_ACTIVE || n != 1 || !deps)
        return NULL;
    /* The capture's frontier is the node just added. */
    return deps[0];
}

/* Under half of the kind's events free: grown before it runs dry, since
 * each time it does, the calls until the reducer's next pass go untimed
 * (a job issuing 8,000 calls ahead of its GPU ran a pool of 4,096 dry
 * twice: 26 to 524 calls of each rank untimed). Not after the driver
 * refused the last growth: retried at every pass, it would cost a failing
 * driver call each time; a pool that runs dry still asks (want_more). */
static bool running_low(struct event_kind *k)
{
    uint32_t made = atomic_load_explicit(&k->created, memory_order_relaxed);
    if (atomic_load_explicit(&k->refused, memory_order_relaxed))
        return false;
    return made < tap_config.max_inflight && mpmc_approx_size(k->free_events) < made / 2;
}

void tap_pools_grow(void)
{
    unsigned n = atomic_load_explicit(&npools, memory_order_acquire);
    for (unsigned i = 0; i < n; i++) {
        struct event_pool *p = atomic_load_explicit(&pools[i], memory_order_relaxed);
        for (int timed = 0; timed < 2; timed++) {
            struct event_kind *k = &p->kinds[timed];
            bool ran_dry = atomic_exchange_explicit(&k->want_more, 0, memory_order_relaxed);
            if (!ran_dry && !running_low(k))
                continue;
            if (tap_cu.cuCtxPushCurrent(p->ctx) != CUDA_SUCCESS)
                continue;
            /* Four times as many: a pool that ran low once will again at
             * the same rate, and each growth must come before it is dry. */
            pthread_mutex_lock(&grow_lock); /* beside tap_pool_reserve's */
            uint32_t have = atomic_load(&k->created);
            create_events(p, timed, have > CHUNK ? 3 * have : CHUNK);
            pthread_mutex_unlock(&grow_lock);
            CUcontext popped;
            tap_cu.cuCtxPopCurrent(&popped);
        }
    }
}

/* t_ref = the host time at which the GPU stamped `ref`: recorded on an idle
 * private stream, it is stamped between the host's record and the return of
 * the synchronize, so the midpoint is off by at most half that window. A
 * thread descheduled meanwhile (a loaded machine) widens the window: up to
 * CALIBRATION_TRIES are made until one is under CALIBRATION_GOOD_NS, and
 * the narrowest kept, its half-width the error said for every time this
 * context converts (tap_clock_calibration_error_ns). */
#define CALIBRATION_TRIES 16
#define CALIBRATION_GOOD_NS 20000
static _Atomic uint64_t calibration_error_ns;

static void calibrate(struct event_pool *p)
{
    uint64_t best = UINT64_MAX, best_ns = 0;
    for (int attempt = 0; attempt < CALIBRATION_TRIES && best >= CALIBRATION_GOOD_NS; attempt++) {
        CUevent ev = p->probe ? p->probe : p->ref;
        uint64_t t0 = tap_monotonic_ns();
        if (tap_cu.cuEventRecord(ev, p->calib_stream) != CUDA_SUCCESS ||
            tap_cu.cuEventSynchronize(ev) != CUDA_SUCCESS) {
            p->ref_ns = 0;
            return;
        }
        uint64_t t1 = tap_monotonic_ns();
        /* Without a probe each try replaces the reference: the last counts. */
        if (!p->probe || t1 - t0 < best) {
            best = t1 - t0;
            best_ns = t0 + best / 2;
            if (p->probe) {
                p->probe = p->ref;
                p->ref = ev;
            }
        }
    }
    p->ref_ns = best_ns;
    uint64_t err = (best + 1) / 2, was = atomic_load_explicit(&calibration_error_ns, memory_order_relaxed);
    while (err > was && !atomic_compare_exchange_weak_explicit(&calibration_error_ns, &was, err,
                                                              memory_order_relaxed, memory_order_relaxed))
        ;
}

uint64_t tap_clock_calibration_error_ns(void)
{
    return atomic_load_explicit(&calibration_error_ns, memory_order_relaxed);
}

void tap_pools_calibrate(void)
{
    unsigned n = atomic_load_explicit(&npools, memory_order_acquire);
    for (unsigned i = 0; i < n; i++)
        calibrate(atomic_load_explicit(&pools[i], memory_order_relaxed));
}

int tap_capture_mode_exchange(int mode)
{
    if (!tap_gpu_ready() || !tap_cu.cuThreadExchangeStreamCaptureMode ||
        tap_cu.cuThreadExchangeStreamCaptureMode(&mode) != CUDA_SUCCESS)
        return -1;
    return mode;
}

CUresult tap_event_query(const struct tap_event *e) { return tap_cu.cuEventQuery(e->ev); }

bool tap_event_elapsed_ns(const struct tap_event *start, const struct tap_event *end, uint64_t *ns)
{
    float ms = 0;
    if (tap_cu.cuEventElapsedTime(&ms, start->ev, end->ev) != CUDA_SUCCESS || ms < 0)
        return false;
    *ns = (uint64_t)((double)ms * 1e6 + 0.5);
    return true;
}

bool tap_event_time_ns(const struct tap_event *e, uint64_t *ns)
{
    struct event_pool *p = e->pool;
    if (!p->ref_ns)
        calibrate(p);
    float ms = 0;
    if (!p->ref_ns || tap_cu.cuEventElapsedTime(&ms, p->ref, e->ev) != CUDA_SUCCESS)
        return false;
    *ns = (uint64_t)((int64_t)p->ref_ns + (int64_t)((double)ms * 1e6));
    return true;
}

void tap_gpu_uuid(int device, char *out, size_t len)
{
    CUdevice dev;
    CUuuid u;
    out[0] = 0;
    if (!tap_gpu_ready() || device < 0 || !tap_cu.cuDeviceGet || !tap_cu.cuDeviceGetUuid ||
        tap_cu.cuDeviceGet(&dev, device) != CUDA_SUCCESS || tap_cu.cuDeviceGetUuid(&u, dev) != CUDA_SUCCESS)
        return;
    const unsigned char *b = (const unsigned char *)u.bytes;
    snprintf(out, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

void tap_gpu_after_fork(void)
{
    /* CUDA does not survive fork: a child of a process that initialized the
     * driver cannot use it, so it counts without timing. */
    if (atomic_load(&gpu_state) == 1) {
        atomic_store(&gpu_state, -1);
        snprintf(gpu_note, sizeof gpu_note, "the process forked after CUDA was initialized");
    }
    atomic_store(&npools, 0);
    tl_stream = NULL;
    tl_pool = NULL;
}

