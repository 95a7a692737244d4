/* One babeltrace2 event message to a struct tev. */
#ifndef NCCLTAP_CLI_TRACE_DECODE_H
#define NCCLTAP_CLI_TRACE_DECODE_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

#include "trace_events.h"

/* Fills *e from an event message; false when the event is neither one of
 * nccltap's nor one of the kernel events of trace_events.h (other providers,
 * other kernel events). A field the event lacks
 * (another version of the provider) is said once on stderr and left 0. */
bool tev_decode(const bt_message *msg, struct tev *e);

/* At a stream's beginning (msg): fn(e, data) with a TEV_DECLARED for each
 * nccltap event its class declares that the report reads the absence of
 * (op_complete, process_end). LTTng declares every event the session
 * enabled, and only those, whether or not one was emitted. */
void tev_declared(const bt_message *msg, tev_fn fn, void *data);

#endif
