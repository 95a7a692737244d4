/* The state the hot path and the reducer share besides the registries:
 * the counters the hot path keeps, the queue of op records and the
 * interval number. Written by application threads (atomics only) and read
 * by the reducer and the writers it hands them to. */
#ifndef NCCLTAP_SHARED_H
#define NCCLTAP_SHARED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct mpmc_queue;

/* Counted on the hot path. Calls are counted per communicator (its
 * sequence number); tap_comm_total_calls() sums them. */
struct tap_totals {
    _Atomic uint64_t dropped;  /* records lost: the queue was full */
    _Atomic uint64_t untimed;  /* wanted timing, no event was free */
    _Atomic uint64_t captured; /* issued during CUDA graph capture */
    /* calls made after exit closed the queue (tap_closed): counted here
     * only, with no seq; the rank file's calls include them */
    _Atomic uint64_t after_exit;
};
extern struct tap_totals tap_totals;

/* Set once, at exit, before the reducer's last passes: from then on no
 * call is recorded (each counts as after_exit), so only the calls already
 * inside NCCL can still add a record, and the last pass ends however fast
 * other threads go on calling. */
extern _Atomic bool tap_closed;

/* Op records to the reducer; NULL until the first communicator appears. */
extern struct mpmc_queue *_Atomic tap_ring;

/* Allocations that failed, in the shim's state, statistics or the reducer
 * (totals no_memory): what they would have held is still counted, in
 * (overflow), without its group or its time, or as a call in no row
 * (tap_stats_calls_without_row). The first is said on stderr. Any thread. */
extern _Atomic uint64_t tap_no_memory;
void tap_note_no_memory(const char *what);


#endif
