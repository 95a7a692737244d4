#include "intercept.h"

#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "comm_registry.h"
#include "config.h"
#include "gpu_timing.h"
#include "monotonic.h"
#include "mpmc_queue.h"
#include "runtime.h"

/* Per thread: the re-entry guard and the group being built. */
struct tap_thread {
    uint32_t tid;
    int busy;
    int group_depth;
    uint64_t group_id;
    uint32_t group_nops;
    bool group_captured;
    bool group_streams_overflow;
    uint32_t nstreams;
    void *streams[TAP_GROUP_MAX_STREAMS];
    struct tap_comm *first_comm; /* the group's first op decides its timing */
    uint8_t first_op, first_class;
    struct tap_record end;       /* the group record, built at ncclGroupEnd */
};

static __thread struct tap_thread th __attribute__((tls_model("initial-exec")));
static _Atomic uint64_t next_group_id = 1;

bool tap_reentered(void) { return th.busy; }
void tap_enter(void) { th.busy = 1; }
void tap_leave(void) { th.busy = 0; }

static uint32_t thread_id(void)
{
    if (!th.tid)
        th.tid = (uint32_t)syscall(SYS_gettid);
    return th.tid;
}

void tap_submit(const struct tap_record *rec)
{
    struct mpmc_queue *q = atomic_load_explicit(&tap_ring, memory_order_acquire);
    if (!q || !mpmc_push(q, rec))
        atomic_fetch_add_explicit(&tap_totals.dropped, 1, memory_order_relaxed);
}

/* The timing policy (NCCLTAP_TIMING): `all` times every op; `auto` times at
 * least one op per communicator, op and size class in every interval, and
 * otherwise one in `every`, a rate the reducer sets from the measured cost
 * of an event pair and the ops' running mean duration. */
static bool should_time(struct tap_comm *c, unsigned op, unsigned cls)
{
    if (tap_config.timing == TAP_TIMING_ALL)
        return true;
    struct tap_hint *h = &c->hints[op][cls];
    uint32_t interval = atomic_load_explicit(&tap_interval_no, memory_order_relaxed) + 1;
    if (atomic_load_explicit(&h->last_interval, memory_order_relaxed) != interval) {
        atomic_store_explicit(&h->last_interval, interval, memory_order_relaxed);
        return true;
    }
    uint32_t every = atomic_load_explicit(&h->every, memory_order_relaxed);
    if (every <= 1)
        return every == 1;
    return atomic_fetch_add_explicit(&h->counter, 1, memory_order_relaxed) % every == 0;
}

/* Takes a start/end pair and records the start on `stream`. */
static bool start_timing(void *stream, struct tap_event **start, struct tap_event **end)
{
    struct event_pool *p = tap_pool_of_stream(stream);
    if (!p)
        return false;
    *start = tap_event_take(p);
    *end = *start ? tap_event_take(p) : NULL;
    if (*end && tap_cu.cuEventRecord((*start)->ev, (CUstream)stream) == CUDA_SUCCESS)
        return true;
    if (*start)
        tap_event_give(*start);
    if (*end)
        tap_event_give(*end);
    *start = *end = NULL;
    return false;
}

static bool timing_on(void)
{
    return tap_config.timing != TAP_TIMING_OFF && tap_gpu_ready();
}

static void group_add_stream(void *stream)
{
    for (uint32_t i = 0; i < th.nstreams; i++)
        if (th.streams[i] == stream)
            return;
    if (th.nstreams == TAP_GROUP_MAX_STREAMS) {
        th.group_streams_overflow = true;
        return;
    }
    th.streams[th.nstreams++] = stream;
}

bool tap_op_begin(struct tap_call *c, enum tap_op op, ncclComm_t comm, cudaStream_t stream,
                  size_t count, int dtype, int peer, int redop)
{
    struct tap_comm *tc = comm ? tap_comm_lookup(comm) : NULL;
    if (!tc)
        return false;
    atomic_fetch_add_explicit(&tap_totals.calls, 1, memory_order_relaxed);
    c->rec.kind = TAP_REC_OP;
    struct tap_op_rec *r = &c->rec.u.op;
    r->comm = tc;
    r->seq = atomic_fetch_add_explicit(&tc->seq, 1, memory_order_relaxed);
    r->count = count;
    r->bytes = tap_op_bytes(op, count, dtype, tc->nranks);
    r->enqueue_ns = tap_monotonic_ns();
    r->stream = stream;
    r->ev_start = r->ev_end = NULL;
    r->peer = peer;
    r->redop = redop;
    r->dtype = dtype;
    r->tid = thread_id();
    r->op = (uint8_t)op;
    r->flags = 0;
    r->group_id = 0;

    bool capturing = timing_on() && tap_stream_capturing(stream);
    if (capturing) {
        r->flags |= TAP_OPF_CAPTURED;
        atomic_fetch_add_explicit(&tap_totals.captured, 1, memory_order_relaxed);
    }
    if (th.group_depth > 0) {
        r->group_id = th.group_id;
        if (th.group_nops++ == 0) {
            th.first_comm = tc;
            th.first_op = (uint8_t)op;
            th.first_class = (uint8_t)tap_size_class(r->bytes);
        }
        th.group_captured |= capturing;
        group_add_stream(stream);
    } else if (timing_on() && !capturing && should_time(tc, op, tap_size_class(r->bytes))) {
        if (start_timing(stream, &r->ev_start, &r->ev_end)) {
            r->flags |= TAP_OPF_TIMED;
        } else {
            r->flags |= TAP_OPF_UNTIMED;
            atomic_fetch_add_explicit(&tap_totals.untimed, 1, memory_order_relaxed);
        }
    }
    th.busy = 1;
    return true;
}

static bool failed(ncclResult_t result)
{
    return result != ncclSuccess && result != ncclInProgress;
}

void tap_op_end(struct tap_call *c, ncclResult_t result)
{
    th.busy = 0;
    struct tap_op_rec *r = &c->rec.u.op;
    r->result = result;
    if (failed(result))
        r->flags |= TAP_OPF_FAILED;
    if (r->flags & TAP_OPF_TIMED) {
        if (failed(result) ||
            tap_cu.cuEventRecord(r->ev_end->ev, (CUstream)r->stream) != CUDA_SUCCESS) {
            tap_event_give(r->ev_start);
            tap_event_give(r->ev_end);
            r->ev_start = r->ev_end = NULL;
            r->flags &= (uint8_t)~TAP_OPF_TIMED;
        }
    }
    tap_submit(&c->rec);
}

void tap_group_start_done(ncclResult_t result)
{
    if (failed(result))
        return;
    if (th.group_depth++ == 0) {
        th.group_id = atomic_fetch_add_explicit(&next_group_id, 1, memory_order_relaxed);
        th.group_nops = 0;
        th.nstreams = 0;
        th.group_captured = false;
        th.group_streams_overflow = false;
    }
}

/* Before the outermost ncclGroupEnd: the group's kernels are launched inside
 * it, so start events recorded now on every stream it used bracket them. */
void tap_group_end_begin(void)
{
    struct tap_group_rec *g = &th.end.u.group;
    th.end.kind = TAP_REC_GROUP;
    g->group_id = th.group_id;
    g->nops = th.group_nops;
    g->nstreams = 0;
    g->flags = 0;
    th.busy = 1;
    if (th.group_depth != 1 || th.group_nops == 0 || th.group_captured ||
        !timing_on() || !should_time(th.first_comm, th.first_op, th.first_class))
        return;
    if (th.group_streams_overflow) {
        atomic_fetch_add_explicit(&tap_totals.untimed, th.group_nops, memory_order_relaxed);
        return;
    }
    for (uint32_t i = 0; i < th.nstreams; i++) {
        g->s[i].stream = th.streams[i];
        if (!start_timing(th.streams[i], &g->s[i].ev_start, &g->s[i].ev_end)) {
            for (uint32_t j = 0; j < i; j++) {
                tap_event_give(g->s[j].ev_start);
                tap_event_give(g->s[j].ev_end);
            }
            atomic_fetch_add_explicit(&tap_totals.untimed, th.group_nops, memory_order_relaxed);
            return;
        }
    }
    g->nstreams = th.nstreams;
    g->flags |= TAP_GRPF_TIMED;
}

bool tap_group_end_done(ncclResult_t result, bool simulated)
{
    th.busy = 0;
    if (th.group_depth == 0)
        return false; /* unmatched ncclGroupEnd: NCCL has said so */
    if (--th.group_depth > 0 && !failed(result))
        return false;
    th.group_depth = 0; /* a failed group end leaves no group open in NCCL */
    struct tap_group_rec *g = &th.end.u.group;
    g->end_ns = tap_monotonic_ns();
    if (simulated)
        g->flags |= TAP_GRPF_SIMULATED;
    if (failed(result))
        g->flags |= TAP_GRPF_FAILED;
    if (g->flags & TAP_GRPF_TIMED) {
        bool ok = !(g->flags & (TAP_GRPF_FAILED | TAP_GRPF_SIMULATED));
        for (uint32_t i = 0; i < g->nstreams && ok; i++)
            ok = tap_cu.cuEventRecord(g->s[i].ev_end->ev, (CUstream)g->s[i].stream) == CUDA_SUCCESS;
        if (!ok) {
            for (uint32_t i = 0; i < g->nstreams; i++) {
                tap_event_give(g->s[i].ev_start);
                tap_event_give(g->s[i].ev_end);
            }
            g->nstreams = 0;
            g->flags &= (uint8_t)~TAP_GRPF_TIMED;
        }
    }
    if (g->nops > 0)
        tap_submit(&th.end);
    return true;
}

void tap_intercept_after_fork(void)
{
    th.busy = 0;
    th.group_depth = 0;
    th.tid = 0;
}
