/* What the reducer knows that the writers print: its counts, the cost of
 * timing, the time in NCCL and the ops still pending. The runtime takes one
 * from the reducer (reducer.h, tap_reducer_snapshot) at each interval and
 * at exit and hands it to each writer, so that no writer reads the
 * reducer's state. Reducer thread only; valid until the next snapshot. */
#ifndef NCCLTAP_SNAPSHOT_H
#define NCCLTAP_SNAPSHOT_H

#include <stdint.h>

/* Counted by the reducer. */
struct tap_reducer_counts {
    uint64_t timed;     /* ops with a duration */
    uint64_t failed;    /* calls NCCL rejected */
    uint64_t simulated; /* calls in a group closed by ncclGroupSimulateEnd: never run */
    uint64_t pending;   /* timed ops still running at exit */
    uint64_t lost;      /* events that never completed (context destroyed) */
};

struct tap_snapshot {
    struct tap_reducer_counts counts;
    uint64_t pair_cost_ns;       /* host cost of timing one op (its event pair) */
    uint64_t busy_union_ns;      /* time with timed NCCL work on the GPU (busy.h) */
    uint64_t busy_sum_ns;        /* their durations summed */
    /* Timed ops issued and not complete, by communicator creation number
     * (tap_comm.creation); communicators past the end have none counted. */
    const uint64_t *pending_by_comm;
    unsigned npending_by_comm;
};

#endif
