#include "hang.h"

#include <stdlib.h>

#include "comm_registry.h"
#include "config.h"
#include "gpu_timing.h"
#include "hang_file.h"
#include "op_record.h"
#include "reducer.h"
#include "tracing.h"

static uint64_t next_report_ns;  /* 0: no hang going on */
static unsigned reports;
static uint64_t last_look_ns;

#define LOOK_EVERY_NS 100000000ull  /* 100 ms: a hang is looked for, not timed */

/* The oldest pending op of each communicator, into h->comms (found by
 * pointer: the registry's order). */
static void note(const struct tap_op_rec *op, const struct tap_event *start, void *arg)
{
    struct tap_hang *h = arg;
    for (unsigned i = 0; i < h->ncomms; i++) {
        struct tap_hang_comm *c = &h->comms[i];
        if (c->comm != op->comm)
            continue;
        if (!c->pending || op->seq < c->seq) {
            c->pending = true;
            c->seq = op->seq;
            c->bytes = op->bytes;
            c->op = op->op;
            c->site = op->site;
            c->enqueue_ns = op->enqueue_ns;
            /* Completed: the stream reached the op, so this rank arrived. */
            c->started = start && tap_event_query(start) == CUDA_SUCCESS;
        }
        return;
    }
}

bool tap_hang_check(uint64_t now_ns)
{
    if (!tap_config.hang_timeout_s || now_ns - last_look_ns < LOOK_EVERY_NS)
        return false;
    last_look_ns = now_ns;
    uint64_t timeout_ns = (uint64_t)tap_config.hang_timeout_s * 1000000000ull;
    unsigned n = tap_comm_count();
    struct tap_hang h = { calloc(n ? n : 1, sizeof *h.comms), n, 0, timeout_ns, 0 };
    if (!h.comms)
        return false;  /* no memory now: looked for again at the next look */
    for (unsigned i = 0; i < n; i++) {
        h.comms[i].comm = tap_comm_at(i);
        h.comms[i].issued = atomic_load_explicit(&h.comms[i].comm->seq, memory_order_relaxed);
        h.comms[i].done_seq = h.comms[i].comm->done_seq;
    }
    tap_reducer_each_pending(note, &h);
    uint64_t oldest = UINT64_MAX;
    for (unsigned i = 0; i < n; i++) {
        struct tap_hang_comm *c = &h.comms[i];
        if (!c->pending)
            continue;
        c->age_ns = now_ns > c->enqueue_ns ? now_ns - c->enqueue_ns : 0;
        if (c->enqueue_ns < oldest) {
            oldest = c->enqueue_ns;
            h.stuck = i;
        }
    }
    bool hung = oldest != UINT64_MAX && now_ns - oldest >= timeout_ns, fired = false;
    if (!hung) {
        next_report_ns = 0;  /* over, or none: the next one starts afresh */
        reports = 0;
    } else if (!next_report_ns || now_ns >= next_report_ns) {
        h.reports = ++reports;
        tap_hang_file_write(&h);
        TAP_TRACE(hang, &h.comms[h.stuck]);
        next_report_ns = now_ns + timeout_ns;
        fired = true;
    }
    free(h.comms);
    return fired;
}

void tap_hang_reset(void)
{
    next_report_ns = 0;
    reports = 0;
    last_look_ns = 0;
}
