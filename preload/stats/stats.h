/* Statistics per (communicator, op, datatype, size class), owned by the
 * reducer thread: nothing else reads or writes them, so no locks. The
 * process's table of rows (struct tap_stat, stat_row.h, which also says
 * how a call adds to a row) and the no-memory notes: the glue between the
 * shim and the shared reduction. */
#ifndef NCCLTAP_STATS_H
#define NCCLTAP_STATS_H

#include <stdint.h>

#include "base/op_record.h"
#include "stats/stat_row.h"

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

/* In a forked child: the parent's statistics are not the child's. */
void tap_stats_reset(void);

#endif
