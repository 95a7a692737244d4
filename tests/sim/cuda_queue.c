/* A stream's queue of work whose beginning is not known yet.
 *
 * The time model: work enqueued at host time `now` is ready at
 * max(tail, now), where tail is when the work before it ends, and begins
 * then (plus its delay) unless a gate says later. An event recorded at
 * `now` completes at max(tail, now): on an idle stream, when the host
 * records it, as on a real GPU. While the head of the queue waits on its
 * gate, everything behind it waits too, so items and event records are kept
 * in order and resolved from the head. All calls hold the driver's lock. */
#include <stdlib.h>

#include "cuda_internal.h"
#include "sim_time.h"

struct sim_item {
    struct sim_item *next;
    uint64_t host_ns;            /* when the host enqueued it */
    struct ncclsim_work work;    /* work items */
    struct CUevent_st *event;    /* event records: the event, and which */
    unsigned event_gen;          /* of its records this is */
};

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static void event_complete(struct CUevent_st *ev, unsigned gen, uint64_t t)
{
    if (ev->gen == gen) {   /* a later record supersedes this one */
        ev->state = EVENT_DONE;
        ev->time = t;
        ev->stream = NULL;
    }
    sim_event_unref(ev);
}

/* Begins `w`, ready at `ready`, if its gate allows; then advances the tail. */
static int try_begin(struct CUstream_st *s, const struct ncclsim_work *w, uint64_t ready)
{
    uint64_t start = ready + w->delay_ns;
    if (w->gate) {
        uint64_t gated;
        if (!w->gate(w->arg, start, &gated))
            return 0;
        start = max_u64(start, gated);
    }
    s->tail = start + w->duration_ns;
    if (w->release)
        w->release(w->arg);
    return 1;
}

int sim_queue_resolve(struct CUstream_st *s)
{
    int n = 0;
    while (s->head) {
        struct sim_item *it = s->head;
        uint64_t ready = max_u64(s->tail, it->host_ns);
        if (it->event)
            event_complete(it->event, it->event_gen, ready);
        else if (!try_begin(s, &it->work, ready))
            break;
        s->head = it->next;
        if (!s->head)
            s->last = &s->head;
        free(it);
        n++;
    }
    if (n)
        sim_progress_notify();
    return n;
}

static void append(struct CUstream_st *s, struct sim_item *it)
{
    *s->last = it;
    s->last = &it->next;
    sim_progress_watch(s);
}

static struct sim_item *new_item(uint64_t host_ns)
{
    struct sim_item *it = calloc(1, sizeof *it);
    if (!it)
        abort();   /* a test double out of memory: nothing useful to simulate */
    it->host_ns = host_ns;
    return it;
}

void sim_queue_forget_last_event(struct CUstream_st *s)
{
    if (s->last_event)
        sim_event_unref(s->last_event);
    s->last_event = NULL;
}

/* Puts `w` in front of the event recorded last on `s`, if nothing was
 * queued after it: still queued, the work goes before its record; already
 * complete (recorded on an idle stream), the record is taken back and
 * queued again behind the work. Returns 0 when there is no such event. */
static int queue_before_last_event(struct CUstream_st *s, const struct ncclsim_work *w)
{
    struct CUevent_st *ev = s->last_event;
    if (!ev || ev->gen != s->last_event_gen)
        return 0;
    struct sim_item **p = &s->head;
    while (*p && (*p)->next)
        p = &(*p)->next;
    if (*p && (*p)->event == ev && (*p)->event_gen == ev->gen) {
        struct sim_item *it = new_item((*p)->host_ns);
        it->work = *w;
        it->next = *p;
        *p = it;
        return 1;
    }
    if (s->head || ev->state != EVENT_DONE)
        return 0;
    struct sim_item *it = new_item(ev->time);
    it->work = *w;
    append(s, it);
    struct sim_item *rec = new_item(ev->time);
    rec->event = ev;
    rec->event_gen = ev->gen;
    ev->refs++;
    ev->state = EVENT_PENDING;
    ev->stream = s;
    append(s, rec);
    return 1;
}

void sim_queue_work(struct CUstream_st *s, const struct ncclsim_work *w)
{
    if (s->capturing) {
        if (w->release)
            w->release(w->arg);
        return;
    }
    uint64_t now = sim_now_ns();
    int gated = w->gate != NULL;
    int held = w->before_last_event && queue_before_last_event(s, w);
    sim_queue_forget_last_event(s);
    if (held) {
        if (gated)
            sim_progress_help();
        return;
    }
    /* Common case: nothing queued and the gate (if any) agrees at once. */
    if (s->head || !try_begin(s, w, max_u64(s->tail, now))) {
        struct sim_item *it = new_item(now);
        it->work = *w;
        append(s, it);
    }
    /* This arrival may be the one that other streams of this process wait
     * for (one thread driving several GPUs): resolve them now rather than
     * at the progress thread's next poll. */
    if (gated)
        sim_progress_help();
}

void sim_queue_event(struct CUstream_st *s, struct CUevent_st *ev)
{
    /* During capture it times nothing (cuda_event.c says what is captured). */
    if (s->capturing)
        return;
    uint64_t now = sim_now_ns();
    ev->gen++;
    sim_queue_forget_last_event(s);
    s->last_event = ev;
    s->last_event_gen = ev->gen;
    ev->refs++;
    if (!s->head) {
        ev->state = EVENT_DONE;
        ev->time = max_u64(s->tail, now);
        ev->stream = NULL;
        return;
    }
    struct sim_item *it = new_item(now);
    it->event = ev;
    it->event_gen = ev->gen;
    ev->refs++;
    ev->state = EVENT_PENDING;
    ev->stream = s;
    append(s, it);
}
