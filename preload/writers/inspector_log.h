/* One timed operation as NCCL Inspector's JSON output writes one
 * (NCCLTAP_OPS_JSONL=inspector): a self-contained line with Inspector's
 * `header` (the communicator), `metadata` (the writer) and `coll_perf` or
 * `p2p_perf` (the operation), with Inspector's field names, types, units
 * and key order (its format v4.0, plugins/profiler/inspector in NVIDIA's
 * nccl repository), so that tools written for Inspector's logs (its
 * perf_summary_exporter.py) read nccltap's. Where nccltap's meaning
 * differs (the timing source, sequence numbers, bandwidth of grouped and
 * all-to-all operations), README says how. */
#ifndef NCCLTAP_INSPECTOR_LOG_H
#define NCCLTAP_INSPECTOR_LOG_H

#include <stddef.h>

#include "writers/ops_log.h"

/* Room for any line: names are at most 63 (communicator) and 255 (host)
 * bytes, 6 of JSON each when escaped, the rest is numbers. */
#define TAP_INSPECTOR_LINE_MAX 4096

/* The record of `c` into line (cap bytes), its newline included. Returns
 * its length, 0 if it did not fit. Reducer thread. */
size_t tap_inspector_line(char *line, size_t cap, const struct tap_completion *c);

#endif
