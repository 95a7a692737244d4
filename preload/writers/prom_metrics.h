/* nccltap's own Prometheus metrics for one GPU's file (prom_file.h): per
 * (communicator, op, size class), summed over datatypes,
 *   nccltap_ops_total, nccltap_bytes_total            counters
 *   nccltap_op_duration_seconds                       histogram of every
 *       timed op over the run (_bucket, _sum, _count)
 *   nccltap_busbw_gbs, nccltap_algbw_gbs              gauges: total bytes
 *       over total time of the last interval's timed ops (absent when the
 *       interval had none)
 * (the histogram's _sum and _count are also the arrival figures: a rank's
 * mean duration against its communicator's longest says how late it came,
 * README "Live verdicts"); per communicator its progress (snapshot.h,
 * struct tap_comm_progress): nccltap_pending_ops (timed ops not complete),
 * nccltap_comm_issued_ops, nccltap_comm_arrived_ops,
 * nccltap_comm_completed_ops, and, while an op is pending,
 * nccltap_comm_oldest_pending_timestamp_seconds (labelled with that op and
 * its size class); and per process nccltap_dropped_ops_total, nccltap_untimed_ops_total and
 * nccltap_prom_ops_not_kept_total. Reducer thread only: it reads the
 * statistics (stats.h) it owns. */
#ifndef NCCLTAP_PROM_METRICS_H
#define NCCLTAP_PROM_METRICS_H

#include <stdbool.h>
#include <stdio.h>

#include "writers/snapshot.h"

/* The histogram's bucket bounds: 1.04^(first + k * step) ns for k from 0
 * to TAP_PROM_BUCKETS - 1 (2.0 us to 5.5 s, each 2.03 times the last),
 * then +Inf. They are bounds of the statistics' own log-scale histogram
 * (stats.h), so the counts are exact, not re-binned. */
#define TAP_PROM_BUCKET_FIRST 194
#define TAP_PROM_BUCKET_STEP 18
#define TAP_PROM_BUCKETS 22

/* The families for communicators on the GPU `gpu_uuid` ("" for those
 * without one); with `process`, the process's counters too. */
void tap_prom_metrics_write(FILE *f, const char *gpu_uuid, bool process, const struct tap_snapshot *snap);

/* Ends the interval: the bandwidth gauges of the next write cover what
 * completes after this. */
void tap_prom_metrics_next_interval(void);

/* In a forked child. */
void tap_prom_metrics_reset(void);

#endif
