/* NCCL Inspector's Prometheus gauges (plugins/profiler/inspector in NCCL
 * 2.29.7+), so that dashboards made for Inspector read nccltap's files:
 * per (communicator name, nranks, collective or p2p operation, Inspector's
 * message_size bucket) on a GPU, over the ops that completed in the last
 * interval, the geometric mean of their busbw (GB/s) and the mean of their
 * times (us), as Inspector computes them:
 *   nccl_bus_bandwidth_gbs, nccl_collective_exec_time_microseconds,
 *   nccl_p2p_bus_bandwidth_gbs, nccl_p2p_exec_time_microseconds.
 * Reducer thread only: it observes every timed op (the reducer's
 * completion path, never the application's), and the Prometheus writer
 * writes and then forgets them at each interval. */
#ifndef NCCLTAP_PROM_INSPECTOR_H
#define NCCLTAP_PROM_INSPECTOR_H

#include <stdint.h>
#include <stdio.h>

#include "writers/ops_log.h"

/* Distinct (GPU, name, nranks, op, size bucket) kept per interval; ops of
 * further keys are counted (tap_prom_inspector_overflow), not kept. */
#define TAP_PROM_INSPECTOR_KEYS 2048

/* One timed op. */
void tap_prom_inspector_observe(const struct tap_completion *c);

/* The four families, for the keys of communicators on the GPU `gpu_uuid`
 * ("" for those without one); `node` and `slurm_job_id` as Inspector's
 * labels ("" is written "unknown", as Inspector does); `pid`, when not
 * NULL or "", as one more label (a second process on the GPU). */
void tap_prom_inspector_write(FILE *f, const char *gpu_uuid, const char *node, const char *slurm_job_id,
                              const char *pid);

/* Ends the interval: the next write covers the ops observed after this. */
void tap_prom_inspector_next_interval(void);

/* Ops not kept since the start: their key did not fit the table. */
uint64_t tap_prom_inspector_overflow(void);

/* In a forked child: the parent's ops are not the child's. */
void tap_prom_inspector_reset(void);

#endif
