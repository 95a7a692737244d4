#include "reducer/hang.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "state/comm_registry.h"
#include "base/config.h"
#include "cuda/gpu_timing.h"
#include "writers/hang_file.h"
#include "base/op_record.h"
#include "writers/tracing.h"

static uint64_t next_report_ns;  /* 0: no hang going on */
static unsigned reports;
static uint64_t say_at_age_ns;   /* the stuck op's wait at which the next line is said:
                                    2, 4, 8... timeouts */
static uint64_t last_look_ns;
static uint64_t calls_seen;        /* ops issued on all communicators at a look */
static uint64_t calls_changed_ns;  /* the look that saw them change */

#define LOOK_EVERY_NS 100000000ull  /* 100 ms: a hang is looked for, not timed */

/* The latest untimed op of each communicator, a copy of its record whose
 * events are never looked at (reducer thread only). */
static struct tap_op_rec *untimed;
static unsigned nuntimed, untimed_cap, untimed_hit;

static struct tap_op_rec *untimed_of(const struct tap_comm *comm)
{
    if (untimed_hit < nuntimed && untimed[untimed_hit].comm == comm)
        return &untimed[untimed_hit];
    for (unsigned i = 0; i < nuntimed; i++)
        if (untimed[i].comm == comm)
            return &untimed[untimed_hit = i];
    return NULL;
}

void tap_hang_note_last_untimed(const struct tap_op_rec *op)
{
    if (!tap_config.hang_timeout_s || (op->flags & TAP_OPF_CAPTURED))
        return;
    struct tap_op_rec *u = untimed_of(op->comm);
    if (!u) {
        if (nuntimed == untimed_cap) {
            unsigned cap = untimed_cap ? 2 * untimed_cap : 16;
            struct tap_op_rec *v = realloc(untimed, cap * sizeof *v);
            if (!v)
                return;  /* no memory: this communicator's untimed ops go unwatched */
            untimed = v;
            untimed_cap = cap;
        }
        u = &untimed[untimed_hit = nuntimed++];
    } else if (op->seq < u->seq) {
        return;  /* an older one, from another thread's queue slot */
    }
    *u = *op;
}

/* c's pending op is `op`: what the hang report says of it. */
static void set_pending(struct tap_hang_comm *c, const struct tap_op_rec *op, bool timed, bool started)
{
    c->pending = true;
    c->timed = timed;
    c->started = started;
    c->seq = op->seq;
    c->bytes = op->bytes;
    c->op = op->op;
    c->dtype = op->dtype;
    c->redop = op->redop;
    c->peer = op->peer;
    c->site = op->site;
    c->enqueue_ns = op->enqueue_ns;
}

/* A communicator with no timed op pending whose last op issued was not
 * timed, no timed op after it completed, alive, in a process that issued
 * nothing for the timeout: its last op, as not timed. Not one issued after
 * the oldest timed op pending (oldest_timed_ns): that one waits behind it,
 * it is no second culprit. */
static void note_untimed_last(struct tap_hang_comm *c, uint64_t now_ns, uint64_t timeout_ns,
                              uint64_t oldest_timed_ns)
{
    const struct tap_op_rec *u = untimed_of(c->comm);
    if (c->pending || !u || u->seq + 1 != c->issued || c->done_seq > u->seq || u->enqueue_ns > oldest_timed_ns ||
        atomic_load_explicit(&c->comm->state, memory_order_relaxed) != TAP_COMM_ALIVE ||
        now_ns - calls_changed_ns < timeout_ns)
        return;
    set_pending(c, u, false, false);
}

/* Keeps x in v[0..*n), sorted by seq, among the TAP_HANG_BETWEEN_END
 * lowest seqs (lowest) or highest. */
static void keep_call(struct tap_hang_call *v, unsigned *n, const struct tap_hang_call *x, bool lowest)
{
    unsigned i = *n;
    while (i > 0 && v[i - 1].seq > x->seq)
        i--;
    if (*n < TAP_HANG_BETWEEN_END) {
        memmove(&v[i + 1], &v[i], (*n - i) * sizeof *v);
        (*n)++;
    } else if (lowest) {
        if (i == TAP_HANG_BETWEEN_END)
            return;  /* above every one kept */
        memmove(&v[i + 1], &v[i], (TAP_HANG_BETWEEN_END - 1 - i) * sizeof *v);  /* the highest goes */
    } else {
        if (i == 0)
            return;  /* below every one kept */
        memmove(&v[0], &v[1], (i - 1) * sizeof *v);  /* the lowest goes */
        i--;
    }
    v[i] = *x;
}

/* Keeps `op`, of a burst between marks, among c's oldest and newest. */
static void note_between(struct tap_hang_comm *c, const struct tap_op_rec *op)
{
    struct tap_hang_call x = { op->seq, op->bytes, op->op, op->dtype, op->redop, op->peer };
    keep_call(c->oldest, &c->noldest, &x, true);
    keep_call(c->newest, &c->nnewest, &x, false);
}

/* The oldest pending op of each communicator, into h->comms (found by
 * pointer: the registry's order). */
static void note(const struct tap_op_rec *op, bool started, void *arg)
{
    struct tap_hang *h = arg;
    for (unsigned i = 0; i < h->ncomms; i++) {
        struct tap_hang_comm *c = &h->comms[i];
        if (c->comm != op->comm)
            continue;
        /* An op of a burst, between two marks: not known to be the one
         * waited in (any op of the burst may be); reported as an op
         * without events (tap_hang_note_untimed), with its communicator's
         * last op issued, and kept as what was called at its seq. */
        if (op->flags & TAP_OPF_BETWEEN) {
            note_between(c, op);
            return;
        }
        if (!c->pending || op->seq < c->seq)
            set_pending(c, op, true, started);  /* started: the stream reached it, the rank arrived */
        return;
    }
}

/* A `hang` event for each communicator with an op pending, the stuck one
 * first, as the hang file lists them: a trace alone then knows every
 * communicator the hang held, not only the process's stuck one. */
static void trace_pending(const struct tap_hang *h)
{
    TAP_TRACE(hang, &h->comms[h->stuck]);
    for (unsigned i = 0; i < h->ncomms; i++)
        if (i != h->stuck && h->comms[i].pending)
            TAP_TRACE(hang, &h->comms[i]);
}

void tap_hang_check(uint64_t now_ns, tap_each_pending_fn *each_pending, tap_before_hang_file_fn *before_file,
                    void *arg)
{
    if (!tap_config.hang_timeout_s || now_ns - last_look_ns < LOOK_EVERY_NS)
        return;
    last_look_ns = now_ns;
    uint64_t timeout_ns = (uint64_t)tap_config.hang_timeout_s * 1000000000ull;
    unsigned n = tap_comm_count();
    struct tap_hang h = { .comms = calloc(n ? n : 1, sizeof *h.comms), .ncomms = n, .timeout_ns = timeout_ns };
    if (!h.comms)
        return;  /* no memory now: looked for again at the next look */
    uint64_t calls = 0;
    for (unsigned i = 0; i < n; i++) {
        h.comms[i].comm = tap_comm_at(i);
        h.comms[i].issued = atomic_load_explicit(&h.comms[i].comm->seq, memory_order_relaxed);
        h.comms[i].done_seq = h.comms[i].comm->done_seq;
        calls += h.comms[i].issued;
    }
    if (calls != calls_seen || !calls_changed_ns) {
        calls_seen = calls;
        calls_changed_ns = now_ns;
    }
    each_pending(note, &h);
    /* The stuck op: the oldest timed op not complete, where there is one
     * (it is known to be waited in); else the oldest untimed last op. A
     * communicator idle since an untimed op at start-up must not take the
     * blame, nor the LTTng event, from a timed op hung since. */
    uint64_t oldest = UINT64_MAX, oldest_timed = UINT64_MAX;
    for (unsigned i = 0; i < n; i++)
        if (h.comms[i].pending && h.comms[i].enqueue_ns < oldest_timed)
            oldest_timed = h.comms[i].enqueue_ns;
    bool have = false;
    for (unsigned i = 0; i < n; i++) {
        struct tap_hang_comm *c = &h.comms[i];
        note_untimed_last(c, now_ns, timeout_ns, oldest_timed);
        if (!c->pending)
            continue;
        c->age_ns = now_ns > c->enqueue_ns ? now_ns - c->enqueue_ns : 0;
        if (c->enqueue_ns < oldest)
            oldest = c->enqueue_ns;
        const struct tap_hang_comm *s = &h.comms[h.stuck];
        if (!have || (c->timed && !s->timed) || (c->timed == s->timed && c->enqueue_ns < s->enqueue_ns))
            h.stuck = i;
        have = true;
    }
    bool hung = oldest != UINT64_MAX && now_ns - oldest >= timeout_ns;
    if (!hung) {
        next_report_ns = 0;  /* over, or none: the next one starts afresh */
        reports = 0;
    } else if (!next_report_ns || now_ns >= next_report_ns) {
        /* The file each timeout (the report reads the latest); the line at
         * the first, then each time the wait has doubled: a hang of hours
         * says a dozen lines per process, not one per timeout. */
        h.reports = ++reports;
        h.say = reports == 1 || h.comms[h.stuck].age_ns >= say_at_age_ns;
        if (h.say)
            say_at_age_ns = reports == 1 ? 2 * timeout_ns : 2 * say_at_age_ns;
        before_file(arg);
        tap_hang_file_write(&h);
        trace_pending(&h);
        next_report_ns = now_ns + timeout_ns;
    }
    free(h.comms);
}

void tap_hang_reset(void)
{
    next_report_ns = 0;
    reports = 0;
    say_at_age_ns = 0;
    last_look_ns = 0;
    calls_seen = calls_changed_ns = 0;
    /* The parent's communicators are not the child's. The table is left
     * to leak, not reused: the fork may have come while the reducer was
     * between its realloc and storing the result, so the pointer may be
     * freed memory in the child. */
    untimed = NULL;
    untimed_cap = 0;
    nuntimed = untimed_hit = 0;
}
