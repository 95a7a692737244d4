/* Statistics per (communicator, op, datatype, size class), owned by the
 * reducer thread: nothing else reads or writes them, so no locks. */
#ifndef NCCLTAP_STATS_H
#define NCCLTAP_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/op_record.h"

/* Log-scale histogram: bucket b holds durations in [1.04^b, 1.04^(b+1)) ns,
 * so a percentile read as the bucket's geometric middle is within 2%. */
#define TAP_HIST_BASE 1.04
#define TAP_HIST_BUCKETS 720 /* up to about 30 minutes */

/* The histogram bucket of a duration. */
unsigned tap_stat_hist_bucket(uint64_t ns);

/* 160 bytes: rows are indexed on every call, and 160 is 5 x 32. */
struct tap_stat {
    struct tap_comm *comm;
    int32_t dtype;
    uint8_t op;
    uint8_t size_class;
    /* The first timed call is kept apart: NCCL connects lazily, and the
     * first call that needs a connection can take 10^4 times the steady
     * time. Everything below it is over the other timed calls, `steady`. */
    bool has_first;
    uint64_t calls;
    uint64_t bytes_total;
    uint64_t group_ops;    /* sum over calls of the ops in the call's group (1 alone) */
    uint64_t captured;     /* of the calls, issued into a CUDA graph (captures) */
    uint64_t executions;   /* runs of those captured calls, one per graph launch */
    uint64_t timed;        /* calls with a precise duration (a timed pair) */
    uint64_t stamped;      /* calls whose interval is known from marks (polled) */
    uint64_t first_ns;
    uint64_t steady;
    uint64_t time_sum_ns, time_min_ns, time_max_ns;
    double algbw_sum, busbw_sum;  /* GB/s, summed over steady calls */
    double bw_bytes, bw_busbytes; /* bytes behind time_sum_ns, and x factor */
    uint32_t *hist;               /* TAP_HIST_BUCKETS counts, once timed */
    uint32_t site_hint;           /* site_stats.h's entry of its last call's site */
};
_Static_assert(sizeof(struct tap_stat) == 160, "a row's size: see above");

/* How a call was timed. A grouped call carries its whole group's time and
 * bytes: its group is the unit that ran. */
struct tap_timing {
    uint64_t duration_ns;
    double bytes;    /* the op's S, or the sum over its group */
    double busbytes; /* the same, each times its busbw factor */
    bool stamped;    /* from marks, to the polls' resolution: counted as
                      * stamped, kept out of the times and histograms */
};

/* Counts one call; `t` is NULL when it was neither timed nor stamped.
 * `group_ops` is the number of ops in its group, 1 when it was not
 * grouped. */
void tap_stats_record(const struct tap_op_rec *op, uint32_t group_ops, const struct tap_timing *t);

/* A call (recorded by tap_stats_record too) was captured into a graph.
 * Without memory for its row it is in none (tap_stats_record counts it). */
void tap_stats_record_captured(const struct tap_op_rec *op);

/* The time of one execution of the captured op `op` (a replay record):
 * counted in its row's times, not as a call. */
void tap_stats_record_replay(const struct tap_op_rec *op, const struct tap_timing *t);

/* `n` more executions of the captured op `op` (launches of its graph). */
void tap_stats_record_executions(const struct tap_op_rec *op, uint64_t n);

unsigned tap_stats_count(void);
/* Calls recorded when no row could be allocated for them (each also
 * counted in totals.no_memory): they are in no row. */
uint64_t tap_stats_calls_without_row(void);
const struct tap_stat *tap_stats_at(unsigned i);

/* Duration at quantile q (0..1) of the steady timed calls, in ns; 0 when
 * there are none. */
double tap_stat_quantile_ns(const struct tap_stat *s, double q);

/* In a forked child: the parent's statistics are not the child's. */
void tap_stats_reset(void);

#endif
