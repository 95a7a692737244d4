#include "measure.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include "barrier.h"
#include "base/monotonic.h"
#include "fail.h"

/* One unit of work: `n` calls of the op, in one ncclGroupStart/End when
 * `grouped`. NCCL launches a group's work at ncclGroupEnd, so a unit is
 * what can be timed with one event pair. */
/* Spins until the calling thread has had `us` of CPU time: host work that
 * takes longer where the CPU is shared (preempted), unlike a sleep. */
static void compute(int us)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    uint64_t until = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec + (uint64_t)us * 1000u;
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec < until);
}

void measure_issue(enum bench_op op, const struct op_call *c, int n, bool grouped, int delay_us, int work_us)
{
    if (work_us > 0)
        compute(work_us);
    if (delay_us > 0) {
        struct timespec ts = { delay_us / 1000000, (long)(delay_us % 1000000) * 1000 };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    if (grouped)
        NCCL_CHECK(ncclGroupStart, ());
    for (int i = 0; i < n; i++)
        op_issue(op, c);
    if (grouped)
        NCCL_CHECK(ncclGroupEnd, ());
}

static int min_int(int a, int b)
{
    return a < b ? a : b;
}

void measure_call(const struct worker *w, enum bench_op op, size_t count, int variant,
                  struct op_call *c)
{
    const struct bench_opts *o = w->rk->o;
    size_t ts = dtype_size(o->dtype);
    struct op_layout l;
    op_layout(op, count, w->rk->rank, w->rk->world, variant == VAR_IN_PLACE, &l);
    CUdeviceptr send = w->send, recv = w->recv;
    if (variant == VAR_IN_PLACE) {
        send = w->recv + l.send_off * ts;
        recv = w->recv + l.recv_off * ts;
    }
    *c = (struct op_call){
        .send = (const void *)(uintptr_t)send,
        .recv = (void *)(uintptr_t)recv,
        .count = count,
        .dtype = o->dtype->nccl,
        .root = o->root,
        .rank = w->rk->rank,
        .nranks = w->rk->world,
        .comm = w->comm,
        .stream = (cudaStream_t)w->stream,
    };
}

void measure_step(struct worker *w, enum bench_op op, size_t count, int variant,
                  struct variant_result *res)
{
    const struct bench_opts *o = w->rk->o;
    const struct cuda_driver *drv = &w->rk->drv;
    struct op_call call;
    measure_call(w, op, count, variant, &call);
    int k = o->group;
    /* Send and Recv must meet in one group, or each would wait for the
     * other forever. */
    bool grouped = k > 1 || op == OP_SENDRECV;
    int delay_us = w->rk->rank == o->delay_rank ? o->delay_us : 0;

    for (int done = 0; done < o->warmup; done += k)
        measure_issue(op, &call, min_int(k, o->warmup - done), grouped, delay_us, o->work_us);
    CU_CHECK(drv, cuStreamSynchronize, (w->stream));
    barrier_all(w->rk, w->thread);

    /* Everything back to back, one synchronization at the end: the wall
     * time per call is what nccl-tests reports, and what overhead
     * comparisons with and without the shim use. */
    /* nccltap's, when it is preloaded and steps are to be marked
     * (include/nccltap.h: looked up, so the bench runs without it). */
    void (*step_mark)(void) = o->mark_steps ? (void (*)(void))dlsym(RTLD_DEFAULT, "nccltap_step") : NULL;
    uint64_t t0 = tap_monotonic_ns();
    int units = 0;
    for (int done = 0; done < o->iters; done += k, units++) {
        if (step_mark)
            step_mark();
        CU_CHECK(drv, cuEventRecord, (w->ev_start[units], w->stream));
        measure_issue(op, &call, min_int(k, o->iters - done), grouped, delay_us, o->work_us);
        CU_CHECK(drv, cuEventRecord, (w->ev_end[units], w->stream));
    }
    CU_CHECK(drv, cuStreamSynchronize, (w->stream));
    uint64_t t1 = tap_monotonic_ns();
    res->wall_us[w->thread] = (double)(t1 - t0) * 1e-3 / o->iters;

    /* Each member of a group is given the group's duration: that is all a
     * pair of events around the group can tell. */
    double sum = 0;
    float *per_call = res->per_call_us ? res->per_call_us + (size_t)w->thread * o->iters : NULL;
    for (int u = 0, done = 0; u < units; u++, done += k) {
        float ms;
        CU_CHECK(drv, cuEventElapsedTime, (&ms, w->ev_start[u], w->ev_end[u]));
        int members = min_int(k, o->iters - done);
        sum += (double)ms * 1e3 * members;
        for (int m = 0; per_call && m < members; m++)
            per_call[done + m] = ms * 1e3f;
    }
    res->event_sum_us[w->thread] = sum;
}
