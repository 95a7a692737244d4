/* The per-rank output: NCCLTAP_DIR/nccltap-<run>@<host>-<pid>.json (output.h), rewritten
 * atomically (temporary file, then rename) every interval and at exit, so a
 * job that is killed still leaves its last interval. Reducer thread only. */
#ifndef NCCLTAP_RANK_FILE_H
#define NCCLTAP_RANK_FILE_H

#include <stdbool.h>

#include "writers/snapshot.h"

/* Returns 0, or -1 after saying once on stderr why the file could not be
 * written (the application goes on either way). */
int tap_rank_file_write(const struct tap_snapshot *snap, bool final);

/* The file's path, for messages. */
const char *tap_rank_file_path(void);

/* Whether the file has been written (at least one interval). */
bool tap_rank_file_written(void);

/* In a forked child: its file (another pid) is not written yet. */
void tap_rank_file_reset(void);

/* One line on stderr summing up this process's run: rank 0 only, every
 * rank with NCCLTAP_VERBOSE=1. */
void tap_print_summary(const struct tap_snapshot *snap);

#endif
