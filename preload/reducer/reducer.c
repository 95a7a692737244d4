#include "reducer/reducer.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "writers/callsite_out.h"
#include "state/comm_registry.h"
#include "base/config.h"
#include "cuda/gpu_timing.h"
#include "reducer/hang.h"
#include "base/mpmc_queue.h"
#include "writers/ops_file.h"
#include "writers/ops_log.h"
#include "reducer/pair_cost.h"
#include "writers/prom_file.h"
#include "state/shared.h"
#include "state/sampling.h"
#include "reducer/busy.h"
#include "reducer/graph_exec.h"
#include "reducer/os_switch.h"
#include "stats/stats.h"
#include "writers/tracing.h"

struct tap_reducer_counts tap_reducer_totals;

/* What recording an event pair costs the caller, as timed ops report it
 * (pair_cost.c): more than the calibration at start says, once the
 * driver's command queue is in steady use. */
static struct tap_pair_cost pair_cost;

double tap_reducer_pair_cost_ns(void)
{
    return pair_cost.estimate_ns > 0 ? pair_cost.estimate_ns : (double)tap_event_pair_cost_ns();
}

/* A group's member ops gather here until its ncclGroupEnd record comes. */
struct group {
    uint64_t id;
    struct tap_group_end_rec rec;
    struct tap_op_rec *members;
    uint32_t n, cap;
    struct tap_group_stream_rec *streams; /* where it was timed */
    uint32_t nstreams, streams_cap;
};

/* A timed unit waiting for its events: one op, or one group. */
struct pending {
    struct tap_op_rec op; /* when group is NULL */
    struct group *group;
};

static struct group **open_groups;
static unsigned nopen, open_cap;
static struct pending *pending;
static unsigned npending, pending_cap;
static unsigned timed_this_pass; /* timed units that arrived in this pass */

static bool grow(void **array, unsigned *cap, size_t elem, unsigned need)
{
    if (need <= *cap)
        return true;
    unsigned n = *cap ? *cap * 2 : 64;
    while (n < need)
        n *= 2;
    void *p = realloc(*array, n * elem);
    if (!p)
        return false;
    *array = p;
    *cap = n;
    return true;
}

/* NULL without memory (counted, and said once). */
static struct group *open_group(uint64_t id)
{
    for (unsigned i = 0; i < nopen; i++)
        if (open_groups[i]->id == id)
            return open_groups[i];
    struct group *g = calloc(1, sizeof *g);
    if (!g || !grow((void **)&open_groups, &open_cap, sizeof *open_groups, nopen + 1)) {
        free(g);
        tap_note_no_memory("a group's calls: they are counted without their group's time");
        return NULL;
    }
    g->id = id;
    open_groups[nopen++] = g;
    return g;
}

static void close_group(struct group *g)
{
    for (unsigned i = 0; i < nopen; i++)
        if (open_groups[i] == g) {
            open_groups[i] = open_groups[--nopen];
            break;
        }
}

static void return_events(struct tap_event *a, struct tap_event *b)
{
    if (a)
        tap_event_give(a);
    if (b)
        tap_event_give(b);
}

static void free_group(struct group *g)
{
    for (uint32_t i = 0; i < g->nstreams; i++)
        return_events(g->streams[i].ev_start, g->streams[i].ev_end);
    free(g->streams);
    free(g->members);
    free(g);
}

/* Counts a group's members without a time (or as failed, or simulated) and
 * frees it. */
static void settle_untimed(struct group *g)
{
    if (g->rec.flags & TAP_GRPF_FAILED)
        tap_reducer_totals.failed += g->n;
    else if (g->rec.flags & TAP_GRPF_SIMULATED)
        tap_reducer_totals.simulated += g->n;
    else
        for (uint32_t i = 0; i < g->n; i++) {
            tap_stats_record(&g->members[i], g->n, NULL);
            tap_hang_note_untimed(&g->members[i]);
        }
    free_group(g);
}

static void add_pending(const struct tap_op_rec *op, struct group *g)
{
    timed_this_pass++;
    if (!grow((void **)&pending, &pending_cap, sizeof *pending, npending + 1)) {
        tap_note_no_memory("timed calls: they are counted without a time");
        /* No memory to wait for it: count it without a time. Its events go
         * back to the pool at once (re-recording one still in flight is
         * allowed; the later record wins). */
        if (g) {
            settle_untimed(g);
        } else if (op->flags & TAP_OPF_REPLAY) {
            return_events(op->ev_start, op->ev_end);
            tap_reducer_totals.replays_lost++;
        } else {
            return_events(op->ev_start, op->ev_end);
            tap_stats_record(op, 1, NULL);
        }
        return;
    }
    struct pending *p = &pending[npending++];
    if (op)
        p->op = *op;
    p->group = g;
}

/* An op counted without a time, on its own (as on_op does). */
static void settle_alone(const struct tap_op_rec *op)
{
    if (op->flags & TAP_OPF_FAILED) {
        tap_reducer_totals.failed++;
        return;
    }
    tap_stats_record(op, 1, NULL);
    tap_hang_note_untimed(op); /* it never completes as the watchdog can see */
}

/* A group's member waits for its ncclGroupEnd record. Without memory to
 * gather it, it is counted at once, without its group: in a row even if
 * its group turns out simulated or failed, but counted. */
static void gather(const struct tap_op_rec *op)
{
    struct group *g = open_group(op->group_id);
    if (g && grow((void **)&g->members, &g->cap, sizeof *g->members, g->n + 1)) {
        g->members[g->n++] = *op;
        return;
    }
    if (g)
        tap_note_no_memory("a group's calls: they are counted without their group's time");
    settle_alone(op);
}

/* A call NCCL captured into a CUDA graph: counted in its row as such. */
static void note_captured(const struct tap_op_rec *op)
{
    if ((op->flags & (TAP_OPF_CAPTURED | TAP_OPF_FAILED)) == TAP_OPF_CAPTURED)
        tap_stats_record_captured(op);
}

/* One test for the common record, a call neither failed, timed nor
 * captured (a replay is captured too). */
#define TAP_OPF_MARKED (TAP_OPF_FAILED | TAP_OPF_TIMED | TAP_OPF_CAPTURED)

static void on_op(const struct tap_op_rec *op)
{
    if (op->group_id) {
        note_captured(op);
        gather(op);
        return;
    }
    if (!(op->flags & TAP_OPF_MARKED)) {
        tap_stats_record(op, 1, NULL);
        tap_hang_note_untimed(op); /* it never completes as the watchdog can see */
        return;
    }
    if (op->flags & TAP_OPF_REPLAY) { /* timed, never grouped, no call */
        add_pending(op, NULL);
        return;
    }
    note_captured(op);
    if (op->flags & TAP_OPF_FAILED)
        tap_reducer_totals.failed++;
    else if (op->flags & TAP_OPF_TIMED) {
        tap_pair_cost_observe(&pair_cost, op->timing_cost_ns);
        add_pending(op, NULL);
    }
    else {
        tap_stats_record(op, 1, NULL);
        tap_hang_note_untimed(op); /* it never completes as the watchdog can see */
    }
}

static void on_group_stream(const struct tap_group_stream_rec *rec)
{
    struct group *g = open_group(rec->group_id);
    if (g && grow((void **)&g->streams, &g->streams_cap, sizeof *g->streams, g->nstreams + 1)) {
        g->streams[g->nstreams++] = *rec;
        return;
    }
    if (g) /* the group goes untimed (on_group_end) */
        tap_note_no_memory("a group's calls: they are counted without their group's time");
    return_events(rec->ev_start, rec->ev_end);
}

static void on_group_end(const struct tap_group_end_rec *rec)
{
    struct group *g = open_group(rec->group_id);
    if (!g)
        return;
    close_group(g);
    g->rec = *rec;
    /* A timed group whose stream records were lost cannot be timed. */
    if ((rec->flags & TAP_GRPF_TIMED) && g->nstreams == rec->nstreams)
        add_pending(NULL, g);
    else
        settle_untimed(g);
}

/* auto's rate for a (comm, op, size class) on this rank, from its shortest
 * duration (sampling.h): 1, every call, while one pair fits the budget;
 * otherwise the sample, the same on every rank. A class that no longer
 * fits goes back to the learning schedule, which sets its aligned rate
 * once past it; a long class (aligned shift TAP_LEARN_LONG_SHIFT or less)
 * that does not fit stops learning at once: its window times every one of
 * 1,024 calls, and a pair's GPU time is not hidden. */
static void learn(struct tap_comm *c, unsigned op, uint64_t bytes, uint64_t duration_ns)
{
    /* The expected time is the shortest seen, not the mean: a call that
     * waited for a late rank can be a thousand times longer, and would have
     * every call timed for a while. */
    struct tap_hint *h = &c->hints[op][tap_size_class(bytes)];
    /* The first is kept apart, as in the statistics: it may have set up
     * connections, 10^4 times the steady time. */
    if (h->completions++ == 0)
        return;
    if (!h->fastest_ns || duration_ns < h->fastest_ns)
        h->fastest_ns = duration_ns ? duration_ns : 1;
    double cost = 2 * tap_reducer_pair_cost_ns();
    bool fits = tap_sample_shift(cost, (double)h->fastest_ns, tap_config.overhead_pct) == 0;
    uint8_t rate = atomic_load_explicit(&h->rate, memory_order_relaxed);
    bool long_class = atomic_load_explicit(&h->seen, memory_order_acquire) && h->aligned <= TAP_LEARN_LONG_SHIFT;
    if (fits && rate != 1)
        atomic_store_explicit(&h->rate, 1, memory_order_relaxed);
    else if (!fits && long_class && rate <= 1)
        atomic_store_explicit(&h->rate, (uint8_t)(h->aligned + 1), memory_order_relaxed);
    else if (!fits && rate == 1)
        atomic_store_explicit(&h->rate, 0, memory_order_relaxed);
}


/* Whether anything wants each completed op: the per-op file, the JSONL
 * log, or an LTTng session recording op_complete. */
static bool completions_wanted(void)
{
    return tap_ops_file_enabled() || tap_config.ops_jsonl || tap_prom_enabled() || TAP_TRACING(op_complete);
}

/* Where a completed op goes besides the statistics. `start_ns` is its
 * start in CLOCK_MONOTONIC, 0 if unknown. */
static struct tap_completion completion(const struct tap_op_rec *op, uint32_t group_ops, const struct tap_timing *t,
                                        uint64_t start_ns)
{
    double d = (double)t->duration_ns;
    return (struct tap_completion){op, start_ns, start_ns ? start_ns + t->duration_ns : 0,
                                   t->duration_ns, group_ops, d > 0 ? t->bytes / d : 0,
                                   d > 0 ? t->busbytes / d : 0};
}

static void emit(const struct tap_op_rec *op, uint32_t group_ops, const struct tap_timing *t,
                 uint64_t start_ns)
{
    if (!completions_wanted())
        return;
    struct tap_completion c = completion(op, group_ops, t, start_ns);
    tap_ops_file_write(&c);
    if (tap_config.ops_jsonl)
        tap_ops_log_write(&c);
    if (tap_prom_enabled())
        tap_prom_observe(&c);
    TAP_TRACE(op_complete, &c);
}

/* CLOCK_MONOTONIC of a completed start event, 0 if the driver cannot say:
 * for the per-op records, and for the time the process was in NCCL (busy.h).
 * A driver call per timed unit. Read before the event goes back to the pool. */
static uint64_t start_time(const struct tap_event *start)
{
    uint64_t ns = 0;
    if (!tap_event_time_ns(start, &ns))
        ns = 0;
    return ns;
}

static void note_done(const struct tap_op_rec *op)
{
    if (op->seq + 1 > op->comm->done_seq)
        op->comm->done_seq = op->seq + 1;
}

/* An execution of a captured op: its time goes to its row (executions
 * are counted from the launches, graph_exec.h). */
static void complete_replay(const struct tap_op_rec *op, bool ok, uint64_t duration_ns, uint64_t start_ns)
{
    if (!ok) {
        tap_reducer_totals.replays_lost++;
        return;
    }
    double factor = tap_op_busbw_factor((enum tap_op)op->op, op->comm->nranks);
    struct tap_timing t = {duration_ns, (double)op->bytes, (double)op->bytes * factor};
    tap_reducer_totals.replays_timed++;
    tap_stats_record_replay(op, &t);
    /* A per-op record, an op_complete and a line of nccltap's per-op log
     * per execution, with its replay number; not in NCCL Inspector's
     * records and gauges. */
    bool line = tap_config.ops_jsonl == TAP_OPS_JSONL_NCCLTAP;
    if (line || tap_ops_file_enabled() || TAP_TRACING(op_complete)) {
        struct tap_completion c = completion(op, 1, &t, start_ns);
        tap_ops_file_write(&c);
        if (line)
            tap_ops_log_write(&c);
        TAP_TRACE(op_complete, &c);
    }
    if (start_ns)
        tap_busy_add(start_ns, start_ns + duration_ns);
}

static void complete_op(struct tap_op_rec *op, bool ok, uint64_t duration_ns)
{
    uint64_t start_ns = ok ? start_time(op->ev_start) : 0;
    return_events(op->ev_start, op->ev_end);
    if (op->flags & TAP_OPF_REPLAY) {
        complete_replay(op, ok, duration_ns, start_ns);
        return;
    }
    if (!ok) {
        tap_reducer_totals.lost++;
        tap_stats_record(op, 1, NULL);
        return;
    }
    double factor = tap_op_busbw_factor((enum tap_op)op->op, op->comm->nranks);
    struct tap_timing t = {duration_ns, (double)op->bytes, (double)op->bytes * factor};
    tap_reducer_totals.timed++;
    note_done(op);
    learn(op->comm, op->op, op->bytes, duration_ns);
    tap_stats_record(op, 1, &t);
    if (start_ns)
        tap_busy_add(start_ns, start_ns + duration_ns);
    emit(op, 1, &t, start_ns);
}

/* A group's time runs from its first start to its last end over all the
 * streams it used; with one stream, elapsed time says it exactly. */
static bool group_interval(const struct group *g, uint64_t *duration, uint64_t *start_ns)
{
    if (g->nstreams == 1) {
        *start_ns = start_time(g->streams[0].ev_start);
        return tap_event_elapsed_ns(g->streams[0].ev_start, g->streams[0].ev_end, duration);
    }
    uint64_t first = UINT64_MAX, last = 0;
    for (uint32_t i = 0; i < g->nstreams; i++) {
        uint64_t s, e;
        if (!tap_event_time_ns(g->streams[i].ev_start, &s) || !tap_event_time_ns(g->streams[i].ev_end, &e))
            return false;
        first = s < first ? s : first;
        last = e > last ? e : last;
    }
    *duration = last > first ? last - first : 0;
    *start_ns = first;
    return true;
}

static void complete_group(struct group *g, bool ok)
{
    uint64_t duration_ns = 0, start_ns = 0;
    ok = ok && g->n > 0 && group_interval(g, &duration_ns, &start_ns);
    for (uint32_t i = 0; i < g->nstreams; i++)
        return_events(g->streams[i].ev_start, g->streams[i].ev_end);
    g->nstreams = 0;
    if (!ok) {
        tap_reducer_totals.lost += g->n;
        settle_untimed(g);
        return;
    }
    /* The group's bytes: each collective's, and of its sends and receives
     * the bytes of one direction, as nccl-tests' sendrecv counts them (a
     * rank that sends S and receives S moved S per direction in that time;
     * counting both would read twice its bandwidth). Bus factor 1. */
    struct tap_timing t = {duration_ns, 0, 0};
    double sent = 0, received = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const struct tap_op_rec *m = &g->members[i];
        if (m->op == TAP_OP_SEND) {
            sent += (double)m->bytes;
        } else if (m->op == TAP_OP_RECV) {
            received += (double)m->bytes;
        } else {
            t.bytes += (double)m->bytes;
            t.busbytes += (double)m->bytes * tap_op_busbw_factor((enum tap_op)m->op, m->comm->nranks);
        }
    }
    t.bytes += sent > received ? sent : received;
    t.busbytes += sent > received ? sent : received;
    learn(g->members[0].comm, g->members[0].op, g->members[0].bytes, duration_ns);
    if (start_ns)
        tap_busy_add(start_ns, start_ns + duration_ns);
    for (uint32_t i = 0; i < g->n; i++) {
        note_done(&g->members[i]);
        tap_stats_record(&g->members[i], g->n, &t);
        emit(&g->members[i], g->n, &t, start_ns);
    }
    tap_reducer_totals.timed += g->n;
    free_group(g);
}

/* Streams with an unfinished unit in this pass: later units on them are
 * not queried, since a stream runs its work in order. */
#define MAX_BLOCKED 64
struct blocked {
    void *stream[MAX_BLOCKED];
    unsigned n;
};

static bool is_blocked(const struct blocked *b, void *stream)
{
    for (unsigned i = 0; i < b->n; i++)
        if (b->stream[i] == stream)
            return true;
    return false;
}

static void block(struct blocked *b, void *stream)
{
    if (b->n < MAX_BLOCKED && !is_blocked(b, stream))
        b->stream[b->n++] = stream;
}

/* CUDA_SUCCESS when every end event of the unit has completed. */
static CUresult query(const struct pending *p, struct blocked *b)
{
    if (!p->group) {
        if (is_blocked(b, p->op.stream))
            return CUDA_ERROR_NOT_READY;
        CUresult r = tap_event_query(p->op.ev_end);
        if (r == CUDA_ERROR_NOT_READY)
            block(b, p->op.stream);
        return r;
    }
    const struct group *g = p->group;
    CUresult result = CUDA_SUCCESS;
    for (uint32_t i = 0; i < g->nstreams; i++) {
        CUresult r = is_blocked(b, g->streams[i].stream) ? CUDA_ERROR_NOT_READY
                                                         : tap_event_query(g->streams[i].ev_end);
        if (r == CUDA_ERROR_NOT_READY)
            block(b, g->streams[i].stream);
        if (result == CUDA_SUCCESS)
            result = r;
    }
    return result;
}

static unsigned poll_pending(void)
{
    struct blocked b = {.n = 0};
    unsigned done = 0, kept = 0;
    for (unsigned i = 0; i < npending; i++) {
        struct pending *p = &pending[i];
        CUresult r = query(p, &b);
        if (r == CUDA_ERROR_NOT_READY) {
            pending[kept++] = *p;
            continue;
        }
        done++;
        bool ok = r == CUDA_SUCCESS;
        if (p->group) {
            complete_group(p->group, ok);
        } else {
            uint64_t d = 0;
            ok = ok && tap_event_elapsed_ns(p->op.ev_start, p->op.ev_end, &d);
            complete_op(&p->op, ok, d);
        }
    }
    npending = kept;
    return done;
}

unsigned tap_reducer_pass(unsigned max_records)
{
    struct mpmc_queue *q = atomic_load_explicit(&tap_ring, memory_order_acquire);
    unsigned handled = 0;
    timed_this_pass = 0;
    /* The reducer is the queue's only consumer: records are read in place. */
    const struct tap_record *rec;
    while (q && handled < max_records && (rec = mpmc_front(q)) != NULL) {
        handled++;
        if (rec->kind == TAP_REC_OP)
            on_op(&rec->u.op);
        else if (rec->kind == TAP_REC_GROUP_STREAM)
            on_group_stream(&rec->u.stream);
        else
            on_group_end(&rec->u.group);
        mpmc_release_front(q, rec);
    }
    if (npending)
        handled += poll_pending();
    if (tap_gpu_ready())
        tap_pools_grow();
    tap_callsites_trace_new();
    tap_os_poll();
    return handled;
}

void tap_reducer_trace_stats(void)
{
    if (!TAP_TRACING(stats))
        return;
    for (unsigned i = 0; i < tap_stats_count(); i++) {
        const struct tap_stat *s = tap_stats_at(i);
        TAP_TRACE(stats, s, tap_stat_quantile_ns(s, 0.5), tap_stat_quantile_ns(s, 0.99));
    }
}

void tap_reducer_each_pending(void (*fn)(const struct tap_op_rec *, const struct tap_event *, void *),
                              void *arg)
{
    for (unsigned i = 0; i < npending; i++) {
        const struct pending *p = &pending[i];
        if (!p->group && (p->op.flags & TAP_OPF_REPLAY))
            continue; /* not a call: no seq of its own */
        if (!p->group)
            fn(&p->op, p->op.ev_start, arg);
        else if (p->group->n && p->group->nstreams)
            for (uint32_t k = 0; k < p->group->n; k++)
                fn(&p->group->members[k], p->group->streams[0].ev_start, arg);
    }
}

/* Each communicator's progress, for the snapshot; grown as communicators
 * come (when it cannot grow, those past its end have none known). */
static struct tap_comm_progress *progress;
static unsigned progress_cap;

/* A pending op: counted, and kept when it is its communicator's oldest.
 * Its start event is queried then only, so that a snapshot queries about
 * one event per communicator (pending ops come mostly in seq order). */
static void note_pending(const struct tap_op_rec *op, const struct tap_event *start, void *arg)
{
    (void)arg;
    if (op->comm->creation >= progress_cap)
        return;
    struct tap_comm_progress *p = &progress[op->comm->creation];
    if (!p->pending++ || op->seq < p->oldest_seq) {
        p->oldest_seq = op->seq;
        p->oldest_enqueue_ns = op->enqueue_ns;
        p->oldest_bytes = op->bytes;
        p->oldest_op = op->op;
        /* The stream reached it: this rank arrived at it. */
        bool reached = start && tap_event_query(start) == CUDA_SUCCESS;
        p->arrived = reached ? op->seq + 1 : 0;
    }
}

static void fill_progress(void)
{
    unsigned comms = tap_comm_count();
    if (comms > progress_cap) {
        struct tap_comm_progress *p = realloc(progress, comms * sizeof *p);
        if (p) {
            progress = p;
            progress_cap = comms;
        }
    }
    if (progress_cap)
        memset(progress, 0, progress_cap * sizeof *progress);
    tap_reducer_each_pending(note_pending, NULL);
    for (unsigned i = 0; i < comms && i < progress_cap; i++) {
        const struct tap_comm *c = tap_comm_at(i);
        struct tap_comm_progress *p = &progress[c->creation];
        p->completed = c->done_seq;
        p->issued = atomic_load_explicit(&c->seq, memory_order_relaxed);
        if (p->arrived < p->completed)
            p->arrived = p->completed;
    }
}

void tap_reducer_snapshot(struct tap_snapshot *s)
{
    /* Executions are counted for what leaves the process, not per pass. */
    tap_graph_exec_count();
    fill_progress();
    *s = (struct tap_snapshot){
        .counts = tap_reducer_totals,
        .pair_cost_ns = (uint64_t)tap_reducer_pair_cost_ns(),
        .busy_union_ns = tap_busy_union_ns(),
        .busy_sum_ns = tap_busy_sum_ns(),
        .progress = progress,
        .nprogress = progress_cap,
        .os = tap_os_view(),
    };
}

int tap_reducer_has_pending(void) { return npending > 0 || timed_this_pass > 0; }

void tap_reducer_abandon_pending(void)
{
    tap_graph_exec_count();
    for (unsigned i = 0; i < npending; i++) {
        struct pending *p = &pending[i];
        if (p->group) {
            tap_reducer_totals.pending += p->group->n;
            settle_untimed(p->group);
        } else if (p->op.flags & TAP_OPF_REPLAY) {
            tap_reducer_totals.replays_lost++;
            return_events(p->op.ev_start, p->op.ev_end);
        } else {
            tap_reducer_totals.pending++;
            tap_stats_record(&p->op, 1, NULL);
        }
    }
    npending = 0;
    /* Groups whose ncclGroupEnd record never came (lost, or still open). */
    for (unsigned i = 0; i < nopen; i++)
        settle_untimed(open_groups[i]);
    nopen = 0;
}

void tap_reducer_reset(void)
{
    memset(&pair_cost, 0, sizeof pair_cost);
    tap_os_reset();
    tap_busy_reset();
    memset(&tap_reducer_totals, 0, sizeof tap_reducer_totals);
    open_groups = NULL;
    nopen = open_cap = 0;
    pending = NULL;
    npending = pending_cap = 0;
    progress = NULL;
    progress_cap = 0;
    tap_graph_exec_reset();
}
