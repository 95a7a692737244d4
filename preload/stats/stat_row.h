/* One statistics row's reduction: the numbers kept per (communicator, op,
 * datatype, size class) and per call site of a row, and how a call adds to
 * them. The one definition, shared: the shim's statistics (stats.c,
 * site_stats.c) keep their rows with it, and `nccltap report` computes a
 * trace's rows with it (the nccltap_stat_row library), so that both give
 * the same numbers for the same calls.
 *
 * Pure: no globals, no messages; the only allocation is a row's histogram,
 * made at its first timed call, and a failure is returned, not reported.
 * A row and its site entries belong to their caller and are used from one
 * thread (the shim's reducer thread; the report's loading thread).
 *
 * Invariants of a row: calls >= timed + stamped (a stamped call has no
 * time); timed = has_first + steady: the first timed call's time is kept
 * apart (first_ns), every other figure of time is over the `steady` rest;
 * time_min_ns is UINT64_MAX until a steady call. */
#ifndef NCCLTAP_STAT_ROW_H
#define NCCLTAP_STAT_ROW_H

#include <stdbool.h>
#include <stdint.h>

/* Log-scale histogram: bucket b holds durations in [1.04^b, 1.04^(b+1)) ns,
 * so a percentile read as the bucket's geometric middle is within 2%. */
#define TAP_HIST_BASE 1.04
#define TAP_HIST_BUCKETS 720 /* up to about 30 minutes */

/* The histogram bucket of a duration. */
unsigned tap_stat_hist_bucket(uint64_t ns);

struct tap_comm; /* the shim's communicator (state/comm_registry.h) */

/* 160 bytes: rows are indexed on every call, and 160 is 5 x 32. */
struct tap_stat {
    struct tap_comm *comm; /* the key, set by the caller (NULL outside the shim) */
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
    uint32_t site_hint;           /* the shim's site entry of its last call's site */
};
_Static_assert(sizeof(struct tap_stat) == 160, "a row's size: see above");

/* The calls one site made of one row (an entry per (site, row)). 64 bytes:
 * the shim indexes an entry on every call (a row's site_hint), and a power
 * of two takes a shift where 56 took three instructions. */
struct tap_site_stat {
    unsigned row;               /* the shim's tap_stats_at(row): its (comm, op, dtype, size class) */
    uint16_t site;              /* callsite.h's id; 0: the table was full */
    uint64_t calls, bytes_total;
    uint64_t timed, time_sum_ns;  /* timed calls but the row's first (tap_stat.first_ns) */
    double bw_bytes, bw_busbytes; /* behind time_sum_ns, as in tap_stat */
    uint64_t unused;            /* to 64 bytes */
};
_Static_assert(sizeof(struct tap_site_stat) == 64, "an entry's size: see above");

/* How a call was timed. A grouped call carries its whole group's time and
 * bytes: its group is the unit that ran. */
struct tap_timing {
    uint64_t duration_ns;
    double bytes;    /* the op's S, or the sum over its group */
    double busbytes; /* the same, each times its busbw factor */
    bool stamped;    /* from marks, to the polls' resolution: counted as
                      * stamped, kept out of the times and histograms */
};

/* An empty row (key fields zero, for the caller to set). */
void tap_stat_init(struct tap_stat *s);

/* Frees the row's histogram (a row of the shim lives as long as it). */
void tap_stat_release(struct tap_stat *s);

/* Counts a call of `bytes` in a group of `group_ops` ops (1 alone): the
 * part of every call, inlined into the shim's per-call path. */
static inline void tap_stat_count_call(struct tap_stat *s, uint64_t bytes, uint32_t group_ops)
{
    s->calls++;
    s->bytes_total += bytes;
    s->group_ops += group_ops;
}

/* The rest of a call counted by tap_stat_count_call: its site's share
 * (`site`, NULL when it has no entry) and its time `t` (NULL when it was
 * neither timed nor stamped; a stamped call is counted, with no time).
 * The row's first timed call is kept out of the site's times, as out of
 * the row's. -1 when the row's histogram could not be allocated: the call
 * is counted, not timed. */
int tap_stat_add_call_detail(struct tap_stat *s, struct tap_site_stat *site, uint64_t bytes,
                             const struct tap_timing *t);

/* A duration that is no call (an execution of a captured call): into the
 * row's times only. -1 as above. */
int tap_stat_add_time(struct tap_stat *s, const struct tap_timing *t);

/* Duration at quantile q (0..1) of the steady timed calls, in ns; 0 when
 * there are none. */
double tap_stat_quantile_ns(const struct tap_stat *s, double q);

#endif
