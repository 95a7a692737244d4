/* LTTng tracepoints in the shim. TAP_TRACE(event, args...) emits an event
 * of the nccltap provider (tracepoints/nccltap_tp.h); when nccltap is built
 * without liblttng-ust, or no session records the event, it costs a load
 * and a branch. */
#ifndef NCCLTAP_TRACING_H
#define NCCLTAP_TRACING_H

#ifdef NCCLTAP_WITH_LTTNG
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "nccltap_tp.h"
#define TAP_TRACE(event, ...) lttng_ust_tracepoint(nccltap, event, __VA_ARGS__)
#define TAP_TRACING(event) lttng_ust_tracepoint_enabled(nccltap, event)
#else
#define TAP_TRACE(event, ...) ((void)0)
#define TAP_TRACING(event) 0
#endif

/* Loads the provider when NCCLTAP_LTTNG says so: 1 always, 0 never, auto
 * when liblttng-ust can reach a session daemon (its socket exists), so that
 * a process without one never waits for it. Cold path, once. */
void tap_tracing_start(void);

#endif
