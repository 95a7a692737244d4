/* The rows of one traced process: the statistics the shim keeps per
 * (communicator, rank, op, datatype, size class), reduced from the
 * process's events by the shim's own code (stats/stat_row.h), into the
 * model as the per-rank file's "ops" (rank_fill.h). Called on the
 * report's loading thread. */
#ifndef NCCLTAP_CLI_TRACE_ROWS_H
#define NCCLTAP_CLI_TRACE_ROWS_H

#include <jansson.h>
#include <stdint.h>

#include "rank_fill.h"
#include "trace_model.h"

/* What the rows leave out or time, for the process's totals. */
struct trace_row_totals {
    uint64_t timed;       /* ops with an op_complete of a timed pair */
    uint64_t stamped;     /* ops with an op_complete from marks */
    uint64_t simulated;   /* ops of groups closed by ncclGroupSimulateEnd */
    uint64_t failed;      /* ops of groups whose ncclGroupEnd failed */
    uint64_t in_flight;   /* ops never completed, from what a hang knew complete on */
};

/* The rows into w's process, after its communicators (rank_fill_row).
 * Sorts p's ops, completions and groups in place. Into `by_site` (an
 * object), each call site's share of the rows, as the per-rank file's
 * "callsites"[].rows (kept as JSON by both readers): site id (decimal) ->
 * array of {comm, op, dtype, size_class, calls, bytes_total, timed,
 * time_ns, bw_bytes, bw_busbytes}, the row's first timed call left out of
 * the times as the row leaves it out. */
void trace_rows(struct rank_fill *w, struct tm_proc *p, struct trace_row_totals *t, json_t *by_site);

#endif
