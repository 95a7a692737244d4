#include "stats/steps_online.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/step_pattern.h"

/* Looked for after this many calls, then after 4 times as many as the
 * last time each time none is found, up to STEPS_LOOK_EVERY_MAX: a look
 * costs up to a few million instructions (a pass over the window for each
 * period whose gaps stand out), which a job whose calls have no steps
 * (nccl-tests' loop) must not pay every few calls (BENCHMARKS.md). */
#define STEPS_LOOK_FIRST 64
#define STEPS_LOOK_EVERY_MAX (1u << 20)
/* Fewer whole steps in the window: none found (the report's minimum). */
#define STEPS_MIN_STEPS 8

/* One communicator's recent calls (a ring, oldest at `head` once full)
 * and its step. */
struct online {
    uint32_t key[TAP_STEPS_WINDOW];
    uint64_t enqueue_ns[TAP_STEPS_WINDOW];
    uint64_t ran_ns[TAP_STEPS_WINDOW];  /* its time not already covered by the calls before it */
    unsigned n, head;
    uint64_t next_seq;       /* the seq expected next */
    uint64_t covered_to_ns;  /* the latest end of a call so far */
    unsigned since_look, look_every;
    uint64_t phase_seq;      /* a step starts at each seq = phase_seq mod period */
    unsigned misses;         /* calls of the open step whose key broke the pattern */
    bool open;               /* a step started: */
    uint64_t start_ns, nccl_ns;
    struct tap_comm_steps out;
};

static struct online *comms[TAP_STEPS_COMMS];

static uint32_t key_of(const struct tap_op_rec *op)
{
    uint64_t k = op->bytes << 8 | op->op;
    return (uint32_t)((k ^ k >> 32) * 2654435761u);
}

/* Index of the i-th oldest call of the window in its ring. */
static unsigned at(const struct online *o, unsigned i)
{
    return (o->head + i) % TAP_STEPS_WINDOW;
}

static void forget(struct online *o)
{
    o->n = o->head = o->since_look = o->misses = 0;
    o->open = false;
    o->out.period = 0;
}

/* A step starts at the window's call in ring slot k: the one open, if
 * any, is whole. */
static void start_step(struct online *o, unsigned k)
{
    if (o->open) {
        o->out.steps++;
        o->out.last_ns = o->enqueue_ns[k] - o->start_ns;
        o->out.last_nccl_ns = o->nccl_ns;
    }
    o->open = true;
    o->start_ns = o->enqueue_ns[k];
    o->nccl_ns = 0;
}

/* Counts the whole steps the window holds from its first step start
 * (window index `first`), and opens the last one. */
static void count_window(struct online *o, unsigned first)
{
    unsigned period = o->out.period;
    for (unsigned i = first; i < o->n; i++) {
        unsigned k = at(o, i);
        if ((i - first) % period == 0)
            start_step(o, k);
        o->nccl_ns += o->ran_ns[k];
    }
}

/* Looks for the step in the window (stats/step_pattern.h). */
static void look(struct online *o, uint64_t last_seq)
{
    static uint32_t key[TAP_STEPS_WINDOW];
    static double gap[TAP_STEPS_WINDOW];
    o->since_look = 0;
    if (o->look_every < STEPS_LOOK_EVERY_MAX)
        o->look_every *= 4;  /* the next look, should this one find none */
    for (unsigned i = 0; i < o->n; i++) {
        key[i] = o->key[at(o, i)];
        gap[i] = i ? (double)(o->enqueue_ns[at(o, i)] - o->enqueue_ns[at(o, i - 1)]) : NAN;
    }
    size_t pattern = tap_step_pattern_period(key, o->n, TAP_STEPS_WINDOW / 3), period = 0, phase = 0;
    if (!pattern)
        return;
    if (!tap_step_by_gap(key, gap, o->n, 0, pattern, TAP_STEPS_WINDOW / 3, &period, &phase)) {
        if (pattern < 2)
            return;  /* one call repeated: no step */
        period = pattern;
        phase = tap_step_phase_of_longest_gap(gap, o->n, period);
    }
    if ((o->n - phase) / period < STEPS_MIN_STEPS)
        return;
    o->out.period = (uint32_t)period;
    o->look_every = STEPS_LOOK_FIRST;  /* should it be lost, looked for again soon */
    o->phase_seq = (last_seq - (o->n - 1 - phase)) % period;
    o->open = false;
    o->misses = 0;
    count_window(o, (unsigned)phase);
}

/* The call at `seq` (already in the window) in the step found: a step
 * starts at its first position; a step whose calls broke the pattern
 * more than the pattern allows loses it. */
static void follow(struct online *o, uint64_t seq)
{
    unsigned period = o->out.period, k = at(o, o->n - 1);
    if (o->n > period && o->key[k] != o->key[at(o, o->n - 1 - period)])
        o->misses++;
    if (seq % period == o->phase_seq) {
        if ((double)o->misses > (1 - TAP_STEP_MIN_MATCH) * period + 1e-9) {  /* 10% of 20 is 2, allowed */
            forget(o);
            return;
        }
        start_step(o, k);
        o->misses = 0;
    }
    o->nccl_ns += o->ran_ns[k];
}

void tap_steps_online_add(const struct tap_op_rec *op, uint64_t start_ns, uint64_t duration_ns)
{
    unsigned c = op->comm->creation;
    if (c >= TAP_STEPS_COMMS)
        return;
    if (!comms[c]) {
        if (!(comms[c] = calloc(1, sizeof *comms[c])))
            return;
        comms[c]->look_every = STEPS_LOOK_FIRST;
    }
    struct online *o = comms[c];
    if (op->seq < o->next_seq)
        return;  /* from another stream, after a later call: out of order */
    if (op->seq != o->next_seq || (o->n && op->enqueue_ns < o->enqueue_ns[at(o, o->n - 1)]))
        forget(o);  /* a call missing (lost, failed, captured): the sequence is broken */
    o->next_seq = op->seq + 1;
    unsigned k;
    if (o->n < TAP_STEPS_WINDOW) {
        k = at(o, o->n++);
    } else {  /* full: the newest takes the oldest's place */
        k = o->head;
        o->head = (o->head + 1) % TAP_STEPS_WINDOW;
    }
    o->key[k] = key_of(op);
    o->enqueue_ns[k] = op->enqueue_ns;
    /* A call's time counts once: a stamped call's interval may begin
     * before the one before it ended (the stamps' resolution). */
    uint64_t end = start_ns + duration_ns;
    if (!start_ns)
        o->ran_ns[k] = duration_ns;
    else
        o->ran_ns[k] = end <= o->covered_to_ns ? 0 : end - (start_ns > o->covered_to_ns ? start_ns : o->covered_to_ns);
    o->covered_to_ns = start_ns && end > o->covered_to_ns ? end : o->covered_to_ns;
    if (o->out.period)
        follow(o, op->seq);
    else if (++o->since_look >= o->look_every)
        look(o, op->seq);
}

bool tap_steps_online_get(const struct tap_comm *c, struct tap_comm_steps *out)
{
    if (c->creation >= TAP_STEPS_COMMS || !comms[c->creation] ||
        (!comms[c->creation]->out.period && !comms[c->creation]->out.steps))
        return false;
    *out = comms[c->creation]->out;
    return true;
}

void tap_steps_online_reset(void)
{
    /* Left to leak, as the reducer's other tables: the fork may have come
     * in the middle of an update. */
    memset(comms, 0, sizeof comms);
}
