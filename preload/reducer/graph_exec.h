/* Executions of captured NCCL ops: each launch of an executable graph
 * (state/graph_table.h) runs every op captured into its graph once more;
 * the reducer counts them into the ops' rows (stats.h, executions).
 * Reducer thread only. */
#ifndef NCCLTAP_GRAPH_EXEC_H
#define NCCLTAP_GRAPH_EXEC_H

/* Counts the launches since the last call, of every executable graph. */
void tap_graph_exec_count(void);

/* Counts the last launches of the executable graphs retired (updated or
 * destroyed) since the last call, so that their slots are freed: each
 * pass, so that an application that updates or re-instantiates graphs
 * fast holds few. */
void tap_graph_exec_reap(void);

#endif
