/* `nccltap report --perfetto`. perfetto_cmd.c */
#ifndef NCCLTAP_CLI_REPORT_PERFETTO_CMD_H
#define NCCLTAP_CLI_REPORT_PERFETTO_CMD_H

#include <stdbool.h>

#include "model.h"
#include "timeline.h"

/* "0,2,5-7" into a malloc'ed array of *n ranks; -1 when it is not that. */
int parse_rank_list(const char *s, int **ranks, size_t *n);

/* Writes r's timeline t to `path` as Chrome trace-event JSON and says so
 * on stderr. Returns 0, or -1 after saying why. */
int report_perfetto(const struct report *r, const struct timeline *t, const char *path);

#endif
