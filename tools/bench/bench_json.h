/* --json: one file per rank with everything it measured. */
#ifndef NCCLTAP_BENCH_JSON_H
#define NCCLTAP_BENCH_JSON_H

#include "rank_ctx.h"

/* FILE with ".rank<R>" before its extension, or appended when it has none.
 * Returns a malloc'ed path. */
char *json_rank_path(const char *file, int rank);

/* Writes the rank's file (atomically: temporary file, then rename). Dies on
 * error. */
void json_write(const struct rank_ctx *rk);

#endif
