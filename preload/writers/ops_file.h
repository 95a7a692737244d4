/* The per-op file (ops_file_format.h), written by default for every timed
 * op: what `nccltap report` matches across ranks. Reducer thread only:
 * records are buffered and written every interval, when the buffer fills,
 * and at exit. NCCLTAP_OPS_MAX_MB bounds it (0: none written). */
#ifndef NCCLTAP_OPS_FILE_H
#define NCCLTAP_OPS_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "writers/ops_log.h"

/* Whether records are wanted (NCCLTAP_OPS_MAX_MB > 0). */
bool tap_ops_file_enabled(void);
void tap_ops_file_write(const struct tap_completion *c);
void tap_ops_file_flush(void);
/* Records dropped: overwritten (the ring was full) or not written. */
uint64_t tap_ops_file_dropped(void);
/* In a forked child: the parent's file is not the child's. */
void tap_ops_file_reset(void);

#endif
