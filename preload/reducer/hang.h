/* The hang watchdog, in the reducer thread: an op stamped or timed (every
 * op under NCCLTAP_TIMING=auto and all) enqueued and not complete after
 * NCCLTAP_HANG_TIMEOUT_S makes the process write its hang file
 * (writers/hang_file.c), print one line and emit an LTTng `hang` event;
 * again every timeout while it lasts. It reads what the reducer already
 * holds, and queries no event: it never blocks or slows the application.
 *
 * An op with no events (NCCLTAP_TIMING=off, or none free) never completes
 * as far as the reducer can see; one of a burst between two marks
 * (TAP_OPF_BETWEEN) completes only with the next mark, and the op waited
 * in may be any of the burst's. So a communicator whose last op issued had
 * none, not followed by a completed one that had, in a process that has
 * issued no NCCL call at all for the timeout, is reported too, as such
 * (timed: false): the application waits in it or before it (its last op
 * known complete says from where), or is busy elsewhere with nothing left
 * to issue; its GPU start is not known. The reducer notes each such op
 * (tap_hang_note_untimed); the hot path does nothing more. No LTTng event
 * for those: its `started` field cannot say "not known". */
#ifndef NCCLTAP_HANG_H
#define NCCLTAP_HANG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/op_record.h"
#include "state/comm_registry.h"
#include "writers/hang_file.h"

/* Calls fn(op, started, arg) for every op waiting for its events, started
 * when its stream got to it (reducer.h, tap_reducer_each_pending: the
 * reducer's pass sits above the watchdog, which it feeds the untimed ops,
 * so the list comes as an argument). */
typedef void tap_pending_fn(const struct tap_op_rec *op, bool started, void *arg);
typedef void tap_each_pending_fn(tap_pending_fn *fn, void *arg);

/* From the reducer's loop, after each pass. When it fires, it calls
 * before_file(arg) first, then writes the hang file: the caller writes the
 * rank file and the per-op records there, so that the report has them
 * even if the job is killed before its next interval, and a watcher that
 * stops the job once it sees the hang files (as `nccltap demo -s hang`
 * does) finds each process's rank file beside its hang file. */
typedef void tap_before_hang_file_fn(void *arg);
void tap_hang_check(uint64_t now_ns, tap_each_pending_fn *each_pending, tap_before_hang_file_fn *before_file,
                    void *arg);

/* From the reducer, for each op it counts without a time (sampled out,
 * or no event to time it with; not captured into a CUDA graph, whose
 * replays make no call): the one that is its communicator's last op
 * issued when the reducer sees it is kept. Only those can be the last
 * when the process goes quiet; the others (most, in a burst) cost a load
 * and a compare: the reducer's work per call is budgeted
 * (perf.callgrind_cost). */
void tap_hang_note_last_untimed(const struct tap_op_rec *op);
static inline void tap_hang_note_untimed(const struct tap_op_rec *op)
{
    if (op->seq + 1 == atomic_load_explicit(&op->comm->seq, memory_order_relaxed))
        tap_hang_note_last_untimed(op);
}

/* In a forked child. */
void tap_hang_reset(void);

#endif
