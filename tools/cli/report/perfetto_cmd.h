/* `nccltap report --perfetto`. perfetto_cmd.c */
#ifndef NCCLTAP_CLI_REPORT_PERFETTO_CMD_H
#define NCCLTAP_CLI_REPORT_PERFETTO_CMD_H

#include <stdbool.h>

#include "model.h"
#include "timeline.h"

/* "0,2,5-7" into a malloc'ed array of *n ranks; -1 when it is not that. */
int parse_rank_list(const char *s, int **ranks, size_t *n);

/* True when the file `path` can be made in its directory; otherwise says
 * so (after `argv0: `), naming the directory. Before the run is read, so
 * that a mistyped directory costs no loading. */
bool perfetto_dir_writable(const char *argv0, const char *path);

/* Writes r's timeline to `path` as Chrome trace-event JSON and says so on
 * stderr. Returns 0, or -1 after saying why. */
int report_perfetto(const struct report *r, const char *path, const struct tl_options *o);

#endif
