/* The reducer: one background thread per process that turns records into
 * statistics. It drains the queue, polls the events of timed and stamped
 * operations in stream order (lanes.h), and every interval rewrites the
 * per-rank output. */
#ifndef NCCLTAP_REDUCER_H
#define NCCLTAP_REDUCER_H

#include <stdbool.h>
#include <stdint.h>

#include "reducer/hang.h"
#include "writers/snapshot.h"

/* Counted by the reducer (reducer thread only). */
extern struct tap_reducer_counts tap_reducer_totals;

/* One pass: drain the queue, up to `max_records` of it (a pass stays short
 * however fast records come, so exit is never stuck behind one), and
 * complete what the GPU has finished. Returns how many records and
 * completions it handled: `max_records` or more when more may be queued. */
unsigned tap_reducer_pass(unsigned max_records);

/* At exit, after the last pass: ops still pending are counted as calls
 * without a time, and as `pending`. */
void tap_reducer_abandon_pending(void);

/* One nccltap:stats event per statistics row, when a session records them. */
void tap_reducer_trace_stats(void);

/* Whether timed ops are waiting for their events, or came in the last
 * pass: their events go back to the pool only when polled, so the reducer
 * must not sleep long while the application times ops. */
int tap_reducer_has_pending(void);

/* Whether any op waits in its stream's lane, also one without events of
 * its own (stamped from the next mark on its stream, which only a later
 * call records): the next call's mark is then polled for at once. */
int tap_reducer_has_waiting(void);

/* Calls fn(op, started, arg) for every timed or stamped op waiting for its
 * events (each member of a group), `started` when its stream got to it,
 * for the hang watchdog. Reducer thread. */
void tap_reducer_each_pending(tap_pending_fn *fn, void *arg);

/* The host cost of timing one op (its two event records), as measured on
 * timed ops; the calibration at start until there are some. */
double tap_reducer_pair_cost_ns(void);

/* What the writers are handed (snapshot.h): filled from the reducer's
 * state now. */
void tap_reducer_snapshot(struct tap_snapshot *s);

/* In a forked child. */
void tap_reducer_reset(void);

#endif
