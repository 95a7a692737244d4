/* Executions of captured NCCL ops: each launch of an executable graph
 * (state/graph_table.h) runs every op captured into its graph once more;
 * the reducer counts them into the ops' rows (stats.h, executions).
 * Reducer thread only. */
#ifndef NCCLTAP_GRAPH_EXEC_H
#define NCCLTAP_GRAPH_EXEC_H

/* Counts the launches since the last call. */
void tap_graph_exec_count(void);

/* In a forked child. */
void tap_graph_exec_reset(void);

#endif
