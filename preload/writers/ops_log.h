/* Optional per-operation log (NCCLTAP_OPS_JSONL): one JSON line per timed
 * operation, for analysis that needs every call, not statistics. `1`:
 * nccltap's own lines, in NCCLTAP_DIR/nccltap-<run>@<host>-<pid>.ops.jsonl;
 * `inspector`: NCCL Inspector's records (inspector_log.h), in
 * ....inspector.jsonl. At most NCCLTAP_OPS_MAX_MB per process (line_log.h:
 * the lines past it are counted, not written). Reducer thread only;
 * written every interval and at exit. */
#ifndef NCCLTAP_OPS_LOG_H
#define NCCLTAP_OPS_LOG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/op_record.h"

struct tap_completion {
    const struct tap_op_rec *op;
    uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC; 0 if not calibrated */
    uint64_t duration_ns;
    uint32_t group_ops;        /* 1 when not grouped */
    double algbw_gbs;          /* of the op, or of its group */
    double busbw_gbs;
    /* Known from marks (polled), not a timed pair: start and end are
     * within the polls' resolution, each bound's width below. */
    bool stamped;
    bool start_at_call;        /* stamped: the start is the call (its stream was idle), the
                                * low end of its span; else the span's middle */
    uint64_t start_span_ns, end_span_ns;
    /* Timed: what polling its events gave, as a stamp would (0 if not). */
    uint64_t polled_start_ns, polled_end_ns;
};

void tap_ops_log_write(const struct tap_completion *c);
void tap_ops_log_flush(void);
/* Lines not written (totals.ops_lines_dropped): past NCCLTAP_OPS_MAX_MB,
 * or, when out_of_room, past the room the rank file keeps (output.h). */
uint64_t tap_ops_log_not_written(void);
bool tap_ops_log_out_of_room(void);
/* In a forked child: the parent's unwritten lines and open file are not
 * the child's. */
void tap_ops_log_reset(void);

#endif
