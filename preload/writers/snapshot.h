/* What the reducer knows that the writers print: its counts, the cost of
 * timing, the time in NCCL and the ops still pending. The runtime takes one
 * from the reducer (reducer.h, tap_reducer_snapshot) at each interval and
 * at exit and hands it to each writer, so that no writer reads the
 * reducer's state. Reducer thread only; valid until the next snapshot. */
#ifndef NCCLTAP_SNAPSHOT_H
#define NCCLTAP_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "stats/steps_online.h"

/* Counted by the reducer. */
struct tap_reducer_counts {
    uint64_t timed;     /* ops with a precise duration (a timed pair) */
    uint64_t stamped;   /* ops whose interval is known from marks */
    uint64_t failed;    /* calls NCCL rejected */
    uint64_t simulated; /* calls in a group closed by ncclGroupSimulateEnd: never run */
    uint64_t pending;   /* timed ops still running at exit */
    uint64_t lost;      /* events that never completed (context destroyed) */
    uint64_t replays_timed; /* executions of captured ops timed */
    uint64_t replays_lost;  /* ... whose events never completed, or were pending at exit */
};

/* One communicator's progress, for the live hang verdict (prom_metrics.h):
 * ops counted by seq, so issued >= arrived >= completed. */
struct tap_comm_progress {
    uint64_t issued;    /* ops issued: the next op's seq */
    /* Ops the GPU stream is known to have reached: the completed ones, and
     * the oldest timed op not complete once its start event has completed
     * (the stream got to it: this rank arrived). An op not timed is known
     * reached only when a later timed op completes. */
    uint64_t arrived;
    /* Ops known complete: up to the latest timed op completed (NCCL runs a
     * communicator's ops in the order issued, so every op before it, timed
     * or not, is complete too). */
    uint64_t completed;
    uint64_t pending;   /* timed ops issued and not complete */
    /* The oldest of those (when pending > 0): its seq, the CLOCK_MONOTONIC
     * of its call, its bytes and op. */
    uint64_t oldest_seq, oldest_enqueue_ns, oldest_bytes;
    uint8_t oldest_op;
    /* Its steps, found from its calls while the job runs (has_steps). */
    bool has_steps;
    struct tap_comm_steps steps;
};

/* The OS's view of the process's threads (reducer/os_switch.c): each time
 * a followed thread was off its CPU, from perf_event_open's context-switch
 * records. Times CLOCK_MONOTONIC ns, the clock of the ops. */
struct tap_os_off {
    uint64_t out_ns, in_ns;  /* switched out, switched back in */
    uint32_t tid;
    uint16_t cpu;            /* the CPU it left */
    uint8_t preempted;       /* it was runnable: another task took the CPU */
};

/* A thread followed: one that called NCCL, or one of NCCL's own (by name). */
struct tap_os_thread {
    uint32_t tid;
    char comm[16];
    bool nccl;
};

struct tap_os_view {
    const char *mode;        /* "switch" or "off" */
    const char *note;        /* why nothing is recorded, "" when recording */
    uint64_t lost;           /* records the kernel dropped: rings overrun (PERF_RECORD_LOST) */
    uint64_t dropped;        /* intervals past the bound, the oldest dropped */
    uint64_t unfollowed;     /* threads past the bound, not followed */
    const struct tap_os_thread *threads;
    unsigned nthreads;
    /* The intervals, oldest first: off[(first + i) % cap] for i < noff. */
    const struct tap_os_off *off;
    unsigned noff, first, cap;
};

struct tap_snapshot {
    struct tap_reducer_counts counts;
    uint64_t pair_cost_ns;       /* host cost of timing one op (its event pair) */
    uint64_t busy_union_ns;      /* time with timed NCCL work on the GPU (busy.h) */
    uint64_t busy_sum_ns;        /* their durations summed */
    /* How far its GPU times may be off the host's clock from calibration
     * (gpu_timing.h, tap_clock_calibration_error_ns); 0 before any. */
    uint64_t clock_calibration_error_ns;
    /* Progress by communicator creation number (tap_comm.creation);
     * communicators past the end have none known. */
    const struct tap_comm_progress *progress;
    unsigned nprogress;
    const struct tap_os_view *os;  /* never NULL once taken */
};

#endif
