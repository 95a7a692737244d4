/* The reducer: one background thread per process that turns records into
 * statistics. It drains the queue, polls the events of timed operations in
 * stream order, and every interval rewrites the per-rank output. */
#ifndef NCCLTAP_REDUCER_H
#define NCCLTAP_REDUCER_H

#include <stdint.h>

/* Counted by the reducer; read by the writer on the same thread. */
struct tap_reducer_totals {
    uint64_t timed;   /* ops with a duration */
    uint64_t failed;  /* calls NCCL rejected */
    uint64_t simulated; /* calls in a group closed by ncclGroupSimulateEnd: never run */
    uint64_t pending; /* timed ops still running at exit */
    uint64_t lost;    /* events that never completed (context destroyed) */
};
extern struct tap_reducer_totals tap_reducer_totals;

/* One pass: drain the queue and complete what the GPU has finished.
 * Returns how many records and completions it handled. */
unsigned tap_reducer_pass(void);

/* At exit, after the last pass: ops still pending are counted as calls
 * without a time, and as `pending`. */
void tap_reducer_abandon_pending(void);

/* One nccltap:stats event per statistics row, when a session records them. */
void tap_reducer_trace_stats(void);

/* Whether timed ops are waiting for their events, or came in the last
 * pass: their events go back to the pool only when polled, so the reducer
 * must not sleep long while the application times ops. */
int tap_reducer_has_pending(void);

/* Calls fn(op, start event, arg) for every timed op waiting for its events
 * (a group's members with the start event of its first stream), for the
 * hang watchdog. Reducer thread. */
struct tap_op_rec;
struct tap_event;
void tap_reducer_each_pending(void (*fn)(const struct tap_op_rec *, const struct tap_event *, void *),
                              void *arg);

/* The host cost of timing one op (its two event records), as measured on
 * timed ops; the calibration at start until there are some. */
double tap_reducer_pair_cost_ns(void);

/* In a forked child. */
void tap_reducer_reset(void);

#endif
