#include "entry/intercept.h"

#include <pthread.h>

#include "state/comm_registry.h"
#include "base/config.h"
#include "base/log.h"
#include "cuda/gpu_timing.h"
#include "base/monotonic.h"
#include "base/mpmc_queue.h"
#include "entry/bring_up.h"
#include "entry/comm_enroll.h"
#include "runtime/runtime.h"
#include "state/graph_table.h"
#include "state/sampling.h"

/* Per thread: the group being built (the rest is in tap_fast). */
struct tap_thread {
    uint32_t group_id;
    uint32_t group_nops;
    bool group_captured;
    bool group_streams_overflow;
    uint32_t nstreams;
    void *streams[TAP_GROUP_MAX_STREAMS];
    struct tap_event *ev_start[TAP_GROUP_MAX_STREAMS], *ev_end[TAP_GROUP_MAX_STREAMS];
    bool group_timed;            /* its streams have events: timed or marks */
    bool group_precise;          /* ... timed */
    struct tap_comm *first_comm; /* the group's first op decides its timing */
    uint64_t first_seq;
    uint8_t first_op, first_class;
    /* Marks (NCCLTAP_TIMING=auto): the stream last marked by this thread,
     * when, the nominal GPU time of the ops issued on it since, and when
     * this thread last called an op on it. */
    void *mark_stream;
    uint64_t last_mark_ns, unmarked_ns, last_call_ns;
    /* Joined (NCCLTAP_TIMING=all): the end event of this thread's last
     * timed op, held a second time, to be the start of its next op if that
     * comes on the same stream within TAP_JOIN_GAP_NS of the record. */
    struct tap_event *join_end;
    void *join_stream;
    uint64_t join_after_ns;
    bool exit_armed;             /* join_end goes back to its pool at the thread's exit */
    uint16_t arm_skip;           /* kept events until arming is tried again (arm_thread_exit) */
    /* The op being captured (tap_op_begin_slow to end_capture). */
    void *capture_graph;         /* the graph; NULL if the driver cannot say */
    uint64_t capture_id;
    struct tap_graph_op stamp;   /* the op; its nodes when start_node is set */
};

static __thread struct tap_thread th __attribute__((tls_model("initial-exec")));
static _Atomic uint32_t next_group_id = 1;

static void give_pair(struct tap_event *start, struct tap_event *end)
{
    if (start)
        tap_event_give(start);
    if (end)
        tap_event_give(end);
}

/* Learning a (comm, op, size class), by seq alone (sampling.h): its first
 * call notes where learning began and the class's aligned shift; the
 * calls of its window are timed, then the aligned sample, which becomes
 * the class's rate. */
static __attribute__((noinline)) bool learning_says_time(struct tap_comm *c, struct tap_hint *h, unsigned cls,
                                                         uint64_t seq)
{
    if (!atomic_load_explicit(&h->seen, memory_order_acquire)) {
        h->first_seq = seq;
        h->aligned = (uint8_t)tap_sample_aligned_shift(cls, tap_config.overhead_pct);
        atomic_store_explicit(&h->seen, 1, memory_order_release);
        return true;
    }
    unsigned shift = tap_sample_learn_shift(seq - h->first_seq, h->aligned);
    if (shift == h->aligned) {
        uint8_t learning = 0;
        atomic_compare_exchange_strong_explicit(&h->rate, &learning, (uint8_t)(shift + 1), memory_order_relaxed,
                                                memory_order_relaxed);
    }
    return tap_sample_selected(c->id, seq, shift);
}

/* Whether an op gets a precise pair (timed events) rather than marks
 * (NCCLTAP_TIMING): `all`, every op; `auto`, the sample of sampling.h,
 * which depends on (communicator, seq, size class) alone, so that every
 * rank times the same ops whatever it measured. */
static bool precise(struct tap_comm *c, unsigned op, unsigned cls, uint64_t seq)
{
    if (tap_config.timing != TAP_TIMING_AUTO)
        return true;
    struct tap_hint *h = &c->hints[op][cls];
    unsigned rate = atomic_load_explicit(&h->rate, memory_order_relaxed);
    return rate == 0 ? learning_says_time(c, h, cls, seq) : tap_sample_selected(c->id, seq, rate - 1);
}

/* A thread that called nothing on a stream for this long did something
 * else (its own work, a synchronize, a pause): its next op's stream may
 * have run dry or may still be busy, and only a mark says which. Two marks
 * cost at most 1.4 us of host time (H100; 0.4 on H200), under 3% of a
 * loop that leaves NCCL this long between calls; calls back to back (8 B
 * ops, about 10 us apart, or a host held by CUDA's launch queue) stay a
 * burst. */
#define TAP_AWAY_NS 50000

/* Whether an op that is not timed precisely gets marks of its own. A mark
 * costs the host about 0.7 us, which an 8 B op of 10 us cannot hide,
 * while the reducer polls only every NCCLTAP_POLL_US: in a burst, one mark
 * per half a poll interval of work says all the polls can. So marked are:
 * the first op on a stream after half a poll interval without a mark; the
 * op called TAP_AWAY_NS or more after its thread's last call there (the
 * op after the host's own work, whose arrival matters: a straggler is late
 * there); and the op that brings the work since the last mark, by the
 * nominal cost model (sampling.h), to half a poll interval. The ops between
 * are stamped from the marks around them (lanes.h). */
static bool mark_due(void *stream, uint64_t bytes, uint64_t now)
{
    uint64_t gap = (uint64_t)tap_config.poll_us * 500;
    uint64_t nominal = (uint64_t)(TAP_NOMINAL_LATENCY_NS + (double)bytes / TAP_NOMINAL_BYTES_PER_NS);
    bool burst = stream == th.mark_stream && now - th.last_call_ns < TAP_AWAY_NS;
    th.last_call_ns = now;
    if (burst && now - th.last_mark_ns < gap && th.unmarked_ns + nominal < gap) {
        th.unmarked_ns += nominal;
        return false;
    }
    return true;
}

/* A mark (or a timed pair) was recorded on `stream` at `now`. */
static void marked(void *stream, uint64_t now)
{
    th.mark_stream = stream;
    th.last_mark_ns = th.last_call_ns = now;
    th.unmarked_ns = 0;
}

/* Two timed events around every op cost an 8 B all-reduce of 10 us 1.4x
 * on their own (BENCHMARKS.md, "What per-op timing costs at the least"),
 * so under `all` an op called on a stream less than TAP_JOIN_GAP_NS after
 * the last timed op of its thread there was recorded takes that op's end
 * event for its start: one record per op. So soon after, the program put
 * nothing on the stream between the two but what costs the host less than
 * that: not a kernel (its launch: about 4 us, DESIGN.md) nor a timed event
 * (1.3 to 1.4 us on H200: tests/gpu/driver_costs.c);
 * a mark (0.13 to 0.21 us), which delays nothing; or a stream wait (0.11
 * to 0.18 us), which may, and then counts in the later op's time
 * (docs/limitations.md; `pairs` records a start at every call). A joined
 * op's time also holds the GPU's gap between the two kernels. */
#define TAP_JOIN_GAP_NS 1000

static bool timing_on(void)
{
    return tap_config.timing != TAP_TIMING_OFF && tap_gpu_ready();
}

static void join_forget(void)
{
    if (th.join_end)
        tap_event_give(th.join_end);
    th.join_end = NULL;
}

/* The kept end event as the start of an op called on `stream` at `now`,
 * and an end event for it; false (the kept event given back) when it
 * cannot be. */
static bool join_start(void *stream, uint64_t now, struct tap_event **start, struct tap_event **end)
{
    struct tap_event *kept = th.join_end;
    if (!kept)
        return false;
    th.join_end = NULL;
    if (stream == th.join_stream && now - th.join_after_ns < TAP_JOIN_GAP_NS &&
        (*end = tap_event_take(kept->pool, true)) != NULL) {
        *start = kept;
        return true;
    }
    tap_event_give(kept);
    return false;
}

/* A thread that ends holds its kept event: a key's destructor gives it
 * back (destructors run at pthread_exit, before the thread's TLS is
 * freed), else threads that come and go would drain the pool. Not in a
 * forked child, whose kept event is its parent's. */
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static bool exit_key_made;

static void at_thread_exit(void *unused)
{
    (void)unused;
    th.exit_armed = false; /* another key's destructor may make a call: armed again (glibc's next round) */
    if (timing_on())
        join_forget();
}

static void make_exit_key(void)
{
    exit_key_made = pthread_key_create(&exit_key, at_thread_exit) == 0;
    if (!exit_key_made)
        tap_log("no thread-specific key left (pthread_key_create): under NCCLTAP_TIMING=all, the event a thread "
                "keeps for its next call is not given back when it exits");
}

void tap_intercept_at_load(void) { pthread_once(&exit_key_once, make_exit_key); }

/* Once a thread: its first kept event. The key was made at load (a copy
 * loaded late makes it here); without one, nothing to arm. Where setting
 * its value fails (no memory past the first 32 keys), tried again after
 * ARM_RETRY_AFTER more kept events: not at each, where every try would be
 * a failing allocation on the caller's thread. */
#define ARM_RETRY_AFTER 1024
static __attribute__((noinline)) void arm_thread_exit(void)
{
    pthread_once(&exit_key_once, make_exit_key);
    th.exit_armed = !exit_key_made || pthread_setspecific(exit_key, &th) == 0;
    th.arm_skip = th.exit_armed ? 0 : ARM_RETRY_AFTER;
}

/* After an op's end event was recorded under `all`: kept for the next. */
static void join_keep(struct tap_op_rec *r, uint64_t now)
{
    if (!th.exit_armed && (th.arm_skip == 0 || --th.arm_skip == 0))
        arm_thread_exit();
    tap_event_share(r->ev_end);
    th.join_end = r->ev_end;
    th.join_stream = r->stream;
    th.join_after_ns = now;
}

/* Takes a start/end pair, timed or marks, and records the start on
 * `stream`. */
static bool start_stamp(void *stream, bool timed, struct tap_event **start, struct tap_event **end)
{
    struct event_pool *p = tap_pool_of_stream(stream);
    if (!p)
        return false;
    *start = tap_event_take(p, timed);
    *end = *start ? tap_event_take(p, timed) : NULL;
    if (*end && tap_cu.cuEventRecord((*start)->ev, (CUstream)stream) == CUDA_SUCCESS)
        return true;
    if (*start)
        tap_event_give(*start);
    if (*end)
        tap_event_give(*end);
    *start = *end = NULL;
    return false;
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

struct tap_comm *tap_comm_cached_slow(ncclComm_t comm, uint32_t generation)
{
    struct tap_comm *c = comm ? tap_comm_lookup(comm) : NULL;
    if (c) { /* a communicator created where nccltap did not see it */
        tap_bring_up();
        tap_runtime_start();
    }
    tap_fast.last_handle = comm;
    tap_fast.last_comm = c;
    tap_fast.last_generation = generation;
    return c;
}

uint16_t tap_site_miss(uintptr_t ra)
{
    bool same_every_time;
    uint16_t id = tap_site_slow(ra, &same_every_time);
    if (same_every_time) {
        tap_fast.site_ra = ra;
        tap_fast.site_id = id;
    }
    return id;
}

/* A captured op runs at each launch of its graph: its graph is noted, so
 * that its executable graphs' launches are counted (graph_table.h), and
 * with NCCLTAP_GRAPH_TIMING=all an event is recorded before it (and one
 * after it, end_capture): on the capturing stream, each becomes
 * an event-record node, which the launch points at a fresh event every
 * time (entry/graph_hooks.c). They are the pool's, kept by the graph as
 * its scratch pair. Once per op per capture, not per replay. Not for an
 * op in a group: its kernel is captured at ncclGroupEnd. */
static void begin_capture(struct tap_op_rec *r, void *stream)
{
    join_forget();
    th.capture_graph = NULL;
    th.stamp.start_node = th.stamp.end_node = NULL;
    if (!tap_stream_capture_graph(stream, &th.capture_id, &th.capture_graph))
        return;
    if (tap_config.graph_timing != TAP_GRAPH_TIMING_ALL || tap_fast.group_depth > 0)
        return;
    struct event_pool *p = tap_pool_of_stream(stream);
    struct tap_event *a = p ? tap_event_take(p, true) : NULL, *b = a ? tap_event_take(p, true) : NULL;
    if (!b) { /* no pair free: its executions are counted, not timed */
        if (a)
            tap_event_give(a);
        return;
    }
    th.stamp.start_node = tap_capture_event_node(a, stream);
    if (!th.stamp.start_node) { /* `a` may be in the graph: it stays there */
        tap_event_give(b);
        return;
    }
    th.stamp.scratch_start = a->ev;
    th.stamp.scratch_end = b->ev;
    r->ev_end = b; /* until end_capture */
}

static void end_capture(struct tap_call *c, ncclResult_t result)
{
    struct tap_op_rec *r = &c->rec.u.op;
    struct tap_event *end = r->ev_end;
    r->ev_end = NULL;
    if (!th.capture_graph)
        return;
    if (tap_op_failed(result)) {
        if (end)
            tap_event_give(end);
        return;
    }
    if (th.stamp.start_node && !(th.stamp.end_node = tap_capture_event_node(end, r->stream)))
        th.stamp.start_node = NULL; /* not timed: `end` may be in the graph, it stays there */
    th.stamp.rec = *r;
    tap_graph_note_capture(th.capture_graph, th.capture_id, &th.stamp);
}

void tap_op_begin_slow(struct tap_call *c, struct tap_comm *tc, cudaStream_t stream)
{
    struct tap_op_rec *r = &c->rec.u.op;
    enum tap_op op = (enum tap_op)r->op;
    bool capturing = timing_on() && tap_stream_capturing(stream);
    if (capturing) {
        r->flags |= TAP_OPF_CAPTURED;
        begin_capture(r, stream);
        atomic_fetch_add_explicit(&tap_totals.captured, 1, memory_order_relaxed);
        TAP_TRACE(op_captured, r);
    }
    if (tap_fast.group_depth > 0) {
        r->group_id = th.group_id;
        if (th.group_nops++ == 0) {
            th.first_comm = tc;
            th.first_op = (uint8_t)op;
            th.first_class = (uint8_t)tap_size_class(r->bytes);
            th.first_seq = r->seq;
        }
        th.group_captured |= capturing;
        group_add_stream(stream);
    } else if (timing_on() && !capturing) {
        bool timed = precise(tc, op, tap_size_class(r->bytes), r->seq);
        if (!timed && !mark_due(stream, r->bytes, r->enqueue_ns)) {
            r->flags |= TAP_OPF_STAMPED | TAP_OPF_BETWEEN;
            return;
        }
        uint64_t t0 = tap_monotonic_ns();
        bool joined = timed && join_start(stream, r->enqueue_ns, &r->ev_start, &r->ev_end);
        if (joined || start_stamp(stream, timed, &r->ev_start, &r->ev_end)) {
            r->flags |= (timed ? TAP_OPF_TIMED : TAP_OPF_STAMPED) | (joined ? TAP_OPF_JOINED : 0);
            r->timing_cost_ns = (uint32_t)(tap_monotonic_ns() - t0);
            marked(stream, r->enqueue_ns);
        } else {
            atomic_fetch_add_explicit(&tap_totals.untimed, 1, memory_order_relaxed);
        }
    }
}

/* The end event of a timed or stamped op, after the call. */
static void end_stamp(struct tap_call *c, ncclResult_t result)
{
    struct tap_op_rec *r = &c->rec.u.op;
    if (r->flags & TAP_OPF_BETWEEN) { /* no events: stamped from its neighbours, if NCCL queued it */
        if (result != ncclSuccess)
            r->flags &= (uint8_t)~(TAP_OPF_STAMPED | TAP_OPF_BETWEEN);
        return;
    }
    uint64_t t0 = tap_monotonic_ns();
    /* ncclInProgress (a non-blocking communicator): NCCL may put the work on
     * the stream later, after an end event recorded now. Not stamped. */
    CUresult recorded = result != ncclSuccess ? CUDA_ERROR_NOT_READY
                                              : tap_cu.cuEventRecord(r->ev_end->ev, (CUstream)r->stream);
    uint64_t t1 = tap_monotonic_ns();
    r->timing_cost_ns += (uint32_t)(t1 - t0);
    if (recorded == CUDA_SUCCESS && tap_config.timing == TAP_TIMING_ALL && (r->flags & TAP_OPF_TIMED))
        join_keep(r, t1);
    if (recorded != CUDA_SUCCESS) {
        give_pair(r->ev_start, r->ev_end);
        r->ev_start = r->ev_end = NULL;
        r->flags &= (uint8_t)~(TAP_OPF_TIMED | TAP_OPF_STAMPED | TAP_OPF_JOINED);
        if (result == ncclInProgress)
            atomic_fetch_add_explicit(&tap_totals.untimed, 1, memory_order_relaxed);
    }
}

void tap_op_end_slow(struct tap_call *c, ncclResult_t result)
{
    if (c->rec.u.op.flags & (TAP_OPF_TIMED | TAP_OPF_STAMPED))
        end_stamp(c, result);
    else
        end_capture(c, result);
}

void tap_submit_lost(const struct tap_record *rec)
{
    /* Lost: count it, and take back its events (recorded, so reusable). */
    if (rec->kind == TAP_REC_OP) {
        atomic_fetch_add_explicit(&tap_totals.dropped, 1, memory_order_relaxed);
        give_pair(rec->u.op.ev_start, rec->u.op.ev_end);
    } else if (rec->kind == TAP_REC_GROUP_STREAM) {
        give_pair(rec->u.stream.ev_start, rec->u.stream.ev_end);
    }
}

void tap_group_start_done(ncclResult_t result)
{
    if (tap_op_failed(result))
        return;
    if (tap_fast.group_depth++ == 0) {
        /* 32 bits, wrapping after 4 billion groups past 0 (not grouped):
         * the groups open at once are few. */
        do
            th.group_id = atomic_fetch_add_explicit(&next_group_id, 1, memory_order_relaxed);
        while (!th.group_id);
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
    tap_fast.busy = 1;
    th.group_timed = false;
    if (!timing_on()) /* nor the slot in a forked child: it holds a parent's event */
        return;
    join_forget();
    if (tap_fast.group_depth != 1 || th.group_nops == 0 || th.group_captured)
        return;
    if (th.group_streams_overflow) {
        atomic_fetch_add_explicit(&tap_totals.untimed, th.group_nops, memory_order_relaxed);
        return;
    }
    th.group_precise = precise(th.first_comm, th.first_op, th.first_class, th.first_seq);
    uint64_t now = tap_monotonic_ns();
    for (uint32_t i = 0; i < th.nstreams; i++) {
        if (!start_stamp(th.streams[i], th.group_precise, &th.ev_start[i], &th.ev_end[i])) {
            for (uint32_t j = 0; j < i; j++)
                give_pair(th.ev_start[j], th.ev_end[j]);
            atomic_fetch_add_explicit(&tap_totals.untimed, th.group_nops, memory_order_relaxed);
            return;
        }
        marked(th.streams[i], now);
    }
    th.group_timed = true;
}

bool tap_group_end_done(ncclResult_t result, bool simulated)
{
    tap_fast.busy = 0;
    if (tap_fast.group_depth == 0)
        return false; /* unmatched ncclGroupEnd: NCCL has said so */
    if (--tap_fast.group_depth > 0 && !tap_op_failed(result))
        return false;
    tap_fast.group_depth = 0; /* a failed group end leaves no group open in NCCL */
    struct tap_record end = {.kind = TAP_REC_GROUP_END};
    struct tap_group_end_rec *g = &end.u.group;
    g->group_id = th.group_id;
    g->nops = th.group_nops;
    g->end_ns = tap_monotonic_ns();
    g->flags = (uint8_t)((simulated ? TAP_GRPF_SIMULATED : 0) | (tap_op_failed(result) ? TAP_GRPF_FAILED : 0));
    if (th.group_timed) {
        bool ok = !g->flags && result == ncclSuccess; /* ncclInProgress: see end_timed */
        if (!g->flags && result == ncclInProgress)
            atomic_fetch_add_explicit(&tap_totals.untimed, g->nops, memory_order_relaxed);
        for (uint32_t i = 0; i < th.nstreams && ok; i++)
            ok = tap_cu.cuEventRecord(th.ev_end[i]->ev, (CUstream)th.streams[i]) == CUDA_SUCCESS;
        for (uint32_t i = 0; i < th.nstreams; i++) {
            if (!ok) {
                give_pair(th.ev_start[i], th.ev_end[i]);
                continue;
            }
            struct tap_record sr = {.kind = TAP_REC_GROUP_STREAM};
            sr.u.stream = (struct tap_group_stream_rec){th.group_id, th.streams[i], th.ev_start[i], th.ev_end[i]};
            tap_submit(&sr);
        }
        if (ok) {
            g->flags |= th.group_precise ? TAP_GRPF_TIMED : TAP_GRPF_STAMPED;
            g->nstreams = th.nstreams;
        }
    }
    if (g->nops > 0) {
        TAP_TRACE(group_end, g);
        tap_submit(&end);
    }
    return true;
}
