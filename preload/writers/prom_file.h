/* Prometheus textfiles for node_exporter's textfile collector
 * (NCCLTAP_PROM_DIR): one file per GPU, NCCLTAP_PROM_DIR/nccltap_<GPU
 * UUID>.prom, holding the metrics of the communicators on it (and, in the
 * process's first file, the process's own counters); for communicators
 * without a known GPU, nccltap_<host>-<pid>.prom. Each is replaced whole
 * every interval (out_file.h: a temporary file, then rename; mode 0644 so
 * that node_exporter, another user, reads it) and removed at exit unless
 * NCCLTAP_PROM_KEEP=1. Reducer thread only. README ("Prometheus") lists
 * the metrics and their labels. */
#ifndef NCCLTAP_PROM_FILE_H
#define NCCLTAP_PROM_FILE_H

#include <stdbool.h>

#include "writers/ops_log.h"
#include "writers/snapshot.h"

/* Whether NCCLTAP_PROM_DIR asks for the files. */
bool tap_prom_enabled(void);

/* At the reducer's start, its communicators registered: opens the
 * directory, and when it cannot be used rank 0 says so, once for the job,
 * before any write (a write without it opens and says it then). */
void tap_prom_start(void);

/* A timed op has completed (Inspector's gauges are over the interval's). */
void tap_prom_observe(const struct tap_completion *c);

/* Writes every file: each interval. Returns 0, or -1 when a file could not
 * be written (said once; the previous version of it stays). */
int tap_prom_write(const struct tap_snapshot *snap);

/* At exit: writes the files a last time and leaves them with
 * NCCLTAP_PROM_KEEP=1, otherwise removes the ones this process wrote, and
 * rank 0 says so (a short run's empty directory is no fault). */
void tap_prom_finish(const struct tap_snapshot *snap);

/* In a forked child: its files (if any) are its own. */
void tap_prom_reset(void);

#endif
