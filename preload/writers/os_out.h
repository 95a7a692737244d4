/* The rank file's "os" member: what NCCLTAP_OS recorded of the process's
 * threads (snapshot.h, struct tap_os_view), for the report's OS
 * interference section. Reducer thread (the rank file's writer). */
#ifndef NCCLTAP_OS_OUT_H
#define NCCLTAP_OS_OUT_H

#include <stdio.h>

#include "writers/snapshot.h"

/* Writes `  "os": {...},\n`; nothing when `os` is NULL. */
void tap_os_write_json(FILE *f, const struct tap_os_view *os);

#endif
