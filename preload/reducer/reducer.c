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
#include "reducer/lanes.h"
#include "base/monotonic.h"
#include "reducer/os_switch.h"
#include "stats/stats.h"
#include "stats/steps_online.h"
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

static struct group **open_groups;
static unsigned nopen, open_cap;
static unsigned stamped_this_pass; /* timed or stamped units that arrived in this pass */

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

/* Hands a timed or stamped op (g NULL) or group to the lanes, to wait for
 * its events. Without memory it is counted without a time, its events
 * back to the pool at once (re-recording one still in flight is allowed;
 * the later record wins). */
static void add_unit(const struct tap_op_rec *op, struct group *g)
{
    stamped_this_pass++;
    uint32_t nparts = g ? g->nstreams : 1;
    struct tap_unit *u = tap_unit_new(nparts);
    if (u) {
        u->group = g;
        u->op = g ? g->members[0] : *op;
        for (uint32_t i = 0; i < nparts; i++) {
            struct tap_part *p = &u->parts[i];
            p->stream = g ? g->streams[i].stream : op->stream;
            p->start = g ? g->streams[i].ev_start : op->ev_start;
            p->end = g ? g->streams[i].ev_end : op->ev_end;
        }
        /* A group's events were recorded at its ncclGroupEnd, after its
         * last member's call. */
        u->issued_ns = g ? g->members[g->n - 1].enqueue_ns : op->enqueue_ns;
        if (tap_lanes_add(u))
            return;
        tap_unit_free(u);
    }
    tap_note_no_memory("timed calls: they are counted without a time");
    if (g) {
        settle_untimed(g);
    } else if (op->flags & TAP_OPF_REPLAY) {
        return_events(op->ev_start, op->ev_end);
        tap_reducer_totals.replays_lost++;
    } else {
        return_events(op->ev_start, op->ev_end);
        tap_stats_record(op, 1, NULL);
    }
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

/* One test for the common record, a call neither failed, timed, stamped
 * nor captured (a replay is captured too). */
#define TAP_OPF_MARKED (TAP_OPF_FAILED | TAP_OPF_TIMED | TAP_OPF_STAMPED | TAP_OPF_CAPTURED)

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
        add_unit(op, NULL);
        return;
    }
    note_captured(op);
    if (op->flags & TAP_OPF_FAILED) {
        tap_reducer_totals.failed++;
    } else if (op->flags & (TAP_OPF_TIMED | TAP_OPF_STAMPED)) {
        if ((op->flags & (TAP_OPF_TIMED | TAP_OPF_JOINED)) == TAP_OPF_TIMED) /* a joined op records one */
            tap_pair_cost_observe(&pair_cost, op->timing_cost_ns);
        if (op->flags & TAP_OPF_BETWEEN)
            tap_hang_note_untimed(op); /* a hang in a burst is placed as an untimed op's (hang.h) */
        add_unit(op, NULL);
    } else {
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
    if ((rec->flags & (TAP_GRPF_TIMED | TAP_GRPF_STAMPED)) && g->nstreams == rec->nstreams && g->n > 0)
        add_unit(NULL, g);
    else
        settle_untimed(g);
}

/* Whether anything wants each completed op: the per-op file, the JSONL
 * log, or an LTTng session recording op_complete. */
static bool completions_wanted(void)
{
    return tap_ops_file_enabled() || tap_config.ops_jsonl || tap_prom_enabled() || TAP_TRACING(op_complete);
}

/* When a completed unit ran: its start (CLOCK_MONOTONIC, 0 if unknown)
 * and duration, exact from a timed pair, or stamped from marks, with the
 * width of what the polls allow each end to be (lanes.h). */
struct when {
    uint64_t start_ns, duration_ns;
    uint64_t start_span_ns, end_span_ns;
    bool stamped, start_at_call;
    /* A timed part: what its events' polls alone would have said, as a
     * stamp's (lanes.h), to check the stamps against (BENCHMARKS.md). */
    uint64_t polled_start_ns, polled_end_ns;
};

/* Where a completed op goes besides the statistics. */
static struct tap_completion completion(const struct tap_op_rec *op, uint32_t group_ops, const struct tap_timing *t,
                                        const struct when *w)
{
    double d = (double)t->duration_ns;
    return (struct tap_completion){op, w->start_ns, w->start_ns ? w->start_ns + t->duration_ns : 0,
                                   t->duration_ns, group_ops, d > 0 ? t->bytes / d : 0,
                                   d > 0 ? t->busbytes / d : 0, w->stamped, w->start_at_call, w->start_span_ns,
                                   w->end_span_ns, w->polled_start_ns, w->polled_end_ns};
}

static void emit(const struct tap_op_rec *op, uint32_t group_ops, const struct tap_timing *t, const struct when *w)
{
    if (!completions_wanted())
        return;
    struct tap_completion c = completion(op, group_ops, t, w);
    tap_ops_file_write(&c);
    if (tap_config.ops_jsonl)
        tap_ops_log_write(&c);
    if (tap_prom_enabled())
        tap_prom_observe(&c);
    TAP_TRACE(op_complete, &c);
}

/* CLOCK_MONOTONIC of a completed timed start event, 0 if the driver cannot
 * say. A driver call per timed unit. Read before the event goes back to
 * the pool. */
static uint64_t start_time(const struct tap_event *start)
{
    uint64_t ns = 0;
    if (!tap_event_time_ns(start, &ns))
        ns = 0;
    return ns;
}

/* When part `p` of a unit issued at `issued_ns` ran: false when its timed
 * pair's elapsed time cannot be read. */
static bool part_when(const struct tap_part *p, uint64_t issued_ns, struct when *w)
{
    struct tap_stamp st;
    tap_part_stamp(p, issued_ns, &st);
    if (p->start && p->start->timed) {
        *w = (struct when){.start_ns = start_time(p->start), .polled_start_ns = st.start_ns,
                           .polled_end_ns = st.end_ns};
        return tap_event_elapsed_ns(p->start, p->end, &w->duration_ns);
    }
    *w = (struct when){.start_ns = st.start_ns, .duration_ns = st.end_ns - st.start_ns,
                       .start_span_ns = st.start_span_ns, .end_span_ns = st.end_span_ns, .stamped = true,
                       .start_at_call = st.start_at_call};
    return true;
}

/* A unit on several streams ran from its first start to its last end. */
static bool unit_when(const struct tap_unit *u, struct when *w)
{
    if (!part_when(&u->parts[0], u->issued_ns, w))
        return false;
    uint64_t first = w->start_ns, last = w->start_ns + w->duration_ns;
    for (uint32_t i = 1; i < u->nparts; i++) {
        struct when o;
        if (!part_when(&u->parts[i], u->issued_ns, &o) || !o.start_ns || !first)
            return false;
        first = o.start_ns < first ? o.start_ns : first;
        last = o.start_ns + o.duration_ns > last ? o.start_ns + o.duration_ns : last;
        w->start_span_ns = o.start_span_ns > w->start_span_ns ? o.start_span_ns : w->start_span_ns;
        w->start_at_call = w->start_at_call && o.start_at_call;
        w->end_span_ns = o.end_span_ns > w->end_span_ns ? o.end_span_ns : w->end_span_ns;
    }
    w->start_ns = first;
    w->duration_ns = last - first;
    return true;
}

static void note_done(const struct tap_op_rec *op)
{
    if (op->seq + 1 > op->comm->done_seq)
        op->comm->done_seq = op->seq + 1;
}

/* An execution of a captured op: its time goes to its row (executions
 * are counted from the launches, graph_exec.h). */
static void complete_replay(const struct tap_op_rec *op, bool ok, const struct when *w)
{
    if (!ok) {
        tap_reducer_totals.replays_lost++;
        return;
    }
    double factor = tap_op_busbw_factor((enum tap_op)op->op, op->comm->nranks);
    struct tap_timing t = {w->duration_ns, (double)op->bytes, (double)op->bytes * factor, w->stamped};
    tap_reducer_totals.replays_timed++;
    if (!w->stamped)
        tap_stats_record_replay(op, &t);
    /* A per-op record, an op_complete and a line of nccltap's per-op log
     * per execution, with its replay number; not in NCCL Inspector's
     * records and gauges. */
    bool line = tap_config.ops_jsonl == TAP_OPS_JSONL_NCCLTAP;
    if (line || tap_ops_file_enabled() || TAP_TRACING(op_complete)) {
        struct tap_completion c = completion(op, 1, &t, w);
        tap_ops_file_write(&c);
        if (line)
            tap_ops_log_write(&c);
        TAP_TRACE(op_complete, &c);
    }
    if (w->start_ns)
        tap_busy_add(w->start_ns, w->start_ns + w->duration_ns);
}

static void count_completed(bool stamped, uint64_t n)
{
    if (stamped)
        tap_reducer_totals.stamped += n;
    else
        tap_reducer_totals.timed += n;
}

static void complete_op(struct tap_unit *u)
{
    struct tap_op_rec *op = &u->op;
    struct when w;
    bool ok = !u->failed && part_when(&u->parts[0], u->issued_ns, &w);
    return_events(op->ev_start, op->ev_end);
    if (op->flags & TAP_OPF_REPLAY) {
        complete_replay(op, ok, &w);
        return;
    }
    if (!ok) {
        tap_reducer_totals.lost++;
        tap_stats_record(op, 1, NULL);
        return;
    }
    double factor = tap_op_busbw_factor((enum tap_op)op->op, op->comm->nranks);
    struct tap_timing t = {w.duration_ns, (double)op->bytes, (double)op->bytes * factor, w.stamped};
    count_completed(w.stamped, 1);
    note_done(op);
    tap_stats_record(op, 1, &t);
    tap_steps_online_add(op, w.start_ns, w.duration_ns);
    if (w.start_ns)
        tap_busy_add(w.start_ns, w.start_ns + w.duration_ns);
    emit(op, 1, &t, &w);
}

static void complete_group(struct group *g, const struct tap_unit *u)
{
    struct when w;
    bool ok = !u->failed && unit_when(u, &w);
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
    struct tap_timing t = {w.duration_ns, 0, 0, w.stamped};
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
    if (w.start_ns)
        tap_busy_add(w.start_ns, w.start_ns + w.duration_ns);
    for (uint32_t i = 0; i < g->n; i++) {
        note_done(&g->members[i]);
        tap_stats_record(&g->members[i], g->n, &t);
        tap_steps_online_add(&g->members[i], w.start_ns, w.duration_ns);  /* counted once: the union */
        emit(&g->members[i], g->n, &t, &w);
    }
    count_completed(w.stamped, g->n);
    free_group(g);
}

static void unit_done(struct tap_unit *u, void *arg)
{
    (void)arg;
    if (u->group)
        complete_group(u->group, u);
    else
        complete_op(u);
    tap_unit_free(u);
}

unsigned tap_reducer_pass(unsigned max_records)
{
    struct mpmc_queue *q = atomic_load_explicit(&tap_ring, memory_order_acquire);
    unsigned handled = 0;
    stamped_this_pass = 0;
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
    if (tap_lanes_waiting())
        handled += tap_lanes_poll(tap_monotonic_ns(), unit_done, NULL);
    if (tap_gpu_ready())
        tap_pools_grow();
    tap_callsites_trace_new();
    tap_os_poll();
    tap_graph_exec_reap();
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

struct each_pending {
    tap_pending_fn *fn;
    void *arg;
};

static void each_unit(const struct tap_unit *u, bool started, void *arg)
{
    const struct each_pending *e = arg;
    if (!u->group && (u->op.flags & TAP_OPF_REPLAY))
        return; /* not a call: no seq of its own */
    if (!u->group) {
        e->fn(&u->op, started, e->arg);
        return;
    }
    const struct group *g = u->group;
    for (uint32_t k = 0; k < g->n; k++)
        e->fn(&g->members[k], started, e->arg);
}

void tap_reducer_each_pending(tap_pending_fn *fn, void *arg)
{
    struct each_pending e = {fn, arg};
    tap_lanes_each(each_unit, &e);
}

/* Each communicator's progress, for the snapshot; grown as communicators
 * come (when it cannot grow, those past its end have none known). */
static struct tap_comm_progress *progress;
static unsigned progress_cap;

/* A pending op: counted, and kept when it is its communicator's oldest. */
static void note_pending(const struct tap_op_rec *op, bool started, void *arg)
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
        p->arrived = started ? op->seq + 1 : 0;
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
        p->has_steps = tap_steps_online_get(c, &p->steps);
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
        .clock_calibration_error_ns = tap_clock_calibration_error_ns(),
        .progress = progress,
        .nprogress = progress_cap,
        .os = tap_os_view(),
    };
}

int tap_reducer_has_pending(void) { return tap_lanes_waiting_marked() > 0 || stamped_this_pass > 0; }

int tap_reducer_has_waiting(void) { return tap_lanes_waiting() > 0; }

/* A unit still waiting at exit: counted as calls without a time. */
static void abandon(struct tap_unit *u, void *arg)
{
    (void)arg;
    if (u->group) {
        tap_reducer_totals.pending += ((struct group *)u->group)->n;
        settle_untimed(u->group);
    } else if (u->op.flags & TAP_OPF_REPLAY) {
        tap_reducer_totals.replays_lost++;
        return_events(u->op.ev_start, u->op.ev_end);
    } else if (u->op.flags & TAP_OPF_BETWEEN) {
        /* After its stream's last mark: whether it completed is not known,
         * nor when; counted without a time. */
        atomic_fetch_add_explicit(&tap_totals.untimed, 1, memory_order_relaxed);
        tap_stats_record(&u->op, 1, NULL);
    } else {
        tap_reducer_totals.pending++;
        tap_stats_record(&u->op, 1, NULL);
    }
    tap_unit_free(u);
}

void tap_reducer_abandon_pending(void)
{
    tap_graph_exec_count();
    tap_lanes_drain(abandon, NULL);
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
    tap_lanes_reset();
    progress = NULL;
    progress_cap = 0;
}
