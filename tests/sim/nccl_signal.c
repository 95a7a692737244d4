#include "nccl_signal.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "nccl_op.h"
#include "nccl_segment.h"
#include "sim_time.h"

/* One signal: when it arrives (CLOCK_REALTIME, shared between processes)
 * and which signal of its pair it is, plus one (0: none yet). */
struct signal_slot {
    _Atomic uint64_t arrival;
    _Atomic uint64_t tag;
};

size_t sim_signal_board_bytes(int nranks)
{
    if (nranks > SIM_SIGNAL_MAX_RANKS)
        return 0;
    return (size_t)nranks * (size_t)nranks * SIM_SIGNAL_RING * sizeof(struct signal_slot);
}

static struct signal_slot *board_slot(struct sim_segment *seg, int from, int to, uint64_t n)
{
    struct signal_slot *b = sim_segment_board(seg);
    int nranks = sim_segment_nranks(seg);
    return b + ((size_t)from * (size_t)nranks + (size_t)to) * SIM_SIGNAL_RING + n % SIM_SIGNAL_RING;
}

/* A put's or a signal's gate: it begins when its stream can; its signal
 * is published then, arriving at its end. */
struct send_gate {
    struct sim_segment *seg;
    int from, to;
    uint64_t n;
    uint64_t duration_ns;
};

static int send_gate(void *arg, uint64_t local_start, uint64_t *start)
{
    struct send_gate *g = arg;
    struct signal_slot *s = board_slot(g->seg, g->from, g->to, g->n);
    uint64_t arrival = (uint64_t)((int64_t)(local_start + g->duration_ns) + sim_realtime_offset_ns());
    atomic_store_explicit(&s->arrival, arrival, memory_order_relaxed);
    atomic_store_explicit(&s->tag, g->n + 1, memory_order_release);
    *start = local_start;
    return 1;
}

/* A wait's gate: the last signal of each descriptor, by number. */
struct wait_gate {
    struct sim_segment *seg;
    int me, n;
    struct { int peer; uint64_t last; } need[SIM_WAIT_MAX_DESCS];
};

static int wait_gate(void *arg, uint64_t local_start, uint64_t *start)
{
    struct wait_gate *g = arg;
    int64_t to_real = sim_realtime_offset_ns();
    uint64_t aborted_at;
    if (sim_segment_aborted(g->seg, &aborted_at)) {
        *start = aborted_at > local_start ? aborted_at : local_start;
        return 1;
    }
    uint64_t begin = local_start;
    for (int i = 0; i < g->n; i++) {
        struct signal_slot *s = board_slot(g->seg, g->need[i].peer, g->me, g->need[i].last);
        uint64_t tag = atomic_load_explicit(&s->tag, memory_order_acquire);
        if (tag < g->need[i].last + 1)
            return 0;
        if (tag > g->need[i].last + 1)
            continue; /* its slot was taken by a later signal: see SIM_SIGNAL_RING */
        uint64_t at = (uint64_t)((int64_t)atomic_load_explicit(&s->arrival, memory_order_relaxed) - to_real);
        if (at > begin)
            begin = at;
    }
    *start = begin;
    return 1;
}

static void release(void *arg)
{
    /* Both gates begin with their segment. */
    sim_segment_unref(*(struct sim_segment **)arg);
    free(arg);
}

/* The rank's signal counters: [0, n) sent to each peer, [n, 2n) awaited
 * from each. */
static uint64_t *counters(ncclComm_t c)
{
    if (!c->signals)
        c->signals = calloc(2 * (size_t)c->nranks, sizeof *c->signals);
    return c->signals;
}

ncclResult_t sim_signal_gate(const struct sim_op *op, struct ncclsim_work *w)
{
    ncclComm_t c = op->comm;
    uint64_t *count = counters(c);
    if (!count)
        return ncclSystemError;
    void *arg;
    if (op->func == SIM_WAITSIGNAL) {
        struct wait_gate *g = calloc(1, sizeof *g);
        if (!g)
            return ncclSystemError;
        g->me = c->rank;
        g->n = op->nwaits;
        for (int i = 0; i < op->nwaits; i++) {
            uint64_t *awaited = &count[c->nranks + op->waits[i].peer];
            *awaited += (uint64_t)op->waits[i].count;
            g->need[i].peer = op->waits[i].peer;
            g->need[i].last = *awaited - 1;
        }
        g->seg = c->seg;
        w->gate = wait_gate;
        arg = g;
    } else {
        struct send_gate *g = calloc(1, sizeof *g);
        if (!g)
            return ncclSystemError;
        g->from = c->rank;
        g->to = op->root;
        g->n = count[op->root]++;
        g->duration_ns = w->duration_ns;
        g->seg = c->seg;
        w->gate = send_gate;
        arg = g;
    }
    sim_segment_ref(c->seg);
    w->release = release;
    w->arg = arg;
    return ncclSuccess;
}
