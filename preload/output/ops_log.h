/* Optional per-operation log (NCCLTAP_OPS_JSONL=1): one JSON line per timed
 * operation, in NCCLTAP_DIR/nccltap-<run>@<host>-<pid>.ops.jsonl, for
 * analysis that needs every call, not statistics. Reducer thread only;
 * gathered in memory and written in whole lines (write(2)) when full,
 * every interval and at exit. */
#ifndef NCCLTAP_OPS_LOG_H
#define NCCLTAP_OPS_LOG_H

#include <stdint.h>

#include "op_record.h"

struct tap_completion {
    const struct tap_op_rec *op;
    uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC; 0 if not calibrated */
    uint64_t duration_ns;
    uint32_t group_ops;        /* 1 when not grouped */
    double algbw_gbs;          /* of the op, or of its group */
    double busbw_gbs;
};

void tap_ops_log_write(const struct tap_completion *c);
void tap_ops_log_flush(void);
/* In a forked child: the parent's unwritten lines and open file are not
 * the child's. */
void tap_ops_log_reset(void);

#endif
