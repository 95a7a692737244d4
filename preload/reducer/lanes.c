#include "reducer/lanes.h"

#include <stdlib.h>
#include <string.h>

#include "cuda/gpu_timing.h"
#include "state/comm_registry.h"

/* One stream's parts, oldest first: a ring that doubles when full. */
struct lane {
    void *stream;
    struct tap_part **q;
    uint32_t head, n, cap;
    uint64_t last_end_lo, last_end_hi; /* of the part it completed last */
};

/* Streams seen; an empty lane is given to a new stream once there are
 * this many, so that a program that makes a stream per op does not grow
 * the list without end. */
#define LANES_KEPT 256

static struct lane *lanes;
static unsigned nlanes, lanes_cap, last_hit;
static unsigned waiting, waiting_marked;

struct tap_unit *tap_unit_new(uint32_t nparts)
{
    struct tap_unit *u = calloc(1, sizeof *u + nparts * sizeof u->parts[0]);
    if (u)
        u->nparts = u->left = nparts;
    return u;
}

void tap_unit_free(struct tap_unit *u) { free(u); }

static struct lane *lane_of(void *stream)
{
    if (last_hit < nlanes && lanes[last_hit].stream == stream)
        return &lanes[last_hit];
    unsigned empty = nlanes;
    for (unsigned i = 0; i < nlanes; i++) {
        if (lanes[i].stream == stream)
            return &lanes[last_hit = i];
        if (!lanes[i].n && empty == nlanes)
            empty = i;
    }
    if (nlanes >= LANES_KEPT && empty < nlanes) {
        struct lane *l = &lanes[last_hit = empty];
        l->stream = stream;
        l->last_end_lo = l->last_end_hi = 0;
        return l;
    }
    if (nlanes == lanes_cap) {
        unsigned cap = lanes_cap ? 2 * lanes_cap : 8;
        struct lane *more = realloc(lanes, cap * sizeof *more);
        if (!more)
            return NULL;
        lanes = more;
        lanes_cap = cap;
    }
    lanes[nlanes] = (struct lane){.stream = stream};
    return &lanes[last_hit = nlanes++];
}

static bool push(struct lane *l, struct tap_part *p)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 64;
        struct tap_part **q = malloc(cap * sizeof *q);
        if (!q)
            return false;
        for (uint32_t i = 0; i < l->n; i++)
            q[i] = l->q[(l->head + i) % l->cap];
        free(l->q);
        l->q = q;
        l->head = 0;
        l->cap = cap;
    }
    l->q[(l->head + l->n++) % l->cap] = p;
    return true;
}

bool tap_lanes_add(struct tap_unit *u)
{
    uint32_t i = 0;
    for (; i < u->nparts; i++) {
        struct tap_part *p = &u->parts[i];
        p->unit = u;
        p->start_lo = p->end_lo = u->issued_ns;
        struct lane *l = lane_of(p->stream);
        if (!l || !push(l, p))
            break;
    }
    if (i == u->nparts) {
        waiting++;
        waiting_marked += u->parts[0].start != NULL;
        return true;
    }
    /* Take back the parts queued: each is the last of its lane. */
    while (i-- > 0)
        lane_of(u->parts[i].stream)->n--;
    return false;
}

/* Queries `ev`: true once complete (or never to complete: the unit fails),
 * with `*hi` the poll that saw it; false while pending, with `*lo` now. */
static bool seen_complete(struct tap_event *ev, uint64_t now, uint64_t *lo, uint64_t *hi, struct tap_unit *u)
{
    CUresult r = tap_event_query(ev);
    if (r == CUDA_ERROR_NOT_READY) {
        *lo = now;
        return false;
    }
    if (r != CUDA_SUCCESS)
        u->failed = true;
    *hi = now;
    return true;
}

/* Lets the head of l go, complete (its bounds set): the bounds of its
 * end are the next part's. */
static void pop(struct lane *l, void (*done)(struct tap_unit *, void *), void *arg, unsigned *finished)
{
    struct tap_part *p = l->q[l->head];
    l->head = (l->head + 1) % l->cap;
    l->n--;
    l->last_end_lo = p->end_lo;
    l->last_end_hi = p->end_hi;
    if (--p->unit->left == 0) {
        waiting--;
        waiting_marked -= p->start != NULL;
        (*finished)++;
        done(p->unit, arg);
    }
}

/* The part after the work before it ended: its start and end lie after
 * that end, a bound the next part relies on. */
static void follow(struct tap_part *p, const struct lane *l)
{
    p->prev_end_lo = l->last_end_lo;
    p->prev_end_hi = l->last_end_hi;
    if (p->start_lo < p->prev_end_lo)
        p->start_lo = p->prev_end_lo;
    if (p->end_lo < p->start_lo)
        p->end_lo = p->start_lo;
}

/* The first part of l from its head that has events, or NULL. */
static struct tap_part *first_marked(const struct lane *l)
{
    for (uint32_t k = 0; k < l->n; k++) {
        struct tap_part *p = l->q[(l->head + k) % l->cap];
        if (p->start)
            return p;
    }
    return NULL;
}

unsigned tap_lanes_poll(uint64_t now, void (*done)(struct tap_unit *, void *), void *arg)
{
    unsigned finished = 0;
    for (unsigned i = 0; i < nlanes; i++) {
        struct lane *l = &lanes[i];
        while (l->n) {
            struct tap_part *p = l->q[l->head];
            if (!p->start) {
                /* Parts without events before the next one with: done
                 * once its start is, by the poll that saw it; or, with
                 * none yet, once their communicator was finalized. */
                struct tap_part *m = first_marked(l);
                uint64_t ended = atomic_load_explicit(&p->unit->op.comm->ended_ns, memory_order_acquire);
                if (m && (m->start_hi || seen_complete(m->start, now, &m->start_lo, &m->start_hi, m->unit)))
                    p->start_hi = p->end_hi = m->start_hi;
                else if (ended)
                    p->start_hi = p->end_hi = ended;
                else
                    break;
                follow(p, l);
                pop(l, done, arg, &finished);
                if (m && l->n && l->q[l->head] == m)
                    follow(m, l);
                continue;
            }
            if (!p->start_hi) {
                if (!seen_complete(p->start, now, &p->start_lo, &p->start_hi, p->unit))
                    break;
                follow(p, l);
            }
            if (!seen_complete(p->end, now, &p->end_lo, &p->end_hi, p->unit))
                break;
            pop(l, done, arg, &finished);
        }
    }
    return finished;
}

void tap_lanes_each(void (*fn)(const struct tap_unit *, bool started, void *), void *arg)
{
    for (unsigned i = 0; i < nlanes; i++) {
        const struct lane *l = &lanes[i];
        for (uint32_t k = 0; k < l->n; k++) {
            const struct tap_part *p = l->q[(l->head + k) % l->cap];
            /* Started: its start event completed. A part without events
             * is not known to be started even at the lane's head: work
             * that is not NCCL's (a wait on another stream) may hold its
             * stream before it. */
            if (p == &p->unit->parts[0])
                fn(p->unit, p->start && p->start_hi != 0, arg);
        }
    }
}

unsigned tap_lanes_waiting(void) { return waiting; }

unsigned tap_lanes_waiting_marked(void) { return waiting_marked; }

void tap_lanes_drain(void (*fn)(struct tap_unit *, void *), void *arg)
{
    /* A unit is handed over once every lane holding a part of it has let
     * that part go: counted down as for a completion. */
    for (unsigned i = 0; i < nlanes; i++) {
        struct lane *l = &lanes[i];
        for (; l->n; l->n--, l->head = (l->head + 1) % l->cap) {
            struct tap_part *p = l->q[l->head];
            if (--p->unit->left == 0)
                fn(p->unit, arg);
        }
    }
    waiting = waiting_marked = 0;
}

void tap_lanes_reset(void)
{
    lanes = NULL;
    nlanes = lanes_cap = last_hit = 0;
    waiting = waiting_marked = 0;
}

static uint64_t max3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a > b ? a : b;
    return m > c ? m : c;
}

void tap_part_stamp(const struct tap_part *p, uint64_t issued_ns, struct tap_stamp *s)
{
    /* The stream got to the work after it was issued, after the work
     * before it ended, and after the last poll that found the start
     * pending; by the first poll that found it complete. Never seen
     * pending, with the work before it known ended before the call: the
     * stream was idle, and got there when it was issued. */
    uint64_t lo = max3(p->start_lo, issued_ns, p->prev_end_lo);
    uint64_t hi = p->start_hi > lo ? p->start_hi : lo;
    bool idle = p->start_lo <= issued_ns && p->prev_end_hi <= issued_ns;
    s->start_ns = idle ? lo : lo + (hi - lo) / 2;
    s->start_span_ns = hi - lo;
    s->start_at_call = idle;
    /* It ended after it started and after the last poll that found the
     * end pending; by the first that found it complete. */
    lo = p->end_lo > s->start_ns ? p->end_lo : s->start_ns;
    hi = p->end_hi > lo ? p->end_hi : lo;
    s->end_ns = lo + (hi - lo) / 2;
    s->end_span_ns = hi - lo;
}
