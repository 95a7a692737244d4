/* What any CUDA-event timing costs an NCCL op, whatever the shim around it
 * (issue 30): an LD_PRELOAD library that wraps ncclAllReduce and does only
 * what one design of per-op timing must, chosen by EVFLOOR:
 *   iscap   no event: cuStreamIsCapturing on the op's stream before each
 *           op (what nccltap asks of every op it may stamp)
 *   busy    no event: a thread that every EVFLOOR_POLL_US wakes and computes
 *           for EVFLOOR_BUSY_US (100), as a reducer with work for every op
 *           does (nccltap's auto: about 2,300 instructions an op)
 *   mark1   one event without timing after each op (the cheapest stamp)
 *   end1    one timed event after each op (ops back to back share their
 *           boundaries: the least a precise pair per op can record)
 *   pair    a timed event before and one after each op (nccltap's `all`)
 *   end1_r  end1, and a thread that every EVFLOOR_POLL_US (1000) queries
 *           each op's event in order and reads its elapsed time from the
 *           previous one's: 2 driver calls an op
 *   pair_r  pair, and a thread that queries both events of each op and
 *           reads the start's time and the pair's elapsed time (as
 *           nccltap's reducer does): 4 driver calls an op
 *   pair_r2 pair, and a thread that queries only the end and reads only the
 *           pair's elapsed time: 2 driver calls an op
 * Nothing is recorded or reported; it prints, at exit, how many ops the
 * thread saw complete. Against all_reduce_perf -b 8 -e 8 without it, the
 * ratio of each is the floor of that design's cost.
 * Build: cc -O2 -fPIC -shared -I../../preload -o libevent_floor.so \
 *        event_floor.c ../../preload/cuda/cuda_driver.c -ldl -lpthread */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/cuda_driver.h"

#define SLOTS 16384u

typedef int (*allreduce_fn)(const void *, void *, size_t, int, int, void *, void *);

static struct cuda_driver cu;
static allreduce_fn real_allreduce;
static CUevent starts[SLOTS], ends[SLOTS];
static _Atomic unsigned long issued;
static unsigned long seen;
static int with_start, timed, reduce_kind, capture_query; /* reduce_kind: 0 none, 1 end1_r, 2 pair_r, 3 pair_r2 */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *poller(void *arg)
{
    (void)arg;
    const char *p = getenv("EVFLOOR_POLL_US");
    long us = p ? atol(p) : 1000;
    struct timespec nap = {0, us * 1000};
    for (;;) {
        nanosleep(&nap, NULL);
        unsigned long until = atomic_load(&issued);
        for (; seen < until; seen++) {
            unsigned i = (unsigned)(seen % SLOTS);
            float ms;
            if (reduce_kind == 2 && cu.cuEventQuery(starts[i]) == CUDA_ERROR_NOT_READY)
                break;
            if (cu.cuEventQuery(ends[i]) == CUDA_ERROR_NOT_READY)
                break;
            if (reduce_kind == 1 && seen > 0)
                cu.cuEventElapsedTime(&ms, ends[(seen - 1) % SLOTS], ends[i]);
            if (reduce_kind == 2)
                cu.cuEventElapsedTime(&ms, starts[0], starts[i]);
            if (reduce_kind >= 2)
                cu.cuEventElapsedTime(&ms, starts[i], ends[i]);
        }
    }
    return NULL;
}

static void *busy_thread(void *arg)
{
    (void)arg;
    const char *p = getenv("EVFLOOR_POLL_US"), *b = getenv("EVFLOOR_BUSY_US");
    long us = p ? atol(p) : 1000, busy_us = b ? atol(b) : 100;
    struct timespec nap = {0, us * 1000};
    volatile unsigned long sink = 0;
    for (;;) {
        nanosleep(&nap, NULL);
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            for (int i = 0; i < 1000; i++)
                sink = sink * 6364136223846793005ul + 1442695040888963407ul;
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000000000l + (t.tv_nsec - t0.tv_nsec) < busy_us * 1000);
    }
    return NULL;
}

static void report(void) { fprintf(stderr, "event_floor: %lu of %lu ops seen complete\n", seen, issued); }

static void setup(void)
{
    char why[256];
    const char *v = getenv("EVFLOOR");
    real_allreduce = (allreduce_fn)dlsym(RTLD_NEXT, "ncclAllReduce");
    if (!v || cuda_driver_load(&cu, NULL, why, sizeof why))
        return;
    pthread_t t;
    if (!strcmp(v, "busy")) { /* no event: the calls go straight through */
        pthread_create(&t, NULL, busy_thread, NULL);
        return;
    }
    capture_query = strcmp(v, "iscap") == 0;
    if (capture_query)
        return;
    with_start = strncmp(v, "pair", 4) == 0;
    timed = strcmp(v, "mark1") != 0;
    reduce_kind = !strcmp(v, "end1_r") ? 1 : !strcmp(v, "pair_r") ? 2 : !strcmp(v, "pair_r2") ? 3 : 0;
    for (unsigned i = 0; i < SLOTS; i++) {
        cu.cuEventCreate(&ends[i], timed ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING);
        if (with_start)
            cu.cuEventCreate(&starts[i], CU_EVENT_DEFAULT);
    }
    if (reduce_kind && pthread_create(&t, NULL, poller, NULL) == 0)
        atexit(report);
}

int ncclAllReduce(const void *send, void *recv, size_t count, int dtype, int op, void *comm, void *stream)
{
    pthread_once(&once, setup);
    if (capture_query) {
        int status;
        cu.cuStreamIsCapturing((CUstream)stream, &status);
        return real_allreduce(send, recv, count, dtype, op, comm, stream);
    }
    if (!ends[0])
        return real_allreduce(send, recv, count, dtype, op, comm, stream);
    unsigned long n = atomic_load_explicit(&issued, memory_order_relaxed);
    unsigned i = (unsigned)(n % SLOTS);
    if (with_start)
        cu.cuEventRecord(starts[i], (CUstream)stream);
    int r = real_allreduce(send, recv, count, dtype, op, comm, stream);
    cu.cuEventRecord(ends[i], (CUstream)stream);
    atomic_store_explicit(&issued, n + 1, memory_order_release);
    return r;
}
