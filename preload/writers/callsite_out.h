/* Call sites leave the process two ways: in the per-rank file (their
 * frames, statistics per row, and the load map that symbolizes them), and
 * as LTTng events (one `callsite` per site, one `python_frame` per line of
 * Python its calls came from, one `module` per object its
 * frames are in, `python_unread` when calls whose Python frame could not
 * be read were made since). Reducer thread. callsite_out.c */
#ifndef NCCLTAP_CALLSITE_OUT_H
#define NCCLTAP_CALLSITE_OUT_H

#include <stdio.h>

/* Writes "callsite_depth", "callsites" and "modules" members, each line
 * ending with a comma, into the per-rank file's object. */
void tap_callsites_write_json(FILE *f);

/* Emits the events of sites not emitted yet, and the unread calls' count
 * when it grew, when a session records them. */
void tap_callsites_trace_new(void);

/* In a forked child: its trace is another process's. */
void tap_callsites_after_fork(void);

#endif
