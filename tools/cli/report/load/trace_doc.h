/* A traced process into the report: one struct rank_file, filled from the
 * process's events (trace_model.h) through the fill that the per-rank
 * files' reader uses (rank_fill.h), so that a trace and the shim's files
 * are held to the same defaults and checks. Its call sites, modules and
 * OS records are built as the JSON a rank file holds them in and handed
 * to the same loaders (rank_fill_kept), as a jansson tree, never as text.
 * Called on the report's loading thread. */
#ifndef NCCLTAP_CLI_TRACE_DOC_H
#define NCCLTAP_CLI_TRACE_DOC_H

#include "model.h"
#include "trace_model.h"

/* Appends p to r as a process named `path` in messages. Sorts p's ops and
 * calls' completions by (communicator, rank, sequence number), for its op
 * events. Returns 0, or -1 when it was left out (said on stderr, counted
 * in r->nskipped). */
int trace_doc_add(struct report *r, struct tm_proc *p, const char *path);

#endif
