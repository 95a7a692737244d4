/* The per-rank output: NCCLTAP_DIR/nccltap-<run>@<host>-<pid>.json (output.h), rewritten
 * atomically (temporary file, then rename) every interval and at exit, so a
 * job that is killed still leaves its last interval. Reducer thread only. */
#ifndef NCCLTAP_RANK_FILE_H
#define NCCLTAP_RANK_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "writers/snapshot.h"

/* Returns 0, or -1 after saying once on stderr why the file could not be
 * written (the application goes on either way). */
int tap_rank_file_write(const struct tap_snapshot *snap, bool final);

/* How the calls made so far are accounted for, as the file's totals say. */
struct tap_call_tally {
    uint64_t calls;      /* every call: the communicators' seqs, and after_exit */
    uint64_t dropped;    /* lost: the queue was full */
    uint64_t after_exit; /* made after exit closed the queue */
    uint64_t in_flight;  /* in no row or counter yet */
};
struct tap_call_tally tap_call_tally(const struct tap_snapshot *snap);

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
