/* A traced process as a per-rank document ("nccltap-rank/1", the format of
 * the shim's nccltap-<host>-<pid>.json), so that the report reads a trace
 * with the same code as the files. */
#ifndef NCCLTAP_CLI_TRACE_DOC_H
#define NCCLTAP_CLI_TRACE_DOC_H

#include <jansson.h>

#include "trace_model.h"

/* A new document, or NULL when jansson cannot build it. */
json_t *trace_doc(struct tm_proc *p);

#endif
