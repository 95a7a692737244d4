/* The time the process had NCCL work running on the GPU: the union of the
 * intervals of its timed operations (a group once), over all its streams
 * and ranks, so that ops running side by side count once and the share of
 * the wall time it makes is never above 1. Reducer thread only. busy.c */
#ifndef NCCLTAP_BUSY_H
#define NCCLTAP_BUSY_H

#include <stdint.h>

/* A timed unit ran from start_ns to end_ns (CLOCK_MONOTONIC). */
void tap_busy_add(uint64_t start_ns, uint64_t end_ns);

/* The union of the intervals added so far, in ns. */
uint64_t tap_busy_union_ns(void);

/* Their durations summed (overlaps counted as often as they overlap). */
uint64_t tap_busy_sum_ns(void);

/* In a forked child. */
void tap_busy_reset(void);

#endif
