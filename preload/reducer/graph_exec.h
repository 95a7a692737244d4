/* Executions of captured NCCL ops: each launch of an executable graph
 * (state/graph_table.h) runs every op captured into its graph once more;
 * the reducer counts them into the ops' rows (stats.h, executions).
 * Reducer thread only. */
#ifndef NCCLTAP_GRAPH_EXEC_H
#define NCCLTAP_GRAPH_EXEC_H

#include <stdbool.h>

#include "base/op_record.h"

/* A captured op's record (TAP_OPF_CAPTURED with a graph id): its graph's
 * launches count for it from now on. */
void tap_graph_exec_note_op(const struct tap_op_rec *op);

/* Counts the launches since the last call. A graph whose captured ops have
 * not all reached the reducer yet (queued, or behind a pass's limit) waits,
 * unless `final` (exit: records that never came were counted as dropped). */
void tap_graph_exec_count(bool final);

/* In a forked child. */
void tap_graph_exec_reset(void);

#endif
